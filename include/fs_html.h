/* fs_html: the public form page and the small message pages (thanks,
 * closed, unavailable). One self-contained HTML5 document each: an inline
 * style sheet (allowed by its hash in the Content-Security-Policy), no
 * script, no external asset. Every owner-supplied and respondent-supplied
 * string goes through fs_html_escape. */
#ifndef FS_HTML_H
#define FS_HTML_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

typedef struct fs_page {
    const char *title, *description; /* the form's; description may be NULL */
    const fs_fieldset *fields;
    json_object *values;    /* answers to show again (may be NULL) */
    const fs_error *errors; /* a validation-failed problem, or NULL */
    const char *action;     /* where the form posts (absolute URL) */
    const char *notice;     /* a notice above the form (plain text), or NULL */
    int honeypot;           /* render the honeypot input */
} fs_page;

/* Name of the honeypot input of HTML posts (never a field key: keys start
 * with a letter). */
#define FS_HONEYPOT_NAME "_hp"

char *fs_html_form(apr_pool_t *p, const fs_page *pg);
/* A page with a heading and a paragraph (plain text, escaped here). */
char *fs_html_message(apr_pool_t *p, const char *title, const char *heading, const char *message);

/* Escapes & < > " ' for text and attribute values. */
char *fs_html_escape(apr_pool_t *p, const char *s);

/* The inline style sheet and its CSP source ('sha256-<base64>'). */
const char *fs_html_css(void);
const char *fs_html_style_src(apr_pool_t *p);

#endif
