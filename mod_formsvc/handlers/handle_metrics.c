/* handle_metrics: GET {base}/metrics, the counters of runtime/metrics.c as
 * Prometheus text (docs/operations.md), for the local machine or whoever a
 * Require lets through. */
#include "http/response.h"
#include "http/router.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"

static int formsvc_h_metrics(request_rec *r, const char *const *caps) {
    (void)caps;
    if (!formsvc_metrics_allowed(r))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "forbidden",
                             "/metrics answers the local machine only; a Require in a "
                             "<Location> for it opens it to others."));
    apr_size_t len;
    const char *text =
        formsvc_metrics_text(r->pool, r->connection->bucket_alloc, formsvc_store(r), &len);
    if (!text)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "service-unavailable", "Metrics are not available."));
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    return formsvc_send_body(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len);
}

const formsvc_route formsvc_routes_metrics[] = {{M_GET, "/metrics", formsvc_h_metrics, 0, 0},
                                                {0, NULL, NULL, 0, 0}};
