/* fs_store_account: accounts, bearer authentication and API keys
 * (mod_formsvc/store/account_store.c). Access tokens of OAuth clients are
 * keys too, but are not listed as keys and do not count against the
 * active-key quota (docs/oauth.md). Conventions: fs_store.h. */
#ifndef FS_STORE_ACCOUNT_H
#define FS_STORE_ACCOUNT_H

#include "fs_store.h"

/* Creates an account and its first (owner) key under email. *user_json
 * and *key_json are their representations; both NULL when an account
 * already has that address. */
fs_error *fs_store_signup(fs_store *st, const char *user_id, const char *email,
                          const fs_new_secret *key, const char **user_json, const char **key_json);

/* An active credential (key or access token) as authentication reads it. */
typedef struct fs_credential {
    const char *key_id, *user_id;
    const char *scopes_json;   /* NULL: full access */
    int depth;                 /* delegation depth, 0 for a root key */
    const char *actor;         /* NULL unless delegated to a named actor */
    const char *client_id;     /* set for a client's access token */
    const char *parent_key_id; /* NULL for a root key or an access token */
    int verified;              /* the account's address is verified */
    const char *secret_hash;   /* as stored, for a constant-time compare */
    apr_int64_t expires;       /* epoch seconds; 0: never */
    int touch_due;             /* lastUsedAt is over a minute old */
} fs_credential;

/* The active credential whose secret hashes to secret_hash; *out NULL when
 * none (unknown, revoked or expired). */
fs_error *fs_store_authenticate(fs_store *st, const char *secret_hash, fs_credential **out);
/* Refreshes a key's lastUsedAt unless another request just did. */
fs_error *fs_store_key_touch(fs_store *st, const char *key_id);

/* GET /v1/me: the user's and the calling key's representations, and the
 * account's active keys; *user_json NULL when either is gone. */
fs_error *fs_store_me(fs_store *st, const char *user_id, const char *key_id, const char **user_json,
                      const char **key_json, int *active_keys);

/* A page of the account's keys (not access tokens), newest first, after
 * the key id after (NULL: from the start). tree_root: the calling
 * delegate's key id, which sees only its own revocation tree (sql/0019);
 * NULL for an owner key, which sees every key. */
fs_error *fs_store_key_list(fs_store *st, const char *user_id, int include_revoked,
                            const char *after, const char *tree_root, int limit, fs_list_page *out);

/* One key of the account as the caller may see it (tree_root as above). */
typedef struct fs_key_row {
    const char *json;        /* its representation */
    const char *scopes_json; /* NULL: full access */
    int active;              /* neither revoked nor expired */
    int depth;
    int expired;
    int rolled; /* already rolled (has a successor) */
} fs_key_row;
/* *out NULL when there is no such key in the caller's view. */
fs_error *fs_store_key_get(fs_store *st, const char *user_id, const char *key_id,
                           const char *tree_root, fs_key_row **out);

/* A new account key made by an owner key: no parent, depth 0. */
typedef struct fs_new_key {
    fs_new_secret secret;
    const char *user_id, *name;
    const char *scopes_json; /* NULL: full access */
    const char *expires_at;  /* RFC 3339, or NULL: never */
} fs_new_key;
/* Makes the key if the account has fewer than quota active keys (exact
 * under concurrency: fs_quota_admit, sql/0020). *json NULL: quota reached. */
fs_error *fs_store_key_create(fs_store *st, const fs_new_key *k, int quota, const char **json);
/* The account's active keys (access tokens not counted). */
fs_error *fs_store_key_count_active(fs_store *st, const char *user_id, int *n);

/* Revokes the key and its revocation tree (every token delegated from it,
 * at any depth, and the access tokens of clients a delegate in it
 * registered). *json: the key's representation; NULL when no such key. */
fs_error *fs_store_key_revoke(fs_store *st, const char *user_id, const char *key_id,
                              const char **json);
/* Run after fs_store_key_revoke has committed: revokes whatever was
 * delegated from the key while that statement ran (a token exchange holds
 * its parent FOR SHARE, so it commits before the revocation can, but after
 * the revocation's snapshot was taken). *n: how many (n may be NULL). */
fs_error *fs_store_key_revoke_sweep(fs_store *st, const char *key_id, int *n);

/* Rolls key_id: a new key takes its place (same name, scopes, parent,
 * client and actor; expiry the earlier of the old key's and the caller's),
 * and the old key and its tree end after grace_seconds. The clients and
 * webhooks a delegate registered move to the new key. *json: the new
 * key's representation; NULL when the key is not active, was already
 * rolled, or its parent or client is gone. */
fs_error *fs_store_key_roll(fs_store *st, const char *user_id, const char *key_id,
                            const char *caller_key_id, long long grace_seconds,
                            const fs_new_secret *next, const char **json);

/* DELETE /v1/me (sql/0042): marks the account erased if confirm is its
 * address (compared as signup normalises it), in one statement: revokes
 * every key, access token and client, marks its forms deleted, disables
 * its webhooks, deletes its pending mail jobs and unsent account mail,
 * and frees its address. The rows go later (fs_store_account_purge_step). */
typedef enum { FS_ERASE_OK, FS_ERASE_MISMATCH, FS_ERASE_GONE } fs_erase_outcome;
typedef struct fs_account_erase_result {
    fs_erase_outcome outcome;
    int credentials, clients, forms, webhooks, mail_jobs, mails; /* what was stopped */
} fs_account_erase_result;
fs_error *fs_store_account_erase(fs_store *st, const char *user_id, const char *confirm,
                                 fs_account_erase_result *out);
/* One step of the background erasure: deletes at most batch rows of the
 * account erased longest ago; *deleted 0 when no account is left. */
fs_error *fs_store_account_purge_step(fs_store *st, int batch, int *deleted);
/* Steps of the erasure for about a second at most (a worker's sweep). */
fs_error *fs_store_account_purge(fs_store *st);

/* GET /v1/me/export: one page of one kind of the account's data, in id
 * order after the id after (NULL: from the start); each item's json is
 * the line to send (a JSON object with its kind). base: the public base
 * URL (forms' publicUrl). Submissions and their files are read per form
 * with fs_store_sub_export. */
typedef enum {
    FS_EXPORT_ACCOUNT,
    FS_EXPORT_FORMS,
    FS_EXPORT_LINKS,
    FS_EXPORT_WEBHOOKS,
    FS_EXPORT_KEYS,
    FS_EXPORT_CLIENTS,
    FS_EXPORT_AUDIT,
    FS_EXPORT_GRANTS,
    FS_EXPORT_VERSIONS, /* earlier answers of edited submissions, sql/0065 */
    FS_EXPORT_PARTIALS, /* unfinished partial answers, sql/0059 */
    FS_EXPORT_ASKS,     /* questions asked of people (POST /v1/asks), sql/0049 */
    FS_EXPORT_KINDS
} fs_export_kind;
fs_error *fs_store_export_page(fs_store *st, fs_export_kind kind, const char *user_id,
                               const char *base, const char *after, int limit, fs_list_page *out);

/* POST /v1/erasures: deletes every submission of the account's forms whose
 * answer to an email field of its form is email (lower-cased and trimmed),
 * with their files and mail jobs (their events scrubbed, as any deleted
 * submission's are), and writes one
 * submissions.erased event (id event_id) when any went. *count: how many;
 * *form_ids: a JSON array of the forms they were in. */
fs_error *fs_store_erasure(fs_store *st, const char *user_id, const char *email,
                           const char *event_id, int *count, const char **form_ids);

#endif
