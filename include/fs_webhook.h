/* fs_webhook: the pure half of webhooks: signing secrets, Standard
 * Webhooks signatures, sealing a secret for storage, target URL and
 * address checks, the retry schedule, and one signed HTTP POST (libcurl).
 * No httpd headers. */
#ifndef FS_WEBHOOK_H
#define FS_WEBHOOK_H

#include <apr_pools.h>
#include <apr_uri.h>

#define FS_WEBHOOK_SECRET_PREFIX "whsec_"
#define FS_WEBHOOK_SECRET_BYTES 24 /* 192 bits: 32 base64 characters */
#define FS_WEBHOOK_URL_MAX 2048

/* Every event type of the feed (GET /v1/events) and of webhooks, the one
 * list: X(name, answers) for each, SEP between two. answers is 1 for the
 * types whose data carries a submission's answers (they need
 * submissions:read wherever they go). The events table's CHECK constraint
 * (sql/) must allow each; webhook.test (a test delivery's own event) is
 * not one of them: nobody subscribes to it nor reads it in the feed.
 * scripts/gen-openapi reads this list for the OpenAPI document: keep one
 * X("...", n) per type. Uses: FS_EVENT_TYPES(FS_EVENT_TYPE_JSON, ",") is
 * the JSON text "\"a\",\"b\"", FS_EVENT_TYPES(FS_EVENT_TYPE_NAME, ", ")
 * "a, b". */
/* clang-format off */
#define FS_EVENT_TYPES(X, SEP)                                                                     \
    X("submission.created", 1)                                                                     \
    SEP X("submission.updated", 1)                                                                 \
    SEP X("form.published", 0)                                                                     \
    SEP X("form.closed", 0)                                                                        \
    SEP X("webhook.paused", 0)                                                                     \
    SEP X("submissions.erased", 0)                                                                 \
    SEP X("submissions.deleted", 0)                                                                \
    SEP X("ask.answered", 1)                                                                       \
    SEP X("ask.declined", 0)                                                                       \
    SEP X("ask.expired", 0)                                                                        \
    SEP X("submission.partial", 1)                                                                 \
    SEP X("submission.completed", 1)
/* clang-format on */
#define FS_EVENT_TYPE_JSON(name, answers) "\"" name "\""
#define FS_EVENT_TYPE_NAME(name, answers) name

/* 1 when t is one of FS_EVENT_TYPES. */
int fs_event_type_known(const char *t);
/* 1 when events of type t carry answers (see FS_EVENT_TYPES). */
int fs_event_type_answers(const char *t);

/* A new signing secret "whsec_<base64 of 24 CSPRNG bytes>" in p; NULL when
 * the CSPRNG fails. */
char *fs_webhook_secret_new(apr_pool_t *p);

/* The key bytes of a secret: the base64 after "whsec_" decoded (the
 * prefix is optional, as Standard Webhooks libraries accept). NULL when
 * it is not base64 of at least 16 bytes. */
unsigned char *fs_webhook_secret_key(apr_pool_t *p, const char *secret, apr_size_t *len);

/* The webhook-signature header value "v1,<base64 HMAC-SHA-256 of
 * '<msg_id>.<timestamp>.<body>'>" keyed with the secret's key bytes. NULL
 * when the secret is malformed. */
char *fs_webhook_sign(apr_pool_t *p, const char *secret, const char *msg_id, apr_int64_t timestamp,
                      const char *body, apr_size_t body_len);

/* Seals a secret for the database (AES-256-GCM under a key derived from the
 * pepper and the webhook id) and opens it again; NULL on failure or when
 * the sealed text was not made for this webhook under this pepper. */
char *fs_webhook_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *webhook_id, const char *secret);
char *fs_webhook_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *webhook_id, const char *sealed);

/* What an address is, as a webhook target. */
typedef enum {
    FS_ADDR_PUBLIC = 0,
    FS_ADDR_PRIVATE,  /* loopback, RFC 1918, CGNAT, link-local, ULA, ...:
                       * allowed only with FormsvcWebhookAllowPrivate On */
    FS_ADDR_FORBIDDEN /* cloud metadata, unspecified, multicast, broadcast,
                       * reserved: never */
} fs_addr_class;

/* family is AF_INET (addr: 4 bytes) or AF_INET6 (16 bytes); IPv4-mapped
 * and NAT64 IPv6 addresses are judged by the IPv4 address they hold. */
fs_addr_class fs_webhook_addr_class(int family, const unsigned char *addr);

/* Checks a target URL: absolute http(s), a host, no user info, no
 * fragment, at most FS_WEBHOOK_URL_MAX bytes, printable ASCII; https only
 * unless allow_private; a literal address or a "localhost" name that is
 * private needs allow_private, a forbidden one is refused always. Returns
 * NULL when acceptable (filling *out when out is not NULL), else a sentence
 * saying why not. */
const char *fs_webhook_url_check(apr_pool_t *p, const char *url, int allow_private, apr_uri_t *out);

/* Seconds to wait after failed attempt number attempt (1-based): 5 s,
 * times four each time, at most four hours. */
int fs_webhook_backoff(int attempt);

/* The result of one delivery attempt. */
typedef struct fs_webhook_result {
    long status;       /* HTTP status, 0 when none came */
    const char *error; /* NULL, or why the attempt failed */
    long ms;           /* duration */
} fs_webhook_result;

/* Seconds a delivery may take to connect (within its timeout). */
#define FS_WEBHOOK_CONNECT_TIMEOUT 5

/* POSTs body (application/json) to url with the Standard Webhooks headers,
 * within timeout seconds (FS_WEBHOOK_CONNECT_TIMEOUT of them to connect),
 * without following redirects; given up early (an error) once *cancel
 * becomes non-zero (NULL: never), which libcurl checks about every
 * second. The host name is
 * resolved here and every address checked (FS_ADDR_FORBIDDEN always
 * refused, FS_ADDR_PRIVATE unless allow_private); the connection is then
 * pinned to the checked address, so a DNS answer that changes in between
 * (rebinding) cannot redirect it. Only a 2xx is a success. */
void fs_webhook_post(apr_pool_t *p, const char *url, int allow_private, const char *msg_id,
                     apr_int64_t timestamp, const char *signature, const char *body, int timeout,
                     apr_uint32_t *cancel, fs_webhook_result *res);

#endif
