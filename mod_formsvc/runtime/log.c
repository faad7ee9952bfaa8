/* log: per-child throttling of repeated log lines (see log.h). */
#include "runtime/log.h"
#include "runtime/config.h"
#include "runtime/metrics.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <http_core.h>

APLOG_USE_MODULE(formsvc);

#define SLOTS                                                                                      \
    4096 /* one per message number below 4096 (FS00000-FS02999 today); beyond,                     \
            numbers share slots modulo SLOTS, which only throttles more */

typedef struct slot {
    volatile apr_uint32_t until;      /* second before which the number is not written again */
    volatile apr_uint32_t suppressed; /* repeats not written since the last one */
    volatile apr_uint32_t level;      /* level of the last repeat, for the pending count */
    volatile apr_uint32_t number;     /* its message number, for the count line */
} slot;

/* Static, so per process: each child has its own table after fork. */
static slot slots[SLOTS];
static int in_child; /* the throttle works only in children */
static server_rec *main_server;

/* FormsvcLogRepeatInterval (config_global.h) */
static int interval(void) {
    return formsvc_global_conf()->log_interval;
}

static unsigned number_of(const char *no) {
    unsigned n = 0;
    for (; *no >= '0' && *no <= '9'; no++)
        n = n * 10 + (unsigned)(*no - '0');
    return n;
}

static void write_count(const server_rec *s, int level, unsigned number, apr_uint32_t count) {
    ap_log_error(APLOG_MARK, level, 0, s,
                 FS_LOGNO(00001) "FS%05u repeated %u more times in this process "
                                 "(FormsvcLogRepeatInterval %d s)",
                 number, (unsigned)count, interval());
}

int formsvc_log_pass(const server_rec *s, int level, const char *no) {
    int every = in_child ? interval() : 0;
    if (every <= 0)
        return 1;
    unsigned number = number_of(no);
    slot *sl = &slots[number % SLOTS];
    apr_uint32_t now = (apr_uint32_t)apr_time_sec(apr_time_now());
    apr_uint32_t until = apr_atomic_read32(&sl->until);
    if (now < until || apr_atomic_cas32(&sl->until, now + (apr_uint32_t)every, until) != until) {
        /* written less than the interval ago, or another thread is
         * writing it right now */
        apr_atomic_set32(&sl->level, (apr_uint32_t)level);
        apr_atomic_set32(&sl->number, number);
        apr_atomic_inc32(&sl->suppressed);
        formsvc_metric_inc(FORMSVC_M_LOG_SUPPRESSED);
        return 0;
    }
    apr_uint32_t count = apr_atomic_xchg32(&sl->suppressed, 0);
    if (count)
        write_count(s, level, number, count);
    return 1;
}

void formsvc_log_store_line(server_rec *s, int level, const char *line) {
    /* "FS00311: ..." */
    const char *no = strncmp(line, "FS", 2) ? "0" : line + 2;
    if (APLOG_IS_LEVEL(s, level) && formsvc_log_pass(s, level, no))
        ap_log_error(APLOG_MARK, level, 0, s, "%s", line);
}

/* The counts no later line will carry: written as the child goes. */
static apr_status_t flush_counts(void *data) {
    (void)data;
    for (unsigned n = 0; n < SLOTS; n++) {
        apr_uint32_t count = apr_atomic_xchg32(&slots[n].suppressed, 0);
        if (count && main_server)
            write_count(main_server, (int)apr_atomic_read32(&slots[n].level),
                        apr_atomic_read32(&slots[n].number), count);
    }
    return APR_SUCCESS;
}

void formsvc_log_child_init(apr_pool_t *pchild, server_rec *s) {
    main_server = s;
    in_child = 1;
    apr_pool_cleanup_register(pchild, NULL, flush_counts, apr_pool_cleanup_null);
}
