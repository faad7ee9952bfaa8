/* fs_scope: scope tokens, form constraints and the subset rule.
 *
 * A credential's scopes are either full access (JSON null) or a set of
 * tokens plus optional form:<frm_id> constraints. *:write implies *:read. */
#ifndef FS_SCOPE_H
#define FS_SCOPE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"

enum {
    FS_SC_FORMS_READ = 1u << 0,
    FS_SC_FORMS_WRITE = 1u << 1,
    FS_SC_SUBMISSIONS_READ = 1u << 2,
    FS_SC_SUBMISSIONS_WRITE = 1u << 3,
    FS_SC_KEYS_READ = 1u << 4,
    FS_SC_KEYS_WRITE = 1u << 5,
    FS_SC_CLIENTS_READ = 1u << 6,
    FS_SC_CLIENTS_WRITE = 1u << 7,
    FS_SC_WEBHOOKS_READ = 1u << 8,
    FS_SC_WEBHOOKS_WRITE = 1u << 9,
    FS_SC_ACCOUNT_READ = 1u << 10,
    FS_SC_ACCOUNT_WRITE = 1u << 11,
};
#define FS_SC_ALL 0xFFFu

typedef struct fs_scopes {
    int full;                  /* null scopes: everything, no constraints */
    unsigned bits;             /* granted tokens, implications applied */
    unsigned named;            /* tokens exactly as named (for output) */
    apr_array_header_t *forms; /* const char * form ids; empty = any form */
} fs_scopes;

/* Full-access scopes. */
fs_scopes *fs_scopes_full(apr_pool_t *p);

/* The bit of one token such as "forms:read"; 0 when unknown. */
unsigned fs_scope_bit(const char *token);
/* The token of one bit; NULL when not exactly one known bit. */
const char *fs_scope_name(unsigned bit);

/* From a JSON value: null = full access, else an array of strings. Errors
 * are added to verr (a validation-failed problem) under pointer; returns
 * NULL then. min_items: 0 or 1. */
fs_scopes *fs_scopes_from_json(apr_pool_t *p, json_object *v, const char *pointer, int min_items,
                               fs_error *verr);
/* From a space-separated OAuth scope string. NULL with *bad set to the
 * first unknown token. An empty string gives an empty set. */
fs_scopes *fs_scopes_from_string(apr_pool_t *p, const char *s, const char **bad);

/* JSON array of tokens (or null for full), owned by the caller. */
json_object *fs_scopes_to_json(const fs_scopes *sc);
/* Space-separated string (OAuth's scope), "" never for full: the list of
 * every token then. */
char *fs_scopes_to_string(apr_pool_t *p, const fs_scopes *sc);

/* Does sc grant bit (write implies read)? */
int fs_scopes_has(const fs_scopes *sc, unsigned bit);
/* May sc touch form_id? */
int fs_scopes_allows_form(const fs_scopes *sc, const char *form_id);
/* Is child no broader than parent? On 0, *missing names a token or
 * constraint the parent does not grant (for requiredScope). */
int fs_scopes_subset(apr_pool_t *p, const fs_scopes *child, const fs_scopes *parent,
                     const char **missing);
/* Intersection used when a request narrows scopes: the child as asked. */

#endif
