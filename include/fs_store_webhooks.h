/* fs_store_webhooks: events, webhooks and the delivery queue
 * (mod_formsvc/store/webhooks_store.c, sql/0018). Conventions:
 * fs_store.h. */
#ifndef FS_STORE_WEBHOOKS_H
#define FS_STORE_WEBHOOKS_H

#include "fs_store.h"

/* ---- Events ---- */

/* *exists 1 when event_id is an event of the account (a valid cursor). */
fs_error *fs_store_event_exists(fs_store *st, const char *user_id, const char *event_id,
                                int *exists);
/* A page of the account's events, oldest first after the event after
 * (NULL: from the oldest kept), in commit order: only events of
 * transactions older than every running one, so that a later page never
 * gains an event before the cursor. forms_json (a JSON array of form ids;
 * NULL: any) limits it to those forms, type (NULL: any) to one event
 * type, link_id (NULL: any) to the events of submissions made through that
 * respondent link (their payload's linkId), ask_id (NULL: any) to the
 * events of one ask (its ask.* events and the submission.created of its
 * link); submission.created, submission.updated and ask.answered events
 * only with_submissions (the caller may read submissions). */
fs_error *fs_store_event_list(fs_store *st, const char *user_id, const char *forms_json,
                              int with_submissions, const char *type, const char *link_id,
                              const char *ask_id, const char *after, int limit, fs_list_page *out);
/* Forgets a batch of events (and their deliveries) older than days days
 * (FormsvcEventRetentionDays; the retention task does the same,
 * fs_store_event_expire). */
fs_error *fs_store_event_sweep(fs_store *st, int days);

/* ---- Webhooks ---- */

typedef struct fs_new_webhook {
    const char *id, *user_id, *url;
    const char *events_json;   /* JSON array of event types */
    const char *form_id;       /* NULL: every form */
    const char *sealed_secret; /* the signing secret, sealed (fs_webhook_seal) */
    const char *created_by;    /* the registering key: a delegate's webhook ends with it */
} fs_new_webhook;
/* Registers the webhook if the account has fewer than quota (exact:
 * fs_quota_admit). *json NULL: quota reached. */
fs_error *fs_store_webhook_create(fs_store *st, const fs_new_webhook *w, int quota,
                                  const char **json);
/* The account's webhooks (those of ended delegates not counted). */
fs_error *fs_store_webhook_count(fs_store *st, const char *user_id, int *n);
/* A page of the account's webhooks, newest first; forms_json as for
 * events. A webhook whose registering delegate has ended is gone. */
fs_error *fs_store_webhook_list(fs_store *st, const char *user_id, const char *forms_json,
                                const char *after, int limit, fs_list_page *out);
/* One webhook: *json NULL when the account has none with that id;
 * *form_id the form it is limited to (NULL: every form). */
fs_error *fs_store_webhook_get(fs_store *st, const char *user_id, const char *webhook_id,
                               const char **json, const char **form_id);
/* Deletes the webhook and its deliveries. tree_root: the calling
 * delegate's key id, which deletes only webhooks registered inside its
 * own tree; NULL for an owner key. *deleted 0: none was. */
fs_error *fs_store_webhook_delete(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *tree_root, int *deleted);

/* What PATCH /v1/webhooks/{id} changes; NULL (or -1) leaves a member as is. */
typedef struct fs_webhook_change {
    const char *url;
    const char *events_json; /* JSON array of event types */
    int enabled;             /* 1, 0, or -1: unchanged */
    const char *status;      /* "active" (resume), "paused" (pause), NULL */
} fs_webhook_change;
/* Changes the webhook; tree_root as for fs_store_webhook_delete. *json:
 * the webhook as changed, NULL when there is none (or not in the tree).
 * Resuming a paused webhook ends its run of failures and makes its
 * pending deliveries (those not in flight) due now. */
fs_error *fs_store_webhook_update(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *tree_root, const fs_webhook_change *c,
                                  const char **json);

/* ---- Deliveries ---- */

/* A page of one webhook's deliveries, newest first. */
fs_error *fs_store_delivery_list(fs_store *st, const char *user_id, const char *webhook_id,
                                 const char *after, int limit, fs_list_page *out);

/* A delivery claimed by the worker. */
typedef struct fs_delivery {
    const char *id, *url;
    const char *sealed_secret, *webhook_id; /* to open the signing secret */
    const char *event_json;                 /* the body to POST */
    int attempt;                            /* this one's number, from 1 */
    const char *event_id;
} fs_delivery;
typedef struct fs_delivery_batch {
    int n;
    fs_delivery *items;
} fs_delivery_batch;
/* A webhook.test event (kept out of the feed) and its delivery to this
 * webhook alone, claimed for the caller for lease seconds (attempt 1), so
 * that it sends it now and records the outcome as the worker would.
 * tree_root as for fs_store_webhook_delete. *out NULL: no such webhook. */
fs_error *fs_store_webhook_test(fs_store *st, const char *user_id, const char *webhook_id,
                                const char *tree_root, int lease, fs_delivery **out);
/* Claims a delivery of the webhook that is not pending (succeeded or
 * failed) to be sent again now: *status its status before (NULL: no such
 * delivery, or not in the tree), *out the claimed delivery (NULL when it is
 * pending: queued already, or claimed by a concurrent retry). */
fs_error *fs_store_delivery_retry(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *delivery_id, const char *tree_root, int lease,
                                  const char **status, fs_delivery **out);
/* One delivery of the webhook; *json NULL when there is none. */
fs_error *fs_store_delivery_get(fs_store *st, const char *webhook_id, const char *delivery_id,
                                const char **json);
/* The worker's bounds: deliveries in flight at once (claimed and not
 * recorded, over every worker) per webhook and per account, and the run of
 * failed attempts that pauses a webhook: at least pause_failures in a row,
 * the first at least pause_seconds before the last. */
typedef struct fs_delivery_limits {
    int per_webhook, per_account;
    int pause_failures, pause_seconds;
} fs_delivery_limits;
/* Claims up to batch due deliveries (concurrent workers take different
 * rows) and moves each lease seconds ahead, so that no other worker sends
 * it meanwhile. Fair: at most lim->per_webhook and lim->per_account in
 * flight, accounts and webhooks with the fewest in flight first; none of
 * disabled or paused webhooks. */
fs_error *fs_store_delivery_claim(fs_store *st, const fs_delivery_limits *lim, int lease, int batch,
                                  fs_delivery_batch *out);
/* Records a 2xx: attempt_json is the attempt record (JSON object). Ends
 * the webhook's run of failures. */
fs_error *fs_store_delivery_succeeded(fs_store *st, const char *id, const char *attempt_json);
/* Records a failure; tried again in backoff seconds, or given up (failed)
 * when that would come more than a day after the delivery was queued.
 * Counts it in the webhook's run of failures and pauses the webhook (with
 * a webhook.paused event) once the run reaches lim's thresholds: *paused
 * 1 when this failure paused it. */
fs_error *fs_store_delivery_failed(fs_store *st, const char *id, const char *attempt_json,
                                   int backoff, const fs_delivery_limits *lim, int *paused);

/* Webhook deliveries waiting to be delivered (due or retrying) and the age
 * of the oldest in seconds (0: none), for /metrics. */
fs_error *fs_store_webhook_backlog(fs_store *st, long long *pending, long long *oldest_seconds);

#endif
