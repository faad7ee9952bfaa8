/* ratelimit_local: the local store, a table of counters (fs_rl_slot) in
 * anonymous shared memory of this machine, updated with atomic
 * compare-and-swap only (fs_rl_table_hit): no lock on the request path,
 * and exact for every child and thread.
 *
 * The segment is allocated from the process pool and its handle kept in
 * httpd's retained data, so it outlives the configuration generation: a
 * graceful restart (every reload, the daily logrotate) hands the same
 * counters to the new children, and the old children that are still
 * finishing requests count in the same table. A full stop, or a
 * FormsvcRateLimitSlots of another size, starts from zero. */
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/ratelimit_store.h"

#include "fs_ratelimit.h"

#include <apr_shm.h>
#include <http_log.h>
#include <http_main.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

/* The segment: this header, then nslots fs_rl_slot. The magic changes
 * with the layout, so a module of another layout, loaded by a graceful
 * restart, starts a table of its own instead of reading this one. */
#define TABLE_MAGIC 0x666f726d726c0001ull /* "formrl", layout 1 */
typedef struct table_head {
    uint64_t magic;
    uint64_t nslots;
} table_head;
#define SLOTS_OFFSET APR_ALIGN(sizeof(table_head), 16)

/* What lives across generations (ap_retained_data, in the process pool). */
typedef struct retained {
    apr_shm_t *shm;
} retained;
#define RETAINED_KEY "formsvc-ratelimit-local"

static fs_rl_slot *slots; /* of this generation's table; NULL: none */
static uint32_t nslots;

static int table_fits(apr_shm_t *shm, uint32_t n) {
    const table_head *h = apr_shm_baseaddr_get(shm);
    return apr_shm_size_get(shm) == SLOTS_OFFSET + (apr_size_t)n * sizeof(fs_rl_slot) &&
           h->magic == TABLE_MAGIC && h->nslots == n;
}

static int local_post_config(apr_pool_t *pconf, server_rec *s) {
    (void)pconf;
    /* one table for every host that counts here: as large as the largest
     * FormsvcRateLimitSlots among them (a virtual host may set its own) */
    uint32_t want = 0;
    for (server_rec *sp = s; sp; sp = sp->next) {
        const formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->store == &formsvc_rl_store_local && (uint32_t)a->slots > want)
            want = (uint32_t)a->slots;
    }
    retained *kept = ap_retained_data_get(RETAINED_KEY);
    if (!kept)
        kept = ap_retained_data_create(RETAINED_KEY, sizeof(*kept));
    if (!kept->shm || !table_fits(kept->shm, want)) {
        /* another size: a fresh table, made before the old one goes (old
         * children keep their own mapping of the old one until they exit) */
        apr_size_t size = SLOTS_OFFSET + (apr_size_t)want * sizeof(fs_rl_slot);
        apr_shm_t *fresh = NULL;
        apr_status_t rv = apr_shm_create(&fresh, size, NULL, s->process->pool);
        if (rv != APR_SUCCESS) {
            /* Not a reason to stop the server (a graceful restart would):
             * go on counting in the table there is, when it is of this
             * layout; else without one (every hit allowed, FS00607). */
            const table_head *old = kept->shm ? apr_shm_baseaddr_get(kept->shm) : NULL;
            int keep = old && old->magic == TABLE_MAGIC &&
                       apr_shm_size_get(kept->shm) ==
                           SLOTS_OFFSET + (apr_size_t)old->nslots * sizeof(fs_rl_slot);
            FORMSVC_SLOG(s, APLOG_CRIT, rv, 00601,
                         "cannot create %" APR_SIZE_T_FMT " bytes of shared memory "
                         "for rate-limit counters (FormsvcRateLimitSlots %u); %s",
                         size, (unsigned)want,
                         keep ? "counting on in the table of the last generation"
                              : "rate limits of the local store are not enforced");
            slots = keep ? (fs_rl_slot *)((char *)apr_shm_baseaddr_get(kept->shm) + SLOTS_OFFSET)
                         : NULL;
            nslots = keep ? (uint32_t)old->nslots : 0;
            return OK;
        }
        if (kept->shm)
            apr_shm_destroy(kept->shm);
        kept->shm = fresh;
        table_head *h = apr_shm_baseaddr_get(kept->shm);
        memset(h, 0, size);
        h->magic = TABLE_MAGIC;
        h->nslots = want;
    }
    slots = (fs_rl_slot *)((char *)apr_shm_baseaddr_get(kept->shm) + SLOTS_OFFSET);
    nslots = want;
    return OK;
}

static int local_hit(request_rec *r, const char *arg, const formsvc_rl_hit *h, int64_t *count) {
    (void)arg;
    if (!slots)
        return -1;
    int evicted = 0;
    *count = fs_rl_table_hit(slots, nslots, fs_rl_hash(h->bucket), h->window,
                             h->window_start + h->window, h->now, &evicted);
    if (evicted)
        FORMSVC_LOG(r, APLOG_WARNING, 00605,
                    "rate-limit table full: a live counter was dropped; raise "
                    "FormsvcRateLimitSlots");
    return 0;
}

static const char *local_check(apr_pool_t *p, const char *arg) {
    (void)p;
    return arg ? "FormsvcRateLimitStore local takes no argument (its size: "
                 "FormsvcRateLimitSlots)"
               : NULL;
}

const formsvc_rl_store formsvc_rl_store_local = {
    "local", local_check, local_post_config, NULL, local_hit,
};
