/* fs_webhook: signing secrets, Standard Webhooks signatures, sealing,
 * target checks, the retry schedule and the signed POST. */
#include "fs_webhook.h"
#include "fs_idempotency.h"
#include "fs_secret.h"

#include <apr_atomic.h>
#include <apr_base64.h>
#include <apr_strings.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>
#include <sys/socket.h>

static const struct {
    const char *name;
    int answers;
} event_types[] = {
#define ROW(name, answers)                                                                         \
    { name, answers }
#define COMMA ,
    FS_EVENT_TYPES(ROW, COMMA)
#undef ROW
#undef COMMA
};

int fs_event_type_known(const char *t) {
    for (size_t i = 0; t && i < sizeof(event_types) / sizeof(event_types[0]); i++)
        if (!strcmp(t, event_types[i].name))
            return 1;
    return 0;
}

int fs_event_type_answers(const char *t) {
    for (size_t i = 0; t && i < sizeof(event_types) / sizeof(event_types[0]); i++)
        if (!strcmp(t, event_types[i].name))
            return event_types[i].answers;
    return 0;
}

char *fs_webhook_secret_new(apr_pool_t *p) {
    unsigned char raw[FS_WEBHOOK_SECRET_BYTES];
    if (!fs_random_bytes(raw, sizeof(raw)))
        return NULL;
    char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len(sizeof(raw)));
    apr_base64_encode(b, (const char *)raw, sizeof(raw));
    return apr_pstrcat(p, FS_WEBHOOK_SECRET_PREFIX, b, NULL);
}

unsigned char *fs_webhook_secret_key(apr_pool_t *p, const char *secret, apr_size_t *len) {
    if (!secret)
        return NULL;
    size_t pl = strlen(FS_WEBHOOK_SECRET_PREFIX);
    if (!strncmp(secret, FS_WEBHOOK_SECRET_PREFIX, pl))
        secret += pl;
    size_t n = strlen(secret);
    if (n == 0 || n % 4 || n > 1024)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = secret[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '+' || c == '/' || (c == '=' && i >= n - 2);
        if (!ok || (c != '=' && i > 0 && secret[i - 1] == '='))
            return NULL;
    }
    unsigned char *out = apr_palloc(p, (apr_size_t)apr_base64_decode_len(secret) + 1);
    int got = apr_base64_decode_binary(out, secret);
    if (got < 16)
        return NULL;
    *len = (apr_size_t)got;
    return out;
}

char *fs_webhook_sign(apr_pool_t *p, const char *secret, const char *msg_id, apr_int64_t timestamp,
                      const char *body, apr_size_t body_len) {
    apr_size_t klen;
    unsigned char *key = fs_webhook_secret_key(p, secret, &klen);
    if (!key || !msg_id)
        return NULL;
    char *head = apr_psprintf(p, "%s.%" APR_INT64_T_FMT ".", msg_id, timestamp);
    apr_size_t hl = strlen(head), bl = body ? body_len : 0;
    unsigned char *msg = apr_palloc(p, hl + bl + 1);
    memcpy(msg, head, hl);
    if (bl)
        memcpy(msg + hl, body, bl);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!HMAC(EVP_sha256(), key, (int)klen, msg, hl + bl, md, &mdlen))
        return NULL;
    char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)mdlen));
    apr_base64_encode(b, (const char *)md, (int)mdlen);
    return apr_pstrcat(p, "v1,", b, NULL);
}

/* The seal of fs_idempotency, in a scope of its own: the key is
 * HMAC(pepper, "idempotency" 0 "webhook-secret" 0 <webhook id>). */
char *fs_webhook_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *webhook_id, const char *secret) {
    return fs_idem_seal(p, pepper, pepper_len, "webhook-secret", webhook_id, secret);
}

char *fs_webhook_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *webhook_id, const char *sealed) {
    return fs_idem_open(p, pepper, pepper_len, "webhook-secret", webhook_id, sealed);
}

static int in4(const unsigned char *a, unsigned a0, unsigned a1, unsigned a2, unsigned a3,
               int bits) {
    apr_uint32_t x =
        ((apr_uint32_t)a[0] << 24) | ((apr_uint32_t)a[1] << 16) | ((apr_uint32_t)a[2] << 8) | a[3];
    apr_uint32_t n = (a0 << 24) | (a1 << 16) | (a2 << 8) | a3;
    apr_uint32_t m = bits ? 0xffffffffu << (32 - bits) : 0;
    return (x & m) == (n & m);
}

static fs_addr_class class4(const unsigned char *a) {
    if (in4(a, 169, 254, 169, 254, 32) || in4(a, 100, 100, 100, 200, 32) || /* metadata */
        in4(a, 0, 0, 0, 0, 8) || in4(a, 224, 0, 0, 0, 4) || in4(a, 240, 0, 0, 0, 4))
        return FS_ADDR_FORBIDDEN; /* this network, multicast, reserved, broadcast */
    if (in4(a, 127, 0, 0, 0, 8) || in4(a, 10, 0, 0, 0, 8) || in4(a, 172, 16, 0, 0, 12) ||
        in4(a, 192, 168, 0, 0, 16) || in4(a, 169, 254, 0, 0, 16) || in4(a, 100, 64, 0, 0, 10) ||
        in4(a, 192, 0, 0, 0, 24) || in4(a, 198, 18, 0, 0, 15) || in4(a, 192, 0, 2, 0, 24) ||
        in4(a, 198, 51, 100, 0, 24) || in4(a, 203, 0, 113, 0, 24))
        return FS_ADDR_PRIVATE;
    return FS_ADDR_PUBLIC;
}

/* The worse of two classes (FORBIDDEN > PRIVATE > PUBLIC). */
static fs_addr_class worse(fs_addr_class a, fs_addr_class b) {
    if (a == FS_ADDR_FORBIDDEN || b == FS_ADDR_FORBIDDEN)
        return FS_ADDR_FORBIDDEN;
    return a == FS_ADDR_PRIVATE || b == FS_ADDR_PRIVATE ? FS_ADDR_PRIVATE : FS_ADDR_PUBLIC;
}

/* IPv6 forms that carry an IPv4 address a router or the kernel may turn
 * into an IPv4 connection take the class of that IPv4 address (never
 * better than the IPv6 range itself):
 *   ::ffff:0:0/96       IPv4-mapped (RFC 4291)
 *   ::ffff:0:0:0/96     IPv4-translated (RFC 2765 SIIT), e.g. ::ffff:0:7f00:1
 *   64:ff9b::/96        well-known NAT64 prefix (RFC 6052)
 *   64:ff9b:1::/48      local-use NAT64 (RFC 8215): the /96 form is judged by
 *                       its IPv4 tail, any other length is local, so private
 *   2002::/16           6to4 (RFC 3056), IPv4 in bytes 2..5
 *   2001::/32           Teredo (RFC 4380), client IPv4 inverted in bytes 12..15
 *   ::/96               IPv4-compatible (deprecated): private at best */
fs_addr_class fs_webhook_addr_class(int family, const unsigned char *a) {
    if (family == AF_INET)
        return class4(a);
    if (family != AF_INET6)
        return FS_ADDR_FORBIDDEN;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char translated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
    static const unsigned char zero[16] = {0};
    static const unsigned char aws[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0,    0,
                                          0,    0, 0,    0,    0, 0, 0x02, 0x54};
    if (!memcmp(a, mapped, 12) || !memcmp(a, translated, 12) || !memcmp(a, nat64, 12))
        return class4(a + 12);
    if (!memcmp(a, nat64_local, 6))
        return !memcmp(a + 6, zero, 6) ? class4(a + 12) : FS_ADDR_PRIVATE;
    if (a[0] == 0x20 && a[1] == 0x02)
        return class4(a + 2); /* 6to4: the relay reaches the embedded IPv4 */
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
        unsigned char client[4] = {(unsigned char)~a[12], (unsigned char)~a[13],
                                   (unsigned char)~a[14], (unsigned char)~a[15]};
        return worse(class4(a + 4), class4(client)); /* Teredo server and client */
    }
    if (!memcmp(a, zero, 16) || a[0] == 0xff || !memcmp(a, aws, 16))
        return FS_ADDR_FORBIDDEN; /* unspecified, multicast, EC2 metadata */
    if (!memcmp(a, zero, 15) && a[15] == 1)
        return FS_ADDR_PRIVATE; /* ::1 */
    if (!memcmp(a, zero, 12))
        return worse(FS_ADDR_PRIVATE, class4(a + 12)); /* IPv4-compatible */
    if ((a[0] & 0xfe) == 0xfc || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) ||
        (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) ||
        (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8))
        return FS_ADDR_PRIVATE; /* ULA, link-local, site-local, docs */
    return FS_ADDR_PUBLIC;
}

/* The class of a literal address host (brackets already removed by
 * apr_uri_parse), or -1 when host is a name. */
static int literal_class(const char *host) {
    unsigned char a[16];
    if (inet_pton(AF_INET, host, a) == 1)
        return fs_webhook_addr_class(AF_INET, a);
    if (inet_pton(AF_INET6, host, a) == 1)
        return fs_webhook_addr_class(AF_INET6, a);
    return -1;
}

static const char *judge(fs_addr_class c, int allow_private) {
    if (c == FS_ADDR_FORBIDDEN)
        return "its address is a metadata, unspecified, multicast or reserved address";
    if (c == FS_ADDR_PRIVATE && !allow_private)
        return "its address is private, loopback or link-local";
    return NULL;
}

const char *fs_webhook_url_check(apr_pool_t *p, const char *url, int allow_private,
                                 apr_uri_t *out) {
    apr_uri_t u;
    size_t n = strlen(url);
    if (n == 0 || n > FS_WEBHOOK_URL_MAX)
        return "url must be 1 to 2048 characters";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
            return "url must be printable ASCII without spaces (percent-encode the rest)";
    if (apr_uri_parse(p, url, &u) != APR_SUCCESS || !u.scheme || !u.hostname || !*u.hostname)
        return "url must be an absolute URL with a host";
    if (!strcmp(u.scheme, "http")) {
        if (!allow_private)
            return "url must use https";
    } else if (strcmp(u.scheme, "https")) {
        return "url must use https";
    }
    if (u.user || u.password)
        return "url must not carry user information";
    if (u.fragment)
        return "url must not have a fragment";
    if (u.port_str && (!*u.port_str || u.port == 0))
        return "url has an invalid port";
    char *host = apr_pstrdup(p, u.hostname);
    for (char *c = host; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    int lc = literal_class(host);
    const char *why = NULL;
    if (lc >= 0) {
        why = judge((fs_addr_class)lc, allow_private);
    } else {
        size_t hl = strlen(host);
        if (!strcmp(host, "localhost") || (hl > 10 && !strcmp(host + hl - 10, ".localhost")))
            why = judge(FS_ADDR_PRIVATE, allow_private);
        else if (!strchr(host, '.') && !allow_private)
            why = "its host is not a fully qualified domain name";
    }
    if (why)
        return apr_pstrcat(p, "url is refused: ", why, NULL);
    if (out)
        *out = u;
    return NULL;
}

int fs_webhook_backoff(int attempt) {
    long s = 5;
    for (int i = 1; i < attempt && s < 14400; i++)
        s *= 4;
    return s > 14400 ? 14400 : (int)s;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *data) {
    (void)ptr;
    size_t *seen = data;
    *seen += size * nmemb;
    return *seen > 65536 ? 0 : size * nmemb; /* stop reading a huge answer */
}

/* Ends the transfer early once *data (the caller's cancel flag) is set. */
static int cancelled(void *data, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                     curl_off_t ulnow) {
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return apr_atomic_read32((apr_uint32_t *)data) != 0;
}

void fs_webhook_post(apr_pool_t *p, const char *url, int allow_private, const char *msg_id,
                     apr_int64_t timestamp, const char *signature, const char *body, int timeout,
                     apr_uint32_t *cancel, fs_webhook_result *res) {
    res->status = 0;
    res->error = NULL;
    res->ms = 0;
    apr_uri_t u;
    const char *why = fs_webhook_url_check(p, url, allow_private, &u);
    if (why) {
        res->error = why;
        return;
    }
    const char *port = u.port_str ? u.port_str : strcmp(u.scheme, "https") ? "80" : "443";
    struct curl_slist *resolve = NULL;
    if (literal_class(u.hostname) < 0) {
        /* resolve, check every address, pin the connection to the first */
        struct addrinfo hints, *ai = NULL;
        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(u.hostname, port, &hints, &ai);
        if (rc || !ai) {
            res->error = apr_psprintf(p, "cannot resolve %s: %s", u.hostname, gai_strerror(rc));
            return;
        }
        char first[INET6_ADDRSTRLEN + 2] = "";
        for (struct addrinfo *x = ai; x && !why; x = x->ai_next) {
            const unsigned char *a;
            char txt[INET6_ADDRSTRLEN];
            if (x->ai_family == AF_INET)
                a = (const unsigned char *)&((struct sockaddr_in *)x->ai_addr)->sin_addr;
            else if (x->ai_family == AF_INET6)
                a = (const unsigned char *)&((struct sockaddr_in6 *)x->ai_addr)->sin6_addr;
            else
                continue;
            why = judge(fs_webhook_addr_class(x->ai_family, a), allow_private);
            if (!*first && inet_ntop(x->ai_family, a, txt, sizeof(txt)))
                apr_snprintf(first, sizeof(first), x->ai_family == AF_INET6 ? "[%s]" : "%s", txt);
        }
        freeaddrinfo(ai);
        if (why || !*first) {
            res->error = apr_pstrcat(p, "url is refused: ", why ? why : "no usable address",
                                     " (after resolving)", NULL);
            return;
        }
        resolve = curl_slist_append(NULL, apr_psprintf(p, "%s:%s:%s", u.hostname, port, first));
    }
    CURL *c = curl_easy_init();
    if (!c) {
        curl_slist_free_all(resolve);
        res->error = "cannot start an HTTP session";
        return;
    }
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, apr_pstrcat(p, "webhook-id: ", msg_id, NULL));
    h = curl_slist_append(h, apr_psprintf(p, "webhook-timestamp: %" APR_INT64_T_FMT, timestamp));
    h = curl_slist_append(h, apr_pstrcat(p, "webhook-signature: ", signature, NULL));
    h = curl_slist_append(h, "Expect:");
    char err[CURL_ERROR_SIZE] = "";
    size_t seen = 0;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    /* never through a proxy from the environment: it would resolve the
     * name itself and defeat the address check */
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    if (resolve)
        curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "formsvc-webhooks/1");
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &seen);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)FS_WEBHOOK_CONNECT_TIMEOUT);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)(timeout > 0 ? timeout : 15));
    if (cancel) {
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, cancelled);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, cancel);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
    double t = 0;
    curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &t);
    res->ms = (long)(t * 1000);
    curl_slist_free_all(h);
    curl_slist_free_all(resolve);
    curl_easy_cleanup(c);
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && res->status))
        res->error = apr_pstrdup(p, *err ? err : curl_easy_strerror(rc));
    else if (res->status < 200 || res->status > 299)
        res->error = apr_psprintf(p, "HTTP status %ld", res->status);
}
