/* metrics: shared counters and their text for GET /metrics (see metrics.h;
 * the page is handlers/handle_metrics.c). */
#include "runtime/metrics.h"
#include "fs_store.h"
#include "fs_store_retention.h"
#include "fs_store_verify.h"
#include "fs_store_webhooks.h"
#include "runtime/log.h"
#include "runtime/version.h"

#include <apr_atomic.h>
#include <apr_hash.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <errno.h>
#include <http_core.h>
#include <http_request.h>
#include <mod_auth.h>
#include <signal.h>
#include <unistd.h>

APLOG_USE_MODULE(formsvc);

#define SEGMENT_KEY "formsvc-metrics"
#define MAGIC 0x666f726d4d657403ULL /* layout version 3: bump when the struct changes */
#define N_CHILD_SLOTS 256           /* children alive at once, old generations included */
#define N_SLOTS 160                 /* route slots; slot 0: our paths that match no route */
#define N_COUNTERS 48               /* room for formsvc_metric to grow */

/* Statuses counted one by one; any other is counted in its class (1xx..5xx). */
static const int statuses[] = {200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400,
                               401, 403, 404, 405, 406, 409, 410, 411, 412, 413, 414, 415,
                               416, 422, 428, 429, 431, 500, 501, 502, 503, 504};
#define N_EXACT (int)(sizeof(statuses) / sizeof(statuses[0]))
#define N_STATUS (N_EXACT + 5)

/* Latency buckets, seconds; the last (+Inf) is the count. */
static const double bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
static const char *const bound_text[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                                         "0.5",   "1",    "2.5",   "5",    "10"};
#define N_BUCKETS (int)(sizeof(bounds) / sizeof(bounds[0]))

typedef struct route_slot {
    char method[8];   /* "" for a free slot */
    char pattern[64]; /* relative to the base path */
    volatile apr_uint64_t requests[N_STATUS];
    volatile apr_uint64_t le[N_BUCKETS]; /* requests in (bounds[i-1], bounds[i]] */
    volatile apr_uint64_t sum_us, count;
} route_slot;

/* A live child's gauges; pid 0: free. A slot whose child died without
 * giving it back (killed) is taken again by the next child that finds it. */
typedef struct child_slot {
    volatile apr_uint32_t pid;
    volatile apr_uint32_t gauge[FORMSVC_G_N];
} child_slot;

typedef struct segment {
    apr_uint64_t magic;
    apr_uint64_t started; /* apr_time_t: when counting began */
    volatile apr_uint64_t counter[N_COUNTERS];
    route_slot slot[N_SLOTS];
    child_slot child[N_CHILD_SLOTS];
} segment;

_Static_assert(FORMSVC_M_N <= N_COUNTERS, "raise N_COUNTERS (and MAGIC)");
_Static_assert(FORMSVC_M_DB_STMT_UNAVAILABLE + FS_DB_COUNT_N - 1 == FORMSVC_M_DB_STMT_RENEWED,
               "the store's counters follow fs_store.h's order");

static segment *seg;        /* set in the parent, inherited by children */
static apr_hash_t *slot_of; /* key: a route's key (formsvc_metrics_name_route);
                              value: int slot; in pconf, read-only in children */

void formsvc_metric_inc(formsvc_metric m) {
    if (seg)
        apr_atomic_inc64(&seg->counter[m]);
}

void formsvc_metric_batch(int n) {
    if (!seg || n < 1)
        return;
    int b = FORMSVC_M_BATCH_SIZE_1;
    for (int le = 1; le < n && b < FORMSVC_M_BATCH_SIZE_64; le *= 2)
        b++;
    apr_atomic_inc64(&seg->counter[b]);
    apr_atomic_add64(&seg->counter[FORMSVC_M_BATCH_SIZE_SUM], (apr_uint64_t)n);
}

static child_slot *my_slot; /* this child's, or NULL */

static int alive(apr_uint32_t pid) {
    return pid && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static apr_status_t give_slot_back(void *data) {
    child_slot *c = data;
    my_slot = NULL;
    apr_atomic_set32(&c->pid, 0);
    return APR_SUCCESS;
}

void formsvc_metrics_child_init(apr_pool_t *pchild, server_rec *s) {
    (void)s;
    my_slot = NULL;
    if (!seg)
        return;
    apr_uint32_t me = (apr_uint32_t)getpid();
    for (int i = 0; i < N_CHILD_SLOTS && !my_slot; i++) {
        child_slot *c = &seg->child[i];
        apr_uint32_t was = apr_atomic_read32(&c->pid);
        if ((was && alive(was)) || apr_atomic_cas32(&c->pid, me, was) != was)
            continue;
        for (int g = 0; g < FORMSVC_G_N; g++)
            apr_atomic_set32(&c->gauge[g], 0);
        my_slot = c;
        apr_pool_cleanup_register(pchild, c, give_slot_back, apr_pool_cleanup_null);
    } /* no free slot: this child's gauges are not reported */
}

void formsvc_gauge_add(formsvc_gauge g, int delta) {
    child_slot *c = my_slot;
    if (c)
        apr_atomic_add32(&c->gauge[g], (apr_uint32_t)delta);
}

void formsvc_gauge_set(formsvc_gauge g, int v) {
    child_slot *c = my_slot;
    if (c)
        apr_atomic_set32(&c->gauge[g], (apr_uint32_t)v);
}

/* Method names from a fixed table: ap_method_name_of(M_GET) may say HEAD. */
static const char *method_name(int m) {
    switch (m) {
    case M_GET: return "GET";
    case M_POST: return "POST";
    case M_PUT: return "PUT";
    case M_DELETE: return "DELETE";
    case M_PATCH: return "PATCH";
    case M_OPTIONS: return "OPTIONS";
    default: return "OTHER";
    }
}

void formsvc_metrics_name_route(apr_pool_t *p, const void *key, int method, const char *pattern) {
    if (!seg || !slot_of)
        return;
    const char *m = method_name(method);
    int free_slot = -1, found = -1;
    for (int i = 1; i < N_SLOTS && found < 0; i++) {
        route_slot *sl = &seg->slot[i];
        if (!sl->method[0]) {
            if (free_slot < 0)
                free_slot = i;
        } else if (!strcmp(sl->method, m) &&
                   !strncmp(sl->pattern, pattern, sizeof(sl->pattern) - 1)) {
            found = i;
        }
    }
    if (found < 0 && free_slot > 0) { /* a route new since the last start */
        found = free_slot;
        apr_cpystrn(seg->slot[found].method, m, sizeof(seg->slot[found].method));
        apr_cpystrn(seg->slot[found].pattern, pattern, sizeof(seg->slot[found].pattern));
    }
    if (found > 0) {
        int *v = apr_palloc(p, sizeof(*v));
        *v = found;
        apr_hash_set(slot_of, apr_pmemdup(p, &key, sizeof(key)), sizeof(key), v);
    } /* else: no room; the route counts as unmatched */
}

int formsvc_metrics_post_config(apr_pool_t *pconf, server_rec *s) {
    /* The segment lives in the process pool: made at the first start, the
     * same one after every restart (children of old and new generations
     * add to the same counters). Anonymous: nothing on disk. */
    apr_pool_t *proc = s->process->pool;
    apr_shm_t *shm = NULL;
    apr_pool_userdata_get((void **)&shm, SEGMENT_KEY, proc);
    if (shm && (apr_shm_size_get(shm) != sizeof(segment) ||
                ((segment *)apr_shm_baseaddr_get(shm))->magic != MAGIC))
        shm = NULL; /* a module of another layout made it: start anew (the old
                       one goes with the process; old children may still use it) */
    if (!shm) {
        apr_status_t rv = apr_shm_create(&shm, sizeof(segment), NULL, proc);
        if (rv != APR_SUCCESS) {
            FORMSVC_SLOG(s, APLOG_ERR, rv, 00801,
                         "cannot create %" APR_SIZE_T_FMT " bytes of shared memory for "
                         "metrics; /metrics answers 503",
                         sizeof(segment));
            seg = NULL;
            return OK;
        }
        apr_pool_userdata_set(shm, SEGMENT_KEY, apr_pool_cleanup_null, proc);
        segment *fresh = apr_shm_baseaddr_get(shm);
        memset(fresh, 0, sizeof(*fresh));
        fresh->magic = MAGIC;
        fresh->started = (apr_uint64_t)apr_time_now();
    }
    seg = apr_shm_baseaddr_get(shm);
    slot_of = apr_hash_make(pconf);
    apr_cpystrn(seg->slot[0].method, "*", sizeof(seg->slot[0].method));
    apr_cpystrn(seg->slot[0].pattern, "(none)", sizeof(seg->slot[0].pattern));
    fs_store_set_counters(&seg->counter[FORMSVC_M_DB_STMT_UNAVAILABLE]);
    return OK;
}

static int status_index(int st) {
    for (int i = 0; i < N_EXACT; i++)
        if (statuses[i] == st)
            return i;
    int cls = st / 100;
    return N_EXACT + (cls >= 1 && cls <= 5 ? cls - 1 : 4);
}

static const char *status_label(apr_pool_t *p, int i) {
    return i < N_EXACT ? apr_itoa(p, statuses[i]) : apr_psprintf(p, "%dxx", i - N_EXACT + 1);
}

void formsvc_metrics_count(request_rec *r, const void *key) {
    if (!seg)
        return;
    const request_rec *last = r;
    while (last->next)
        last = last->next;
    int *v = key ? apr_hash_get(slot_of, &key, sizeof(key)) : NULL;
    route_slot *sl = &seg->slot[v ? *v : 0];
    apr_atomic_inc64(&sl->requests[status_index(last->status)]);
    apr_time_t took = apr_time_now() - r->request_time;
    if (took < 0)
        took = 0;
    double secs = (double)took / APR_USEC_PER_SEC;
    for (int i = 0; i < N_BUCKETS; i++)
        if (secs <= bounds[i]) {
            apr_atomic_inc64(&sl->le[i]);
            break;
        }
    apr_atomic_add64(&sl->sum_us, (apr_uint64_t)took);
    apr_atomic_inc64(&sl->count);
}

/* ---- exposition ---------------------------------------------------------- */

/* Label values: \, " and newline escaped. */
static const char *label(apr_pool_t *p, const char *v) {
    if (!strpbrk(v, "\\\"\n"))
        return v;
    char *out = apr_palloc(p, strlen(v) * 2 + 1), *o = out;
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            *o++ = '\\';
        if (*v == '\n') {
            *o++ = '\\';
            *o++ = 'n';
            continue;
        }
        *o++ = *v;
    }
    *o = '\0';
    return out;
}

static void head(apr_bucket_brigade *bb, const char *name, const char *type, const char *help) {
    apr_brigade_printf(bb, NULL, NULL, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counter(apr_bucket_brigade *bb, const char *name, const char *labels,
                    formsvc_metric m) {
    apr_brigade_printf(bb, NULL, NULL, "%s%s %" APR_UINT64_T_FMT "\n", name, labels,
                       apr_atomic_read64(&seg->counter[m]));
}

static void routes(apr_pool_t *p, apr_bucket_brigade *bb) {
    head(bb, "formsvc_http_requests_total", "counter",
         "Requests answered under the service's paths, by route (pattern relative to the "
         "base path; (none): no route matched), method and final status.");
    for (int i = 0; i < N_SLOTS; i++) {
        route_slot *sl = &seg->slot[i];
        if (!sl->method[0])
            continue;
        for (int k = 0; k < N_STATUS; k++) {
            apr_uint64_t n = apr_atomic_read64(&sl->requests[k]);
            if (n)
                apr_brigade_printf(bb, NULL, NULL,
                                   "formsvc_http_requests_total{route=\"%s\",method=\"%s\","
                                   "status=\"%s\"} %" APR_UINT64_T_FMT "\n",
                                   label(p, sl->pattern), sl->method, status_label(p, k), n);
        }
    }
    head(bb, "formsvc_http_request_duration_seconds", "histogram",
         "Time from reading the request line to the end of the answer, by route.");
    for (int i = 0; i < N_SLOTS; i++) {
        route_slot *sl = &seg->slot[i];
        apr_uint64_t count = sl->method[0] ? apr_atomic_read64(&sl->count) : 0;
        if (!count)
            continue;
        const char *lb =
            apr_psprintf(p, "route=\"%s\",method=\"%s\"", label(p, sl->pattern), sl->method);
        apr_uint64_t cum = 0;
        for (int b = 0; b < N_BUCKETS; b++) {
            cum += apr_atomic_read64(&sl->le[b]);
            apr_brigade_printf(bb, NULL, NULL,
                               "formsvc_http_request_duration_seconds_bucket{%s,le=\"%s\"} "
                               "%" APR_UINT64_T_FMT "\n",
                               lb, bound_text[b], cum);
        }
        /* count is read last: +Inf never falls below a bucket read before it */
        if (count < cum)
            count = cum;
        apr_brigade_printf(
            bb, NULL, NULL,
            "formsvc_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} "
            "%" APR_UINT64_T_FMT "\n"
            "formsvc_http_request_duration_seconds_sum{%s} %.6f\n"
            "formsvc_http_request_duration_seconds_count{%s} %" APR_UINT64_T_FMT "\n",
            lb, count, lb, (double)apr_atomic_read64(&sl->sum_us) / APR_USEC_PER_SEC, lb, count);
    }
}

static void events(apr_bucket_brigade *bb) {
    head(bb, "formsvc_submissions_stored_total", "counter", "Public form submissions stored.");
    counter(bb, "formsvc_submissions_stored_total", "", FORMSVC_M_SUBMISSIONS);
    head(bb, "formsvc_submission_batches_total", "counter",
         "Statements that stored public submissions together (each a batch of one or more; "
         "formsvc_submission_batch_size has their sizes).");
    counter(bb, "formsvc_submission_batches_total", "", FORMSVC_M_SUBMIT_BATCHES);
    head(bb, "formsvc_webhook_deliveries_total", "counter",
         "Webhook delivery attempts by result (failed: error, timeout or non-2xx answer).");
    counter(bb, "formsvc_webhook_deliveries_total", "{result=\"delivered\"}",
            FORMSVC_M_WEBHOOK_DELIVERED);
    counter(bb, "formsvc_webhook_deliveries_total", "{result=\"failed\"}",
            FORMSVC_M_WEBHOOK_FAILED);
    head(bb, "formsvc_mail_deliveries_total", "counter", "Outbox mail attempts by result.");
    counter(bb, "formsvc_mail_deliveries_total", "{result=\"sent\"}", FORMSVC_M_MAIL_SENT);
    counter(bb, "formsvc_mail_deliveries_total", "{result=\"failed\"}", FORMSVC_M_MAIL_FAILED);
    head(bb, "formsvc_cache_requests_total", "counter",
         "Lookups in the module's caches by result. form and credential: the in-memory caches "
         "of public forms and verified credentials (counted only while they are on); "
         "form_row: the form a submission is checked against (stale: it had changed, the "
         "submission was checked again against the stored form); "
         "public_form: the last-known copy of a public form, read only while the database is "
         "away; public_form_write: whether that copy had to be rewritten (miss) or was current "
         "(hit).");
    counter(bb, "formsvc_cache_requests_total", "{cache=\"public_form\",result=\"hit\"}",
            FORMSVC_M_FORM_CACHE_HIT);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"public_form\",result=\"miss\"}",
            FORMSVC_M_FORM_CACHE_MISS);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"public_form_write\",result=\"hit\"}",
            FORMSVC_M_FORM_COPY_FRESH);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"public_form_write\",result=\"miss\"}",
            FORMSVC_M_FORM_COPY_WRITTEN);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"form\",result=\"hit\"}",
            FORMSVC_M_MEM_FORM_HIT);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"form\",result=\"miss\"}",
            FORMSVC_M_MEM_FORM_MISS);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"form_row\",result=\"hit\"}",
            FORMSVC_M_MEM_ROW_HIT);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"form_row\",result=\"miss\"}",
            FORMSVC_M_MEM_ROW_MISS);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"form_row\",result=\"stale\"}",
            FORMSVC_M_MEM_ROW_STALE);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"credential\",result=\"hit\"}",
            FORMSVC_M_MEM_CRED_HIT);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"credential\",result=\"miss\"}",
            FORMSVC_M_MEM_CRED_MISS);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"owner_form\",result=\"hit\"}",
            FORMSVC_M_MEM_OWNER_HIT);
    counter(bb, "formsvc_cache_requests_total", "{cache=\"owner_form\",result=\"miss\"}",
            FORMSVC_M_MEM_OWNER_MISS);
    head(bb, "formsvc_cache_flushes_total", "counter",
         "Whole caches dropped: listener (a child's invalidation listener connected again and "
         "flushed that child's form and credential caches), barrier (a write could not confirm "
         "its changes had reached this machine within 1 s and flushed every child's).");
    counter(bb, "formsvc_cache_flushes_total", "{reason=\"listener\"}",
            FORMSVC_M_CACHE_FLUSH_LISTENER);
    counter(bb, "formsvc_cache_flushes_total", "{reason=\"barrier\"}",
            FORMSVC_M_CACHE_FLUSH_BARRIER);
    head(bb, "formsvc_db_pool_waits_total", "counter",
         "Requests that found every pooled connection of their child in use and waited.");
    counter(bb, "formsvc_db_pool_waits_total", "", FORMSVC_M_DB_WAITS);
    head(bb, "formsvc_db_pool_errors_total", "counter",
         "Pooled connections not had, by reason: timeout (none came free within "
         "FormsvcDBTimeout), down (answered 503 at once while the database is being probed), "
         "open (mod_dbd could not open one).");
    counter(bb, "formsvc_db_pool_errors_total", "{reason=\"timeout\"}", FORMSVC_M_DB_WAIT_TIMEOUTS);
    counter(bb, "formsvc_db_pool_errors_total", "{reason=\"down\"}", FORMSVC_M_DB_DOWN_FAST);
    counter(bb, "formsvc_db_pool_errors_total", "{reason=\"open\"}", FORMSVC_M_DB_OPEN_FAILED);
    head(bb, "formsvc_db_statement_errors_total", "counter",
         "Failed statements by kind: unavailable (unreachable or silent: 503), busy "
         "(cancelled by statement_timeout or lock_timeout: 503), error (500).");
    counter(bb, "formsvc_db_statement_errors_total", "{kind=\"unavailable\"}",
            FORMSVC_M_DB_STMT_UNAVAILABLE);
    counter(bb, "formsvc_db_statement_errors_total", "{kind=\"busy\"}", FORMSVC_M_DB_STMT_BUSY);
    counter(bb, "formsvc_db_statement_errors_total", "{kind=\"error\"}", FORMSVC_M_DB_STMT_ERROR);
    head(bb, "formsvc_db_sessions_renewed_total", "counter",
         "Database sessions renewed (and their statements prepared again) after PostgreSQL "
         "ended them.");
    counter(bb, "formsvc_db_sessions_renewed_total", "", FORMSVC_M_DB_STMT_RENEWED);
    head(bb, "formsvc_requests_limited_total", "counter",
         "Requests refused with 429, by kind: rate (a client address's rate limit, or a brake "
         "on repeated attempts), quota (an account's requests a minute, or a form owner's "
         "monthly submissions).");
    counter(bb, "formsvc_requests_limited_total", "{kind=\"rate\"}", FORMSVC_M_LIMITED_RATE);
    counter(bb, "formsvc_requests_limited_total", "{kind=\"quota\"}", FORMSVC_M_LIMITED_QUOTA);
    head(bb, "formsvc_log_lines_suppressed_total", "counter",
         "Error-log lines held back as repeats (FormsvcLogRepeatInterval).");
    counter(bb, "formsvc_log_lines_suppressed_total", "", FORMSVC_M_LOG_SUPPRESSED);
}

/* The histogram of batch sizes, cumulative as Prometheus wants it. */
static void batches(apr_bucket_brigade *bb) {
    static const char *const le[] = {"1", "2", "4", "8", "16", "32", "64"};
    head(bb, "formsvc_submission_batch_size", "histogram",
         "Public submissions stored together in one statement, per statement (submissions "
         "stored alone, such as those of forms with maxSubmissions, are not in it).");
    apr_uint64_t total = 0;
    for (int i = 0; i < 7; i++) {
        total += apr_atomic_read64(&seg->counter[FORMSVC_M_BATCH_SIZE_1 + i]);
        apr_brigade_printf(bb, NULL, NULL,
                           "formsvc_submission_batch_size_bucket{le=\"%s\"} %" APR_UINT64_T_FMT
                           "\n",
                           le[i], total);
    }
    apr_brigade_printf(bb, NULL, NULL,
                       "formsvc_submission_batch_size_bucket{le=\"+Inf\"} %" APR_UINT64_T_FMT "\n"
                       "formsvc_submission_batch_size_sum %" APR_UINT64_T_FMT "\n"
                       "formsvc_submission_batch_size_count %" APR_UINT64_T_FMT "\n",
                       total, apr_atomic_read64(&seg->counter[FORMSVC_M_BATCH_SIZE_SUM]), total);
}

/* Each live child's gauges, with its pid. */
static void children(apr_bucket_brigade *bb) {
    head(bb, "formsvc_db_pool_connections", "gauge",
         "Connections of a child's mod_dbd pool: in_use (held by a request or a worker), idle "
         "(open, in the pool).");
    apr_bucket_brigade *max = apr_brigade_create(bb->p, bb->bucket_alloc);
    head(max, "formsvc_db_pool_max", "gauge", "The most connections a child opens (DBDMax).");
    apr_uint64_t waiters = 0, streams = 0;
    for (int i = 0; i < N_CHILD_SLOTS; i++) {
        child_slot *c = &seg->child[i];
        apr_uint32_t pid = apr_atomic_read32(&c->pid);
        if (!alive(pid))
            continue;
        int held = (int)apr_atomic_read32(&c->gauge[FORMSVC_G_DB_HELD]);
        int open = (int)apr_atomic_read32(&c->gauge[FORMSVC_G_DB_OPEN]);
        int w = (int)apr_atomic_read32(&c->gauge[FORMSVC_G_LONGPOLL_WAITERS]);
        held = held < 0 ? 0 : held;
        int idle = open > held ? open - held : 0;
        waiters += w > 0 ? (apr_uint64_t)w : 0;
        int ms = (int)apr_atomic_read32(&c->gauge[FORMSVC_G_MCP_STREAMS]);
        streams += ms > 0 ? (apr_uint64_t)ms : 0;
        apr_brigade_printf(bb, NULL, NULL,
                           "formsvc_db_pool_connections{pid=\"%u\",state=\"in_use\"} %d\n"
                           "formsvc_db_pool_connections{pid=\"%u\",state=\"idle\"} %d\n",
                           (unsigned)pid, held, (unsigned)pid, idle);
        apr_brigade_printf(max, NULL, NULL, "formsvc_db_pool_max{pid=\"%u\"} %d\n", (unsigned)pid,
                           (int)apr_atomic_read32(&c->gauge[FORMSVC_G_DB_MAX]));
    }
    APR_BRIGADE_CONCAT(bb, max);
    head(bb, "formsvc_events_longpoll_waiters", "gauge",
         "Requests waiting in a long poll of GET /v1/events, summed over the children.");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_events_longpoll_waiters %" APR_UINT64_T_FMT "\n",
                       waiters);
    head(bb, "formsvc_mcp_streams", "gauge",
         "MCP streams open (GET /mcp), summed over the children.");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_mcp_streams %" APR_UINT64_T_FMT "\n", streams);
}

/* The webhook deliveries waiting, from the database now (with the outbox). */
static void webhooks_backlog(fs_store *st, apr_bucket_brigade *bb) {
    long long pending, oldest;
    if (fs_store_webhook_backlog(st, &pending, &oldest))
        return;
    head(bb, "formsvc_webhook_backlog", "gauge",
         "Webhook deliveries waiting to be delivered (due or retrying).");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_webhook_backlog %" APR_INT64_T_FMT "\n",
                       (apr_int64_t)pending);
    head(bb, "formsvc_webhook_backlog_oldest_seconds", "gauge",
         "Age of the oldest webhook delivery waiting (0: none).");
    apr_brigade_printf(bb, NULL, NULL,
                       "formsvc_webhook_backlog_oldest_seconds %" APR_INT64_T_FMT "\n",
                       (apr_int64_t)oldest);
}

/* Whether the background jobs keep up, from the database now
 * (docs/operations.md, "Are the background jobs healthy?"). */
static void jobs(fs_store *st, apr_bucket_brigade *bb) {
    fs_jobs_status j;
    if (fs_store_jobs_status(st, &j))
        return;
    static const struct {
        const char *name, *help;
    } m[] = {
        {"formsvc_erasures_pending",
         "Accounts erased (DELETE /v1/me) whose rows the background erasure has not removed yet."},
        {"formsvc_erasures_oldest_seconds",
         "Age of the oldest account erasure not finished (0: none)."},
        {"formsvc_purges_pending",
         "Bulk deletes of submissions (202) the retention task has not finished yet."},
        {"formsvc_purges_oldest_seconds", "Age of the oldest bulk delete not finished (0: none)."},
        {"formsvc_partitions_ahead_seconds",
         "Seconds until the end of the last partition of submissions; a submission made after "
         "it is refused. About three months while the partitions task runs."},
    };
    long long v[] = {j.erasures, j.erasure_oldest_seconds, j.purges, j.purge_oldest_seconds,
                     j.partitions_ahead_seconds};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        head(bb, m[i].name, "gauge", m[i].help);
        apr_brigade_printf(bb, NULL, NULL, "%s %" APR_INT64_T_FMT "\n", m[i].name,
                           (apr_int64_t)v[i]);
    }
}

/* The outbox figures, from the database now; 0 when it does not answer. */
static int outbox(fs_store *st, apr_bucket_brigade *bb) {
    fs_outbox_status ob;
    int up = !fs_store_outbox_status(st, &ob);
    if (up) {
        head(bb, "formsvc_mail_outbox_depth", "gauge", "Mail waiting in the outbox to be sent.");
        apr_brigade_printf(bb, NULL, NULL, "formsvc_mail_outbox_depth %" APR_INT64_T_FMT "\n",
                           ob.pending);
        head(bb, "formsvc_mail_outbox_oldest_seconds", "gauge",
             "Age of the oldest mail waiting in the outbox (0: none).");
        apr_brigade_printf(bb, NULL, NULL,
                           "formsvc_mail_outbox_oldest_seconds %" APR_INT64_T_FMT "\n",
                           ob.oldest_seconds);
        head(bb, "formsvc_mail_failed_last_day", "gauge",
             "Mail given up on (after every attempt) in the last 24 hours.");
        apr_brigade_printf(bb, NULL, NULL, "formsvc_mail_failed_last_day %" APR_INT64_T_FMT "\n",
                           ob.failed_day);
    }
    return up;
}

/* Headers in which proxies name the client they forward for. One that
 * mod_remoteip was told to trust is consumed (removed) by it, the address
 * in r->useragent_ip; one still here comes from a proxy nobody
 * configured, or from the client itself. */
static const char *const client_headers[] = {
    "Forwarded",           "X-Forwarded-For",  "X-Real-IP",
    "X-Client-IP",         "True-Client-IP",   "CF-Connecting-IP",
    "X-Cluster-Client-IP", "Fastly-Client-IP", "X-Original-Forwarded-For"};

int formsvc_metrics_allowed(request_rec *r) {
    if (ap_some_auth_required(r))
        return 1; /* the Require that applies has granted it already */
    for (size_t i = 0; i < sizeof(client_headers) / sizeof(client_headers[0]); i++)
        if (apr_table_get(r->headers_in, client_headers[i]))
            return 0;
    const char *ip = r->useragent_ip ? r->useragent_ip : "";
    if (!strncmp(ip, "::ffff:", 7))
        ip += 7;
    return !strncmp(ip, "127.", 4) || !strcmp(ip, "::1");
}

const char *formsvc_metrics_text(apr_pool_t *p, apr_bucket_alloc_t *ba, fs_store *st,
                                 apr_size_t *len) {
    if (!seg)
        return NULL;
    apr_bucket_brigade *bb = apr_brigade_create(p, ba);
    head(bb, "formsvc_build_info", "gauge", "The module's version and the schema it needs.");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_build_info{version=\"%s\",schema=\"%d\"} 1\n",
                       FS_MODULE_VERSION, FS_SCHEMA_VERSION);
    head(bb, "formsvc_metrics_start_time_seconds", "gauge",
         "When these counters started (the first start of this httpd; restarts keep them).");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_metrics_start_time_seconds %" APR_UINT64_T_FMT "\n",
                       (apr_uint64_t)apr_time_sec((apr_time_t)seg->started));
    routes(p, bb);
    events(bb);
    batches(bb);
    children(bb);
    int up = outbox(st, bb);
    if (up) {
        webhooks_backlog(st, bb);
        jobs(st, bb);
    }
    head(bb, "formsvc_database_up", "gauge",
         "1 when the database answered this scrape's outbox query.");
    apr_brigade_printf(bb, NULL, NULL, "formsvc_database_up %d\n", up);
    apr_off_t n = 0;
    apr_brigade_length(bb, 1, &n);
    char *text = apr_palloc(p, (apr_size_t)n + 1);
    apr_size_t got = (apr_size_t)n;
    apr_brigade_flatten(bb, text, &got);
    text[got] = '\0';
    apr_brigade_destroy(bb);
    *len = got;
    return text;
}
