/* fs_mail: message builder, quoted-printable, addresses, the file transport. */
#include "fs_mail.h"
#include "fs_test.h"

#include <signal.h>

#include <apr_file_io.h>
#include <apr_network_io.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <unistd.h>

static fs_mail_msg msg(void) {
    fs_mail_msg m = {"Forms <no-reply@example.com>",
                     "alice@example.org",
                     "Verify your address",
                     "Your code is ABCD2345.\nBye.\n",
                     apr_time_from_sec(1795860328),
                     NULL,
                     NULL};
    return m;
}

static void builds_headers_and_body(void **state) {
    apr_pool_t *p = *state;
    fs_mail_msg m = msg();
    char *s = fs_mail_build(p, &m);
    assert_non_null(s);
    assert_non_null(strstr(s, "From: Forms <no-reply@example.com>\r\n"));
    assert_non_null(strstr(s, "To: alice@example.org\r\n"));
    assert_non_null(strstr(s, "Subject: Verify your address\r\n"));
    assert_non_null(strstr(s, "Date: Sat, 28 Nov 2026 10:05:28 +0000\r\n"));
    assert_non_null(strstr(s, "Message-ID: <"));
    assert_non_null(strstr(s, "@example.com>\r\n"));
    assert_non_null(strstr(s, "MIME-Version: 1.0\r\n"));
    assert_non_null(strstr(s, "Content-Type: text/plain; charset=utf-8\r\n"));
    assert_non_null(strstr(s, "\r\n\r\nYour code is ABCD2345.\r\nBye.\r\n"));
    /* every line ends CRLF, no bare LF */
    for (char *c = s; *c; c++)
        if (*c == '\n')
            assert_int_equal(c[-1], '\r');
}

static void refuses_header_injection(void **state) {
    apr_pool_t *p = *state;
    fs_mail_msg m = msg();
    m.to = "alice@example.org\r\nBcc: evil@example.net";
    assert_null(fs_mail_build(p, &m));
    m = msg();
    m.subject = "Hi\nBcc: evil@example.net";
    assert_null(fs_mail_build(p, &m));
    m = msg();
    m.to = "not an address";
    assert_null(fs_mail_build(p, &m));
    m = msg();
    m.from = NULL;
    assert_null(fs_mail_build(p, &m));
}

static void addresses(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_mail_addr(p, "Forms <a@b.c>"), "a@b.c");
    assert_string_equal(fs_mail_addr(p, "a@b.c"), "a@b.c");
    assert_null(fs_mail_addr(p, "Forms <a@b.c"));
    assert_null(fs_mail_addr(p, "a b@c.d"));
    assert_null(fs_mail_addr(p, "@c.d"));
    assert_null(fs_mail_addr(p, "a@"));
    assert_null(fs_mail_addr(p, "a@b@c"));
    assert_null(fs_mail_addr(p, "<a@b.c>\r\n"));
}

static void quoted_printable(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_mail_qp(p, "plain text"), "plain text");
    assert_string_equal(fs_mail_qp(p, "a=b"), "a=3Db");
    assert_string_equal(fs_mail_qp(p, "caf\xc3\xa9"), "caf=C3=A9");
    assert_string_equal(fs_mail_qp(p, "x \ny"), "x=20\r\ny");
    assert_string_equal(fs_mail_qp(p, "x\r\ny"), "x\r\ny");
    assert_string_equal(fs_mail_qp(p, ".\n.x"), "=2E\r\n=2Ex");
    /* long lines get soft breaks at <= 76 characters */
    char longl[301];
    memset(longl, 'a', 300);
    longl[300] = '\0';
    char *q = fs_mail_qp(p, longl);
    int col = 0, maxcol = 0;
    for (char *c = q; *c; c++) {
        if (*c == '\r')
            continue;
        if (*c == '\n') {
            col = 0;
            continue;
        }
        if (++col > maxcol)
            maxcol = col;
    }
    assert_true(maxcol <= 76);
    assert_non_null(strstr(q, "=\r\n"));
}

/* The key of the per-address cap: tags and case merged, dots kept. */
static void mailboxes(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_mail_mailbox(p, "x+0@example.org"), "x@example.org");
    assert_string_equal(fs_mail_mailbox(p, "X+5+more@Example.ORG"), "x@example.org");
    assert_string_equal(fs_mail_mailbox(p, "Ann <Ann.Lee+news@Mail.Example.com>"),
                        "ann.lee@mail.example.com");
    assert_string_equal(fs_mail_mailbox(p, "a.n.n@gmail.com"), "a.n.n@gmail.com");
    assert_string_equal(fs_mail_mailbox(p, "jean-paul@example.org"), "jean-paul@example.org");
    assert_string_equal(fs_mail_mailbox(p, "+tag@example.org"), "+tag@example.org");
    assert_string_equal(fs_mail_mailbox(p, "x+@example.org"), "x@example.org");
    assert_null(fs_mail_mailbox(p, "not an address"));
    assert_null(fs_mail_mailbox(p, NULL));
}

static void subject_encoded_words(void **state) {
    apr_pool_t *p = *state;
    fs_mail_msg m = msg();
    m.subject = "V\xc3\xa9rifiez votre adresse";
    char *s = fs_mail_build(p, &m);
    assert_non_null(strstr(s, "Subject: =?UTF-8?B?"));
    assert_null(strstr(s, "\xc3\xa9rifiez"));
    /* a long subject: words of at most 75 characters, each on a line of
     * its own, the text whole (45 bytes a word, never a character split) */
    char *longs = apr_palloc(p, 2 * 500 + 1);
    for (int i = 0; i < 500; i++)
        memcpy(longs + 2 * i, "\xc3\xa9", 2);
    longs[1000] = '\0';
    m.subject = longs;
    s = fs_mail_build(p, &m);
    const char *subj = strstr(s, "Subject: ") + 9;
    int words = 0;
    for (const char *w = subj; (w = strstr(w, "=?UTF-8?B?")) && w < strstr(s, "\r\nDate:"); w++)
        words++;
    assert_int_equal(words, 1000 / 44 + 1);
    assert_non_null(strstr(subj, "?=\r\n =?UTF-8?B?"));
}

static void unsubscribe_headers(void **state) {
    apr_pool_t *p = *state;
    fs_mail_msg m = msg();
    assert_null(strstr(fs_mail_build(p, &m), "List-Unsubscribe"));
    m.unsubscribe = "https://forms.example/notify/unsubscribe?u=nrc_1.ab";
    char *s = fs_mail_build(p, &m);
    assert_non_null(strstr(s, "\r\nList-Unsubscribe: <https://forms.example/notify/unsubscribe"
                              "?u=nrc_1.ab>\r\n"));
    assert_non_null(strstr(s, "\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"));
    /* the headers come before the blank line that ends them */
    assert_true(strstr(s, "List-Unsubscribe-Post") < strstr(s, "\r\n\r\n"));
    m.unsubscribe = "https://x.example/a>\r\nBcc: victim@example.org";
    assert_null(fs_mail_build(p, &m));
    m.unsubscribe = "https://x.example/a b";
    assert_null(fs_mail_build(p, &m));
}

static void date_format(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_mail_date(p, apr_time_from_sec(0)), "Thu, 01 Jan 1970 00:00:00 +0000");
}

static void file_transport(void **state) {
    apr_pool_t *p = *state;
    char dir[] = "/tmp/fsmailXXXXXX";
    assert_non_null(mkdtemp(dir));
    fs_mail_transport t = {FS_MAIL_FILE, dir, NULL, NULL, 5, NULL};
    assert_null(fs_mail_deliver(p, &t, "m_1", "a@b.c", "d@e.f", "Subject: x\r\n\r\nhi\r\n"));
    apr_file_t *f;
    assert_int_equal(apr_file_open(&f, apr_pstrcat(p, dir, "/m_1.eml", NULL), APR_READ, 0, p),
                     APR_SUCCESS);
    char buf[64];
    apr_size_t n = sizeof(buf) - 1;
    apr_file_read(f, buf, &n);
    buf[n] = 0;
    apr_file_close(f);
    assert_string_equal(buf, "Subject: x\r\n\r\nhi\r\n");
    assert_non_null(fs_mail_deliver(p, &t, "../evil", "a@b.c", "d@e.f", "x"));
    apr_file_remove(apr_pstrcat(p, dir, "/m_1.eml", NULL), p);
    fs_mail_transport bad = {FS_MAIL_FILE, "/nonexistent/dir", NULL, NULL, 5, NULL};
    assert_non_null(fs_mail_deliver(p, &bad, "m_2", "a@b.c", "d@e.f", "x"));
    rmdir(dir);
}

static void sendmail_transport(void **state) {
    apr_pool_t *p = *state;
    char dir[] = "/tmp/fsmailXXXXXX";
    assert_non_null(mkdtemp(dir));
    /* a stand-in for sendmail that keeps what it reads */
    fs_mail_transport t = {
        FS_MAIL_SENDMAIL, apr_psprintf(p, "/bin/sh -c \"cat > %s/out\"", dir), NULL, NULL, 5, NULL};
    assert_null(fs_mail_deliver(p, &t, "m", "a@b.c", "d@e.f", "Subject: x\r\n\r\nhi\r\n"));
    fs_mail_transport fail = {FS_MAIL_SENDMAIL, "/bin/false", NULL, NULL, 5, NULL};
    assert_non_null(fs_mail_deliver(p, &fail, "m", "a@b.c", "d@e.f", "x"));
    /* a message bigger than a pipe holds, to one that reads nothing: the
     * write meets a closed pipe every time, and fails (EPIPE) */
    char *big = apr_palloc(p, 1 << 20);
    memset(big, 'x', (1 << 20) - 1);
    big[(1 << 20) - 1] = '\0';
    assert_non_null(fs_mail_deliver(p, &fail, "m", "a@b.c", "d@e.f", big));
    fs_mail_transport slow = {FS_MAIL_SENDMAIL, "/bin/sleep 10", NULL, NULL, 1, NULL};
    const char *e = fs_mail_deliver(p, &slow, "m", "a@b.c", "d@e.f", "x");
    assert_non_null(e);
    assert_non_null(strstr(e, "timed out"));
    /* a message bigger than a pipe holds, to one that reads nothing and
     * does not exit: the write too is bounded by the time-out, and by the
     * process stopping */
    fs_mail_transport deaf = {FS_MAIL_SENDMAIL, "/bin/sleep 10", NULL, NULL, 1, NULL};
    apr_time_t t0 = apr_time_now();
    e = fs_mail_deliver(p, &deaf, "m", "a@b.c", "d@e.f", big);
    assert_non_null(e);
    assert_non_null(strstr(e, "timed out"));
    assert_true(apr_time_now() - t0 < apr_time_from_sec(5));
    apr_uint32_t stop_now = 1;
    fs_mail_transport deaf_stopping = {FS_MAIL_SENDMAIL, "/bin/sleep 10", NULL, NULL, 30,
                                       &stop_now};
    t0 = apr_time_now();
    assert_ptr_equal(fs_mail_deliver(p, &deaf_stopping, "m", "a@b.c", "d@e.f", big),
                     FS_MAIL_CANCELLED);
    assert_true(apr_time_now() - t0 < apr_time_from_sec(5));
    /* the process stopping: given up at once, long before the time-out */
    apr_uint32_t stop = 1;
    fs_mail_transport stopping = {FS_MAIL_SENDMAIL, "/bin/sleep 10", NULL, NULL, 30, &stop};
    t0 = apr_time_now();
    assert_ptr_equal(fs_mail_deliver(p, &stopping, "m", "a@b.c", "d@e.f", "x"), FS_MAIL_CANCELLED);
    assert_true(apr_time_now() - t0 < apr_time_from_sec(5));
    /* SMTP to a server that never answers its greeting */
    apr_socket_t *ls;
    apr_sockaddr_t *sa;
    assert_int_equal(apr_sockaddr_info_get(&sa, "127.0.0.1", APR_INET, 0, 0, p), APR_SUCCESS);
    assert_int_equal(apr_socket_create(&ls, APR_INET, SOCK_STREAM, APR_PROTO_TCP, p), APR_SUCCESS);
    assert_int_equal(apr_socket_bind(ls, sa), APR_SUCCESS);
    assert_int_equal(apr_socket_listen(ls, 4), APR_SUCCESS);
    apr_socket_addr_get(&sa, APR_LOCAL, ls);
    fs_mail_transport smtp = {
        FS_MAIL_SMTP, apr_psprintf(p, "smtp://127.0.0.1:%d", sa->port), NULL, NULL, 30, &stop};
    t0 = apr_time_now();
    assert_ptr_equal(fs_mail_deliver(p, &smtp, "m", "a@b.c", "d@e.f", "x"), FS_MAIL_CANCELLED);
    assert_true(apr_time_now() - t0 < apr_time_from_sec(5));
    apr_socket_close(ls);
    apr_file_remove(apr_pstrcat(p, dir, "/out", NULL), p);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        FS_TEST(builds_headers_and_body),
        FS_TEST(refuses_header_injection),
        FS_TEST(addresses),
        FS_TEST(mailboxes),
        FS_TEST(quoted_printable),
        FS_TEST(subject_encoded_words),
        FS_TEST(unsubscribe_headers),
        FS_TEST(date_format),
        FS_TEST(file_transport),
        FS_TEST(sendmail_transport),
    };
    /* As httpd does: a sendmail that exits before reading (/bin/false
     * above) makes the write fail with EPIPE instead of killing the
     * process; without this the run died of SIGPIPE when /bin/false won
     * that race (seen once: make unit, Error 141). */
    signal(SIGPIPE, SIG_IGN);
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
