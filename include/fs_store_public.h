/* fs_store_public: the public form side, /f/{id} (mod_formsvc/store/
 * public_store.c). Conventions: fs_store.h. */
#ifndef FS_STORE_PUBLIC_H
#define FS_STORE_PUBLIC_H

#include "fs_store.h"
#include "fs_store_forms.h"

/* A published or closed form as the public side serves it. Every member
 * is text, so that a copy of it can be kept as is (public_cache.c). */
typedef struct fs_public_form {
    const char *id;
    const char *slug; /* NULL: none */
    const char *title;
    const char *description; /* NULL: none */
    const char *status;      /* public status: published or closed */
    const char *version;
    const char *fields;   /* JSON array */
    const char *settings; /* JSON object */
} fs_public_form;
/* The published or closed form whose id or slug is ref; *out NULL when
 * there is none. */
fs_error *fs_store_public_form(fs_store *st, const char *ref, fs_public_form **out);

/* The Idempotency-Key record of a public submission (scope: the form id)
 * of the last 24 hours; *out NULL when there is none. Its body is plain. */
fs_error *fs_store_public_idem_get(fs_store *st, const char *form_id, const char *key,
                                   fs_idem_record **out);

/* One public submission, with what it implies. */
typedef struct fs_new_submission {
    const char *form_id, *sub_id;
    const char *data_json;
    int spam;
    int quota_unverified, quota_verified; /* the owner's monthly quota by tier */
    const char *idem_key;                 /* NULL: no Idempotency-Key */
    const char *request_hash;             /* of the request, for the record */
    int replay_status;                    /* the answer the record replays: status */
    const char *replay_location;          /* and Location */
    const char *link_id;                  /* the respondent link it came through, or NULL */
    const char *uniq_hash;                /* fs_unique_hash; NULL: not checked */
    const char *form_version;             /* what the answers were checked against; NULL: any */
    const char *event_id;                 /* of its submission.created event (fs_id_new) */
    const char *ending; /* the key of the ending reached (settings.endings), or NULL */
    /* what the server calculated from the answers (fs_calculated, JSON
     * text; sql/0062), or NULL: the form has neither a quiz nor variables */
    const char *calculated;
    /* what of it the respondent's answer shows (JSON text: the score and
     * max with settings.showScore), or NULL */
    const char *calculated_shown;
    /* the partial answers it completes (sql/0059), deleted with the
     * submission's insert, which is skipped when sub_id is a submission
     * already (FS_SUBMIT_REPLAY); NULL: none */
    const char *partial_id;
    int spam_score;        /* 0..100 (fs_spam.h), or -1: not computed (stored as NULL; sql/0066) */
    int captcha_unchecked; /* stored although its bot check could not be made (sql/0068) */
} fs_new_submission;

typedef enum fs_submit_outcome {
    FS_SUBMIT_OK,          /* stored: json is the submission */
    FS_SUBMIT_GONE,        /* no published or closed form */
    FS_SUBMIT_STALE,       /* the form is no longer at form_version: nothing stored */
    FS_SUBMIT_CLOSED,      /* the form takes no more submissions */
    FS_SUBMIT_DUPLICATE,   /* another submission holds uniq_hash (settings.uniqueBy) */
    FS_SUBMIT_QUOTA,       /* the owner's monthly quota is reached */
    FS_SUBMIT_REPLAY,      /* a concurrent request with the same key won */
    FS_SUBMIT_LINK_USED,   /* the link has taken its maxUses */
    FS_SUBMIT_LINK_EXPIRED /* the link expired or was deleted meanwhile */
} fs_submit_outcome;
typedef struct fs_submit_result {
    fs_submit_outcome outcome;
    const char *json; /* FS_SUBMIT_OK */
    int month_left;   /* seconds to the end of the month (UTC) */
} fs_submit_result;
/* Stores the submission atomically with its counts, its event and its
 * Idempotency-Key record, unless another submission of the form holds its
 * uniq_hash (exact under concurrency: sql/0026). exact (the form has maxSubmissions) locks the
 * form row first so that concurrent submissions cannot pass the limit;
 * otherwise concurrent submissions of one account may pass the monthly
 * quota by at most the number in flight. */
fs_error *fs_store_public_submit(fs_store *st, const fs_new_submission *s, int exact,
                                 fs_submit_result *out);

/* 1 when s may be stored in a batch (fs_store_public_submit_batch): no
 * maxSubmissions (exact), Idempotency-Key, link, uniqueBy or partial it
 * completes, and a form version to check. (An ending, what the server
 * calculated and the spam score go in the batch's items.) */
int fs_store_public_batchable(const fs_new_submission *s, int exact);
/* Stores n batchable submissions in one statement and one transaction,
 * each as fs_store_public_submit would alone: out[i] is subs[i]'s outcome
 * (OK, GONE, STALE, CLOSED or QUOTA). An error concerns them all: then
 * none is stored. */
fs_error *fs_store_public_submit_batch(fs_store *st, const fs_new_submission *const *subs, int n,
                                       fs_submit_result *out);

/* Moves at most limit rows of the submission tally into the per-form and
 * per-account counters (sql/0024); *moved is how many, or -1 when another
 * session is rolling up or holds the counters locked. */
fs_error *fs_store_tally_rollup(fs_store *st, int limit, int *moved);

/* Writes form.closed (reason closesAt) for at most limit published forms
 * whose closesAt has passed and was not handled yet, once per cluster
 * whoever runs it (sql/0050); *emitted: the events written. */
fs_error *fs_store_form_closings_emit(fs_store *st, int limit, int *emitted);
/* *ms: milliseconds (by the database's clock) until the next closesAt of a
 * published form within ahead_s seconds, or -1 when there is none. */
fs_error *fs_store_form_closings_next(fs_store *st, int ahead_s, int *ms);

#endif
