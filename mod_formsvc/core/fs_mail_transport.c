/* fs_mail_transport: delivering one message: a .eml file, the sendmail
 * command, or SMTP through libcurl. Each bounded by the transport's
 * time-out; errors come back as sentences for the outbox. */
#include "fs_mail.h"

#include <apr_atomic.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>

const char FS_MAIL_CANCELLED[] = "the delivery was given up: the process is stopping";

static int cancelled(const fs_mail_transport *t) {
    return t->cancel && apr_atomic_read32(t->cancel) != 0;
}

static const char *deliver_file(apr_pool_t *p, const fs_mail_transport *t, const char *id,
                                const char *message) {
    for (const char *c = id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-'))
            return "bad message id";
    const char *tmp = apr_pstrcat(p, t->target, "/.", id, ".tmp", NULL);
    const char *dst = apr_pstrcat(p, t->target, "/", id, ".eml", NULL);
    apr_file_t *f;
    apr_size_t n = strlen(message);
    apr_status_t rv = apr_file_open(&f, tmp, APR_WRITE | APR_CREATE | APR_TRUNCATE | APR_BINARY,
                                    APR_FPROT_UREAD | APR_FPROT_UWRITE | APR_FPROT_GREAD, p);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "cannot create a file in the mail directory (%d)", rv);
    rv = apr_file_write_full(f, message, n, NULL);
    if (rv == APR_SUCCESS)
        rv = apr_file_flush(f);
    apr_file_close(f);
    /* rename: a reader never sees half a message */
    if (rv == APR_SUCCESS)
        rv = apr_file_rename(tmp, dst, p);
    if (rv != APR_SUCCESS) {
        apr_file_remove(tmp, p);
        return apr_psprintf(p, "cannot write the message file (%d)", rv);
    }
    return NULL;
}

/* The longest one write to the sendmail program waits before the time-out
 * and the cancel flag are looked at again. */
#define WRITE_WAIT apr_time_from_msec(100)

static const char *deliver_sendmail(apr_pool_t *p, const fs_mail_transport *t,
                                    const char *message) {
    char **argv;
    if (apr_tokenize_to_argv(t->target, &argv, p) != APR_SUCCESS || !argv[0])
        return "bad sendmail command";
    apr_procattr_t *attr;
    apr_proc_t proc;
    if (apr_procattr_create(&attr, p) != APR_SUCCESS ||
        apr_procattr_io_set(attr, APR_FULL_BLOCK, APR_NO_PIPE, APR_NO_PIPE) != APR_SUCCESS ||
        apr_procattr_cmdtype_set(attr, APR_PROGRAM) != APR_SUCCESS ||
        apr_procattr_error_check_set(attr, 1) != APR_SUCCESS)
        return "cannot prepare the sendmail process";
    if (apr_proc_create(&proc, argv[0], (const char *const *)argv, NULL, attr, p) != APR_SUCCESS)
        return apr_psprintf(p, "cannot run %s", argv[0]);
    apr_time_t until = apr_time_now() + apr_time_from_sec(t->timeout > 0 ? t->timeout : 30);
    /* The message goes in slices of at most WRITE_WAIT each, so that the
     * time-out and the cancel flag bound the write too: a program that
     * reads nothing and does not exit would otherwise hold a message
     * larger than the pipe (64 KB) in a blocking write for ever. */
    const char *rest = message;
    apr_size_t left = strlen(message);
    apr_status_t rv = apr_file_pipe_timeout_set(proc.in, WRITE_WAIT);
    while (rv == APR_SUCCESS && left && apr_time_now() <= until && !cancelled(t)) {
        apr_size_t n = left;
        rv = apr_file_write(proc.in, rest, &n);
        rest += n;
        left -= n;
        if (APR_STATUS_IS_TIMEUP(rv) || APR_STATUS_IS_EAGAIN(rv))
            rv = APR_SUCCESS; /* the program reads slowly, or not at all: again */
    }
    if (rv == APR_SUCCESS && left)
        rv = APR_TIMEUP; /* the time-out (or the cancel flag) came first */
    apr_file_close(proc.in);
    int code = 0;
    apr_exit_why_e why;
    apr_status_t w;
    while ((w = apr_proc_wait(&proc, &code, &why, APR_NOWAIT)) == APR_CHILD_NOTDONE) {
        if (apr_time_now() > until || cancelled(t)) {
            apr_proc_kill(&proc, SIGKILL);
            apr_proc_wait(&proc, &code, &why, APR_WAIT);
            return cancelled(t) ? FS_MAIL_CANCELLED : "sendmail timed out";
        }
        apr_sleep(apr_time_from_msec(20));
    }
    if (rv != APR_SUCCESS)
        return "cannot write to sendmail";
    if (w != APR_CHILD_DONE || why != APR_PROC_EXIT || code != 0)
        return apr_psprintf(p, "sendmail failed (exit %d)", code);
    return NULL;
}

typedef struct upload {
    const char *data;
    size_t left;
} upload;

static size_t read_cb(char *buf, size_t size, size_t nitems, void *arg) {
    upload *u = arg;
    size_t n = size * nitems;
    if (n > u->left)
        n = u->left;
    memcpy(buf, u->data, n);
    u->data += n;
    u->left -= n;
    return n;
}

/* Ends an SMTP session early once the caller's cancel flag is set. */
static int xfer_cancelled(void *data, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                          curl_off_t ulnow) {
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return cancelled(data);
}

static const char *deliver_smtp(apr_pool_t *p, const fs_mail_transport *t, const char *from,
                                const char *rcpt, const char *message) {
    CURL *c = curl_easy_init();
    if (!c)
        return "cannot start an SMTP session";
    struct curl_slist *to = curl_slist_append(NULL, apr_pstrcat(p, "<", rcpt, ">", NULL));
    upload u = {message, strlen(message)};
    char err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, t->target);
    /* smtp://: STARTTLS when the server offers it (required when there are
     * credentials to protect); smtps://: TLS from the start. */
    curl_easy_setopt(c, CURLOPT_USE_SSL, (long)(t->user ? CURLUSESSL_ALL : CURLUSESSL_TRY));
    if (t->user)
        curl_easy_setopt(c, CURLOPT_USERNAME, t->user);
    if (t->password)
        curl_easy_setopt(c, CURLOPT_PASSWORD, t->password);
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, apr_pstrcat(p, "<", from, ">", NULL));
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
    curl_easy_setopt(c, CURLOPT_READDATA, &u);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)(t->timeout > 0 ? t->timeout : 30));
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    if (t->cancel) {
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, xfer_cancelled);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)t);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_ABORTED_BY_CALLBACK && cancelled(t)) {
        /* curl_easy_cleanup would say QUIT and wait for the answer (up to
         * two minutes from a relay that hangs): end the connection first */
        curl_socket_t fd = CURL_SOCKET_BAD;
        if (curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &fd) == CURLE_OK && fd != CURL_SOCKET_BAD)
            shutdown(fd, SHUT_RDWR);
    }
    curl_slist_free_all(to);
    curl_easy_cleanup(c);
    if (rc == CURLE_ABORTED_BY_CALLBACK && cancelled(t))
        return FS_MAIL_CANCELLED;
    if (rc != CURLE_OK)
        return apr_psprintf(p, "SMTP: %s", *err ? err : curl_easy_strerror(rc));
    return NULL;
}

const char *fs_mail_deliver(apr_pool_t *p, const fs_mail_transport *t, const char *id,
                            const char *from, const char *rcpt, const char *message) {
    switch (t->kind) {
    case FS_MAIL_FILE: return deliver_file(p, t, id, message);
    case FS_MAIL_SENDMAIL: return deliver_sendmail(p, t, message);
    case FS_MAIL_SMTP: return deliver_smtp(p, t, from, rcpt, message);
    }
    return "unknown transport";
}
