/* fs_store_oauth: OAuth clients, the token endpoint, delegated keys and
 * the audit trail (mod_formsvc/store/oauth_store.c). Conventions:
 * fs_store.h. */
#ifndef FS_STORE_OAUTH_H
#define FS_STORE_OAUTH_H

#include "fs_store.h"

/* ---- Clients ---- */

typedef struct fs_new_client {
    fs_new_secret secret; /* secret.id is the client id */
    const char *user_id;
    const char *name;        /* NULL: none */
    const char *scopes_json; /* NULL: full access */
    const char *created_by;  /* the registering key: a delegate's client ends with it */
} fs_new_client;
/* Registers the client if the account has fewer than quota active
 * clients (exact: fs_quota_admit). *json NULL: quota reached. */
fs_error *fs_store_client_create(fs_store *st, const fs_new_client *c, int quota,
                                 const char **json);
/* The account's active clients. */
fs_error *fs_store_client_count_active(fs_store *st, const char *user_id, int *n);
/* A page of the account's clients, newest first. A client whose
 * registering delegate has ended counts as revoked. */
fs_error *fs_store_client_list(fs_store *st, const char *user_id, int include_revoked,
                               const char *after, int limit, fs_list_page *out);

typedef struct fs_client_row {
    const char *json;        /* its representation */
    const char *scopes_json; /* NULL: full access */
    int active;
} fs_client_row;
/* *out NULL when the account has no such client. */
fs_error *fs_store_client_get(fs_store *st, const char *user_id, const char *client_id,
                              fs_client_row **out);
/* Marks the client revoked (once). tree_root: the calling delegate's key
 * id, which revokes only clients registered inside its own tree; NULL for
 * an owner key. *json NULL: no such client (in the caller's view). Its
 * tokens go with fs_store_client_revoke_tokens, run after this committed:
 * a token being issued meanwhile holds the client row, so once this is
 * through no new token can appear and the next statement sees them all. */
fs_error *fs_store_client_revoke(fs_store *st, const char *user_id, const char *client_id,
                                 const char *tree_root, const char **json);
/* Revokes every access token of the client and the tree of each. *n: how
 * many (may be NULL). */
fs_error *fs_store_client_revoke_tokens(fs_store *st, const char *client_id, int *n);

/* ---- The token endpoint ---- */

/* What client authentication needs, in one round trip. */
typedef struct fs_client_auth {
    const char *user_id; /* NULL for an unknown client (and so the rest) */
    const char *secret_hash;
    const char *scopes_json; /* NULL: full access */
    int active;
    int verified; /* the account's address is verified */
    int failures; /* failed authentications of addr in this window */
} fs_client_auth;
/* addr: the client address's counter key; window: the number of the
 * current fixed window. Always fills *out. */
fs_error *fs_store_client_auth(fs_store *st, const char *addr, apr_int64_t window,
                               const char *client_id, fs_client_auth *out);
/* Counts one failed client authentication of addr in window; *count is
 * the count of this window including it. */
fs_error *fs_store_token_fail(fs_store *st, const char *addr, apr_int64_t window, int *count);

/* A client_credentials access token. */
typedef struct fs_new_token {
    fs_new_secret secret;
    const char *client_id;
    const char *scopes_json; /* NULL: full access */
    int lifetime;            /* seconds */
} fs_new_token;
/* Issues the token if the client is still active (holding its row until
 * commit); a client registered by a delegate issues only while that
 * delegate is active, and its tokens never outlive it. *issued 0: the
 * client is gone. *user_id: the client's account; *expires_in: the
 * token's lifetime in seconds (shorter than asked when the delegate ends
 * sooner). */
fs_error *fs_store_token_issue(fs_store *st, const fs_new_token *t, int *issued,
                               const char **user_id, apr_int64_t *expires_in);

/* A key delegated from an active parent: a token exchange, or a key made
 * by a delegate (its child, inside its revocation tree). */
typedef struct fs_new_delegate {
    fs_new_secret secret;
    const char *parent_key_id;
    const char *name;
    const char *scopes_json; /* NULL: full access */
    const char *expires_at;  /* RFC 3339, or NULL: never */
    const char *actor;       /* NULL: none */
    int depth;
} fs_new_delegate;
/* Mints the key under a parent that is still active (held FOR SHARE, so a
 * revocation in progress finishes first and its sweep sees the key) while
 * the account has fewer than quota active keys. *json NULL: the parent is
 * gone or the quota is reached. */
fs_error *fs_store_token_exchange(fs_store *st, const fs_new_delegate *d, int quota,
                                  const char **json);

/* ---- The audit trail ---- */

typedef struct fs_audit_record {
    const char *id, *user_id;
    const char *credential_id, *client_id, *actor; /* each may be NULL */
    const char *action, *target_id;
    const char *form_id; /* the form the record concerns, or NULL */
} fs_audit_record;
fs_error *fs_store_audit_insert(fs_store *st, const fs_audit_record *a);
/* A page of the account's audit trail, newest first, filtered by actor
 * and by credential (a key or client id) when not NULL; forms_json (a
 * JSON array of form ids) keeps only the records about those forms. */
fs_error *fs_store_audit_list(fs_store *st, const char *user_id, const char *actor,
                              const char *credential, const char *forms_json, const char *after,
                              int limit, fs_list_page *out);

#endif
