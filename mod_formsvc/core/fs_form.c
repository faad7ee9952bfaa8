/* fs_form: title, description, slug and settings of a form. */
#include "fs_form.h"
#include "fs_embed.h"
#include "fs_json.h"
#include "fs_locale.h"
#include "fs_logic.h"
#include "fs_logic_rules.h"
#include "fs_notify.h"
#include "fs_scores.h"
#include "fs_theme.h"
#include "fs_unique.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <apr_uri.h>
#include <stdlib.h>
#include <string.h>

int fs_slug_valid(const char *s) {
    if (!s)
        return 0;
    apr_size_t n = strlen(s);
    if (n < 1 || n > 64 || !strncmp(s, "frm_", 4))
        return 0;
    for (apr_size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && i > 0 && i < n - 1))
            return 0;
    }
    return 1;
}

const char *fs_form_title(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!v || json_object_is_type(v, json_type_null)) {
        fs_error_add(p, verr, ptr, "required", "title is required.");
        return NULL;
    }
    return fs_json_text(p, v, ptr, "title", 1, FS_TITLE_MAX, 0, verr);
}

const char *fs_form_description(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr,
                                int *ok) {
    *ok = 1;
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    const char *s = fs_json_text(p, v, ptr, "description", 0, FS_FORM_DESCRIPTION_MAX, 1, verr);
    *ok = s != NULL;
    return s;
}

const char *fs_form_slug(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr, int *ok) {
    *ok = 1;
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    *ok = 0;
    if (!json_object_is_type(v, json_type_string)) {
        fs_error_add(p, verr, ptr, "type", "slug must be a string or null.");
        return NULL;
    }
    const char *s = json_object_get_string(v);
    if (!fs_slug_valid(s)) {
        fs_error_add(p, verr, ptr, "pattern",
                     "slug must match ^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$ and not begin "
                     "with frm_.");
        return NULL;
    }
    *ok = 1;
    return s;
}

/* A host CSP can name: labels of letters, digits and hyphens joined by
 * dots (an IPv4 literal is one too); no IPv6 literal, no empty label. */
static int csp_host(const char *h) {
    if (!h || !*h)
        return 0;
    int label = 0;
    for (const char *c = h; *c; c++) {
        if (*c == '.') {
            if (!label)
                return 0;
            label = 0;
        } else if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                   (*c >= '0' && *c <= '9') || *c == '-') {
            label++;
        } else {
            return 0;
        }
    }
    return label > 0;
}

const char *fs_url_origin(apr_pool_t *p, const char *url) {
    if (!url || !*url || strlen(url) > FS_URL_MAX)
        return NULL;
    for (const char *c = url; *c; c++) {
        unsigned char u = (unsigned char)*c;
        /* controls, space, DEL and non-ASCII (percent-encode them), and what
         * ends or splits a CSP source expression or a header value */
        if (u <= 0x20 || u >= 0x7f || strchr(";,\"'`<>\\", *c))
            return NULL;
    }
    apr_uri_t u;
    if (apr_uri_parse(p, url, &u) != APR_SUCCESS || !u.scheme || !u.hostname)
        return NULL;
    if (strcasecmp(u.scheme, "http") && strcasecmp(u.scheme, "https"))
        return NULL;
    if (u.user || u.password || !csp_host(u.hostname))
        return NULL;
    if (u.port_str) {
        apr_size_t n = strlen(u.port_str);
        if (n < 1 || n > 5 || strspn(u.port_str, "0123456789") != n || atoi(u.port_str) < 1 ||
            atoi(u.port_str) > 65535)
            return NULL;
    }
    char *o = apr_pstrcat(p, u.scheme, "://", u.hostname, u.port_str ? ":" : "",
                          u.port_str ? u.port_str : "", NULL);
    for (char *c = o; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return o;
}

int fs_redirect_url_valid(apr_pool_t *p, const char *url) {
    return fs_url_origin(p, url) != NULL;
}

/* An RFC 3339 member of s (NULL when absent or null): *ok 0 on an error. */
static const char *settings_time(apr_pool_t *p, json_object *s, const char *ptr, const char *name,
                                 fs_error *verr, apr_time_t *t, int *ok) {
    json_object *v = fs_json_get(s, name);
    const char *mp = apr_pstrcat(p, ptr, "/", name, NULL);
    *ok = 1;
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    *ok = 0;
    if (!json_object_is_type(v, json_type_string))
        fs_error_add(p, verr, mp, "type", "%s must be an RFC 3339 timestamp or null.", name);
    else if (!fs_time_parse_rfc3339(json_object_get_string(v), t) || *t < 0)
        fs_error_add(p, verr, mp, "format",
                     "%s must be an RFC 3339 timestamp such as 2027-01-01T00:00:00Z.", name);
    else {
        *ok = 1;
        return fs_time_format(p, *t);
    }
    return NULL;
}

void fs_settings_page(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                      fs_error *verr) {
    /* members absent when not set, so forms without them read as before */
    json_object *v = fs_json_get(s, "submitLabel");
    if (v && !json_object_is_type(v, json_type_null)) {
        const char *t = fs_json_text(p, v, apr_pstrcat(p, ptr, "/submitLabel", NULL), "submitLabel",
                                     1, FS_SUBMIT_LABEL_MAX, 0, verr);
        if (t)
            json_object_object_add(out, "submitLabel", json_object_new_string(t));
    }
    v = fs_json_get(s, "closedMessage");
    if (v && !json_object_is_type(v, json_type_null)) {
        const char *t = fs_json_text(p, v, apr_pstrcat(p, ptr, "/closedMessage", NULL),
                                     "closedMessage", 1, FS_CONFIRMATION_MAX, 1, verr);
        if (t)
            json_object_object_add(out, "closedMessage", json_object_new_string(t));
    }
    apr_time_t opens = 0, closes = 0;
    int ok_o, ok_c;
    const char *o = settings_time(p, s, ptr, "opensAt", verr, &opens, &ok_o);
    if (o)
        json_object_object_add(out, "opensAt", json_object_new_string(o));
    /* closesAt itself is checked (and reported) by fs_settings_parse */
    fs_error scratch = {0};
    const char *c = settings_time(p, s, ptr, "closesAt", &scratch, &closes, &ok_c);
    if (o && c && opens >= closes)
        fs_error_add(p, verr, apr_pstrcat(p, ptr, "/opensAt", NULL), "maximum",
                     "opensAt must be before closesAt.");
    fs_settings_theme(p, s, out, ptr, verr);
    fs_settings_embed(p, s, out, ptr, verr);
}

/* settings.locale: "auto" or a BCP 47 tag whose language has a
 * file in share/locales (fs_locale_match: pt-BR is pt, zh-TW is zh); kept
 * as given, absent (null) for the default, English. */
static void settings_locale(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                            fs_error *verr) {
    json_object *v = fs_json_get(s, "locale");
    if (!v || json_object_is_type(v, json_type_null))
        return;
    const char *mp = apr_pstrcat(p, ptr, "/locale", NULL);
    if (!json_object_is_type(v, json_type_string)) {
        fs_error_add(p, verr, mp, "type", "locale must be a string or null.");
        return;
    }
    const char *tag = json_object_get_string(v);
    if (!fs_locale_tag_valid(tag)) {
        fs_error_add(p, verr, mp, "format",
                     "locale must be \"auto\" or a BCP 47 language tag such as de or pt-BR.");
        return;
    }
    if (strcmp(tag, "auto") && !fs_locale_match(tag)) {
        const char *all = "";
        for (const char *const *c = fs_locale_codes; *c; c++)
            all = apr_pstrcat(p, all, *all ? ", " : "", *c, NULL);
        fs_error_add(p, verr, mp, "enum", "The pages are available in %s (or \"auto\").", all);
        return;
    }
    json_object_object_add(out, "locale", json_object_new_string(tag));
}

/* settings.retentionDays: how many days a submission is kept before the
 * retention task deletes it (1..FS_RETENTION_DAYS_MAX); absent (null) keeps
 * submissions until deleted by hand or by the server's ceiling. */
static void settings_retention(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                               fs_error *verr) {
    json_object *v = fs_json_get(s, "retentionDays");
    if (!v || json_object_is_type(v, json_type_null))
        return;
    const char *mp = apr_pstrcat(p, ptr, "/retentionDays", NULL);
    if (!json_object_is_type(v, json_type_int)) {
        fs_error_add(p, verr, mp, "type", "retentionDays must be an integer or null.");
        return;
    }
    int64_t d = json_object_get_int64(v);
    if (d < 1 || d > FS_RETENTION_DAYS_MAX) {
        fs_error_add(p, verr, mp, d < 1 ? "minimum" : "maximum", "retentionDays is from 1 to %d.",
                     FS_RETENTION_DAYS_MAX);
        return;
    }
    json_object_object_add(out, "retentionDays", json_object_new_int64(d));
}

/* linkRequired: true when the form takes answers only through its
 * respondent links (an ask's form is made so); absent when false. */
static void settings_link_required(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                                   fs_error *verr) {
    json_object *v = fs_json_get(s, "linkRequired");
    if (!v || json_object_is_type(v, json_type_null))
        return;
    if (!json_object_is_type(v, json_type_boolean)) {
        fs_error_add(p, verr, apr_pstrcat(p, ptr, "/linkRequired", NULL), "type",
                     "linkRequired must be a boolean.");
        return;
    }
    if (json_object_get_boolean(v))
        json_object_object_add(out, "linkRequired", json_object_new_boolean(1));
}

/* partial: true keeps the answers so far of the public page at each
 * page step (sql/0059), absent when false; partialExpiresDays
 * (1..FS_PARTIAL_DAYS_MAX) how long an unfinished one is kept after its
 * last step, present only when set (FS_PARTIAL_DAYS_DEFAULT otherwise). */
static void settings_partial(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                             fs_error *verr) {
    json_object *v = fs_json_get(s, "partial");
    if (v && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_boolean))
            fs_error_add(p, verr, apr_pstrcat(p, ptr, "/partial", NULL), "type",
                         "partial must be a boolean.");
        else if (json_object_get_boolean(v))
            json_object_object_add(out, "partial", json_object_new_boolean(1));
    }
    v = fs_json_get(s, "partialExpiresDays");
    if (!v || json_object_is_type(v, json_type_null))
        return;
    const char *mp = apr_pstrcat(p, ptr, "/partialExpiresDays", NULL);
    if (!json_object_is_type(v, json_type_int)) {
        fs_error_add(p, verr, mp, "type", "partialExpiresDays must be an integer or null.");
        return;
    }
    int64_t d = json_object_get_int64(v);
    if (d < 1 || d > FS_PARTIAL_DAYS_MAX) {
        fs_error_add(p, verr, mp, d < 1 ? "minimum" : "maximum",
                     "partialExpiresDays is from 1 to %d.", FS_PARTIAL_DAYS_MAX);
        return;
    }
    json_object_object_add(out, "partialExpiresDays", json_object_new_int64(d));
}

void fs_settings_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                              fs_error *verr) {
    fs_unique_by_fields(p, settings, fields, verr);
    fs_confirmation_fields_check(p, settings, fields, verr);
    fs_logic_fields_check(p, settings, fields, verr);
    fs_endings_fields_check(p, settings, fields, verr);
    fs_scores_fields_check(p, settings, fields, verr);
}

json_object *fs_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, fs_error *verr) {
    int before = verr->errors ? verr->errors->nelts : 0;
    if (s && !json_object_is_type(s, json_type_null) && !json_object_is_type(s, json_type_object)) {
        fs_error_add(p, verr, ptr, "type", "settings must be an object.");
        return NULL;
    }
    static const char *const names[] = {"closesAt",
                                        "maxSubmissions",
                                        "confirmationMessage",
                                        "redirectUrl",
                                        "honeypot",
                                        "submitLabel",
                                        "closedMessage",
                                        "opensAt",
                                        "theme",
                                        "embed",
                                        "locale",
                                        "uniqueBy",
                                        "notify",
                                        "confirmation",
                                        "retentionDays",
                                        "linkRequired",
                                        "partial",
                                        "partialExpiresDays",
                                        "logic",
                                        "endings",
                                        "variables",
                                        "showScore",
                                        NULL};
    if (s && json_object_is_type(s, json_type_object)) {
        json_object_object_foreach(s, k, v) {
            (void)v;
            int ok = 0;
            for (const char *const *n = names; *n; n++)
                ok |= !strcmp(*n, k);
            if (!ok)
                fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unknown",
                             "Unknown member; settings takes closesAt, "
                             "maxSubmissions, confirmationMessage, redirectUrl, honeypot, "
                             "locale, uniqueBy, submitLabel, closedMessage, opensAt, theme, "
                             "embed, notify, confirmation, retentionDays, linkRequired, "
                             "partial, partialExpiresDays, logic, endings, variables, "
                             "showScore.");
        }
    }
    json_object *out = json_object_new_object();
    /* closesAt */
    json_object *v = fs_json_get(s, "closesAt");
    const char *mp = apr_pstrcat(p, ptr, "/closesAt", NULL);
    if (v && !json_object_is_type(v, json_type_null)) {
        apr_time_t t;
        if (!json_object_is_type(v, json_type_string))
            fs_error_add(p, verr, mp, "type", "closesAt must be an RFC 3339 timestamp or null.");
        else if (!fs_time_parse_rfc3339(json_object_get_string(v), &t) || t < 0)
            fs_error_add(p, verr, mp, "format",
                         "closesAt must be an RFC 3339 timestamp such as 2027-01-01T00:00:00Z.");
        else
            json_object_object_add(out, "closesAt", json_object_new_string(fs_time_format(p, t)));
    }
    if (!fs_json_get(out, "closesAt"))
        json_object_object_add(out, "closesAt", NULL);
    /* maxSubmissions */
    v = fs_json_get(s, "maxSubmissions");
    mp = apr_pstrcat(p, ptr, "/maxSubmissions", NULL);
    json_object *ms = NULL;
    if (v && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_int))
            fs_error_add(p, verr, mp, "type", "maxSubmissions must be an integer or null.");
        else if (json_object_get_int64(v) < 1 || json_object_get_int64(v) > FS_MAX_SUBMISSIONS_MAX)
            fs_error_add(p, verr, mp, json_object_get_int64(v) < 1 ? "minimum" : "maximum",
                         "maxSubmissions is from 1 to %d.", FS_MAX_SUBMISSIONS_MAX);
        else
            ms = json_object_new_int64(json_object_get_int64(v));
    }
    json_object_object_add(out, "maxSubmissions", ms);
    /* confirmationMessage */
    v = fs_json_get(s, "confirmationMessage");
    const char *cm = NULL;
    if (v && !json_object_is_type(v, json_type_null))
        cm = fs_json_text(p, v, apr_pstrcat(p, ptr, "/confirmationMessage", NULL),
                          "confirmationMessage", 1, FS_CONFIRMATION_MAX, 1, verr);
    json_object_object_add(out, "confirmationMessage", cm ? json_object_new_string(cm) : NULL);
    /* redirectUrl */
    v = fs_json_get(s, "redirectUrl");
    mp = apr_pstrcat(p, ptr, "/redirectUrl", NULL);
    const char *ru = NULL;
    if (v && !json_object_is_type(v, json_type_null)) {
        ru = fs_json_text(p, v, mp, "redirectUrl", 1, FS_URL_MAX, 0, verr);
        if (ru && !fs_redirect_url_valid(p, ru)) {
            fs_error_add(p, verr, mp, "format",
                         "redirectUrl must be an absolute http or https URL with a host name, "
                         "no user information, and no spaces, quotes, semicolons, commas, "
                         "backslashes, angle brackets or non-ASCII characters "
                         "(percent-encode them).");
            ru = NULL;
        }
    }
    json_object_object_add(out, "redirectUrl", ru ? json_object_new_string(ru) : NULL);
    /* honeypot */
    v = fs_json_get(s, "honeypot");
    int hp = 1;
    if (v && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_boolean))
            fs_error_add(p, verr, apr_pstrcat(p, ptr, "/honeypot", NULL), "type",
                         "honeypot must be a boolean.");
        else
            hp = json_object_get_boolean(v);
    }
    json_object_object_add(out, "honeypot", json_object_new_boolean(hp));
    fs_settings_page(p, s, out, ptr, verr); /* public page options */
    settings_locale(p, s, ptr, out, verr);
    settings_retention(p, s, ptr, out, verr);
    settings_link_required(p, s, ptr, out, verr);
    settings_partial(p, s, ptr, out, verr);
    /* logic: page jumps (fs_logic.c); present only when it has rules */
    v = fs_json_get(s, "logic");
    if (v && !json_object_is_type(v, json_type_null)) {
        json_object *lg = fs_logic_parse(p, v, apr_pstrcat(p, ptr, "/logic", NULL), verr);
        if (lg && json_object_array_length(lg))
            json_object_object_add(out, "logic", lg);
        else
            json_object_put(lg);
    }
    /* endings: which thanks a submission reaches (fs_logic_rules.c);
     * present only when it has items */
    v = fs_json_get(s, "endings");
    if (v && !json_object_is_type(v, json_type_null)) {
        json_object *en = fs_endings_parse(p, v, apr_pstrcat(p, ptr, "/endings", NULL), verr);
        if (en && json_object_array_length(en))
            json_object_object_add(out, "endings", en);
        else
            json_object_put(en);
    }
    /* variables and showScore: scores and calculations (fs_scores.c) */
    fs_scores_settings_parse(p, s, ptr, out, verr);
    /* uniqueBy: the duplicate rule (fs_unique.c) */
    json_object_object_add(out, "uniqueBy",
                           fs_unique_by_parse(p, fs_json_get(s, "uniqueBy"),
                                              apr_pstrcat(p, ptr, "/uniqueBy", NULL), verr));
    /* notify and confirmation: the mail of submissions (fs_notify.c) */
    fs_notify_settings_parse(p, s, ptr, out, verr);
    fs_confirmation_settings_parse(p, s, ptr, out, verr);
    if ((verr->errors ? verr->errors->nelts : 0) > before) {
        json_object_put(out);
        return NULL;
    }
    return out;
}
