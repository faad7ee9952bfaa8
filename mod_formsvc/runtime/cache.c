/* cache: directives, generation counters, the invalidation thread and the
 * write barrier shared by the form and credential caches (see cache.h). */
#include "runtime/cache.h"
#include "fs_listen.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"
#include "runtime/schema_check.h"
#include "runtime/worker.h"

#include <apr_atomic.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <errno.h>
#include <fcntl.h>
#include <http_request.h>
#include <stdatomic.h>
#include <unistd.h>
#include <util_filter.h>

APLOG_USE_MODULE(formsvc);

#define NSLOTS 65536u                 /* generation counters; gens[NSLOTS] is the machine epoch */
#define LIVE_FOR apr_time_from_sec(1) /* trusted this long after the session last answered */
#define PING_EVERY apr_time_from_msec(250)
#define GIVE_UP_AFTER apr_time_from_sec(10) /* a statement unanswered this long: reconnect */
#define BARRIER_WAIT apr_time_from_sec(1)
#define TOUCH_EVERY apr_time_from_sec(1)
#define TOUCH_QUEUE 1024
#define TOUCH_BATCH 500

/* ---- settings (FormsvcFormCacheSize and the like: config_global.h) ----- */

static apr_size_t cache_size(int which) {
    return formsvc_global_conf()->cache_size[which];
}

apr_time_t formsvc_cache_ttl(int which) {
    return apr_time_from_sec(formsvc_global_conf()->cache_ttl[which]);
}

/* The mark is when the entry is due to be read again. The one thread
 * that moves it on refreshes; the entry is not offered to another
 * (mark at the end of time) until that thread's put replaces it, or it
 * expires. */
int formsvc_cache_get(fs_lru *c, const char *key, fs_lru_stamp stamp, apr_pool_t *p, void **val,
                      apr_size_t *len) {
    apr_time_t now = apr_time_now(), due;
    return fs_lru_get(c, key, now, stamp, p, val, len, &due) &&
           !(now >= due && fs_lru_remark(c, key, due, APR_INT64_MAX));
}

void formsvc_cache_put(fs_lru *c, const char *key, const void *val, apr_size_t len,
                       apr_time_t expires, fs_lru_stamp stamp) {
    apr_time_t now = apr_time_now();
    fs_lru_put(c, key, val, len, expires, stamp, now + (expires - now) / 2);
}

/* ---- state ------------------------------------------------------------ */

/* per machine (shared memory made in post_config) */
static apr_shm_t *shm;
static fs_gen *gens;
/* the session's connection string: DBDParams, when every one in the
 * configuration is the same (NULL: no listener, no caches) */
static const char *conninfo;

/* per child */
static fs_lru *lru[2];
static _Atomic uint64_t child_epoch;
static _Atomic int live;         /* the session is up and listening */
static _Atomic apr_time_t heard; /* when it last answered */
static apr_thread_mutex_t *bmu;  /* barrier: requested, sent, done */
static apr_thread_cond_t *bcond;
static apr_uint64_t requested, sent, done;
static int wake[2] = {-1, -1};  /* a pipe: a barrier was requested */
static apr_thread_mutex_t *tmu; /* the touch queue */
static char touch_q[TOUCH_QUEUE][48];
static int touch_n;

static int enabled(void) {
    return conninfo && gens && (cache_size(0) || cache_size(1));
}

static int usable(void) {
    return atomic_load(&live) && apr_time_now() - atomic_load(&heard) < LIVE_FOR;
}

fs_lru *formsvc_cache_lru(int which) {
    return lru[which] && usable() ? lru[which] : NULL;
}

fs_lru_stamp formsvc_cache_stamp(const char *dep) {
    fs_lru_stamp st = {0, 0};
    if (!gens)
        return st;
    st.a = fs_gen_read(gens, NSLOTS) + atomic_load(&child_epoch);
    st.b = fs_gen_read(gens, fs_gen_slot(dep, NSLOTS));
    return st;
}

void formsvc_cache_bump(const char *dep) {
    if (gens)
        fs_gen_bump(gens, fs_gen_slot(dep, NSLOTS));
}

static void flush_machine(void) {
    if (gens)
        fs_gen_bump(gens, NSLOTS);
}

static void flush_child(void) {
    atomic_fetch_add(&child_epoch, 1);
}

void formsvc_cache_touch_later(const char *key_id) {
    if (!tmu || strlen(key_id) >= sizeof(touch_q[0]))
        return;
    apr_thread_mutex_lock(tmu);
    if (touch_n < TOUCH_QUEUE) /* full: dropped, lastUsedAt is a hint */
        apr_cpystrn(touch_q[touch_n++], key_id, sizeof(touch_q[0]));
    apr_thread_mutex_unlock(tmu);
}

/* ---- serialised records ---------------------------------------------- */

void formsvc_blob_init(formsvc_blob *b, apr_pool_t *p) {
    b->p = p;
    b->len = 0;
    b->cap = 1024;
    b->data = apr_palloc(p, b->cap);
}

static void blob_put(formsvc_blob *b, const void *s, apr_size_t n) {
    if (b->len + n > b->cap) {
        apr_size_t cap = b->cap * 2;
        while (cap < b->len + n)
            cap *= 2;
        char *d = apr_palloc(b->p, cap);
        memcpy(d, b->data, b->len);
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void formsvc_blob_add(formsvc_blob *b, const char *s, apr_size_t n) {
    apr_uint32_t len = s ? (apr_uint32_t)n : 0xffffffffu;
    blob_put(b, &len, sizeof(len));
    if (s) {
        blob_put(b, s, n);
        blob_put(b, "", 1);
    }
}

int formsvc_blob_next(const char **cur, const char *end, const char **s, apr_size_t *n) {
    apr_uint32_t len;
    if (end - *cur < (long)sizeof(len))
        return 0;
    memcpy(&len, *cur, sizeof(len));
    *cur += sizeof(len);
    if (len == 0xffffffffu) {
        *s = NULL;
        *n = 0;
        return 1;
    }
    if ((apr_size_t)(end - *cur) < (apr_size_t)len + 1)
        return 0;
    *s = *cur;
    *n = len;
    *cur += len + 1;
    return 1;
}

/* ---- the barrier ------------------------------------------------------ */

/* Returns once every notification committed before the call has been
 * applied on this machine, or the machine's caches were flushed. */
static void barrier(request_rec *r) {
    if (!usable() || !bmu) {
        flush_machine();
        return;
    }
    apr_time_t deadline = apr_time_now() + BARRIER_WAIT;
    apr_thread_mutex_lock(bmu);
    apr_uint64_t target = ++requested;
    if (write(wake[1], "b", 1) < 0 && errno != EAGAIN) {
        /* a full pipe already wakes the thread */
    }
    while (done < target) {
        apr_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        apr_thread_cond_timedwait(bcond, bmu, left);
    }
    int ok = done >= target;
    apr_thread_mutex_unlock(bmu);
    if (!ok) {
        formsvc_metric_inc(FORMSVC_M_CACHE_FLUSH_BARRIER);
        FORMSVC_LOG(r, APLOG_INFO, 02171,
                    "cache: the invalidation listener did not confirm within 1 s; this "
                    "machine's caches are flushed");
        flush_machine();
    }
}

static apr_status_t barrier_filter(ap_filter_t *f, apr_bucket_brigade *bb) {
    request_rec *r = f->r;
    /* refusals (4xx) changed nothing; successes and server errors may have */
    if (r->status < 400 || r->status >= 500)
        barrier(r);
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

void formsvc_cache_insert_filter(request_rec *r) {
    if (!enabled() || r->main)
        return;
    formsvc_req *q = formsvc_req_get(r);
    if (!q->ours || !q->path)
        return;
    int m = r->method_number;
    if (m != M_POST && m != M_PUT && m != M_PATCH && m != M_DELETE)
        return;
    if (!strncmp(q->path, "/f/", 3))
        return; /* public submissions: form_cache.c */
    ap_add_output_filter("FORMSVC_CACHE_BARRIER", NULL, r, r->connection);
}

/* ---- the listener ----------------------------------------------------- */

static int stop_fn(void *ctx) {
    return formsvc_worker_stopping(ctx);
}

static void drain_wake(void) {
    char buf[64];
    while (read(wake[0], buf, sizeof(buf)) > 0)
        ;
}

static void apply(apr_pool_t *p, const fs_listen_event *ev) {
    (void)p;
    if (ev->type == FS_LISTEN_EV_NOTIFY) {
        if (!strcmp(ev->payload, "*"))
            flush_machine(); /* NOTIFY formsvc_cache, '*': everything */
        else
            formsvc_cache_bump(ev->payload);
    } else if (ev->type == FS_LISTEN_EV_BARRIER) {
        apr_uint64_t n = (apr_uint64_t)apr_atoi64(ev->payload);
        apr_thread_mutex_lock(bmu);
        if (n > done)
            done = n;
        apr_thread_cond_broadcast(bcond);
        apr_thread_mutex_unlock(bmu);
    }
}

/* Sends what is due: a barrier first, then a lastUsedAt batch, else a
 * ping. One statement at a time. */
static void send_due(fs_listen *l, apr_pool_t *p, apr_time_t now, apr_time_t *last_touch) {
    if (fs_listen_busy(l, NULL) != FS_LISTEN_NONE)
        return;
    apr_thread_mutex_lock(bmu);
    apr_uint64_t want = requested > sent ? requested : 0;
    if (want)
        sent = want;
    apr_thread_mutex_unlock(bmu);
    if (want) {
        fs_listen_barrier(l, want);
        return;
    }
    if (now - *last_touch >= TOUCH_EVERY) {
        *last_touch = now;
        const char *ids[TOUCH_BATCH];
        int n = 0;
        apr_thread_mutex_lock(tmu);
        for (; n < touch_n && n < TOUCH_BATCH; n++)
            ids[n] = apr_pstrdup(p, touch_q[n]);
        memmove(touch_q, touch_q + n, (apr_size_t)(touch_n - n) * sizeof(touch_q[0]));
        touch_n -= n;
        apr_thread_mutex_unlock(tmu);
        if (n) {
            fs_listen_touch(l, p, ids, n);
            return;
        }
    }
    if (now - atomic_load(&heard) >= PING_EVERY)
        fs_listen_ping(l);
}

/* One session: connect, listen until the connection is lost or the child
 * exits. The worker runs it again about a second after it returns. */
static void listen_session(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    static int down_reported;
    static unsigned long id, sessions;
    if (!id) {
        unsigned char rnd[3] = {0};
        apr_generate_random_bytes(rnd, sizeof(rnd));
        id = (unsigned long)getpid() * 100000000ul +
             (((unsigned long)rnd[0] << 16 | rnd[1] << 8 | rnd[2]) % 100000000ul);
    }
    const char *err;
    fs_listen *l =
        fs_listen_open(p, conninfo, id, apr_time_now() + apr_time_from_sec(5), stop_fn, w, &err);
    if (!l) {
        if (!down_reported && !formsvc_worker_stopping(w))
            FORMSVC_SLOG(s, APLOG_INFO, 0, 02172,
                         "cache: the invalidation listener cannot connect (%s); the caches are "
                         "off until it does",
                         err);
        down_reported = 1;
        return;
    }
    /* notifications may have been missed while there was no session */
    flush_child();
    formsvc_metric_inc(FORMSVC_M_CACHE_FLUSH_LISTENER);
    atomic_store(&heard, apr_time_now());
    atomic_store(&live, 1);
    if (sessions++ && down_reported)
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02173, "cache: invalidation listener connected; caches on");
    down_reported = 0;
    apr_time_t last_touch = apr_time_now();
    const char *why = NULL;
    apr_pool_t *it;
    apr_pool_create(&it, p);
    while (!formsvc_worker_stopping(w)) {
        int got = fs_listen_wait(l, wake[0], 100);
        if (got & FS_LISTEN_WAKE)
            drain_wake();
        fs_listen_event ev;
        while (fs_listen_next(l, it, &ev)) {
            atomic_store(&heard, apr_time_now());
            apply(it, &ev);
            if (ev.type == FS_LISTEN_EV_DONE && !ev.ok)
                FORMSVC_SLOG(s, APLOG_INFO, 0, 02174,
                             "cache: a statement of the listener failed: %s",
                             ev.error ? ev.error : "?");
        }
        if (got & FS_LISTEN_LOST) {
            why = "connection lost";
            break;
        }
        apr_time_t now = apr_time_now(), since;
        if (fs_listen_busy(l, &since) != FS_LISTEN_NONE && now - since > GIVE_UP_AFTER) {
            why = "no answer for 10 s";
            break;
        }
        send_due(l, it, now, &last_touch);
        apr_pool_clear(it);
    }
    atomic_store(&live, 0);
    flush_child();
    /* requests waiting on a barrier: their changes may not have arrived */
    apr_thread_mutex_lock(bmu);
    if (requested > done) {
        flush_machine();
        formsvc_metric_inc(FORMSVC_M_CACHE_FLUSH_BARRIER);
    }
    done = sent = requested;
    apr_thread_cond_broadcast(bcond);
    apr_thread_mutex_unlock(bmu);
    fs_listen_close(l);
    apr_pool_destroy(it);
    if (why) {
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02175,
                     "cache: invalidation listener %s; caches off until it reconnects", why);
        down_reported = 1;
    }
}

static const formsvc_task tasks[] = {{"cache invalidation listener", 0, 1, listen_session, NULL}};

/* ---- hooks ------------------------------------------------------------ */

int formsvc_cache_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp) {
    (void)pconf;
    (void)plog;
    (void)ptemp;
    conninfo = NULL;
    gens = NULL;
    shm = NULL;
    return OK;
}

int formsvc_cache_post_config(apr_pool_t *pconf, server_rec *s) {
    if (!cache_size(0) && !cache_size(1))
        return OK;
    /* one listener per child serves one database */
    const char *first = formsvc_schema_params(s);
    int differ = 0;
    for (server_rec *v = s->next; v; v = v->next) {
        const char *p = formsvc_schema_params(v);
        if (p != first && (!p || !first || strcmp(p, first)))
            differ = 1;
    }
    if (!first || differ) {
        FORMSVC_SLOG(s, APLOG_NOTICE, 0, 02176, "cache: %s; the form and credential caches are off",
                     differ ? "virtual hosts use different DBDParams"
                            : "no DBDParams to listen with");
        return OK;
    }
    apr_size_t bytes = (NSLOTS + 1) * sizeof(fs_gen);
    apr_status_t rv = apr_shm_create(&shm, bytes, NULL, pconf);
    if (rv != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_ERR, rv, 02177,
                     "cache: cannot create %" APR_SIZE_T_FMT " bytes of shared memory; the "
                     "caches are off",
                     bytes);
        return OK;
    }
    gens = apr_shm_baseaddr_get(shm);
    for (apr_size_t i = 0; i <= NSLOTS; i++)
        atomic_init(&gens[i], 0);
    /* named, so that operators see the listeners in pg_stat_activity */
    if (!strncmp(first, "postgresql://", 13) || !strncmp(first, "postgres://", 11))
        conninfo = apr_pstrcat(pconf, first, strchr(first, '?') ? "&" : "?",
                               "application_name=formsvc_cache_listener", NULL);
    else
        conninfo = apr_pstrcat(pconf, first, " application_name=formsvc_cache_listener", NULL);
    return OK;
}

static apr_status_t child_exit(void *data) {
    (void)data;
    /* runs after the listener thread was joined (a pre-cleanup) and after
     * every request thread ended */
    for (int i = 0; i < 2; i++) {
        fs_lru_destroy(lru[i]);
        lru[i] = NULL;
    }
    if (wake[0] >= 0) {
        close(wake[0]);
        close(wake[1]);
        wake[0] = wake[1] = -1;
    }
    return APR_SUCCESS;
}

void formsvc_cache_child_init(apr_pool_t *pchild, server_rec *s) {
    if (!enabled())
        return;
    if (pipe(wake) != 0 || fcntl(wake[0], F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(wake[1], F_SETFL, O_NONBLOCK) != 0 ||
        apr_thread_mutex_create(&bmu, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&bcond, pchild) != APR_SUCCESS ||
        apr_thread_mutex_create(&tmu, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_ERR, errno, 02178,
                     "cache: cannot set up the invalidation listener; caches off");
        conninfo = NULL;
        return;
    }
    for (int i = 0; i < 2; i++)
        lru[i] = cache_size(i) ? fs_lru_create(cache_size(i), 32) : NULL;
    apr_pool_cleanup_register(pchild, NULL, child_exit, apr_pool_cleanup_null);
    if (!FORMSVC_WORKER_START(pchild, s, "cache invalidation", tasks))
        conninfo = NULL;
}

void formsvc_cache_filters(void) {
    ap_register_output_filter("FORMSVC_CACHE_BARRIER", barrier_filter, NULL, AP_FTYPE_RESOURCE);
}
