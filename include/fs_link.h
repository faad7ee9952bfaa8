/* fs_link: respondent links, the pure half (mod_formsvc/core/fs_link.c):
 * the body of POST /v1/forms/{id}/links checked against the form's fields,
 * and the token's format. No httpd headers. */
#ifndef FS_LINK_H
#define FS_LINK_H

#include <apr_pools.h>
#include <apr_time.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

#define FS_LINK_TOKEN_PREFIX "fsl_"
#define FS_LINK_METADATA_MAX 4096 /* bytes of metadata as compact JSON */
#define FS_LINK_MAX_USES 1000000

/* A link as asked for, normalised. */
typedef struct fs_link_spec {
    const char *prefill_json;  /* JSON object; "{}" when none */
    const char *metadata_json; /* compact JSON, or NULL: none (absent or null) */
    const char *expires_at;    /* RFC 3339 UTC, or NULL: never */
    int max_uses;              /* 0: any number */
} fs_link_spec;

/* Checks body ({prefill?, metadata?, expiresAt?, maxUses?}) against the
 * form's fields fs at time now: prefill's members must name fields and
 * hold values their types accept (the codes of fs_validate, at
 * /prefill/<key>; "required" does not apply), metadata any JSON of at most
 * FS_LINK_METADATA_MAX bytes, expiresAt an RFC 3339 time after now (or
 * null), maxUses an integer 1..FS_LINK_MAX_USES (or null). Returns 1 and
 * fills out, or 0 after adding every failure to verr. */
int fs_link_parse(apr_pool_t *p, const fs_fieldset *fs, json_object *body, apr_time_t now,
                  fs_error *verr, fs_link_spec *out);

/* A new token (fs_secret_generate with FS_LINK_TOKEN_PREFIX), or NULL when
 * the CSPRNG fails. */
char *fs_link_token_new(apr_pool_t *p);
/* 1 when s has a token's shape and checksum (no database needed). */
int fs_link_token_well_formed(const char *s);

#endif
