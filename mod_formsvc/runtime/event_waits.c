/* event_waits: how many GET /v1/events?wait= requests may sleep at once in
 * this httpd child, in all and per account (FormsvcEventWaits). A sleeping
 * request holds a worker thread (never a database connection: see
 * handle_webhooks.c), so the per-process bound keeps most of ThreadsPerChild
 * for everything else, and the per-account bound keeps one account from
 * taking the whole allowance.
 *
 * Counters are process memory updated with apr_atomic_* only: no mutex on
 * the request path. Accounts are counted in a fixed table by the hash of
 * their id; two accounts that share a slot share a bound, which can only
 * refuse a wait (the answer then comes at once), never admit one too many. */
#include "fs_ratelimit.h"
#include "runtime/config.h"
#include "runtime/metrics.h"
#include "runtime/webhooks.h"

#include <ap_mpm.h>
#include <apr_atomic.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define ACCOUNT_SLOTS 1024
static apr_uint32_t waiting; /* in this process */
static apr_uint32_t waiting_by_account[ACCOUNT_SLOTS];

/* The per-process bound: as configured (FormsvcEventWaits), or a quarter
 * of ThreadsPerChild (0 for prefork and other MPMs of fewer than 4
 * threads: no waiting). */
static apr_uint32_t process_bound(void) {
    int max_process = formsvc_global_conf()->event_waits_process;
    if (max_process >= 0)
        return (apr_uint32_t)max_process;
    int threads = 1;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS || threads < 1)
        threads = 1;
    return (apr_uint32_t)(threads / 4);
}

struct formsvc_event_wait {
    apr_uint32_t *slot; /* NULL once given back */
};

static apr_status_t end_wait(void *data) {
    formsvc_event_wait *h = data;
    if (h->slot) {
        apr_atomic_dec32(h->slot);
        apr_atomic_dec32(&waiting);
        formsvc_gauge_add(FORMSVC_G_LONGPOLL_WAITERS, -1);
        h->slot = NULL;
    }
    return APR_SUCCESS;
}

formsvc_event_wait *formsvc_event_wait_begin(request_rec *r, const char *user_id) {
    /* raised first and lowered again on refusal: concurrent callers are
     * never admitted beyond a bound */
    if (apr_atomic_inc32(&waiting) >= process_bound()) {
        apr_atomic_dec32(&waiting);
        return NULL;
    }
    apr_uint32_t *slot = &waiting_by_account[fs_rl_hash(user_id) % ACCOUNT_SLOTS];
    if (apr_atomic_inc32(slot) >= (apr_uint32_t)formsvc_global_conf()->event_waits_account) {
        apr_atomic_dec32(slot);
        apr_atomic_dec32(&waiting);
        return NULL;
    }
    formsvc_event_wait *h = apr_palloc(r->pool, sizeof(*h));
    h->slot = slot;
    formsvc_gauge_add(FORMSVC_G_LONGPOLL_WAITERS, 1);
    apr_pool_cleanup_register(r->pool, h, end_wait, apr_pool_cleanup_null);
    return h;
}

void formsvc_event_wait_end(request_rec *r, formsvc_event_wait *w) {
    if (w)
        apr_pool_cleanup_run(r->pool, w, end_wait);
}

int formsvc_event_wait_stopping(void) {
    int state = AP_MPMQ_RUNNING;
    return ap_mpm_query(AP_MPMQ_MPM_STATE, &state) == APR_SUCCESS && state == AP_MPMQ_STOPPING;
}
