/* fs_store_links: respondent links of a form (mod_formsvc/store/
 * links_store.c, sql/0027). Conventions: fs_store.h. */
#ifndef FS_STORE_LINKS_H
#define FS_STORE_LINKS_H

#include "fs_store.h"

/* A link as its owner sees it. */
typedef struct fs_link_row {
    const char *id;
    const char *json;   /* fs_link_json: everything but the URL */
    const char *sealed; /* the token, sealed (fs_idem_seal, scope "link-token") */
    const char *ref;    /* the form's slug, or its id: the URL's path */
} fs_link_row;

typedef struct fs_link_page {
    int n;             /* rows, at most the limit asked for */
    fs_link_row *rows; /* newest first */
    int more;          /* 1 when more rows follow rows[n - 1] */
} fs_link_page;

typedef struct fs_new_link {
    const char *id, *form_id, *user_id;
    const char *token_hash;    /* HMAC-SHA-256 of the token under the pepper */
    const char *token_sealed;  /* the token, sealed */
    const char *prefill_json;  /* JSON object */
    const char *metadata_json; /* JSON value, or NULL: none */
    const char *expires_at;    /* RFC 3339, or NULL: never */
    int max_uses;              /* 0: any number */
    const char *created_by;    /* the creating credential's key id: a link made
                                * by a delegate dies with it (sql/0034) */
} fs_new_link;

/* Creates the link when the form holds fewer than quota links that are not
 * deleted (exact: the form row is locked): *json is its fs_link_json. *json
 * NULL: the quota is reached (*used: the links the form holds) or the form
 * is gone (*used NULL). */
fs_error *fs_store_link_create(fs_store *st, const fs_new_link *l, int quota, const char **json,
                               const char **used);
/* The owner's API sees a link while it is not deleted and its creator
 * lives (sql/0034). tree: the calling delegate's key id, which sees only
 * the links made inside its tree; NULL for an owner key (every link). */
/* A page of the form's visible links, newest first. */
fs_error *fs_store_link_list(fs_store *st, const char *user_id, const char *tree,
                             const char *form_id, const char *after, int limit, fs_link_page *out);
/* One visible link of the account's form; *out NULL: none. */
fs_error *fs_store_link_get(fs_store *st, const char *user_id, const char *tree,
                            const char *form_id, const char *link_id, fs_link_row **out);
/* Deletes the visible link (its URL then answers 410). *deleted 0: there
 * was none. */
fs_error *fs_store_link_delete(fs_store *st, const char *user_id, const char *tree,
                               const char *form_id, const char *link_id, int *deleted);
/* *any 1 when the form has or had a link (the CSV export's link columns). */
fs_error *fs_store_link_any(fs_store *st, const char *form_id, int *any);
/* *form_id: the form of the account's link link_id, withdrawn or not (its
 * submissions keep its id); NULL: the account has no such link. */
fs_error *fs_store_link_form(fs_store *st, const char *user_id, const char *link_id,
                             const char **form_id);

/* A link as the public side finds it by its token. */
typedef struct fs_link_public {
    const char *id;
    const char *state;   /* active, used or expired (expired also: deleted) */
    const char *prefill; /* JSON object */
    const char *ask_id;  /* the ask the link was made for (sql/0049), or NULL */
} fs_link_public;
/* The link of the form form_id whose token hashes to token_hash; *out
 * NULL when there is none. */
fs_error *fs_store_link_find(fs_store *st, const char *form_id, const char *token_hash,
                             fs_link_public **out);

#endif
