/* fs_store_retention: deleting what is kept too long, and bulk deletes of
 * submissions (mod_formsvc/store/retention_store.c, sql/0043).
 * Conventions: fs_store.h. Every delete is a batch of at most lim rows in
 * one short statement (its own transaction), so no lock is held long. */
#ifndef FS_STORE_RETENTION_H
#define FS_STORE_RETENTION_H

#include "fs_store.h"

/* The session's advisory lock that lets one retention run at a time
 * across every child and machine: *got 1 when this session holds it now.
 * Released by fs_store_retention_unlock (or when the session ends). */
fs_error *fs_store_retention_lock(fs_store *st, int *got);
fs_error *fs_store_retention_unlock(fs_store *st);

/* A form whose submissions expire: its effective retention in days. */
typedef struct fs_retention_form {
    const char *form_id, *user_id;
    int days;
} fs_retention_form;

/* Up to lim forms with an id after after (NULL: from the first), in id
 * order, whose submissions expire: those with settings.retentionDays,
 * every form when ceiling (days, 0: none) is set, and every form of an
 * account whose tier has days (tier_days[0] unverified, [1] verified; 0:
 * none); days is the smallest of those set. *forms lives in the store's
 * pool. */
fs_error *fs_store_retention_forms(fs_store *st, int ceiling, const int tier_days[2],
                                   const char *after, int lim, fs_retention_form **forms, int *n);

/* Deletes up to lim of form_id's submissions older than days days, with
 * their files and mail jobs (their events keep no answers); *deleted is
 * how many. */
fs_error *fs_store_retention_batch(fs_store *st, const char *form_id, int days, int lim,
                                   int *deleted);

/* An audit entry of the server itself (actor "formsvc") about form_id
 * with a count. */
fs_error *fs_store_audit_count(fs_store *st, const char *user_id, const char *action,
                               const char *form_id, long long count);

/* Forgets up to lim events (and their deliveries) older than days days;
 * *deleted is how many. */
fs_error *fs_store_event_expire(fs_store *st, int days, int lim, int *deleted);
/* Forgets up to lim audit entries older than days days. */
fs_error *fs_store_audit_expire(fs_store *st, int days, int lim, int *deleted);

/* Makes the first missing partition of submissions, submission_files and
 * events for this month and the next months (sql/0046
 * fs_partitions_ahead): *made is 1 when it made one (call again), 0 when
 * none is missing, -1 when another session is making them. */
fs_error *fs_store_partitions_ahead(fs_store *st, int months, int *made);

/* Drops the first empty partition of those tables whose upper bound is at
 * least keep_months before now (sql/0054 fs_partitions_drop): *dropped is
 * its name (call again), "" when none is left to drop or another session
 * is at it, "-" when a lock was not granted within 200 ms (next run). */
fs_error *fs_store_partitions_drop(fs_store *st, int keep_months, const char **dropped);

/* DELETE /v1/forms/{id}/submissions?before=: *outcome is "deleted" (at
 * most lim were due and are gone now: *deleted, the submissions.deleted
 * event recorded), "queued" (more: the purge purge_id was queued for the
 * retention task) or "not_found" (not the account's form). before is
 * RFC 3339. */
fs_error *fs_store_purge_request(fs_store *st, const char *purge_id, const char *user_id,
                                 const char *form_id, const char *before, int lim,
                                 const char **outcome, int *deleted);
/* The ids of up to lim queued purges, oldest first (*ids in the store's
 * pool). */
fs_error *fs_store_purge_pending(fs_store *st, int lim, const char ***ids, int *n);
/* One batch of purge_id (up to lim rows): *deleted, and *done 1 once it
 * is finished (its event and audit entry recorded) or gone. */
fs_error *fs_store_purge_step(fs_store *st, const char *purge_id, int lim, int *deleted, int *done);

/* Whether the background jobs keep up (for /metrics): accounts being
 * erased (DELETE /v1/me) and the age of the oldest, bulk deletes queued
 * and the age of the oldest, and the seconds until the end of the last
 * partition of submissions (made ahead by the partitions task; 0 when
 * none is known). */
typedef struct fs_jobs_status {
    long long erasures, erasure_oldest_seconds;
    long long purges, purge_oldest_seconds;
    long long partitions_ahead_seconds;
} fs_jobs_status;
fs_error *fs_store_jobs_status(fs_store *st, fs_jobs_status *out);

#endif
