/* fs_listen: the LISTEN session of the caches' invalidation thread (see
 * fs_listen.h). libpq in non-blocking mode throughout; every wait is a
 * poll() with a bound. */
#include "fs_listen.h"

#include <apr_strings.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fs_listen {
    PGconn *c;
    char barrier_channel[48];
    fs_listen_kind inflight;
    apr_time_t since;
    int failed; /* a result of the statement in flight was an error */
    char error[200];
};

/* The statements of the session. */
#define SQL_PING "SELECT 1"
#define SQL_BARRIER "SELECT pg_notify($1, $2)"
/* the refresh fs_touch_key did per request, for many keys at once */
#define SQL_TOUCH                                                                                  \
    "UPDATE keys SET last_used_at = now() WHERE id = ANY ($1::text[]) "                            \
    "  AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')"

static int poll_fd(int fd, short events, int ms) {
    struct pollfd pfd = {fd, events, 0};
    int n = poll(&pfd, 1, ms);
    return n > 0 ? pfd.revents : (n < 0 && errno != EINTR ? -1 : 0);
}

static int slice(apr_time_t deadline) {
    apr_time_t left = deadline - apr_time_now();
    if (left <= 0)
        return 0;
    return left > apr_time_from_msec(100) ? 100 : (int)apr_time_as_msec(left) + 1;
}

/* Waits until the statement in flight has all its results, the deadline
 * passes or stop says so; 1 when every result was a success. */
static int finish(fs_listen *l, apr_time_t deadline, fs_listen_stop_fn *stop, void *ctx) {
    int ok = 1;
    for (;;) {
        int pending = PQflush(l->c);
        if (pending < 0)
            return 0;
        while (!pending && !PQisBusy(l->c)) {
            PGresult *r = PQgetResult(l->c);
            if (!r)
                return ok;
            ExecStatusType st = PQresultStatus(r);
            if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
                ok = 0;
            PQclear(r);
        }
        int ms = slice(deadline);
        if (!ms || (stop && stop(ctx)))
            return 0;
        int ev = poll_fd(PQsocket(l->c), (short)(POLLIN | (pending ? POLLOUT : 0)), ms);
        if (ev < 0 || ((ev & (POLLIN | POLLHUP | POLLERR)) && !PQconsumeInput(l->c)))
            return 0;
    }
}

fs_listen *fs_listen_open(apr_pool_t *p, const char *conninfo, unsigned long id,
                          apr_time_t deadline, fs_listen_stop_fn *stop, void *ctx,
                          const char **err) {
    *err = NULL;
    fs_listen *l = calloc(1, sizeof(*l));
    if (!l) {
        *err = "out of memory";
        return NULL;
    }
    snprintf(l->barrier_channel, sizeof(l->barrier_channel), "formsvc_barrier_%lu", id);
    l->c = PQconnectStart(conninfo);
    if (!l->c || PQstatus(l->c) == CONNECTION_BAD) {
        *err = apr_pstrdup(p, l->c ? PQerrorMessage(l->c) : "out of memory");
        fs_listen_close(l);
        return NULL;
    }
    /* PQconnectPoll's protocol: wait for what it asks, then call it again */
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK) {
        if (st == PGRES_POLLING_FAILED) {
            *err = apr_pstrdup(p, PQerrorMessage(l->c));
            fs_listen_close(l);
            return NULL;
        }
        int ms = slice(deadline);
        if (!ms || (stop && stop(ctx))) {
            *err = !ms ? "no connection within the time limit" : "stopping";
            fs_listen_close(l);
            return NULL;
        }
        int ev = poll_fd(PQsocket(l->c), st == PGRES_POLLING_READING ? POLLIN : POLLOUT, ms);
        if (ev < 0) {
            *err = "poll failed";
            fs_listen_close(l);
            return NULL;
        }
        if (ev)
            st = PQconnectPoll(l->c);
    }
    PQsetnonblocking(l->c, 1);
    /* identifiers cannot be parameters; these are fixed text and digits */
    char sql[160];
    snprintf(sql, sizeof(sql), "LISTEN " FS_LISTEN_CHANNEL "; LISTEN %s", l->barrier_channel);
    if (!PQsendQuery(l->c, sql) || !finish(l, deadline, stop, ctx)) {
        *err = apr_pstrcat(p, "LISTEN failed: ", PQerrorMessage(l->c), NULL);
        fs_listen_close(l);
        return NULL;
    }
    return l;
}

void fs_listen_close(fs_listen *l) {
    if (!l)
        return;
    if (l->c)
        PQfinish(l->c); /* non-blocking: the goodbye is sent if it can be */
    free(l);
}

int fs_listen_wait(fs_listen *l, int wake_fd, int timeout_ms) {
    int pending = PQflush(l->c);
    if (pending < 0 || PQstatus(l->c) != CONNECTION_OK)
        return FS_LISTEN_LOST;
    struct pollfd pfd[2] = {{PQsocket(l->c), (short)(POLLIN | (pending ? POLLOUT : 0)), 0},
                            {wake_fd, POLLIN, 0}};
    if (pfd[0].fd < 0)
        return FS_LISTEN_LOST;
    int n = poll(pfd, wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0)
        return errno == EINTR ? 0 : FS_LISTEN_LOST;
    int out = 0;
    if (wake_fd >= 0 && (pfd[1].revents & POLLIN))
        out |= FS_LISTEN_WAKE;
    if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (!PQconsumeInput(l->c) || PQstatus(l->c) != CONNECTION_OK)
            return out | FS_LISTEN_LOST;
        out |= FS_LISTEN_INPUT;
    }
    return out;
}

int fs_listen_next(fs_listen *l, apr_pool_t *p, fs_listen_event *ev) {
    memset(ev, 0, sizeof(*ev));
    PGnotify *n = PQnotifies(l->c);
    if (n) {
        ev->type =
            strcmp(n->relname, l->barrier_channel) ? FS_LISTEN_EV_NOTIFY : FS_LISTEN_EV_BARRIER;
        ev->payload = apr_pstrdup(p, n->extra ? n->extra : "");
        PQfreemem(n);
        return 1;
    }
    while (l->inflight != FS_LISTEN_NONE && !PQisBusy(l->c)) {
        PGresult *r = PQgetResult(l->c);
        if (!r) {
            ev->type = FS_LISTEN_EV_DONE;
            ev->kind = l->inflight;
            ev->ok = !l->failed;
            ev->error = l->failed ? apr_pstrdup(p, l->error) : NULL;
            l->inflight = FS_LISTEN_NONE;
            l->failed = 0;
            return 1;
        }
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !l->failed) {
            l->failed = 1;
            snprintf(l->error, sizeof(l->error), "%s", PQresultErrorMessage(r));
        }
        PQclear(r);
    }
    return 0;
}

fs_listen_kind fs_listen_busy(fs_listen *l, apr_time_t *since) {
    if (since)
        *since = l->since;
    return l->inflight;
}

static int sent(fs_listen *l, fs_listen_kind kind, int ok) {
    if (!ok)
        return -1;
    l->inflight = kind;
    l->since = apr_time_now();
    l->failed = 0;
    return 0;
}

int fs_listen_ping(fs_listen *l) {
    if (l->inflight != FS_LISTEN_NONE)
        return -1;
    return sent(l, FS_LISTEN_PING, PQsendQuery(l->c, SQL_PING));
}

int fs_listen_barrier(fs_listen *l, apr_uint64_t n) {
    if (l->inflight != FS_LISTEN_NONE)
        return -1;
    char num[24];
    snprintf(num, sizeof(num), "%" APR_UINT64_T_FMT, n);
    const char *params[2] = {l->barrier_channel, num};
    return sent(l, FS_LISTEN_BARRIER,
                PQsendQueryParams(l->c, SQL_BARRIER, 2, NULL, params, NULL, NULL, 0));
}

static int plain_id(const char *s) {
    if (!s || strncmp(s, "key_", 4) || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

int fs_listen_touch(fs_listen *l, apr_pool_t *p, const char *const *key_ids, int n) {
    if (l->inflight != FS_LISTEN_NONE)
        return -1;
    /* a text[] literal: ids are letters, digits and '_' only, so none
     * needs quoting; it travels as a parameter all the same */
    apr_size_t len = 3;
    for (int i = 0; i < n; i++)
        len += plain_id(key_ids[i]) ? strlen(key_ids[i]) + 1 : 0;
    char *arr = apr_palloc(p, len), *q = arr;
    *q++ = '{';
    for (int i = 0; i < n; i++) {
        if (!plain_id(key_ids[i]))
            continue;
        if (q[-1] != '{')
            *q++ = ',';
        apr_size_t k = strlen(key_ids[i]);
        memcpy(q, key_ids[i], k);
        q += k;
    }
    *q++ = '}';
    *q = '\0';
    const char *params[1] = {arr};
    return sent(l, FS_LISTEN_TOUCH,
                PQsendQueryParams(l->c, SQL_TOUCH, 1, NULL, params, NULL, NULL, 0));
}
