/* fs_embed: embedding a public form in other sites (settings.embed, issue
 * 15): the origins that may frame it, and the two small scripts that let
 * the host page size the frame to the form (the page posts its height to
 * its parent; embed.js, on the host page, listens). */
#ifndef FS_EMBED_H
#define FS_EMBED_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

#define FS_EMBED_MAX_ORIGINS 10

/* The normalised (lower-case) origin when s is exactly
 * "https://host[:port]", or "http://localhost[:port]" /
 * "http://127.0.0.1[:port]" for development: host labels of letters,
 * digits and hyphens joined by dots, a port 1..65535 without leading
 * zeros, nothing else (no path, not even "/", no user information, no
 * wildcard, no IPv6 literal). NULL otherwise. */
const char *fs_embed_origin(apr_pool_t *p, const char *s);

/* Validates settings.embed of s and adds the normalised object to out when
 * it is set: {"allowedOrigins": [1..10 distinct fs_embed_origin values]},
 * nothing else. Errors to verr under ptr ("/settings"). */
void fs_settings_embed(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                       fs_error *verr);

/* The CSP frame-ancestors sources of settings (JSON object, may be NULL):
 * its allowed origins, each checked again with fs_embed_origin, joined by
 * spaces; NULL when there are none. */
const char *fs_embed_frame_ancestors(apr_pool_t *p, json_object *settings);

/* The inline script of an embeddable form page (posts the page's height
 * to the parent window) and its CSP source 'sha256-…'. */
const char *fs_embed_page_script(void);
const char *fs_embed_page_script_src(apr_pool_t *p);

/* embed.js, the host page's listener, and its Subresource Integrity value
 * "sha384-<base64>". */
const char *fs_embed_js(void);
const char *fs_embed_js_integrity(apr_pool_t *p);

#endif
