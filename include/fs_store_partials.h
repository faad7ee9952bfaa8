/* fs_store_partials: partial answers of public forms with settings.partial
 * (mod_formsvc/store/partials_store.c, sql/0059): one row per filling-in,
 * updated at each page step, until the submission that completes it
 * (fs_new_submission.partial_id) replaces it or it expires.
 * Conventions: fs_store.h. */
#ifndef FS_STORE_PARTIALS_H
#define FS_STORE_PARTIALS_H

#include "fs_store.h"

/* A partial as stored; strings in the store's pool. */
typedef struct fs_partial {
    const char *id, *form_id;
    const char *resume_hash; /* keyed hash of its resume secret */
    const char *data;        /* JSON object: the answers so far */
    int page;                /* the page reached, 0-based */
    const char *form_version;
    const char *expires_at; /* RFC 3339 */
} fs_partial;
/* The partial id of form form_id; *out NULL when there is none (expired,
 * completed, another form's). */
fs_error *fs_store_partial_get(fs_store *st, const char *id, const char *form_id, fs_partial **out);

/* *done 1 when id is a submission of form_id: the partial was completed. */
fs_error *fs_store_partial_done(fs_store *st, const char *id, const char *form_id, int *done);

/* What a page step stores. */
typedef struct fs_partial_save {
    /* the row the step's resume token names (named), else an id for a
     * new row, used when no row has resume_hash */
    const char *id;
    int named;
    const char *form_id, *resume_hash;
    const char *data_json;
    int page;
    const char *form_version; /* NULL: the form's current one */
    const char *link_id;      /* NULL: not through a link */
    int days;                 /* settings.partialExpiresDays */
    const char *event_id;     /* of its submission.partial event, if one is due */
} fs_partial_save;
typedef enum {
    FS_PARTIAL_SAVED,    /* stored; *expires_at says until when */
    FS_PARTIAL_GONE,     /* no published form */
    FS_PARTIAL_DONE,     /* the id is a (completed) submission already */
    FS_PARTIAL_FORBIDDEN /* the id is another secret's partial */
} fs_partial_outcome;
/* Stores the answers so far (the row with resume_hash in place, or a new
 * row); a submission.partial event at most every 10 minutes per partial
 * (sql/0059). When saved: *id the row's id, *expires_at (RFC 3339) its
 * expiry; else NULL. */
fs_error *fs_store_partial_save(fs_store *st, const fs_partial_save *in, fs_partial_outcome *out,
                                const char **id, const char **expires_at);

/* Queues the composed message (msg_id, RFC 5322 text) of a resume URL to
 * to (mailbox: fs_mail_mailbox of it) in the outbox, within the caps of a
 * respondent's copy: caps[0], caps[1] the owner's daily notifications by
 * tier (unverified, verified), caps[2] a mailbox's a day. *queued 0 when a
 * cap (or a deleted form) kept it back. */
fs_error *fs_store_partial_mail(fs_store *st, const char *form_id, const char *to,
                                const char *mailbox, const char *msg_id, const char *message,
                                const int caps[3], int *queued);

/* A page of the partials of a form of user_id, newest first (id, json
 * with completed: false), after the id after (NULL: from the newest). */
fs_error *fs_store_partial_list(fs_store *st, const char *form_id, const char *user_id,
                                const char *after, int limit, fs_list_page *out);

/* The unfinished partials of a form per page reached: *counts[i] is how
 * many stopped on page i (0-based) for i < *n. */
fs_error *fs_store_partial_pages(fs_store *st, const char *form_id, const char *user_id,
                                 long long **counts, int *n);

/* At most lim expired partials deleted; *deleted how many. days is unused
 * (each row has its own expiry): the retention task's shape. */
fs_error *fs_store_partial_expire(fs_store *st, int days, int lim, int *deleted);

/* At most lim partials of form_id whose answers were last changed more
 * than days ago deleted (the form's retention, which bounds them as it
 * bounds its submissions); *deleted how many. */
fs_error *fs_store_partial_retention(fs_store *st, const char *form_id, int days, int lim,
                                     int *deleted);

#endif
