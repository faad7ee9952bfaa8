/* fs_html: rendering the public pages. */
#include "fs_html.h"
#include "fs_embed.h"
#include "fs_field_more.h"
#include "fs_html_choice.h"
#include "fs_html_parts.h"
#include "fs_html_target.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_locale.h"
#include "fs_logic.h"
#include "fs_pages.h"
#include "fs_partial.h"
#include "fs_theme.h"

#include <stdarg.h>
#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/sha.h>
#include <string.h>

static const char CSS[] =
    "*{box-sizing:border-box}"
    "body{margin:0;font:1rem/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;"
    "color:#1a1a1a;background:#f3f4f6}"
    /* a long word (an e-mail address, an id) wraps rather than widening a
     * 320 px page (WCAG 1.4.10) */
    "main{max-width:40rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh;"
    "overflow-wrap:break-word}"
    "h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem;overflow-wrap:anywhere}"
    ".desc{margin:0 0 1.5rem;overflow-wrap:anywhere;white-space:pre-line}"
    ".q{margin:0 0 1.25rem;padding:0;border:0;min-width:0}"
    "label,legend{display:block;font-weight:600;margin-bottom:.25rem;padding:0;"
    "overflow-wrap:anywhere}"
    ".help,.cond{margin:.1rem 0 .4rem;color:#4a4a4a;font-size:.95rem;overflow-wrap:anywhere}"
    ".cond{font-style:italic}"
    "input[type=text],input[type=email],input[type=url],input[type=tel],input[type=number],"
    "input[type=date],input[type=datetime-local],input[type=password],select,textarea{"
    "display:block;width:100%;"
    "font:inherit;padding:.5rem;border:1px solid #6b6b6b;border-radius:4px;background:#fff;"
    "color:inherit}"
    "textarea{min-height:6rem;resize:vertical}"
    ".opt{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.35rem 0}"
    ".opt input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none}"
    ".opt label{font-weight:400;margin:0}"
    ".rating{display:flex;flex-wrap:wrap;gap:0 1.25rem}"
    /* scale, ranking, matrix (fs_field_choice.c): a matrix is a table that
     * becomes one block per row, its cells labelled, on a narrow screen */
    ".scale{display:flex;flex-wrap:wrap;gap:0 1rem}"
    ".rank{display:flex;gap:.5rem;align-items:center;margin:.35rem 0}"
    ".rank label{font-weight:400;margin:0;flex:none}.rank select{flex:1;min-width:0}"
    "label.other{font-weight:400;margin:.5rem 0 .25rem}"
    ".mx{border-collapse:collapse;width:100%}.mx th{font-weight:400;text-align:start;"
    "padding:.35rem;overflow-wrap:anywhere}.mx td{text-align:center;padding:.35rem}"
    ".mx thead th{text-align:center}.mx tbody tr{border-top:1px solid #9ca3af}"
    ".mxc{display:inline-flex;gap:.35rem;align-items:center;font-weight:400;margin:0;"
    "min-height:1.5rem}.mxc input{width:1.25rem;height:1.25rem;margin:0}"
    ".mxl{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}"
    "@media (max-width:36rem){.mx,.mx tbody,.mx tr,.mx th,.mx td{display:block}"
    ".mx thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}"
    ".mx td{text-align:start;padding:.15rem .35rem}"
    ".mx tbody th{font-weight:600}.mxl{position:static;width:auto;height:auto;"
    "clip-path:none}}"
    ".err{color:#b00020;font-weight:600;margin:.2rem 0}"
    "[aria-invalid=true]{border-color:#b00020!important;border-width:2px!important}"
    ".summary{border:3px solid #b00020;padding:.75rem 1rem;margin:0 0 1.5rem}"
    ".summary h2{font-size:1.1rem;margin:0 0 .5rem}.summary a{color:#b00020}"
    ".notice{border:3px solid #8a6d00;background:#fff8e1;padding:.75rem 1rem;margin:0 0 1.5rem}"
    ".req{color:#b00020;font-weight:400}"
    "button{font:inherit;font-weight:600;padding:.6rem 1.5rem;border:0;border-radius:4px;"
    "background:var(--accent,#1a56db);color:#fff;cursor:pointer}"
    "a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f5a623;"
    "outline-offset:1px}"
    /* an input reached by a link of the error summary stops
     * below the top, so that its question and error stay in sight */
    "input,select,textarea{scroll-margin-top:min(10rem,35vh)}"
    /* hidden without moving it off-page: an element far to the left widens
     * a right-to-left page (which scrolls leftwards) by that much */
    ".hp{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip-path:inset(50%);"
    "white-space:nowrap}"
    /* a form of several pages: the primary button comes first (Enter
     * presses it) and is shown first, so that Tab goes along the buttons
     * as they are seen */
    ".progress{margin:0 0 .25rem;font-weight:600}"
    "progress{display:block;width:100%;height:.5rem;margin:0 0 1rem}"
    "h2.ptitle{font-size:1.25rem;margin:.5rem 0 .75rem;overflow-wrap:anywhere}"
    ".nav{display:flex;flex-wrap:wrap;gap:.75rem}"
    ".nav .back{background:#fff;color:#1a1a1a;border:2px solid #1a1a1a}"
    ".resume a{overflow-wrap:anywhere}" /* a resume URL (settings.partial) */
    /* times, and the parts of an address, a date range, a signature */
    "input[type=time]{display:block;width:100%;font:inherit;padding:.5rem;"
    "border:1px solid #6b6b6b;border-radius:4px;background:#fff;color:inherit}"
    ".part{margin:0 0 .6rem}.part label{font-weight:400}"
    ".sigpad canvas{display:block;width:100%;height:auto;background:#fff;"
    "border:1px solid #6b6b6b;border-radius:4px;touch-action:none;margin:0 0 .5rem}"
    /* the owner's logo, and the respondent's dark preference */
    ".logo{display:block;max-width:100%;max-height:4rem;margin:.5rem 0}"
    "@media (prefers-color-scheme:dark){:root{color-scheme:dark}"
    "body{color:#e5e7eb;background:#111827}main{background:#1f2937}"
    ".help,.cond{color:#cbd5e1}"
    "input:not([type=checkbox]):not([type=radio]),select,textarea{background:#111827;"
    "border-color:#9ca3af}"
    ".err,.req,.summary a{color:#fca5a5}.summary{border-color:#fca5a5}"
    "[aria-invalid=true]{border-color:#fca5a5!important}"
    ".notice{background:#3b2f00;border-color:#facc15}"
    ".nav .back{background:#1f2937;border-color:#e5e7eb;color:#e5e7eb}}"
    /* forced colours (Windows high contrast) drop the backgrounds: a
     * button of border:0 would be bare text, so each gets a border */
    "@media (forced-colors:active){button{border:2px solid ButtonText}}";

const char *fs_html_css(void) {
    return CSS;
}

const char *fs_html_style_src(apr_pool_t *p) {
    return fs_html_css_src(p, CSS);
}

const char *fs_html_css_src(apr_pool_t *p, const char *css) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)css, strlen(css), md);
    char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len(sizeof(md)));
    apr_base64_encode(b, (const char *)md, sizeof(md));
    return apr_pstrcat(p, "'sha256-", b, "'", NULL);
}

/* A growing buffer in a pool. */
typedef struct sb {
    apr_pool_t *p;
    char *s;
    apr_size_t n, cap;
} sb;

static void sb_addn(sb *b, const char *s, apr_size_t n) {
    if (b->n + n + 1 > b->cap) {
        apr_size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = apr_palloc(b->p, cap);
        if (b->n)
            memcpy(ns, b->s, b->n);
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void sb_add(sb *b, const char *s) {
    sb_addn(b, s, strlen(s));
}

/* Escaped text. */
static void sb_esc(sb *b, const char *s) {
    if (!s)
        return;
    const char *run = s;
    for (; *s; s++) {
        const char *rep = NULL;
        switch (*s) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: break;
        }
        if (rep) {
            sb_addn(b, run, (apr_size_t)(s - run));
            sb_add(b, rep);
            run = s + 1;
        }
    }
    sb_addn(b, run, (apr_size_t)(s - run));
}

/* Format with %s arguments inserted raw and %e arguments escaped. */
static void sb_fmt(sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (const char *q = fmt; *q; q++) {
        if (*q == '%' && (q[1] == 's' || q[1] == 'e')) {
            const char *a = va_arg(ap, const char *);
            if (q[1] == 's')
                sb_add(b, a ? a : "");
            else
                sb_esc(b, a);
            q++;
        } else {
            sb_addn(b, q, 1);
        }
    }
    va_end(ap);
}

char *fs_html_escape(apr_pool_t *p, const char *s) {
    sb b = {p, NULL, 0, 0};
    sb_add(&b, "");
    sb_esc(&b, s);
    return b.s;
}

/* The document up to <main>, in the language of loc (NULL: English);
 * meta (raw, ours: NULL for none) goes into the head. */
static void head_meta(sb *b, const fs_locale *loc, const char *title, const char *meta) {
    sb_fmt(b,
           "<!doctype html>\n<html lang=\"%e\" dir=\"%s\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
           "<meta name=\"referrer\" content=\"no-referrer\">%s"
           "<title>%e</title><style>%s</style></head>\n<body><main>\n",
           loc ? loc->lang : "en", loc && loc->rtl ? "rtl" : "ltr", meta, title, CSS);
}

static void head(sb *b, const char *title) {
    head_meta(b, NULL, title, NULL);
}

char *fs_html_message(apr_pool_t *p, const char *title, const char *heading, const char *message) {
    return fs_html_message_in(p, NULL, title, heading, message);
}

char *fs_html_message_in(apr_pool_t *p, const fs_locale *loc, const char *title,
                         const char *heading, const char *message) {
    sb b = {p, NULL, 0, 0};
    head_meta(&b, loc, title, NULL);
    sb_fmt(&b, "<h1>%e</h1>\n<p class=\"desc\">%e</p>\n</main></body></html>\n", heading, message);
    return b.s;
}

char *fs_html_message_link(apr_pool_t *p, const fs_locale *loc, const char *title,
                           const char *heading, const char *message, const char *href,
                           const char *link_text) {
    sb b = {p, NULL, 0, 0};
    head_meta(&b, loc, title, NULL);
    sb_fmt(&b,
           "<h1>%e</h1>\n<p class=\"desc\">%e</p>\n<p><a href=\"%e\">%e</a></p>\n"
           "</main></body></html>\n",
           heading, message, href, link_text);
    return b.s;
}

char *fs_html_problem_type(apr_pool_t *p, int status, const char *title, const char *about) {
    sb b = {p, NULL, 0, 0};
    const char *st = apr_itoa(p, status);
    head(&b, apr_pstrcat(p, st, " ", title, NULL));
    sb_fmt(&b,
           "<h1>%e</h1>\n<p>HTTP status %s.</p>\n<p class=\"desc\">%e</p>\n"
           "</main></body></html>\n",
           title, st, about);
    return b.s;
}

char *fs_html_confirm(apr_pool_t *p, const char *title, const char *message, const char *action,
                      const char *name, const char *value, const char *button) {
    sb b = {p, NULL, 0, 0};
    head_meta(&b, NULL, title, "<meta name=\"robots\" content=\"noindex\">");
    sb_fmt(&b,
           "<h1>%e</h1>\n<p class=\"desc\">%e</p>\n"
           "<form method=\"post\" action=\"%e\">"
           "<input type=\"hidden\" name=\"%e\" value=\"%e\">"
           "<button type=\"submit\">%e</button></form>\n</main></body></html>\n",
           title, message, action, name, value, button);
    return b.s;
}

/* The string shown in an input for v. */
static const char *shown(apr_pool_t *p, const fs_field *f, json_object *v) {
    if (!v)
        return "";
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        /* datetime-local takes no zone: show the wall clock of the value's
         * own offset (UTC, or the field's timeZone) */
        if (f->type == FS_FT_DATETIME && strlen(s) >= 20 && s[10] == 'T' &&
            (!strcmp(s + strlen(s) - 1, "Z") ||
             (strlen(s) == 25 && (s[19] == '+' || s[19] == '-'))))
            return apr_pstrndup(p, s, 19);
        return s;
    }
    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
        return fs_json_str(p, v);
    return "";
}

static const char *opt_value_str(apr_pool_t *p, json_object *v) {
    if (v && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return v ? fs_json_str(p, v) : "null";
}

static int is_selected(json_object *cur, json_object *v) {
    if (!cur)
        return 0;
    if (json_object_is_type(cur, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(cur); i++)
            if (fs_json_equal(json_object_array_get_idx(cur, i), v))
                return 1;
        return 0;
    }
    return fs_json_equal(cur, v);
}

/* Human words for the value that makes a question apply. */
static const char *value_words(apr_pool_t *p, const fs_locale *loc, const fs_field *ctl,
                               json_object *v) {
    const char *l = ctl ? fs_field_option_label(ctl, v) : NULL;
    if (l)
        return fs_trf(p, loc, "page.quoted", "value", l, NULL);
    if (v && json_object_is_type(v, json_type_boolean))
        return fs_tr(loc, json_object_get_boolean(v) ? "page.ticked" : "page.not_ticked");
    return fs_trf(p, loc, "page.quoted", "value", opt_value_str(p, v), NULL);
}

/* A condition in words ("“Age” is more than “17” and “Member” is
 * ticked"); nested all, any and not in parentheses. */
static const char *cond_words(apr_pool_t *p, const fs_locale *loc, const fs_fieldset *fs,
                              json_object *c, int depth) {
    if (!c || !json_object_is_type(c, json_type_object) || depth > FS_COND_DEPTH_MAX + 1)
        return "";
    json_object *v;
    if (json_object_object_get_ex(c, "field", &v)) {
        const char *ck = json_object_get_string(v);
        const fs_field *ctl = fs_fieldset_find(fs, ck);
        const char *name = ctl ? ctl->label : ck;
        json_object *val = NULL, *in = NULL;
        const char *op = "equals";
        if (fs_cond_is_shorthand(c)) {
            if (!json_object_object_get_ex(c, "equals", &val)) {
                op = "in";
                in = fs_json_get(c, "in");
            }
        } else {
            op = json_object_get_string(fs_json_get(c, "op"));
            json_object_object_get_ex(c, "value", &val);
            if (op && !strcmp(op, "in"))
                in = val;
        }
        if (!op)
            return "";
        if (!strcmp(op, "in")) {
            const char *list = "";
            for (size_t i = 0;
                 in && json_object_is_type(in, json_type_array) && i < json_object_array_length(in);
                 i++)
                list =
                    apr_pstrcat(p, list, i ? fs_tr(loc, "page.list_separator") : "",
                                value_words(p, loc, ctl, json_object_array_get_idx(in, i)), NULL);
            return fs_trf(p, loc, "cond.in", "question", name, "values", list, NULL);
        }
        if (!strcmp(op, "answered"))
            return fs_trf(p, loc, "cond.answered", "question", name, NULL);
        const char *key = !strcmp(op, "notEquals")  ? "cond.not_equals"
                          : !strcmp(op, "gt")       ? "cond.gt"
                          : !strcmp(op, "lt")       ? "cond.lt"
                          : !strcmp(op, "contains") ? "cond.contains"
                                                    : "cond.equals";
        return fs_trf(p, loc, key, "question", name, "value", value_words(p, loc, ctl, val), NULL);
    }
    if (json_object_object_get_ex(c, "not", &v))
        return fs_trf(p, loc, "cond.not", "condition", cond_words(p, loc, fs, v, depth + 1), NULL);
    int all = json_object_object_get_ex(c, "all", &v);
    if (!all && !json_object_object_get_ex(c, "any", &v))
        return "";
    const char *out = "";
    for (size_t i = 0;
         v && json_object_is_type(v, json_type_array) && i < json_object_array_length(v); i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *w = cond_words(p, loc, fs, it, depth + 1);
        if (!json_object_object_get_ex(it, "field", NULL) &&
            !json_object_object_get_ex(it, "not", NULL))
            w = apr_pstrcat(p, "(", w, ")", NULL);
        out = apr_pstrcat(p, out, i ? fs_tr(loc, all ? "cond.and" : "cond.or") : "", w, NULL);
    }
    return out;
}

static const char *condition_text(apr_pool_t *p, const fs_locale *loc, const fs_fieldset *fs,
                                  const fs_field *f) {
    json_object *vi = f->visible_if, *eq, *in;
    if (!fs_cond_is_shorthand(vi)) /* the grammar of several */
        return fs_trf(p, loc, "page.answer_only_if", "condition", cond_words(p, loc, fs, vi, 0),
                      NULL);
    const char *ck = json_object_get_string(fs_json_get(vi, "field"));
    const fs_field *ctl = fs_fieldset_find(fs, ck);
    const char *name = ctl ? ctl->label : ck;
    if (json_object_object_get_ex(vi, "equals", &eq))
        return fs_trf(p, loc, "page.condition_equals", "question", name, "value",
                      value_words(p, loc, ctl, eq), NULL);
    in = fs_json_get(vi, "in");
    const char *list = "";
    for (size_t i = 0;
         in && json_object_is_type(in, json_type_array) && i < json_object_array_length(in); i++)
        list = apr_pstrcat(p, list, i ? fs_tr(loc, "page.list_separator") : "",
                           value_words(p, loc, ctl, json_object_array_get_idx(in, i)), NULL);
    return fs_trf(p, loc, "page.condition_in", "question", name, "values", list, NULL);
}

/* An error's sentence in the page's language: from its message key when
 * it has one, else its (English) detail. */
static const char *detail_in(apr_pool_t *p, const fs_locale *loc, const fs_field_error *fe) {
    if (!fe->msg || !loc)
        return fe->detail;
    return fs_trf(p, loc, apr_pstrcat(p, "error.", fe->msg, NULL), "label", fe->label, "n", fe->n,
                  NULL);
}

/* Errors of one field, as one sentence; NULL when none. */
static const char *errors_of(apr_pool_t *p, const fs_locale *loc, const fs_error *e,
                             const char *key) {
    if (!e || !e->errors)
        return NULL;
    const char *out = NULL;
    apr_size_t kl = strlen(key);
    for (int i = 0; i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (fe->pointer[0] == '/' && !strncmp(fe->pointer + 1, key, kl) &&
            (fe->pointer[kl + 1] == '\0' || fe->pointer[kl + 1] == '/'))
            out =
                out ? apr_pstrcat(p, out, " ", detail_in(p, loc, fe), NULL) : detail_in(p, loc, fe);
    }
    return out;
}

static const char *input_type(fs_field_type t) {
    switch (t) {
    case FS_FT_EMAIL: return "email";
    case FS_FT_URL: return "url";
    case FS_FT_TEL: return "tel";
    case FS_FT_NUMBER:
    case FS_FT_INTEGER: return "number";
    case FS_FT_DATE: return "date";
    case FS_FT_DATETIME: return "datetime-local";
    case FS_FT_TIME: return "time";
    default: return "text";
    }
}

/* A size for people: "10 MB", "1.5 MB", "512 KB", "100 B". */
const char *fs_html_size(apr_pool_t *p, long long n) {
    if (n >= 1024 * 1024 && n % (1024 * 1024) == 0)
        return apr_psprintf(p, "%" APR_INT64_T_FMT " MB", (apr_int64_t)(n / (1024 * 1024)));
    if (n >= 1024 * 1024)
        return apr_psprintf(p, "%.1f MB", (double)n / (1024 * 1024));
    if (n >= 1024)
        return apr_psprintf(p, "%" APR_INT64_T_FMT " KB", (apr_int64_t)(n / 1024));
    return apr_psprintf(p, "%" APR_INT64_T_FMT " B",
                        (apr_int64_t)n); /* a unit every language reads */
}

static void field(sb *b, apr_pool_t *p, const fs_page *pg, const fs_field *f) {
    json_object *v = NULL;
    if (pg->values)
        json_object_object_get_ex(pg->values, f->key, &v);
    if (f->type == FS_FT_HIDDEN) {
        if (v)
            sb_fmt(b, "<input type=\"hidden\" name=\"%e\" value=\"%e\">\n", f->key, shown(p, f, v));
        return;
    }
    const char *id = apr_pstrcat(p, "f-", f->key, NULL);
    const fs_locale *loc = pg->loc;
    const char *err = errors_of(p, loc, pg->errors, f->key);
    const char *desc = "";
    int group = f->type == FS_FT_MULTISELECT || f->type == FS_FT_RATING ||
                fs_field_parts(f->type) || fs_choice_is_group(f);
    /* on a form of several pages, a condition on an earlier page's answer
     * is decided: the question is shown only when it applies, and a
     * requiredIf so decided makes it plainly required (or not) */
    int decided = fs_pages_decided(pg->fields, pg->page, f);
    int req_decided = f->required_if && fs_pages_required_decided(pg->fields, pg->page, f);
    int required_now = f->required || (req_decided && fs_cond_eval(f->required_if, pg->values));
    const char *req =
        required_now ? apr_pstrcat(p, " <span class=\"req\">",
                                   fs_html_escape(p, fs_tr(loc, "page.required")), "</span>", NULL)
                     : "";
    const char *cond = f->visible_if && !decided ? condition_text(p, loc, pg->fields, f) : NULL;
    const char *rcond = f->required_if && !req_decided
                            ? fs_trf(p, loc, "page.required_if", "condition",
                                     cond_words(p, loc, pg->fields, f->required_if, 0), NULL)
                            : NULL;
    if (rcond)
        cond = cond ? apr_pstrcat(p, cond, " ", rcond, NULL) : rcond;

    sb_fmt(b, group ? "<fieldset class=\"q\" id=\"q-%e\">" : "<div class=\"q\" id=\"q-%e\">",
           f->key);
    if (group)
        sb_fmt(b, "<legend>%e%s</legend>", f->label, req);
    else if (f->type != FS_FT_BOOLEAN && f->type != FS_FT_CONSENT)
        sb_fmt(b, "<label for=\"%e\">%e%s</label>", id, f->label, req);
    if (f->description) {
        sb_fmt(b, "<p class=\"help\" id=\"%e-help\">%e</p>", id, f->description);
        desc = apr_pstrcat(p, id, "-help", NULL);
    }
    const char *bounds = fs_html_bounds_help(p, loc, f); /* dates and times */
    if (bounds) {
        sb_fmt(b, "<p class=\"help\" id=\"%e-bounds\">%e</p>", id, bounds);
        desc = apr_pstrcat(p, desc, *desc ? " " : "", id, "-bounds", NULL);
    }
    if (cond) {
        sb_fmt(b, "<p class=\"cond\" id=\"%e-cond\">%e</p>", id, cond);
        desc = apr_pstrcat(p, desc, *desc ? " " : "", id, "-cond", NULL);
    }
    if (f->type == FS_FT_SIGNATURE) /* "Typing your full name here signs this form." */
        desc = apr_pstrcat(p, desc, *desc ? " " : "", id, "-sign", NULL);
    if (f->type == FS_FT_FILE) /* "Files: at most 1, each up to 10 MB." */
        desc = apr_pstrcat(p, desc, *desc ? " " : "", id, "-limits", NULL);
    const char *desc_ok = desc; /* a part not in error: without the error */
    if (err) {
        sb_fmt(b, "<p class=\"err\" id=\"%e-err\">%e</p>", id,
               fs_trf(p, loc, "page.field_error", "message", err, NULL));
        desc = apr_pstrcat(p, desc, *desc ? " " : "", id, "-err", NULL);
    }
    const char *aria =
        apr_pstrcat(p, err ? " aria-invalid=\"true\"" : "", *desc ? " aria-describedby=\"" : "",
                    *desc ? fs_html_escape(p, desc) : "", *desc ? "\"" : "", NULL);
    const char *required = required_now && (!f->visible_if || decided) ? " required" : "";
    switch (f->type) {
    case FS_FT_TEXTAREA:
        sb_fmt(b, "\n<textarea id=\"%e\" name=\"%e\" rows=\"5\"%s%s", id, f->key, required, aria);
        if (f->has_max_len)
            sb_fmt(b, " maxlength=\"%s\"", apr_ltoa(p, f->max_len));
        if (f->placeholder)
            sb_fmt(b, " placeholder=\"%e\"", f->placeholder);
        sb_fmt(b, ">%e</textarea>", shown(p, f, v));
        break;
    case FS_FT_BOOLEAN:
        sb_fmt(b,
               "<div class=\"opt\"><input type=\"checkbox\" id=\"%e\" name=\"%e\" "
               "value=\"true\"%s%s%s><label for=\"%e\">%e%s</label></div>",
               id, f->key,
               v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v)
                   ? " checked"
                   : "",
               required, aria, id, f->label, req);
        break;
    case FS_FT_SELECT:
        sb_fmt(b, "\n<select id=\"%e\" name=\"%e\"%s%s><option value=\"\">%e</option>", id, f->key,
               required, aria, fs_tr(loc, "page.choose"));
        for (size_t i = 0; f->options && i < json_object_array_length(f->options); i++) {
            json_object *o = json_object_array_get_idx(f->options, i);
            json_object *ov = fs_json_get(o, "value");
            const char *ol = fs_field_option_label(f, ov);
            sb_fmt(b, "<option value=\"%e\"%s>%e</option>", opt_value_str(p, ov),
                   is_selected(v, ov) ? " selected" : "", ol);
        }
        sb_add(b, fs_choice_other_html(p, loc, f, v, id, 1));
        sb_add(b, "</select>");
        sb_add(b, fs_choice_other_html_aria(p, loc, f, v, id,
                                            fs_html_error_on_other(p, pg->errors, f) ? aria : ""));
        break;
    case FS_FT_MULTISELECT:
        for (size_t i = 0; f->options && i < json_object_array_length(f->options); i++) {
            json_object *ov = fs_json_get(json_object_array_get_idx(f->options, i), "value");
            const char *oid = apr_psprintf(p, "%s-%lu", id, (unsigned long)i);
            sb_fmt(b,
                   "\n<div class=\"opt\"><input type=\"checkbox\" id=\"%e\" name=\"%e\" "
                   "value=\"%e\"%s%s><label for=\"%e\">%e</label></div>",
                   oid, f->key, opt_value_str(p, ov), is_selected(v, ov) ? " checked" : "", aria,
                   oid, fs_field_option_label(f, ov));
        }
        sb_add(b, fs_choice_other_html_aria(p, loc, f, v, id,
                                            fs_html_error_on_other(p, pg->errors, f) ? aria : ""));
        break;
    case FS_FT_RATING: {
        sb_add(b, "\n<div class=\"rating\">");
        for (int i = 1; i <= (int)f->max; i++) {
            const char *oid = apr_psprintf(p, "%s-%d", id, i - 1);
            json_object *iv = json_object_new_int(i);
            int sel = is_selected(v, iv);
            json_object_put(iv);
            sb_fmt(b,
                   "<div class=\"opt\"><input type=\"radio\" id=\"%e\" name=\"%e\" "
                   "value=\"%s\"%s%s%s><label for=\"%e\">%e</label></div>",
                   oid, f->key, apr_itoa(p, i), sel ? " checked" : "", required, aria, oid,
                   fs_trf(p, loc, "page.rating", "n", apr_itoa(p, i), "max",
                          apr_itoa(p, (int)f->max), NULL));
        }
        sb_add(b, "</div>");
        break;
    }
    case FS_FT_ADDRESS:
    case FS_FT_DATERANGE:
    case FS_FT_SIGNATURE:
        sb_add(b, fs_html_parts(p, loc, f, v, id, aria,
                                *desc_ok ? apr_pstrcat(p, " aria-describedby=\"",
                                                       fs_html_escape(p, desc_ok), "\"", NULL)
                                         : "",
                                err ? fs_html_parts_in_error(p, pg->errors, f) : 0,
                                *required != '\0', err != NULL));
        break;
    case FS_FT_SCALE:
    case FS_FT_MATRIX:
    case FS_FT_RANKING:
    case FS_FT_CONSENT: sb_add(b, fs_choice_html(p, loc, f, v, id, aria, required)); break;
    case FS_FT_FILE: /* a browser cannot be given the file back */
        sb_fmt(b, "\n<input type=\"file\" id=\"%e\" name=\"%e\"%s%s%s", id, f->key, required, aria,
               f->max_files > 1 ? " multiple" : "");
        if (f->accept) {
            const char *acc = NULL;
            for (size_t i = 0; i < json_object_array_length(f->accept); i++) {
                const char *a = json_object_get_string(json_object_array_get_idx(f->accept, i));
                acc = acc ? apr_pstrcat(p, acc, ",", a, NULL) : a;
            }
            if (acc)
                sb_fmt(b, " accept=\"%e\"", acc);
        }
        sb_add(b, ">");
        sb_fmt(b, "<p class=\"help\" id=\"%e-limits\">%e</p>", id,
               fs_trf(p, loc, "page.file_limits", "n", apr_ltoa(p, f->max_files), "size",
                      fs_html_size(p, f->max_size), NULL));
        break;
    default: {
        /* a browser empties a date or number input whose value it cannot
         * read: show such a typed value as text, so that it is kept */
        const char *type = input_type(f->type);
        if (err && v && json_object_is_type(v, json_type_string) &&
            (f->type == FS_FT_DATE || f->type == FS_FT_DATETIME || f->type == FS_FT_NUMBER ||
             f->type == FS_FT_INTEGER || f->type == FS_FT_TIME))
            type = "text";
        sb_fmt(b, "\n<input type=\"%s\" id=\"%e\" name=\"%e\" value=\"%e\"%s%s", type, id, f->key,
               shown(p, f, v), required, aria);
        if (f->type == FS_FT_INTEGER)
            sb_add(b, " step=\"1\" inputmode=\"numeric\"");
        else if (f->type == FS_FT_NUMBER)
            sb_add(b, " step=\"any\" inputmode=\"decimal\"");
        else if (f->type == FS_FT_DATETIME)
            sb_add(b, " step=\"1\"");
        int numeric = f->type == FS_FT_NUMBER || f->type == FS_FT_INTEGER;
        if (numeric && f->min > -(double)FS_SAFE_INTEGER)
            sb_fmt(b, " min=\"%s\"", apr_psprintf(p, "%.15g", f->min));
        if (numeric && f->max < (double)FS_SAFE_INTEGER)
            sb_fmt(b, " max=\"%s\"", apr_psprintf(p, "%.15g", f->max));
        if (f->has_max_len)
            sb_fmt(b, " maxlength=\"%s\"", apr_ltoa(p, f->max_len));
        sb_add(b, fs_html_bounds(p, f)); /* dates and times */
        if (f->placeholder)
            sb_fmt(b, " placeholder=\"%e\"", f->placeholder);
        if (f->type == FS_FT_EMAIL)
            sb_add(b, " autocomplete=\"email\"");
        sb_add(b, ">");
        break;
    }
    }
    sb_add(b, group ? "</fieldset>\n" : "</div>\n");
}

const char *fs_html_theme_css(apr_pool_t *p, const char *accent) {
    unsigned char rgb[3];
    if (!accent || !fs_color_parse(accent, rgb))
        return NULL;
    return apr_psprintf(p, ":root{--accent:#%02x%02x%02x}", rgb[0], rgb[1], rgb[2]);
}

/* The form's branding: a second style sheet in the head (NULL
 * for none) and the logo above the title. */
static const char *theme_head(apr_pool_t *p, const fs_page *pg) {
    const char *css = fs_html_theme_css(p, pg->accent);
    return css ? apr_pstrcat(p, "<style>", css, "</style>", NULL) : NULL;
}

static void logo(sb *b, const fs_page *pg) {
    if (pg->logo_url)
        sb_fmt(b, "<img class=\"logo\" src=\"%e\" alt=\"%e\">\n", pg->logo_url, pg->title);
}

/* Is f rendered on pg? Every field on a form of one page; on a form of
 * several, the fields shown on pg's page, and the hidden ones on the
 * first. */
static int on_this_page(const fs_page *pg, const fs_field *f) {
    const fs_fieldset *fs = pg->fields;
    if (fs->npages <= 1)
        return 1;
    if (f->type == FS_FT_HIDDEN)
        return pg->page == 0;
    return fs_pages_field_shown(fs, pg->page, f, pg->values);
}

char *fs_html_form(apr_pool_t *p, const fs_page *pg) {
    sb b = {p, NULL, 0, 0};
    const fs_locale *loc = pg->loc;
    int paged = pg->fields->npages > 1 && pg->page >= 0 && pg->page < pg->fields->npages;
    const fs_fieldpage *fp = paged ? &pg->fields->pages[pg->page] : NULL;
    int at = pg->progress_n > 0 ? pg->progress_n : pg->page + 1;
    int of = pg->progress_total >= at ? pg->progress_total : pg->fields->npages;
    const char *progress = paged ? fs_trf(p, loc, "page.progress", "n", apr_itoa(p, at), "total",
                                          apr_itoa(p, of), NULL)
                                 : NULL;
    head_meta(&b, loc, paged ? apr_pstrcat(p, pg->title, " (", progress, ")", NULL) : pg->title,
              theme_head(p, pg));
    logo(&b, pg);
    sb_fmt(&b, "<h1>%e</h1>\n", pg->title);
    if (pg->description && (!paged || pg->page == 0))
        sb_fmt(&b, "<p class=\"desc\">%e</p>\n", pg->description);
    if (paged) {
        sb_fmt(&b, "<p class=\"progress\" id=\"progress\">%e</p>", progress);
        sb_fmt(&b, "<progress max=\"%s\" value=\"%s\" aria-labelledby=\"progress\"></progress>\n",
               apr_itoa(p, of), apr_itoa(p, at));
        if (fp->title)
            sb_fmt(&b, "<h2 class=\"ptitle\">%e</h2>\n", fp->title);
        if (fp->description)
            sb_fmt(&b, "<p class=\"desc\">%e</p>\n", fp->description);
    }
    if (pg->notice)
        sb_fmt(&b, "<div class=\"notice\" role=\"alert\"><p>%e</p></div>\n", pg->notice);
    if (pg->errors && pg->errors->errors && pg->errors->errors->nelts) {
        int n = pg->errors->errors->nelts;
        sb_fmt(&b,
               /* focused on load, without script (autofocus): Tab then
                * goes from the summary to its first error's link */
               "<div class=\"summary\" role=\"alert\" aria-labelledby=\"summary-title\" "
               "tabindex=\"-1\" autofocus>"
               "<h2 id=\"summary-title\">%e</h2><ul>",
               n == 1 ? fs_tr(loc, "page.summary_one")
                      : fs_trf(p, loc, "page.summary_other", "n", apr_itoa(p, n), NULL));
        for (int i = 0; i < n; i++) {
            const fs_field_error *fe = &APR_ARRAY_IDX(pg->errors->errors, i, fs_field_error);
            const char *key = apr_pstrdup(p, fe->pointer + (fe->pointer[0] == '/'));
            char *slash = strchr(key, '/');
            if (slash)
                *slash = '\0';
            const fs_field *f = fs_fieldset_find(pg->fields, key);
            if (f && f->type != FS_FT_HIDDEN) {
                int group = f->type == FS_FT_MULTISELECT || f->type == FS_FT_RATING ||
                            fs_field_parts(f->type) || fs_choice_is_group(f);
                sb_fmt(&b, "<li><a href=\"#f-%e%e\">%e</a></li>", f->key,
                       fs_html_error_target(p, f, fe->pointer, group), detail_in(p, loc, fe));
            } else {
                sb_fmt(&b, "<li>%e</li>", detail_in(p, loc, fe));
            }
        }
        sb_add(&b, "</ul></div>\n");
    }
    if (paged && pg->resume_url && pg->resume_until)
        sb_fmt(&b, "<p class=\"desc resume\">%e <a href=\"%e\">%e</a></p>\n",
               fs_trf(p, loc, "partial.kept", "date", pg->resume_until, NULL), pg->resume_url,
               pg->resume_url);
    sb_fmt(&b, "<form method=\"post\" action=\"%e\" accept-charset=\"utf-8\"%s>\n", pg->action,
           fs_fieldset_has_files(pg->fields) ? " enctype=\"multipart/form-data\"" : "");
    if (pg->token)
        sb_fmt(&b, FS_HTML_TOKEN_MARK "%e\">\n", pg->token);
    if (paged && pg->state)
        sb_fmt(&b, "<input type=\"hidden\" name=\"" FS_STATE_NAME "\" value=\"%e\">\n", pg->state);
    if (paged && pg->resume)
        sb_fmt(&b, "<input type=\"hidden\" name=\"" FS_RESUME_NAME "\" value=\"%e\">\n",
               pg->resume);
    for (int i = 0; i < pg->fields->n; i++)
        if (on_this_page(pg, &pg->fields->f[i]))
            field(&b, p, pg, &pg->fields->f[i]);
    if (pg->honeypot)
        sb_fmt(&b,
               "<div class=\"hp\" aria-hidden=\"true\"><label for=\"f-" FS_HONEYPOT_NAME
               "\">%e</label><input type=\"text\" id=\"f-" FS_HONEYPOT_NAME
               "\" name=\"" FS_HONEYPOT_NAME "\" value=\"\" tabindex=\"-1\" "
               "autocomplete=\"off\"></div>\n",
               fs_tr(loc, "page.honeypot"));
    const fs_field *copy = pg->copy_field ? fs_fieldset_find(pg->fields, pg->copy_field) : NULL;
    if (copy && (!paged || !pg->has_next))
        sb_fmt(&b, "<p class=\"desc\">%e</p>\n",
               fs_trf(p, loc, "page.copy_notice", "field", copy->label ? copy->label : copy->key,
                      NULL));
    if (pg->captcha && pg->captcha_site_key && (!paged || !pg->has_next))
        sb_add(&b, fs_captcha_widget(p, pg->captcha, pg->captcha_site_key, loc));
    const char *send = pg->submit_label ? pg->submit_label : fs_tr(loc, "page.submit");
    if (!paged) {
        sb_fmt(&b, "<button type=\"submit\">%e</button>\n</form>\n", send);
    } else { /* the primary button first: Enter in an input presses it */
        sb_add(&b, "<div class=\"nav\">");
        if (pg->has_next)
            sb_fmt(&b,
                   "<button type=\"submit\" name=\"" FS_NAV_NAME "\" value=\"next\">%e</button>",
                   fs_tr(loc, "page.next"));
        else
            sb_fmt(&b,
                   "<button type=\"submit\" name=\"" FS_NAV_NAME "\" value=\"submit\">%e</button>",
                   send);
        if (pg->has_back)
            sb_fmt(&b,
                   "<button type=\"submit\" name=\"" FS_NAV_NAME
                   "\" value=\"back\" class=\"back\" formnovalidate>%e</button>",
                   fs_tr(loc, "page.back"));
        if (pg->can_save)
            sb_fmt(&b,
                   "<button type=\"submit\" name=\"" FS_NAV_NAME "\" value=\"" FS_NAV_SAVE
                   "\" class=\"back\" formnovalidate>%e</button>",
                   fs_tr(loc, "partial.save"));
        sb_add(&b, "</div>\n</form>\n");
    }
    if (pg->decline_action)
        sb_fmt(&b,
               "<form method=\"post\" action=\"%e\" class=\"decline\">\n<p class=\"desc\">%e</p>\n"
               "<button type=\"submit\">%e</button>\n</form>\n",
               pg->decline_action, fs_tr(loc, "page.decline_notice"), fs_tr(loc, "page.decline"));
    if (fs_html_signature_on(pg->fields)) /* the signature pads (fs_html_parts.h) */
        sb_fmt(&b, "<script>%s</script>", fs_html_signature_script());
    sb_fmt(&b, "</main>%s%s%s%s%s%s</body></html>\n", pg->embed ? "<script>" : "",
           pg->embed ? fs_embed_page_script() : "", pg->embed ? "</script>" : "",
           pg->can_save ? "<script>" : "", pg->can_save ? fs_partial_script() : "",
           pg->can_save ? "</script>" : "");
    return b.s;
}

long fs_html_token_at(const char *page, apr_size_t len) {
    static const char mark[] = FS_HTML_TOKEN_MARK;
    const apr_size_t ml = sizeof(mark) - 1;
    for (const char *c = page, *end = page + len; c && (apr_size_t)(end - c) >= ml;
         c = memchr(c + 1, '<', (apr_size_t)(end - c - 1))) {
        if (*c != '<' || memcmp(c, mark, ml))
            continue;
        apr_size_t at = (apr_size_t)(c - page) + ml;
        return at + FS_FORM_TOKEN_LEN < len && page[at + FS_FORM_TOKEN_LEN] == '"' ? (long)at : -1;
    }
    return -1;
}

static void authz_form_start(sb *b, const fs_authz_page *pg, const char *step) {
    sb_fmt(b, "<form method=\"post\" action=\"%e\">", pg->action);
    for (const char *const *h = pg->hidden; h && h[0]; h += 2)
        if (h[1])
            sb_fmt(b, "<input type=\"hidden\" name=\"%e\" value=\"%e\">", h[0], h[1]);
    sb_fmt(b,
           "<input type=\"hidden\" name=\"csrf\" value=\"%e\">"
           "<input type=\"hidden\" name=\"step\" value=\"%e\">\n",
           pg->csrf, step);
}

/* One labelled input; the error (if any) is announced and tied to it. */
static void authz_input(sb *b, const fs_authz_page *pg, const char *name, const char *type,
                        const char *label, const char *autocomplete, int with_error) {
    sb_fmt(b, "<div class=\"q\"><label for=\"%e\">%e</label>", name, fs_tr(pg->loc, label));
    if (with_error)
        sb_fmt(b, "<p class=\"err\" id=\"%e-err\">%e</p>", name, pg->error);
    sb_fmt(b, "<input type=\"%e\" id=\"%e\" name=\"%e\" autocomplete=\"%e\" required", type, name,
           name, autocomplete);
    if (with_error)
        sb_fmt(b, " aria-invalid=\"true\" aria-describedby=\"%e-err\"", name);
    sb_add(b, "></div>\n");
}

char *fs_html_authorize(apr_pool_t *p, const fs_authz_page *pg) {
    sb b = {p, NULL, 0, 0};
    const fs_locale *loc = pg->loc;
    const char *title = fs_trf(p, loc, "oauth.title", "client", pg->client, NULL);
    head_meta(&b, loc, title, "<meta name=\"robots\" content=\"noindex\">");
    sb_fmt(&b, "<h1>%e</h1>\n<p class=\"desc\">%e</p>\n", title,
           fs_trf(p, loc, "oauth.intro", "client", pg->client, "host", pg->host, NULL));
    sb_fmt(&b, "<h2>%e</h2>\n<ul>", fs_tr(loc, "oauth.asks"));
    for (const char *const *s = pg->scopes; s && *s; s++)
        sb_fmt(&b, "<li>%e</li>", *s);
    sb_add(&b, "</ul>\n");
    if (pg->forms)
        sb_fmt(&b, "<p class=\"help\">%e</p>\n",
               fs_trf(p, loc, "oauth.only_forms", "forms", pg->forms, NULL));
    int field_error = 0;
    if (pg->error && pg->step == FS_AUTHZ_CONSENT)
        sb_fmt(&b, "<p class=\"notice\" role=\"alert\">%e</p>\n", pg->error);
    else if (pg->error)
        field_error = 1;
    if (pg->step == FS_AUTHZ_SIGNIN) {
        sb_fmt(&b, "<h2>%e</h2>\n", fs_tr(loc, "oauth.signin"));
        authz_form_start(&b, pg, "email");
        authz_input(&b, pg, "email", "email", "oauth.email_label", "email",
                    field_error && !pg->email);
        sb_fmt(&b, "<button type=\"submit\">%e</button></form>\n",
               fs_tr(loc, "oauth.email_button"));
        sb_fmt(&b, "<h2>%e</h2>\n", fs_tr(loc, "oauth.key_heading"));
        authz_form_start(&b, pg, "key");
        authz_input(&b, pg, "key", "password", "oauth.key_label", "off", field_error && pg->email);
        sb_fmt(&b, "<button type=\"submit\">%e</button></form>\n", fs_tr(loc, "oauth.key_button"));
    } else if (pg->step == FS_AUTHZ_CODE) {
        sb_fmt(&b, "<p role=\"status\">%e</p>\n",
               fs_trf(p, loc, "oauth.code_sent", "email", pg->email, NULL));
        authz_form_start(&b, pg, "code");
        authz_input(&b, pg, "code", "text", "oauth.code_label", "one-time-code", field_error);
        sb_fmt(&b, "<button type=\"submit\">%e</button></form>\n", fs_tr(loc, "oauth.code_button"));
    } else {
        sb_fmt(&b, "<p>%e</p>\n", fs_trf(p, loc, "oauth.signed_in", "email", pg->email, NULL));
        authz_form_start(&b, pg, "consent");
        sb_fmt(&b,
               "<button type=\"submit\" name=\"decision\" value=\"approve\">%e</button> "
               "<button type=\"submit\" name=\"decision\" value=\"deny\">%e</button>"
               "</form>\n",
               fs_tr(loc, "oauth.approve"), fs_tr(loc, "oauth.deny"));
    }
    sb_add(&b, "</main></body></html>\n");
    return b.s;
}
