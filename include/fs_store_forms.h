/* fs_store_forms: forms, submissions (the owner's side) and the
 * Idempotency-Key records of /v1 (mod_formsvc/store/forms_store.c). The
 * writes of forms run the PL/pgSQL functions of sql/0013_forms_api.sql.
 * Conventions: fs_store.h. */
#ifndef FS_STORE_FORMS_H
#define FS_STORE_FORMS_H

#include "fs_owner_state.h"
#include "fs_store.h"

/* ---- Forms ---- */

/* A form of the account, as the owner's API reads it. */
typedef struct fs_form_row {
    const char *json;                       /* its representation (fs_form_json) */
    int version;                            /* the ETag */
    const char *fields;                     /* JSON array of normalised fields */
    const char *settings;                   /* JSON object */
    const char *slug, *title, *description; /* slug and description may be NULL */
    const char *status;                     /* effective: draft, published or closed */
} fs_form_row;
/* base_url: the prefix of the links in the representation. *out NULL when
 * the account has no such form. */
fs_error *fs_store_form_get(fs_store *st, const char *base_url, const char *form_id,
                            const char *user_id, fs_form_row **out);
/* A page of the account's forms, newest first; status (NULL: any) and
 * forms_json (a JSON array of the form ids the caller may see; NULL: any)
 * filter it. */
fs_error *fs_store_form_list(fs_store *st, const char *base_url, const char *user_id,
                             const char *status, const char *forms_json, const char *after,
                             int limit, fs_list_page *out);

/* The editable state of a form, as saved. */
typedef struct fs_form_state {
    const char *slug, *title, *description;  /* slug and description may be NULL */
    const char *fields_json, *settings_json; /* normalised */
} fs_form_state;

/* What a write of a form came to. */
typedef enum fs_form_outcome {
    FS_FORM_OK,           /* json is the form's new representation */
    FS_FORM_MISSING,      /* no such form (or an answer the store does not know) */
    FS_FORM_STALE,        /* version is the current one, not the one expected */
    FS_FORM_SLUG_TAKEN,   /* another form of the account has the slug */
    FS_FORM_QUOTA,        /* used is the account's forms (quota reached) */
    FS_FORM_INVALID_STATE /* detail says why the transition is not allowed */
} fs_form_outcome;
typedef struct fs_form_write {
    fs_form_outcome outcome;
    const char *json;   /* FS_FORM_OK */
    int version;        /* FS_FORM_STALE */
    int used;           /* FS_FORM_QUOTA */
    const char *detail; /* FS_FORM_INVALID_STATE */
} fs_form_write;

/* Creates a draft form if the account has fewer than quota forms:
 * FS_FORM_OK, FS_FORM_QUOTA or FS_FORM_SLUG_TAKEN. */
fs_error *fs_store_form_create(fs_store *st, const char *base_url, const char *form_id,
                               const char *user_id, const fs_form_state *s, int quota,
                               fs_form_write *out);
/* Saves the editable state if the form is still at version: FS_FORM_OK,
 * FS_FORM_STALE, FS_FORM_SLUG_TAKEN or FS_FORM_MISSING. */
fs_error *fs_store_form_save(fs_store *st, const char *base_url, const char *user_id,
                             const char *form_id, int version, const fs_form_state *s,
                             fs_form_write *out);
/* action "publish" or "close", if the form is at if_match (0: at any
 * version); a transition records its event (form.published, form.closed).
 * FS_FORM_OK, FS_FORM_STALE, FS_FORM_INVALID_STATE or FS_FORM_MISSING. */
fs_error *fs_store_form_transition(fs_store *st, const char *base_url, const char *user_id,
                                   const char *form_id, const char *action, int if_match,
                                   fs_form_write *out);
/* Deletes the form if it is at if_match (0: at any version). *found: the
 * account has the form; *deleted: it was deleted. */
fs_error *fs_store_form_delete(fs_store *st, const char *user_id, const char *form_id, int if_match,
                               int *found, int *deleted);

/* ---- Submissions ---- */

/* Which submissions of a form: since and until are RFC 3339 (NULL: open). */
typedef struct fs_sub_filter {
    const char *form_id, *user_id;
    int spam; /* 1: spam too */
    const char *since, *until;
    const char *link_id; /* those made through this respondent link (NULL: any) */
    const char *status;  /* those of this owner's status (NULL: any) */
    const char *tag;     /* those with this tag (NULL: any) */
    const char *ask_id;  /* the one made through this ask's link (NULL: any) */
} fs_sub_filter;
/* A page of the form's submissions, newest first. */
fs_error *fs_store_sub_list(fs_store *st, const fs_sub_filter *f, const char *after, int limit,
                            fs_list_page *out);

/* The rows of the CSV export. */
typedef struct fs_sub_export_row {
    const char *id, *created_at; /* RFC 3339 */
    const char *form_version;    /* as text */
    int spam;
    const char *data;                    /* the answers: a JSON object */
    const char *link_id, *link_metadata; /* the respondent link and its metadata (JSON text);
                                          * NULL or "": none */
    const char *status;                  /* the owner's status */
    const char *tags;                    /* the owner's tags, separated by spaces ("" none) */
    const char *note;                    /* the owner's note, or NULL */
    const char *ask_id;                  /* the ask whose link it came through, or NULL */
    const char *ending;                  /* the ending reached (settings.endings), or NULL */
    const char *calculated;              /* what the server calculated (JSON), or NULL */
} fs_sub_export_row;
typedef struct fs_sub_batch {
    int n;
    fs_sub_export_row *rows;
} fs_sub_batch;
/* Up to batch submissions after the id after, newest first. */
fs_error *fs_store_sub_export(fs_store *st, const fs_sub_filter *f, const char *after, int batch,
                              fs_sub_batch *out);
/* One submission's representation; *json NULL when there is none. */
fs_error *fs_store_sub_get(fs_store *st, const char *user_id, const char *form_id,
                           const char *sub_id, const char **json);
/* Deletes a submission (the form's count drops when it was not spam).
 * *deleted 0: there was none. */
fs_error *fs_store_sub_delete(fs_store *st, const char *user_id, const char *form_id,
                              const char *sub_id, int *deleted);
/* Applies the owner's change c to the submission when its version is
 * still version, writing a submission.updated event with it. *before: the
 * version it had (0: no such submission); *json: the changed submission
 * (NULL: not changed, its version was not version). */
fs_error *fs_store_sub_update(fs_store *st, const char *user_id, const char *form_id,
                              const char *sub_id, int version, const fs_owner_change *c,
                              int *before, const char **json);
/* *any 1 when the owner ever changed a submission of the form (the CSV
 * export's owner columns). */
fs_error *fs_store_sub_state_any(fs_store *st, const char *form_id, int *any);

/* ---- Idempotency-Key records (scope: the calling credential, or the
 * form for public submissions) ---- */

typedef struct fs_idem_record {
    const char *request_hash; /* the fingerprint of the first request */
    int status;               /* 0: still in progress */
    const char *location;     /* NULL: none */
    const char *body;         /* sealed (/v1) or plain (public) */
} fs_idem_record;
/* Claims key for a request with fingerprint, inside a transaction
 * (fs_store_tx_begin): the claim is seen by others only once that commits,
 * with the work and its answer (fs_store_idem_store), and a rollback gives
 * the key up. *claimed 1 when it is ours to use now (new, expired after
 * 24 h, or left in progress for a minute by a claim committed alone, as
 * earlier releases made them); 0 when a live record holds it or another
 * transaction is claiming it now (never waits for that one). */
fs_error *fs_store_idem_claim(fs_store *st, const char *scope, const char *key,
                              const char *fingerprint, int *claimed);
/* The record of the last 24 hours; *out NULL when there is none. */
fs_error *fs_store_idem_get(fs_store *st, const char *scope, const char *key, fs_idem_record **out);
/* Records the answer of a key claimed in the same transaction; *stored 0
 * when there is no such claim. */
fs_error *fs_store_idem_store(fs_store *st, const char *scope, const char *key, int status,
                              const char *location, const char *sealed_body, int *stored);
/* Removes a batch of records older than 24 hours. */
fs_error *fs_store_idem_purge(fs_store *st);

#endif
