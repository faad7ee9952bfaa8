/* fs_oauth: token requests, Basic credentials, OAuth errors, narrowing
 * and the rules of token exchange. */
#include "fs_oauth.h"
#include "fs_json.h"
#include "fs_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <apr_strings.h>
#include <string.h>

/* OAuth error code -> problem slug (the catalogue in fs_error.c). */
static const char *slug_of(const char *code) {
    static const char *const map[][2] = {
        {"invalid_request", "invalid-request"},
        {"invalid_client", "invalid-client"},
        {"invalid_grant", "invalid-grant"},
        {"invalid_scope", "invalid-scope"},
        {"unsupported_grant_type", "unsupported-grant-type"},
    };
    for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(map[i][0], code))
            return map[i][1];
    return "invalid-request";
}

fs_error *fs_oauth_error(apr_pool_t *p, const char *code, const char *fmt, ...) {
    fs_error *e = fs_error_make(p, slug_of(code), NULL);
    va_list ap;
    va_start(ap, fmt);
    e->detail = apr_pvsprintf(p, fmt, ap);
    va_end(ap);
    fs_error_set_str(p, e, "error", code);
    fs_error_set_str(p, e, "error_description", e->detail);
    return e;
}

void fs_oauth_decorate(apr_pool_t *p, fs_error *e) {
    if (e->extra && fs_json_get(e->extra, "error"))
        return;
    const char *code = e->status == 401                       ? "invalid_client"
                       : e->status == 429 || e->status == 503 ? "temporarily_unavailable"
                       : e->status >= 500                     ? "server_error"
                                                              : "invalid_request";
    fs_error_set_str(p, e, "error", code);
    const fs_problem_type *t = fs_problem_lookup(e->slug);
    fs_error_set_str(p, e, "error_description", e->detail ? e->detail : t ? t->title : code);
}

/* The slot of a known parameter name, or NULL. */
static const char **slot(fs_token_request *req, const char *name) {
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"grant_type", offsetof(fs_token_request, grant_type)},
        {"client_id", offsetof(fs_token_request, client_id)},
        {"client_secret", offsetof(fs_token_request, client_secret)},
        {"scope", offsetof(fs_token_request, scope)},
        {"subject_token", offsetof(fs_token_request, subject_token)},
        {"subject_token_type", offsetof(fs_token_request, subject_token_type)},
        {"requested_token_type", offsetof(fs_token_request, requested_token_type)},
        {"actor_token", offsetof(fs_token_request, actor_token)},
        {"actor", offsetof(fs_token_request, actor)},
        {"expires_in", offsetof(fs_token_request, expires_in)},
        {"name", offsetof(fs_token_request, name)},
        {"code", offsetof(fs_token_request, code)},
        {"redirect_uri", offsetof(fs_token_request, redirect_uri)},
        {"code_verifier", offsetof(fs_token_request, code_verifier)},
        {"refresh_token", offsetof(fs_token_request, refresh_token)},
        {"resource", offsetof(fs_token_request, resource)},
    };
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(names[i].name, name))
            return (const char **)((char *)req + names[i].off);
    return NULL;
}

fs_error *fs_token_request_parse_form(apr_pool_t *p, const char *body, apr_size_t len,
                                      fs_token_request *req) {
    memset(req, 0, sizeof(*req));
    apr_array_header_t *seen = apr_array_make(p, 8, sizeof(const char *));
    apr_size_t i = 0;
    while (i < len) {
        apr_size_t j = i;
        while (j < len && body[j] != '&')
            j++;
        if (j > i) {
            const char *pair = body + i;
            apr_size_t plen = j - i;
            const char *eq = memchr(pair, '=', plen);
            apr_size_t nlen = eq ? (apr_size_t)(eq - pair) : plen;
            char *name = fs_form_decode(p, pair, nlen);
            char *value = eq ? fs_form_decode(p, eq + 1, plen - nlen - 1) : apr_pstrdup(p, "");
            if (!name || !value)
                return fs_oauth_error(p, "invalid_request",
                                      "The body is not valid application/x-www-form-urlencoded "
                                      "UTF-8 (a malformed %%-escape or a NUL).");
            for (int k = 0; k < seen->nelts; k++)
                if (!strcmp(APR_ARRAY_IDX(seen, k, const char *), name))
                    return fs_oauth_error(p, "invalid_request",
                                          "The parameter %s is given more than once.", name);
            APR_ARRAY_PUSH(seen, const char *) = name;
            const char **s = slot(req, name);
            if (s)
                *s = *value ? value : NULL;
        }
        i = j + 1;
    }
    return NULL;
}

fs_error *fs_token_request_from_json(apr_pool_t *p, json_object *o, fs_token_request *req) {
    memset(req, 0, sizeof(*req));
    json_object_object_foreach(o, k, v) {
        const char **s = slot(req, k);
        if (!s)
            continue;
        if (json_object_is_type(v, json_type_string)) {
            const char *str = json_object_get_string(v);
            *s = *str ? apr_pstrdup(p, str) : NULL;
        } else if (!strcmp(k, "expires_in") && json_object_is_type(v, json_type_int)) {
            *s = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)json_object_get_int64(v));
        } else {
            return fs_oauth_error(p, "invalid_request", "The parameter %s must be a string.", k);
        }
    }
    return NULL;
}

static int b64val(char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Strict standard base64 with padding; NULL when malformed. */
static char *b64_decode(apr_pool_t *p, const char *s, apr_size_t *outlen) {
    apr_size_t n = strlen(s);
    if (n == 0 || n % 4)
        return NULL;
    char *out = apr_palloc(p, n / 4 * 3 + 1);
    apr_size_t o = 0;
    for (apr_size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == n && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad || (v[k] = b64val(s[i + k])) < 0) {
                return NULL;
            }
        }
        unsigned trip = (unsigned)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out[o++] = (char)(trip >> 16);
        if (pad < 2)
            out[o++] = (char)(trip >> 8 & 0xff);
        if (pad < 1)
            out[o++] = (char)(trip & 0xff);
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

int fs_basic_credentials(apr_pool_t *p, const char *header, int *is_basic, const char **id,
                         const char **secret) {
    *is_basic = 0;
    *id = *secret = NULL;
    if (!header || strncasecmp(header, "Basic", 5) != 0 || (header[5] != ' ' && header[5]))
        return 0;
    *is_basic = 1;
    const char *h = header + 5;
    while (*h == ' ')
        h++;
    char *tok = apr_pstrdup(p, h);
    apr_size_t n = strlen(tok);
    while (n > 0 && tok[n - 1] == ' ')
        tok[--n] = '\0';
    apr_size_t len;
    char *raw = b64_decode(p, tok, &len);
    if (!raw || memchr(raw, '\0', len))
        return 0;
    char *colon = strchr(raw, ':');
    if (!colon)
        return 0;
    char *i = fs_form_decode(p, raw, (apr_size_t)(colon - raw));
    char *s = fs_form_decode(p, colon + 1, strlen(colon + 1));
    if (!i || !s || !*i || !*s)
        return 0;
    *id = i;
    *secret = s;
    return 1;
}

fs_error *fs_oauth_narrow(apr_pool_t *p, const fs_scopes *granted, const char *requested,
                          fs_scopes **out) {
    *out = NULL;
    if (!requested) {
        fs_scopes *c = apr_pmemdup(p, granted, sizeof(*granted));
        c->forms = apr_array_copy(p, granted->forms);
        *out = c;
        return NULL;
    }
    const char *bad = NULL;
    fs_scopes *want = fs_scopes_from_string(p, requested, &bad);
    if (!want)
        return fs_oauth_error(p, "invalid_scope", "Unknown scope token: %s.", bad);
    if (!want->named && want->forms->nelts == 0)
        return fs_oauth_error(p, "invalid_scope", "scope names no scope token.");
    const char *missing;
    if (!fs_scopes_subset(p, want, granted, &missing)) {
        fs_error *e = fs_oauth_error(p, "invalid_scope",
                                     "The requested scope is broader than the grant: it does "
                                     "not hold %s.",
                                     missing);
        fs_error_set_str(p, e, "requiredScope", missing);
        return e;
    }
    *out = want;
    return NULL;
}

/* A label (actor, name): 1..100 characters, no control characters. */
static int label_ok(const char *s) {
    apr_size_t n = fs_utf8_length(s);
    return n >= 1 && n <= FS_OAUTH_LABEL_MAX && !fs_has_control(s);
}

fs_error *fs_oauth_exchange_check_request(apr_pool_t *p, const fs_token_request *req) {
    if (req->subject_token && !req->subject_token_type)
        return fs_oauth_error(p, "invalid_request",
                              "subject_token_type is required with subject_token.");
    if (req->subject_token_type && strcmp(req->subject_token_type, FS_TOKEN_TYPE_ACCESS))
        return fs_oauth_error(p, "invalid_request",
                              "subject_token_type must be " FS_TOKEN_TYPE_ACCESS ".");
    if (req->requested_token_type && strcmp(req->requested_token_type, FS_TOKEN_TYPE_ACCESS))
        return fs_oauth_error(p, "invalid_request",
                              "requested_token_type must be " FS_TOKEN_TYPE_ACCESS ".");
    if (req->actor_token)
        return fs_oauth_error(p, "invalid_request",
                              "actor_token is not supported; label the sub-agent with actor.");
    if (req->actor && !label_ok(req->actor))
        return fs_oauth_error(p, "invalid_request",
                              "actor must be 1 to 100 characters without control characters.");
    if (req->name && !label_ok(req->name))
        return fs_oauth_error(p, "invalid_request",
                              "name must be 1 to 100 characters without control characters.");
    if (req->expires_in) {
        const char *s = req->expires_in;
        apr_size_t n = strlen(s);
        int digits = n > 0 && n <= 12;
        for (apr_size_t i = 0; digits && i < n; i++)
            digits = s[i] >= '0' && s[i] <= '9';
        long long in = digits ? apr_atoi64(s) : -1;
        if (!digits || in < 1 || in > FS_OAUTH_MAX_EXPIRES_IN)
            return fs_oauth_error(p, "invalid_request",
                                  "expires_in must be a whole number of seconds from 1 to "
                                  "%" APR_INT64_T_FMT ".",
                                  (apr_int64_t)FS_OAUTH_MAX_EXPIRES_IN);
    }
    return NULL;
}

fs_error *fs_oauth_exchange(apr_pool_t *p, const fs_exchange_parent *parent,
                            const fs_token_request *req, apr_int64_t now,
                            long long default_lifetime, fs_exchange_grant *out) {
    memset(out, 0, sizeof(*out));
    fs_error *e = fs_oauth_exchange_check_request(p, req);
    if (e)
        return e;
    if (parent->depth + 1 > FS_OAUTH_MAX_DEPTH)
        return fs_oauth_error(p, "invalid_request",
                              "Delegation is at most %d levels deep; this credential is "
                              "already at depth %d.",
                              FS_OAUTH_MAX_DEPTH, parent->depth);
    long long left = parent->expires ? (long long)(parent->expires - now) : -1;
    if (parent->expires && left <= 0)
        return fs_oauth_error(p, "invalid_grant", "The subject credential has expired.");
    long long in;
    if (req->expires_in) {
        in = apr_atoi64(req->expires_in);
        if (left >= 0 && in > left)
            return fs_oauth_error(p, "invalid_request",
                                  "expires_in reaches beyond the subject credential's own "
                                  "expiry (%" APR_INT64_T_FMT " seconds from now).",
                                  (apr_int64_t)left);
    } else {
        in = default_lifetime;
        if (left >= 0 && in > left)
            in = left;
    }
    e = fs_oauth_narrow(p, parent->scopes, req->scope, &out->scopes);
    if (e)
        return e;
    out->expires_in = in;
    out->expires = now + in;
    out->depth = parent->depth + 1;
    out->actor = req->actor ? req->actor : parent->actor;
    out->name = req->name ? req->name : out->actor ? out->actor : "delegated";
    return NULL;
}
