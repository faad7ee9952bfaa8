/* fs_store_grants: the OAuth authorization code flow: dynamically
 * registered public clients (apps), the authorize page's sign-in
 * sessions, grants, their codes and refresh tokens
 * (mod_formsvc/store/grants_store.c). Codes, refresh tokens and session
 * cookies arrive hashed (HMAC under the pepper). Conventions: fs_store.h. */
#ifndef FS_STORE_GRANTS_H
#define FS_STORE_GRANTS_H

#include "fs_store.h"
#include "fs_store_verify.h"

/* ---- Apps (RFC 7591 registrations) ---- */

typedef struct fs_new_app {
    const char *id, *name, *redirect_uris_json, *client_uri; /* client_uri may be NULL */
    const char *reg_addr; /* the registering address's keyed hash */
} fs_new_app;
/* *created_at: RFC 3339. */
fs_error *fs_store_app_register(fs_store *st, const fs_new_app *a, const char **created_at);

typedef struct fs_app_row {
    const char *id, *name, *redirect_uris_json, *client_uri;
} fs_app_row;
/* *out NULL when there is no such app (or it was swept). */
fs_error *fs_store_app_get(fs_store *st, const char *id, fs_app_row **out);

/* ---- The authorize page's sign-in ---- */

typedef struct fs_login_row {
    const char *user_id;     /* the account proven in this session */
    const char *proven_by;   /* the pasted key, NULL: a mailed code */
    const char *key_scopes;  /* that key's scopes json, NULL: full access */
    int key_active;          /* the key is neither revoked nor expired */
    apr_int64_t key_expires; /* its expiry, epoch seconds, 0: never */
    int verified;            /* the account's address is verified */
    const char *email;
} fs_login_row;
/* The session's proven account; *out NULL when none (no session, not
 * proven, or expired). */
fs_error *fs_store_login_get(fs_store *st, const char *session_hash, fs_login_row **out);
/* Stores a sign-in code for the session (replacing any) and queues its
 * mail, for a verified account of email only and only as the mail limits
 * allow; says nothing about which happened. */
fs_error *fs_store_login_send(fs_store *st, const char *session_hash, const char *email,
                              const fs_mail_limits *lim, const char *code_hash,
                              const fs_queued_mail *mail);
/* Tries the session's code: *result "ok", "wrong" (a try counted; the
 * fifth voids the code) or "none" (no live code). */
fs_error *fs_store_login_confirm(fs_store *st, const char *session_hash, const char *code_hash,
                                 const char **result);
/* The session is proven by a pasted key of user_id. */
fs_error *fs_store_login_key(fs_store *st, const char *session_hash, const char *user_id,
                             const char *key_id);
/* Moves a session to a new cookie (its hash): done when it is proven, so
 * that a cookie planted in the browser before the sign-in is worth
 * nothing after it. */
fs_error *fs_store_login_rotate(fs_store *st, const char *old_hash, const char *new_hash);
/* Ends the session (after an approval or a denial). */
fs_error *fs_store_login_end(fs_store *st, const char *session_hash);

/* ---- Grants ---- */

typedef struct fs_new_grant {
    const char *id, *user_id, *app_id, *scopes_json;
    const char *created_by; /* the pasted key; NULL: a mailed code */
    const char *code_hash, *redirect_uri, *challenge;
    int code_lifetime; /* seconds */
} fs_new_grant;
/* Records the approval and its code while the account has fewer than
 * quota active grants (exact under concurrency: fs_quota_admit). *made 0:
 * the quota is reached. */
fs_error *fs_store_grant_create(fs_store *st, const fs_new_grant *g, int quota, int *made);

/* A code or refresh token taken (marked used in the same statement). */
typedef struct fs_taken {
    const char *grant_id, *app_id;
    const char *redirect_uri, *challenge; /* codes only */
    int expired, reused;
} fs_taken;
/* *out NULL: unknown code. */
fs_error *fs_store_code_take(fs_store *st, const char *code_hash, fs_taken **out);
/* *out NULL: unknown refresh token. */
fs_error *fs_store_refresh_take(fs_store *st, const char *token_hash, fs_taken **out);

typedef struct fs_grant_tokens {
    fs_new_secret access; /* a keys row with grant_id */
    const char *refresh_hash;
    int lifetime, refresh_lifetime; /* seconds */
} fs_grant_tokens;
/* Issues an access token and a refresh token if the grant is active (its
 * row held until commit); the access token never outlives the key that
 * approved the grant. *scopes_json NULL: the grant is gone. */
fs_error *fs_store_grant_issue(fs_store *st, const char *grant_id, const fs_grant_tokens *t,
                               const char **user_id, const char **scopes_json,
                               apr_int64_t *expires_in);

/* Marks the grant revoked (once). user_id NULL: any account's (a reused
 * code or refresh token); tree_root: the calling delegate's key id, which
 * revokes only grants approved inside its own tree (NULL: an owner key).
 * *json NULL: no such grant in the caller's view. Its tokens go with
 * fs_store_grant_revoke_tokens, run after this committed. */
fs_error *fs_store_grant_revoke(fs_store *st, const char *user_id, const char *grant_id,
                                const char *tree_root, const char **json);
fs_error *fs_store_grant_revoke_tokens(fs_store *st, const char *grant_id, int *n);

/* A page of the account's grants, newest first (tree_root as above). */
fs_error *fs_store_grant_list(fs_store *st, const char *user_id, int include_revoked,
                              const char *tree_root, const char *after, int limit,
                              fs_list_page *out);

/* The titles of the account's forms among ids_json (a JSON array):
 * *json an object id -> title. */
fs_error *fs_store_form_titles(fs_store *st, const char *user_id, const char *ids_json,
                               const char **json);

/* Deletes apps never authorized within 24 hours of their registration,
 * codes and sessions an hour after they expired, refresh tokens a day
 * after they expired or were used (the mail worker, every 10 minutes). */
fs_error *fs_store_oauth_sweep(fs_store *st);

#endif
