/* fs_html: every HTML page the module serves: the public form page, the
 * small message pages (thanks, closed, unavailable, e-mail verification),
 * the page of a problem type, and the verification link's button page.
 * One self-contained HTML5 document each: an inline style sheet (allowed by
 * its hash in the Content-Security-Policy: fs_html_style_src), no script,
 * no external asset. Every string passed in is text, escaped here with
 * fs_html_escape; the glue never writes HTML itself. */
#ifndef FS_HTML_H
#define FS_HTML_H

#include <apr_pools.h>
#include <json.h>

#include "fs_captcha.h"
#include "fs_error.h"
#include "fs_fieldset.h"
#include "fs_locale.h"

typedef struct fs_page {
    const char *title, *description; /* the form's; description may be NULL */
    const fs_fieldset *fields;
    json_object *values;    /* answers to show again (may be NULL) */
    const fs_error *errors; /* a validation-failed problem, or NULL */
    const char *action;     /* where the form posts (absolute URL) */
    const char *notice;     /* a notice above the form (plain text), or NULL */
    int honeypot;           /* render the honeypot input */
    /* the page's language: <html lang dir>, the built-in strings and the
     * field errors that have a message key. NULL shows message keys
     * instead of text: the glue always passes one (formsvc_locale). */
    const fs_locale *loc;
    const char *submit_label; /* the owner's button text (escaped here), NULL: the locale's */
    const char *accent;       /* settings.theme.accentColor, or NULL (ignored unless a colour) */
    const char *logo_url;     /* settings.theme.logoUrl (escaped here), or NULL */
    int embed; /* settings.embed: the page posts its height to its parent (fs_embed.h) */
    /* settings.confirmation.emailField: the page says that a copy of the
     * answers goes to the address entered there; NULL: no copy */
    const char *copy_field;
    /* the page's one-time submission token (fs_idem_form_token), sent
     * back in the hidden input FS_TOKEN_NAME; NULL: none */
    const char *token;
    /* the link was made for an ask: a second form after the answers, with
     * one button that declines it, posting to this URL; NULL: none */
    const char *decline_action;
    /* a form of several pages (fields->npages > 1, fs_pages.h): the page
     * shown (its questions only, the progress, its title), whether a page
     * follows (a Next button, else the submit button) and one comes before
     * (a Back button), and the sealed answers so far (the hidden input
     * FS_STATE_NAME; NULL: none, the first page of a fresh form) */
    int page, has_next, has_back;
    const char *state;
    /* partial answers (settings.partial, fs_partial.h): the resume token
     * the page carries (the hidden input FS_RESUME_NAME; NULL: none); the
     * resume URL and the date the answers are kept until, said above the
     * form (NULL: not said); and whether the page has a "save and
     * continue later" button */
    const char *resume, *resume_url, *resume_until;
    int can_save;
    /* settings.captcha (fs_captcha.h): the provider whose widget the page
     * shows above its submit button (not on a page with Next), and the
     * form's site key; NULL: none */
    const fs_captcha_provider *captcha;
    const char *captcha_site_key;
    /* a form of several pages: "page n of total" among the pages the
     * answers so far reach (fs_pages_progress); 0: page + 1 of every page */
    int progress_n, progress_total;
} fs_page;

/* Name of the honeypot input of HTML posts (never a field key: keys start
 * with a letter). */
#define FS_HONEYPOT_NAME "_hp"

/* Name of the hidden input that carries a page's submission token (never
 * a field key either). */
#define FS_TOKEN_NAME "_token"
/* What comes before the token's value in a page: nothing fs_html escapes
 * can contain it, so it is found only where fs_html_form wrote it. */
#define FS_HTML_TOKEN_MARK "<input type=\"hidden\" name=\"" FS_TOKEN_NAME "\" value=\""

char *fs_html_form(apr_pool_t *p, const fs_page *pg);
/* Where the submission token's FS_FORM_TOKEN_LEN characters start in a
 * page of len bytes (a form page as fs_html_form wrote it, kept or not);
 * -1 when it carries none. */
long fs_html_token_at(const char *page, apr_size_t len);
/* A page with a heading and a paragraph (plain text, escaped here), in
 * English (fs_html_message) or in the language of loc (_in: <html lang>
 * and dir; the texts are the caller's, already in that language). */
char *fs_html_message(apr_pool_t *p, const char *title, const char *heading, const char *message);
char *fs_html_message_in(apr_pool_t *p, const fs_locale *loc, const char *title,
                         const char *heading, const char *message);
/* The same with a link below the paragraph (href and its text). */
char *fs_html_message_link(apr_pool_t *p, const fs_locale *loc, const char *title,
                           const char *heading, const char *message, const char *href,
                           const char *link_text);

/* The page of a problem type (GET /problems/{slug}): "<status> <title>",
 * the title as heading, the status and the explanation. */
char *fs_html_problem_type(apr_pool_t *p, int status, const char *title, const char *about);

/* A page whose one button POSTs name=value (urlencoded) to action: for a
 * link that must not change anything when merely fetched (a mail scanner,
 * a link preview). Marked noindex. */
char *fs_html_confirm(apr_pool_t *p, const char *title, const char *message, const char *action,
                      const char *name, const char *value, const char *button);

/* Escapes & < > " ' for text and attribute values. */
char *fs_html_escape(apr_pool_t *p, const char *s);

/* The inline style sheet and its CSP source ('sha256-<base64>'). */
const char *fs_html_css(void);
const char *fs_html_style_src(apr_pool_t *p);

/* A file size as the pages state limits: "10 MB", "1.5 MB", "512 KB",
 * "100 B". In p. */
const char *fs_html_size(apr_pool_t *p, long long n);

/* The CSP source ('sha256-<base64>') of any style sheet text. */
const char *fs_html_css_src(apr_pool_t *p, const char *css);
/* The form's own style sheet for an accent colour (fs_color_parse), the
 * text of the page's second <style>; NULL when accent is NULL or not a
 * colour. */
const char *fs_html_theme_css(apr_pool_t *p, const char *accent);

/* The OAuth authorize page (GET/POST /oauth/authorize): who asks (the
 * client's name, the host it returns to), what it asks for (scopes: the
 * lines to list, already in the page's language), and the step: sign in
 * (an e-mail address, or a key pasted once), the mailed code, or the
 * approval (Approve / Deny). Every form posts to action with the hidden
 * pairs (the authorization request again) and the CSRF token. No script. */
enum { FS_AUTHZ_SIGNIN, FS_AUTHZ_CODE, FS_AUTHZ_CONSENT };
typedef struct fs_authz_page {
    const fs_locale *loc;
    int step;
    const char *action;
    const char *const *hidden; /* name, value, ..., NULL */
    const char *csrf;          /* the value of the hidden input "csrf" */
    const char *client, *host;
    const char *const *scopes; /* lines, NULL-terminated */
    const char *forms;         /* the form titles a form: constraint allows, or NULL */
    const char *email;         /* CODE: the address typed; CONSENT: the account's */
    const char *error;         /* a message above the form (text), or NULL */
} fs_authz_page;
char *fs_html_authorize(apr_pool_t *p, const fs_authz_page *pg);

#endif
