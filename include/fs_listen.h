/* fs_listen: one dedicated PostgreSQL session that LISTENs for the
 * change notifications of the caches (sql/0025_cache_notify.sql), for the
 * invalidation thread of each httpd child (http/cache.c). It is not one of
 * mod_dbd's pooled connections: it stays idle in LISTEN for as long as it
 * lives, which a pooled connection must never do.
 *
 * Everything here is non-blocking and bounded: connecting, sending and
 * waiting all give up at a deadline or when the caller's stop function
 * says so, so the thread that owns the session can always be stopped and
 * joined in time. One statement at a time is in flight (libpq's rule);
 * notifications arrive between and during statements.
 *
 * The session runs three kinds of statement, all written here: a ping
 * (SELECT 1) that proves the server still answers, a barrier (pg_notify on
 * a channel only this session listens to; PostgreSQL delivers
 * notifications in commit order, so when the barrier's own notification
 * comes back every change committed before it was sent has been
 * delivered too), and the batched lastUsedAt refresh of API keys. */
#ifndef FS_LISTEN_H
#define FS_LISTEN_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct fs_listen fs_listen;

/* The channel the triggers notify on. */
#define FS_LISTEN_CHANNEL "formsvc_cache"

/* 1 when the owner wants the call to give up now. */
typedef int fs_listen_stop_fn(void *ctx);

/* Connects with conninfo (a libpq connection string, as in DBDParams) and
 * LISTENs on FS_LISTEN_CHANNEL and on a barrier channel of its own named
 * from id (digits only are kept). Gives up at deadline or when stop says
 * so. NULL on failure with *err set (in p). The session's memory is
 * libpq's (malloc), freed by fs_listen_close. */
fs_listen *fs_listen_open(apr_pool_t *p, const char *conninfo, unsigned long id,
                          apr_time_t deadline, fs_listen_stop_fn *stop, void *ctx,
                          const char **err);
/* Ends the session and frees it. No operation when l is NULL. */
void fs_listen_close(fs_listen *l);

/* What fs_listen_wait saw. */
enum {
    FS_LISTEN_LOST = 1,  /* the connection is gone: close it */
    FS_LISTEN_WAKE = 2,  /* wake_fd was readable (not drained here) */
    FS_LISTEN_INPUT = 4, /* the server sent something (see fs_listen_next) */
};
/* Waits up to timeout_ms for the server or for wake_fd (-1: none) and
 * reads what the server sent. Returns FS_LISTEN_* bits. */
int fs_listen_wait(fs_listen *l, int wake_fd, int timeout_ms);

/* Kinds of statement. */
typedef enum { FS_LISTEN_NONE, FS_LISTEN_PING, FS_LISTEN_BARRIER, FS_LISTEN_TOUCH } fs_listen_kind;

/* One event read from the session, in order. */
typedef struct fs_listen_event {
    enum { FS_LISTEN_EV_NOTIFY, FS_LISTEN_EV_BARRIER, FS_LISTEN_EV_DONE } type;
    /* NOTIFY: payload of a cache notification. BARRIER: the barrier's
     * number as sent. DONE: the statement in flight finished (ok 0 when it
     * failed; error says why). Strings in the pool given to fs_listen_next. */
    const char *payload;
    fs_listen_kind kind;
    int ok;
    const char *error;
} fs_listen_event;
/* The next event already read, or 0 when there is none for now. */
int fs_listen_next(fs_listen *l, apr_pool_t *p, fs_listen_event *ev);

/* The kind of statement in flight (FS_LISTEN_NONE: none) and since when. */
fs_listen_kind fs_listen_busy(fs_listen *l, apr_time_t *since);

/* Each sends one statement; 0 when it was sent, -1 when another one is
 * still in flight or sending failed (then check fs_listen_wait). */
int fs_listen_ping(fs_listen *l);
/* pg_notify on this session's barrier channel with the decimal n. */
int fs_listen_barrier(fs_listen *l, apr_uint64_t n);
/* Sets last_used_at = now() on the keys named (ids of the form key_…;
 * anything else is skipped) whose last_used_at is unset or more than a
 * minute old: the refresh the request path used to write itself. */
int fs_listen_touch(fs_listen *l, apr_pool_t *p, const char *const *key_ids, int n);

#endif
