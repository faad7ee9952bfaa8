/* fs_redact: credential parameters, redacted request lines, query lookups. */
#include "fs_redact.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>
#include <strings.h>

int fs_credential_param(const char *name) {
    static const char *const names[] = {"token",
                                        "code",
                                        "client_secret",
                                        "client_assertion",
                                        "assertion",
                                        "subject_token",
                                        "actor_token",
                                        "access_token",
                                        "refresh_token",
                                        "id_token",
                                        "code_verifier",
                                        "password",
                                        "secret",
                                        "l",
                                        "edit",   /* an edit link's token (fs_edit.h) */
                                        "resume", /* a partial answer's resume token */
                                        NULL};
    if (!name)
        return 0;
    for (const char *const *n = names; *n; n++)
        if (!strcasecmp(*n, name))
            return 1;
    return 0;
}

/* Is the pair s[0..len) (name[=value]) a credential? An undecodable name
 * is treated as one. */
static int pair_is_credential(apr_pool_t *p, const char *s, apr_size_t len) {
    const char *eq = memchr(s, '=', len);
    apr_size_t nl = eq ? (apr_size_t)(eq - s) : len;
    char *name = fs_form_decode(p, s, nl);
    return !name || fs_credential_param(name);
}

/* The request line with the values of credential parameters replaced
 * (line itself when there are none). */
static const char *redact_params(apr_pool_t *p, const char *line) {
    const char *target = strchr(line, ' ');
    if (!target)
        return line;
    target++;
    /* the target ends at the space before the protocol (or the line's end) */
    const char *end = strchr(target, ' ');
    if (!end)
        end = line + strlen(line);
    const char *q = memchr(target, '?', (apr_size_t)(end - target));
    if (!q)
        return line;
    apr_array_header_t *out = apr_array_make(p, (int)strlen(line) + 16, 1);
    int changed = 0;
    for (const char *c = line; c <= q; c++)
        APR_ARRAY_PUSH(out, char) = *c;
    const char *s = q + 1;
    while (s <= end) {
        const char *amp = s;
        while (amp < end && *amp != '&')
            amp++;
        apr_size_t len = (apr_size_t)(amp - s);
        const char *eq = memchr(s, '=', len);
        if (len && eq && pair_is_credential(p, s, len) && eq + 1 < amp) {
            for (const char *c = s; c <= eq; c++)
                APR_ARRAY_PUSH(out, char) = *c;
            for (const char *c = FS_REDACTED; *c; c++)
                APR_ARRAY_PUSH(out, char) = *c;
            changed = 1;
        } else {
            for (const char *c = s; c < amp; c++)
                APR_ARRAY_PUSH(out, char) = *c;
        }
        if (amp < end)
            APR_ARRAY_PUSH(out, char) = '&';
        s = amp + 1;
    }
    if (!changed)
        return line;
    for (const char *c = end; *c; c++)
        APR_ARRAY_PUSH(out, char) = *c;
    APR_ARRAY_PUSH(out, char) = '\0';
    return out->elts;
}

static int alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The length of the run of letters and digits at s. */
static apr_size_t run_of(const char *s, const char *end) {
    const char *c = s;
    while (c < end && alnum(*c))
        c++;
    return (apr_size_t)(c - s);
}

/* The request line with every secret-shaped run of the target replaced
 * (line itself when there is none): FS_REDACT_RUN_MIN or more letters and
 * digits after a '_', which is how every secret of the service ends (an
 * API key or token, a link token: 39 characters after their prefix; an
 * edit link's or a resume URL's secret: 64 hex digits after fes_ or frs_),
 * wherever a client put it (a path parameter, a name with an escaped '=',
 * after a ';'), while ids (26 after their prefix) stay. */
static const char *redact_runs(apr_pool_t *p, const char *line) {
    const char *target = strchr(line, ' ');
    if (!target)
        return line;
    target++;
    const char *end = strchr(target, ' ');
    if (!end)
        end = line + strlen(line);
    apr_array_header_t *out = NULL;
    const char *copied = line; /* out holds line up to here */
    for (const char *c = target; c < end; c++) {
        if (*c != '_')
            continue;
        apr_size_t n = run_of(c + 1, end);
        if (n < FS_REDACT_RUN_MIN) {
            c += n;
            continue;
        }
        if (!out)
            out = apr_array_make(p, (int)strlen(line) + 16, 1);
        for (const char *k = copied; k <= c; k++)
            APR_ARRAY_PUSH(out, char) = *k;
        for (const char *k = FS_REDACTED; *k; k++)
            APR_ARRAY_PUSH(out, char) = *k;
        copied = c + 1 + n;
        c += n;
    }
    if (!out)
        return line;
    for (const char *k = copied; *k; k++)
        APR_ARRAY_PUSH(out, char) = *k;
    APR_ARRAY_PUSH(out, char) = '\0';
    return out->elts;
}

const char *fs_redact_request_line(apr_pool_t *p, const char *line) {
    if (!line)
        return NULL;
    return redact_runs(p, redact_params(p, line));
}

const char *fs_query_credential(apr_pool_t *p, const char *query) {
    if (!query)
        return NULL;
    const char *s = query;
    for (;;) {
        apr_size_t len = strcspn(s, "&");
        if (len && pair_is_credential(p, s, len)) {
            const char *eq = memchr(s, '=', len);
            char *name = fs_form_decode(p, s, eq ? (apr_size_t)(eq - s) : len);
            return name ? name : apr_pstrndup(p, s, eq ? (apr_size_t)(eq - s) : len);
        }
        if (!s[len])
            return NULL;
        s += len + 1;
    }
}

const char *fs_query_get(apr_pool_t *p, const char *s, apr_size_t len, const char *name, int *bad) {
    if (bad)
        *bad = 0;
    const char *end = s + len;
    while (s && s < end) {
        const char *amp = memchr(s, '&', (apr_size_t)(end - s));
        if (!amp)
            amp = end;
        const char *eq = memchr(s, '=', (apr_size_t)(amp - s));
        apr_size_t nl = eq ? (apr_size_t)(eq - s) : (apr_size_t)(amp - s);
        char *n = fs_form_decode(p, s, nl);
        if (n && !strcmp(n, name)) {
            char *v =
                eq ? fs_form_decode(p, eq + 1, (apr_size_t)(amp - eq - 1)) : apr_pstrdup(p, "");
            if (!v && bad)
                *bad = 1;
            return v;
        }
        s = amp + 1;
    }
    return NULL;
}
