/* fs_webhook: secrets, Standard Webhooks signatures (known vectors),
 * sealing, address classes, URL checks, backoff. */
#include "fs_test.h"
#include "fs_webhook.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

/* The example of the Standard Webhooks specification (and its reference
 * libraries' tests); checked with python3's hmac module as well. */
static void sign_spec_vector(void **state) {
    apr_pool_t *p = *state;
    const char *body = "{\"test\": 2432232314}";
    char *sig = fs_webhook_sign(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, strlen(body));
    assert_string_equal(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    /* the prefix is optional */
    sig = fs_webhook_sign(p, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
                          1614265330, body, strlen(body));
    assert_string_equal(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

/* Computed with python3: base64(hmac.new(bytes(range(24)),
 * 'dlv_01TEST.1700000000.{"a":"é"}'.encode(), sha256).digest()) */
static void sign_utf8_vector(void **state) {
    apr_pool_t *p = *state;
    const char *body = "{\"a\":\"\xc3\xa9\"}";
    char *sig = fs_webhook_sign(p, "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", "dlv_01TEST",
                                1700000000, body, strlen(body));
    assert_string_equal(sig, "v1,uwKyTg37I0kk60dWSpiTC7R0tHykIs0d+sRggRTT5FY=");
    /* one byte more of body changes it */
    sig = fs_webhook_sign(p, "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", "dlv_01TEST", 1700000000,
                          body, strlen(body) - 1);
    assert_string_not_equal(sig, "v1,uwKyTg37I0kk60dWSpiTC7R0tHykIs0d+sRggRTT5FY=");
}

static void secrets(void **state) {
    apr_pool_t *p = *state;
    char *a = fs_webhook_secret_new(p), *b = fs_webhook_secret_new(p);
    assert_non_null(a);
    assert_int_equal(strlen(a), 6 + 32);
    assert_memory_equal(a, "whsec_", 6);
    assert_string_not_equal(a, b);
    apr_size_t n = 0;
    assert_non_null(fs_webhook_secret_key(p, a, &n));
    assert_int_equal(n, 24);
    assert_null(fs_webhook_secret_key(p, "whsec_", &n));
    assert_null(fs_webhook_secret_key(p, "whsec_abc", &n));  /* not a multiple of 4 */
    assert_null(fs_webhook_secret_key(p, "whsec_AAAA", &n)); /* too short */
    assert_null(fs_webhook_secret_key(p, "whsec_AAEC=wQFBgcICQoLDA0ODxAR", &n)); /* = inside */
    assert_null(fs_webhook_secret_key(p, "whsec_AAECAwQF-gcICQoLDA0ODxAREhMU", &n));
    assert_null(fs_webhook_sign(p, "whsec_!!!!", "m", 1, "", 0));
}

static void seal_round_trip(void **state) {
    apr_pool_t *p = *state;
    const unsigned char pepper[] = "pepper-pepper-pepper";
    char *s = fs_webhook_secret_new(p);
    char *sealed = fs_webhook_seal(p, pepper, sizeof(pepper) - 1, "whk_A", s);
    assert_non_null(sealed);
    assert_null(strstr(sealed, s + 6));
    assert_string_equal(fs_webhook_open(p, pepper, sizeof(pepper) - 1, "whk_A", sealed), s);
    assert_null(fs_webhook_open(p, pepper, sizeof(pepper) - 1, "whk_B", sealed));
    assert_null(fs_webhook_open(p, pepper, sizeof(pepper) - 2, "whk_A", sealed));
    /* without a pepper: a fixed key (obscured, not protected) */
    sealed = fs_webhook_seal(p, NULL, 0, "whk_A", s);
    assert_string_equal(fs_webhook_open(p, NULL, 0, "whk_A", sealed), s);
}

static fs_addr_class cls(const char *txt) {
    unsigned char a[16];
    if (inet_pton(AF_INET, txt, a) == 1)
        return fs_webhook_addr_class(AF_INET, a);
    assert_int_equal(inet_pton(AF_INET6, txt, a), 1);
    return fs_webhook_addr_class(AF_INET6, a);
}

static void address_classes(void **state) {
    (void)state;
    const char *pub[] = {"93.184.216.34",    "8.8.8.8",
                         "172.32.0.1",       "100.128.0.1",
                         "2606:4700::1111",  "64:ff9b::808:808",
                         "::ffff:0:808:808", "64:ff9b:1::808:808",
                         "2002:808:808::1",  "2001:0:808:808::f7f7:f7f7",
                         "::ffff:8.8.8.8",   NULL};
    const char *priv[] = {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                          "192.168.1.1", "169.254.1.1", "100.64.0.1", "::1", "fe80::1", "fc00::1",
                          "fd12:3456::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "64:ff9b::7f00:1",
                          /* IPv4-translated (RFC 2765) */
                          "::ffff:0:7f00:1", "::ffff:0:a00:1", "::ffff:0:c0a8:101",
                          /* NAT64, well-known and local-use (RFC 6052, 8215) */
                          "64:ff9b::a00:1", "64:ff9b::c0a8:101", "64:ff9b:1::7f00:1",
                          "64:ff9b:1::a00:1", "64:ff9b:1:abcd::1", /* local-use, not a /96 form */
                          /* 6to4 with a private IPv4 inside */
                          "2002:7f00:1::1", "2002:a00:1::", "2002:c0a8:101:1::1",
                          /* Teredo whose client (inverted) is loopback */
                          "2001:0:808:808::80ff:fffe",
                          /* IPv4-compatible */
                          "::7f00:1", "::a00:1", "::808:808", NULL};
    const char *forb[] = {"169.254.169.254",
                          "100.100.100.200",
                          "0.0.0.0",
                          "224.0.0.1",
                          "255.255.255.255",
                          "240.0.0.1",
                          "::",
                          "ff02::1",
                          "fd00:ec2::254",
                          "::ffff:169.254.169.254",
                          "::ffff:0:a9fe:a9fe",
                          "64:ff9b::a9fe:a9fe",
                          "64:ff9b:1::a9fe:a9fe",
                          "2002:a9fe:a9fe::1",
                          "::a9fe:a9fe",
                          "::ffff:0:0:0",
                          NULL};
    for (int i = 0; pub[i]; i++)
        assert_int_equal(cls(pub[i]), FS_ADDR_PUBLIC);
    for (int i = 0; priv[i]; i++)
        assert_int_equal(cls(priv[i]), FS_ADDR_PRIVATE);
    for (int i = 0; forb[i]; i++)
        assert_int_equal(cls(forb[i]), FS_ADDR_FORBIDDEN);
}

static void url_checks(void **state) {
    apr_pool_t *p = *state;
    assert_null(fs_webhook_url_check(p, "https://hooks.example.com/x?y=1", 0, NULL));
    assert_null(fs_webhook_url_check(p, "https://93.184.216.34:8443/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "http://hooks.example.com/", 0, NULL));
    assert_null(fs_webhook_url_check(p, "http://hooks.example.com/", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://127.0.0.1/", 0, NULL));
    assert_null(fs_webhook_url_check(p, "http://127.0.0.1:8080/h", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[::1]/", 0, NULL));
    assert_null(fs_webhook_url_check(p, "https://[::1]/", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://localhost/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://a.localhost/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://intranet/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://169.254.169.254/latest", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[fd00:ec2::254]/", 1, NULL));
    /* IPv4 embedded in IPv6 literals */
    assert_non_null(fs_webhook_url_check(p, "https://[::ffff:0:7f00:1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[::ffff:127.0.0.1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[64:ff9b::7f00:1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[64:ff9b:1::a00:1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[2002:7f00:1::1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[::7f00:1]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://[::ffff:0:a9fe:a9fe]/", 1, NULL));
    assert_null(fs_webhook_url_check(p, "https://[64:ff9b::808:808]/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://0.0.0.0/", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "ftp://example.com/", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "/relative", 1, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://u:p@example.com/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://example.com/#f", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://exa mple.com/", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "https://example.com/\xc3\xa9", 0, NULL));
    assert_non_null(fs_webhook_url_check(p, "", 0, NULL));
    char *big = apr_palloc(p, 2100);
    memset(big, 'a', 2099);
    memcpy(big, "https://example.com/", 20);
    big[2099] = '\0';
    assert_non_null(fs_webhook_url_check(p, big, 0, NULL));
}

static void backoff_grows(void **state) {
    (void)state;
    assert_int_equal(fs_webhook_backoff(1), 5);
    assert_int_equal(fs_webhook_backoff(2), 20);
    assert_int_equal(fs_webhook_backoff(3), 80);
    assert_int_equal(fs_webhook_backoff(4), 320);
    assert_int_equal(fs_webhook_backoff(7), 14400);
    assert_int_equal(fs_webhook_backoff(40), 14400);
}

/* A target refused by the checks is not contacted at all. */
static void post_refuses(void **state) {
    apr_pool_t *p = *state;
    fs_webhook_result res;
    fs_webhook_post(p, "https://169.254.169.254/", 1, "m", 1, "v1,x", "{}", 1, NULL, &res);
    assert_int_equal(res.status, 0);
    assert_non_null(strstr(res.error, "refused"));
    fs_webhook_post(p, "http://127.0.0.1:1/", 0, "m", 1, "v1,x", "{}", 1, NULL, &res);
    assert_non_null(strstr(res.error, "https"));
}

/* A receiver that accepts the connection and never answers: an attempt
 * whose cancel flag is set ends within about a second, not at the time-out
 * (a child that exits does not wait for it). */
static void post_cancelled(void **state) {
    apr_pool_t *p = *state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 4), 0); /* the kernel accepts; nobody answers */
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    const char *url = apr_psprintf(p, "http://127.0.0.1:%d/", ntohs(a.sin_port));
    apr_uint32_t cancel = 1;
    fs_webhook_result res;
    apr_time_t t0 = apr_time_now();
    fs_webhook_post(p, url, 1, "m", 1, "v1,x", "{}", 10, &cancel, &res);
    assert_true(apr_time_now() - t0 < apr_time_from_sec(4));
    assert_non_null(res.error);
    assert_int_equal(res.status, 0);
    close(fd);
}

/* The one list of event types: what it knows, which carry answers. */
static void event_types(void **state) {
    (void)state;
    const char *known[] = {"submission.created",
                           "submission.updated",
                           "form.published",
                           "form.closed",
                           "webhook.paused",
                           "submissions.erased",
                           "submissions.deleted",
                           "ask.answered",
                           "ask.declined",
                           "ask.expired",
                           NULL};
    for (int i = 0; known[i]; i++)
        assert_true(fs_event_type_known(known[i]));
    const char *unknown[] = {"webhook.test", "ask.nope", "", "submission.created ", NULL};
    for (int i = 0; unknown[i]; i++)
        assert_false(fs_event_type_known(unknown[i]));
    assert_false(fs_event_type_known(NULL));
    assert_true(fs_event_type_answers("submission.created"));
    assert_true(fs_event_type_answers("submission.updated"));
    assert_true(fs_event_type_answers("ask.answered"));
    assert_false(fs_event_type_answers("ask.declined"));
    assert_false(fs_event_type_answers("form.closed"));
    assert_false(fs_event_type_answers("nope"));
    assert_string_equal(FS_EVENT_TYPES(FS_EVENT_TYPE_NAME, ", "),
                        "submission.created, submission.updated, form.published, form.closed, "
                        "webhook.paused, submissions.erased, submissions.deleted, ask.answered, "
                        "ask.declined, ask.expired, submission.partial, submission.completed");
    assert_true(fs_event_type_answers("submission.partial"));
    assert_true(fs_event_type_answers("submission.completed"));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(sign_spec_vector), FS_TEST(sign_utf8_vector), FS_TEST(secrets),
    FS_TEST(seal_round_trip),  FS_TEST(address_classes),  FS_TEST(url_checks),
    FS_TEST(backoff_grows),    FS_TEST(post_refuses),     FS_TEST(post_cancelled),
    FS_TEST(event_types),
};
FS_TEST_MAIN(tests)
