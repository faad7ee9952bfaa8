/* mcp_streams: the child's bound of open MCP streams (mcp_streams.h).
 * Process memory updated with apr_atomic_* only, as event_waits.c does for
 * long polls: raised first and lowered again on refusal, so concurrent
 * callers are never admitted beyond the bound. */
#include "runtime/mcp_streams.h"
#include "runtime/config_global.h"
#include "runtime/metrics.h"

#include <ap_mpm.h>
#include <apr_atomic.h>

static apr_uint32_t open_streams; /* in this process */

/* As configured, or a quarter of ThreadsPerChild (0 under prefork and
 * other MPMs of fewer than 4 threads: no streams). */
static apr_uint32_t process_bound(void) {
    int max = formsvc_global_conf()->mcp_streams_process;
    if (max >= 0)
        return (apr_uint32_t)max;
    int threads = 1;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS || threads < 1)
        threads = 1;
    return (apr_uint32_t)(threads / 4);
}

struct formsvc_mcp_place {
    int held; /* 0 once given back */
};

static apr_status_t end_place(void *data) {
    formsvc_mcp_place *p = data;
    if (p->held) {
        apr_atomic_dec32(&open_streams);
        formsvc_gauge_add(FORMSVC_G_MCP_STREAMS, -1);
        p->held = 0;
    }
    return APR_SUCCESS;
}

formsvc_mcp_place *formsvc_mcp_place_begin(request_rec *r) {
    if (apr_atomic_inc32(&open_streams) >= process_bound()) {
        apr_atomic_dec32(&open_streams);
        return NULL;
    }
    formsvc_mcp_place *p = apr_palloc(r->pool, sizeof(*p));
    p->held = 1;
    formsvc_gauge_add(FORMSVC_G_MCP_STREAMS, 1);
    apr_pool_cleanup_register(r->pool, p, end_place, apr_pool_cleanup_null);
    return p;
}

void formsvc_mcp_place_end(request_rec *r, formsvc_mcp_place *p) {
    if (p)
        apr_pool_cleanup_run(r->pool, p, end_place);
}
