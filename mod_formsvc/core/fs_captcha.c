/* fs_captcha: the providers of bot checks, their widget and CSP sources,
 * settings.captcha and settings.spamThreshold, and the siteverify call
 * (fs_captcha.h). Memory: everything returned is in the caller's pool;
 * libcurl's handle and lists are freed before fs_captcha_verify returns. */
#include "fs_captcha.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <curl/curl.h>
#include <string.h>

static const fs_captcha_provider providers[] = {
    {"turnstile", "cf-turnstile-response", "https://challenges.cloudflare.com/turnstile/v0/api.js",
     "cf-turnstile", "https://challenges.cloudflare.com/turnstile/v0/siteverify",
     "https://challenges.cloudflare.com", "https://challenges.cloudflare.com", "", "", 0},
    {"hcaptcha", "h-captcha-response", "https://js.hcaptcha.com/1/api.js", "h-captcha",
     "https://api.hcaptcha.com/siteverify", "https://hcaptcha.com https://*.hcaptcha.com",
     "https://hcaptcha.com https://*.hcaptcha.com", "https://hcaptcha.com https://*.hcaptcha.com",
     "https://hcaptcha.com https://*.hcaptcha.com", 0},
    {"recaptcha", "g-recaptcha-response", "https://www.google.com/recaptcha/api.js", "g-recaptcha",
     "https://www.google.com/recaptcha/api/siteverify",
     "https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/",
     "https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/", "", "", 1},
};
#define N_PROVIDERS (sizeof(providers) / sizeof(providers[0]))

const fs_captcha_provider *fs_captcha_provider_named(const char *name) {
    for (size_t i = 0; name && i < N_PROVIDERS; i++)
        if (!strcmp(providers[i].name, name))
            return &providers[i];
    return NULL;
}

const fs_captcha_provider *fs_captcha_of(json_object *settings, const char **site_key) {
    json_object *c = fs_json_get(settings, "captcha");
    json_object *pv = fs_json_get(c, "provider"), *sk = fs_json_get(c, "siteKey");
    if (!pv || !sk || !json_object_is_type(pv, json_type_string) ||
        !json_object_is_type(sk, json_type_string))
        return NULL;
    *site_key = json_object_get_string(sk);
    return fs_captcha_provider_named(json_object_get_string(pv));
}

int fs_captcha_is_token_name(const char *name) {
    for (size_t i = 0; i < N_PROVIDERS; i++)
        if (!strcmp(providers[i].token_name, name))
            return 1;
    return 0;
}

static int site_key_ok(const char *k) {
    size_t n = strlen(k);
    if (n < 1 || n > FS_CAPTCHA_SITE_KEY_MAX)
        return 0;
    for (const char *c = k; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-'))
            return 0;
    return 1;
}

static void captcha_parse(apr_pool_t *p, json_object *v, const char *ptr, json_object *out,
                          fs_error *verr) {
    const char *mp = apr_pstrcat(p, ptr, "/captcha", NULL);
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, mp, "type", "captcha must be an object {provider, siteKey} or null.");
        return;
    }
    int bad = 0;
    json_object_object_foreach(v, k, x) {
        (void)x;
        if (strcmp(k, "provider") && strcmp(k, "siteKey")) {
            fs_error_add(p, verr, fs_json_pointer(p, mp, k), "unknown",
                         "Unknown member; captcha takes provider and siteKey.");
            bad = 1;
        }
    }
    json_object *pv = fs_json_get(v, "provider"), *sk = fs_json_get(v, "siteKey");
    if (!pv || !json_object_is_type(pv, json_type_string) ||
        !fs_captcha_provider_named(json_object_get_string(pv))) {
        fs_error_add(p, verr, apr_pstrcat(p, mp, "/provider", NULL), pv ? "enum" : "required",
                     "provider is one of turnstile, hcaptcha, recaptcha.");
        bad = 1;
    }
    if (!sk || !json_object_is_type(sk, json_type_string) ||
        !site_key_ok(json_object_get_string(sk))) {
        fs_error_add(p, verr, apr_pstrcat(p, mp, "/siteKey", NULL), sk ? "pattern" : "required",
                     "siteKey is the provider's site key: 1 to %d letters, digits, '_' or '-'.",
                     FS_CAPTCHA_SITE_KEY_MAX);
        bad = 1;
    }
    if (bad)
        return;
    json_object *c = json_object_new_object();
    json_object_object_add(c, "provider", json_object_new_string(json_object_get_string(pv)));
    json_object_object_add(c, "siteKey", json_object_new_string(json_object_get_string(sk)));
    json_object_object_add(out, "captcha", c);
}

void fs_captcha_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                               fs_error *verr) {
    json_object *v = fs_json_get(s, "captcha");
    if (v && !json_object_is_type(v, json_type_null))
        captcha_parse(p, v, ptr, out, verr);
    v = fs_json_get(s, "spamThreshold");
    if (v && !json_object_is_type(v, json_type_null)) {
        const char *mp = apr_pstrcat(p, ptr, "/spamThreshold", NULL);
        if (!json_object_is_type(v, json_type_int))
            fs_error_add(p, verr, mp, "type", "spamThreshold must be an integer or null.");
        else if (json_object_get_int64(v) < 1 || json_object_get_int64(v) > 100)
            fs_error_add(p, verr, mp, json_object_get_int64(v) < 1 ? "minimum" : "maximum",
                         "spamThreshold is from 1 to 100.");
        else
            json_object_object_add(out, "spamThreshold",
                                   json_object_new_int64(json_object_get_int64(v)));
    }
}

int fs_spam_threshold(json_object *settings) {
    json_object *v = fs_json_get(settings, "spamThreshold");
    return v && json_object_is_type(v, json_type_int) ? (int)json_object_get_int64(v) : 0;
}

/* Text for HTML, in p: & < > " ' as character references. */
static const char *esc(apr_pool_t *p, const char *s) {
    size_t n = 0;
    for (const char *c = s; *c; c++)
        n += strchr("&<>\"'", *c) ? 6 : 1;
    char *o = apr_palloc(p, n + 1), *w = o;
    for (const char *c = s; *c; c++) {
        const char *r = *c == '&'    ? "&amp;"
                        : *c == '<'  ? "&lt;"
                        : *c == '>'  ? "&gt;"
                        : *c == '"'  ? "&quot;"
                        : *c == '\'' ? "&#39;"
                                     : NULL;
        if (r) {
            memcpy(w, r, strlen(r));
            w += strlen(r);
        } else {
            *w++ = *c;
        }
    }
    *w = '\0';
    return o;
}

/* site_key is [A-Za-z0-9_-] (captcha_parse), escaped all the same */
char *fs_captcha_widget(apr_pool_t *p, const fs_captcha_provider *pv, const char *site_key,
                        const fs_locale *loc) {
    const char *without;
    site_key = esc(p, site_key);
    if (pv->noscript)
        without = apr_pstrcat(
            p, "<noscript><iframe src=\"https://www.google.com/recaptcha/api/fallback?k=", site_key,
            "\" title=\"reCAPTCHA\" width=\"302\" height=\"422\"></iframe>"
            "<label for=\"f-",
            pv->token_name, "\">", esc(p, fs_tr(loc, "captcha.fallback")),
            "</label><textarea id=\"f-", pv->token_name, "\" name=\"", pv->token_name,
            "\" rows=\"3\"></textarea></noscript>", NULL);
    else
        without = apr_pstrcat(p, "<noscript><p class=\"desc\">",
                              esc(p, fs_tr(loc, "captcha.needs_script")), "</p></noscript>", NULL);
    return apr_pstrcat(p, "<div class=\"captcha\"><div class=\"", pv->css_class,
                       "\" data-sitekey=\"", site_key, "\"></div><script src=\"", pv->script,
                       "\" async defer></script>", without, "</div>\n", NULL);
}

int fs_captcha_token_ok(const char *token) {
    size_t n = token ? strlen(token) : 0;
    if (n < 1 || n > FS_CAPTCHA_TOKEN_MAX)
        return 0;
    for (const char *c = token; *c; c++)
        if (*c <= ' ' || *c > '~')
            return 0;
    return 1;
}

fs_captcha_outcome fs_captcha_answer(apr_pool_t *p, const char *body, apr_size_t len,
                                     const char **why) {
    json_object *o = NULL;
    *why = NULL;
    if (fs_json_parse_object(p, body, len, &o) || !o) {
        *why = "the answer is not a JSON object";
        return FS_CAPTCHA_UNREACHED;
    }
    json_object *ok = fs_json_get(o, "success");
    if (!ok || !json_object_is_type(ok, json_type_boolean)) {
        *why = "the answer has no boolean success";
        return FS_CAPTCHA_UNREACHED;
    }
    if (json_object_get_boolean(ok))
        return FS_CAPTCHA_PASSED;
    /* the provider's error codes, printable and short, for the log */
    json_object *codes = fs_json_get(o, "error-codes");
    const char *w = "";
    for (size_t i = 0; codes && json_object_is_type(codes, json_type_array) &&
                       i < json_object_array_length(codes) && i < 4;
         i++) {
        json_object *c = json_object_array_get_idx(codes, i);
        const char *s = json_object_is_type(c, json_type_string) ? json_object_get_string(c) : "";
        char buf[41];
        size_t k = 0;
        for (; s[k] && k < sizeof(buf) - 1; k++)
            buf[k] = s[k] > ' ' && s[k] <= '~' ? s[k] : '?';
        buf[k] = '\0';
        w = apr_pstrcat(p, w, *w ? " " : "", buf, NULL);
    }
    *why = *w ? w : "refused";
    return FS_CAPTCHA_FAILED;
}

typedef struct answer {
    char buf[16384];
    size_t n;
    int over;
} answer;

static size_t keep(char *ptr, size_t size, size_t nmemb, void *data) {
    answer *a = data;
    size_t n = size * nmemb;
    if (a->n + n > sizeof(a->buf)) {
        a->over = 1;
        return 0; /* stop reading a huge answer */
    }
    memcpy(a->buf + a->n, ptr, n);
    a->n += n;
    return n;
}

fs_captcha_outcome fs_captcha_verify(apr_pool_t *p, const char *url, const char *secret,
                                     const char *token, const char *remote_ip, long timeout_ms,
                                     const char **why) {
    CURL *c = curl_easy_init();
    if (!c) {
        *why = "no curl handle";
        return FS_CAPTCHA_UNREACHED;
    }
    char *es = curl_easy_escape(c, secret, 0), *et = curl_easy_escape(c, token, 0);
    char *ei = remote_ip ? curl_easy_escape(c, remote_ip, 0) : NULL;
    const char *body = es && et ? apr_pstrcat(p, "secret=", es, "&response=", et,
                                              ei ? "&remoteip=" : "", ei ? ei : "", NULL)
                                : NULL;
    curl_free(es);
    curl_free(et);
    curl_free(ei);
    if (!body) {
        curl_easy_cleanup(c);
        *why = "out of memory";
        return FS_CAPTCHA_UNREACHED;
    }
    answer *a = apr_pcalloc(p, sizeof(*a));
    char err[CURL_ERROR_SIZE] = "";
    struct curl_slist *h = curl_slist_append(NULL, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "formsvc-captcha/1");
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 5000L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (rc != CURLE_OK) {
        *why = a->over ? "the answer is too large"
                       : apr_pstrdup(p, *err ? err : curl_easy_strerror(rc));
        return FS_CAPTCHA_UNREACHED;
    }
    if (status != 200) {
        *why = apr_psprintf(p, "HTTP status %ld", status);
        return FS_CAPTCHA_UNREACHED;
    }
    return fs_captcha_answer(p, a->buf, a->n, why);
}
