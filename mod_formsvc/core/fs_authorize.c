/* fs_authorize: PKCE, redirect URIs, authorization requests, the redirect
 * back and dynamic registration's metadata. */
#include "fs_authorize.h"
#include "fs_json.h"
#include "fs_oauth.h"
#include "fs_urlencoded.h"
#include "fs_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

void fs_authz_request_read(const apr_array_header_t *pairs, fs_authz_request *req) {
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"response_type", offsetof(fs_authz_request, response_type)},
        {"client_id", offsetof(fs_authz_request, client_id)},
        {"redirect_uri", offsetof(fs_authz_request, redirect_uri)},
        {"scope", offsetof(fs_authz_request, scope)},
        {"state", offsetof(fs_authz_request, state)},
        {"code_challenge", offsetof(fs_authz_request, code_challenge)},
        {"code_challenge_method", offsetof(fs_authz_request, code_challenge_method)},
        {"resource", offsetof(fs_authz_request, resource)},
    };
    enum { N = sizeof(names) / sizeof(names[0]) };
    int seen[N] = {0};
    memset(req, 0, sizeof(*req));
    for (int i = 0; pairs && i < pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
        for (unsigned k = 0; k < N; k++) {
            if (strcmp(names[k].name, pr->name))
                continue;
            if (seen[k]++ && !req->dup)
                req->dup = names[k].name;
            *(const char **)((char *)req + names[k].off) = *pr->value ? pr->value : NULL;
        }
    }
}

static int unreserved(int ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '.' || ch == '_' || ch == '~';
}

int fs_pkce_verifier_valid(const char *v) {
    if (!v)
        return 0;
    size_t n = strlen(v);
    if (n < 43 || n > 128)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!unreserved((unsigned char)v[i]))
            return 0;
    return 1;
}

int fs_pkce_challenge_valid(const char *c) {
    if (!c || strlen(c) != 43)
        return 0;
    for (size_t i = 0; i < 43; i++) {
        int ch = (unsigned char)c[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return 1;
}

int fs_pkce_s256_match(const char *verifier, const char *challenge) {
    if (!fs_pkce_verifier_valid(verifier) || !fs_pkce_challenge_valid(challenge))
        return 0;
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)verifier, strlen(verifier), md);
    /* base64url of 32 bytes, no padding: 43 characters */
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char out[44];
    size_t o = 0;
    for (size_t i = 0; i < 32; i += 3) {
        unsigned v = (unsigned)md[i] << 16;
        if (i + 1 < 32)
            v |= (unsigned)md[i + 1] << 8;
        if (i + 2 < 32)
            v |= md[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        if (i + 1 < 32)
            out[o++] = b64[(v >> 6) & 63];
        if (i + 2 < 32)
            out[o++] = b64[v & 63];
    }
    out[o] = 0;
    return o == 43 && CRYPTO_memcmp(out, challenge, 43) == 0;
}

/* The authority of an absolute URI after "scheme://": its length up to
 * the path, query or fragment. */
static size_t authority_len(const char *a) {
    return strcspn(a, "/?#");
}

static int loopback_host(const char *a, size_t n) {
    /* strip a port */
    size_t h = n;
    if (n && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (!close)
            return 0;
        h = (size_t)(close - a) + 1;
    } else {
        const char *colon = memchr(a, ':', n);
        if (colon)
            h = (size_t)(colon - a);
    }
    if (h < n) {
        if (a[h] != ':' || h + 1 == n)
            return 0;
        for (size_t i = h + 1; i < n; i++)
            if (a[i] < '0' || a[i] > '9')
                return 0;
    }
    return (h == 9 && !strncasecmp(a, "localhost", 9)) || (h == 9 && !strncmp(a, "127.0.0.1", 9)) ||
           (h == 5 && !strncmp(a, "[::1]", 5));
}

const char *fs_redirect_uri_problem(apr_pool_t *p, const char *uri) {
    (void)p;
    if (!uri || !*uri)
        return "A redirect URI must not be empty.";
    size_t n = strlen(uri);
    if (n > 2000)
        return "A redirect URI is at most 2000 bytes.";
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)uri[i];
        if (ch <= 0x20 || ch >= 0x7f || ch == '"' || ch == '<' || ch == '>' || ch == '\\')
            return "A redirect URI has no spaces, quotes, angle brackets or characters "
                   "outside printable ASCII (percent-encode them).";
    }
    if (strchr(uri, '#'))
        return "A redirect URI must not contain a fragment (RFC 6749 3.1.2).";
    const char *a;
    int https = 0;
    if (!strncasecmp(uri, "https://", 8)) {
        a = uri + 8;
        https = 1;
    } else if (!strncasecmp(uri, "http://", 7)) {
        a = uri + 7;
    } else {
        return "A redirect URI is https, or http to a loopback address (localhost, 127.0.0.1, "
               "[::1]) for a native app (RFC 8252).";
    }
    size_t al = authority_len(a);
    if (al == 0)
        return "A redirect URI names a host.";
    if (memchr(a, '@', al))
        return "A redirect URI must not carry user information.";
    if (!https && !loopback_host(a, al))
        return "Plain http is allowed only to a loopback address (localhost, 127.0.0.1, "
               "[::1]) for a native app (RFC 8252); use https.";
    return NULL;
}

int fs_redirect_uri_registered(json_object *registered, const char *uri) {
    if (!uri || !registered || !json_object_is_type(registered, json_type_array))
        return 0;
    for (size_t i = 0; i < json_object_array_length(registered); i++) {
        json_object *v = json_object_array_get_idx(registered, i);
        if (json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), uri))
            return 1;
    }
    return 0;
}

const char *fs_redirect_uri_host(apr_pool_t *p, const char *uri) {
    const char *a = strstr(uri, "://");
    a = a ? a + 3 : uri;
    return apr_pstrndup(p, a, authority_len(a));
}

static void pct(apr_pool_t *p, apr_array_header_t *out, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    (void)p;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (unreserved(ch)) {
            APR_ARRAY_PUSH(out, char) = (char)ch;
        } else {
            APR_ARRAY_PUSH(out, char) = '%';
            APR_ARRAY_PUSH(out, char) = hex[ch >> 4];
            APR_ARRAY_PUSH(out, char) = hex[ch & 15];
        }
    }
}

char *fs_url_with_query(apr_pool_t *p, const char *uri, ...) {
    apr_array_header_t *out = apr_array_make(p, (int)strlen(uri) + 64, sizeof(char));
    for (const char *s = uri; *s; s++)
        APR_ARRAY_PUSH(out, char) = *s;
    char sep = strchr(uri, '?') ? '&' : '?';
    va_list ap;
    va_start(ap, uri);
    const char *name;
    while ((name = va_arg(ap, const char *))) {
        const char *value = va_arg(ap, const char *);
        if (!value)
            continue;
        APR_ARRAY_PUSH(out, char) = sep;
        sep = '&';
        pct(p, out, name);
        APR_ARRAY_PUSH(out, char) = '=';
        pct(p, out, value);
    }
    va_end(ap);
    APR_ARRAY_PUSH(out, char) = 0;
    return out->elts;
}

static fs_error *reg_error(apr_pool_t *p, const char *code, const char *detail) {
    fs_error *e = fs_oauth_error(p, "invalid_request", "%s", detail);
    fs_error_set_str(p, e, "error", code);
    return e;
}

static int has_control(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

fs_error *fs_registration_parse(apr_pool_t *p, json_object *body, fs_registration *out) {
    memset(out, 0, sizeof(*out));
    if (!body || !json_object_is_type(body, json_type_object))
        return reg_error(p, "invalid_client_metadata", "The body must be a JSON object.");
    json_object *ru = fs_json_get(body, "redirect_uris");
    if (!ru || !json_object_is_type(ru, json_type_array) || json_object_array_length(ru) < 1 ||
        json_object_array_length(ru) > 10)
        return reg_error(p, "invalid_redirect_uri",
                         "redirect_uris must be an array of 1 to 10 redirect URIs.");
    json_object *uris = fs_json_own(p, json_object_new_array());
    for (size_t i = 0; i < json_object_array_length(ru); i++) {
        json_object *v = json_object_array_get_idx(ru, i);
        if (!json_object_is_type(v, json_type_string))
            return reg_error(p, "invalid_redirect_uri", "Each redirect URI must be a string.");
        const char *why = fs_redirect_uri_problem(p, json_object_get_string(v));
        if (why)
            return reg_error(p, "invalid_redirect_uri", why);
        json_object_array_add(uris, json_object_new_string(json_object_get_string(v)));
    }
    out->redirect_uris = uris;
    json_object *m = fs_json_get(body, "token_endpoint_auth_method");
    if (m &&
        (!json_object_is_type(m, json_type_string) || strcmp(json_object_get_string(m), "none")))
        return reg_error(p, "invalid_client_metadata",
                         "token_endpoint_auth_method must be none: only public clients "
                         "(with PKCE) are registered here.");
    json_object *g = fs_json_get(body, "grant_types");
    if (g) {
        if (!json_object_is_type(g, json_type_array))
            return reg_error(p, "invalid_client_metadata", "grant_types must be an array.");
        for (size_t i = 0; i < json_object_array_length(g); i++) {
            const char *t = json_object_get_string(json_object_array_get_idx(g, i));
            if (!json_object_is_type(json_object_array_get_idx(g, i), json_type_string) ||
                (strcmp(t, FS_GRANT_AUTHORIZATION_CODE) && strcmp(t, FS_GRANT_REFRESH_TOKEN)))
                return reg_error(p, "invalid_client_metadata",
                                 "grant_types may hold authorization_code and refresh_token "
                                 "only.");
        }
    }
    json_object *rt = fs_json_get(body, "response_types");
    if (rt) {
        if (!json_object_is_type(rt, json_type_array))
            return reg_error(p, "invalid_client_metadata", "response_types must be an array.");
        for (size_t i = 0; i < json_object_array_length(rt); i++) {
            json_object *v = json_object_array_get_idx(rt, i);
            if (!json_object_is_type(v, json_type_string) ||
                strcmp(json_object_get_string(v), "code"))
                return reg_error(p, "invalid_client_metadata",
                                 "response_types may hold code only.");
        }
    }
    json_object *n = fs_json_get(body, "client_name");
    if (n && !json_object_is_type(n, json_type_null)) {
        const char *s = json_object_get_string(n);
        if (!json_object_is_type(n, json_type_string) || !*s || fs_utf8_length(s) > 100 ||
            has_control(s))
            return reg_error(p, "invalid_client_metadata",
                             "client_name is 1 to 100 characters without control characters.");
        out->client_name = apr_pstrdup(p, s);
    } else {
        out->client_name = "MCP client";
    }
    json_object *cu = fs_json_get(body, "client_uri");
    if (cu && !json_object_is_type(cu, json_type_null)) {
        const char *s = json_object_get_string(cu);
        if (!json_object_is_type(cu, json_type_string) || strncasecmp(s, "https://", 8) ||
            strlen(s) > 2000 || has_control(s) || strchr(s, ' '))
            return reg_error(p, "invalid_client_metadata", "client_uri must be an https URL.");
        out->client_uri = apr_pstrdup(p, s);
    }
    return NULL;
}
