/* dbd_check: DBDMin <= DBDKeep <= DBDMax, or no pool (dbd_check.h). */
#include "runtime/dbd_check.h"
#include "runtime/log.h"

#include <apr_strings.h>
#include <http_config.h>
#include <http_log.h>

APLOG_USE_MODULE(formsvc);

/* mod_dbd's defaults under a threaded MPM (modules/database/mod_dbd.c) */
#define DBD_MIN 1
#define DBD_KEEP 2
#define DBD_MAX 10

typedef struct pool_args {
    const char *min, *keep, *max, *persist;
} pool_args;

/* the last of each directive in the list d (and in <IfModule>, <IfDefine>
 * and the like), not looking into <VirtualHost> */
static void collect(const ap_directive_t *d, pool_args *a) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, "DBDMin"))
            a->min = d->args;
        else if (!strcasecmp(d->directive, "DBDKeep"))
            a->keep = d->args;
        else if (!strcasecmp(d->directive, "DBDMax"))
            a->max = d->args;
        else if (!strcasecmp(d->directive, "DBDPersist"))
            a->persist = d->args;
        else if (d->first_child && strcasecmp(d->directive, "<VirtualHost"))
            collect(d->first_child, a);
    }
}

static int value(const char *arg, int dflt) {
    return arg ? atoi(arg) : dflt; /* mod_dbd takes digits only (ISINT) */
}

/* OK or, after FS00342, HTTP_INTERNAL_SERVER_ERROR */
static int check(server_rec *s, const char *where, const pool_args *a) {
    if (a->persist && (!strcasecmp(a->persist, "off") || !strcmp(a->persist, "0")))
        return OK; /* no pool: a connection per request */
    int min = value(a->min, DBD_MIN), keep = value(a->keep, DBD_KEEP), max = value(a->max, DBD_MAX);
    if (min <= keep && keep <= max && max >= 1)
        return OK;
    FORMSVC_SLOG(s, APLOG_CRIT, 0, 00342,
                 "%s: DBDMin %d, DBDKeep %d, DBDMax %d: mod_dbd makes no connection pool unless "
                 "DBDMin <= DBDKeep <= DBDMax (and DBDMax is at least 1), and every request "
                 "needing the database would be answered 503; set DBDKeep between DBDMin and "
                 "DBDMax (mod_dbd's defaults: 1, 2, 10)",
                 where, min, keep, max);
    return HTTP_INTERNAL_SERVER_ERROR;
}

/* every <VirtualHost> below d, each with the main server's values and its own */
static int check_vhosts(apr_pool_t *p, server_rec *s, const ap_directive_t *d,
                        const pool_args *main) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, "<VirtualHost")) {
            pool_args a = *main;
            collect(d->first_child, &a);
            if (check(s,
                      apr_psprintf(p, "<VirtualHost %s (%s:%d)", d->args, d->filename, d->line_num),
                      &a) != OK)
                return HTTP_INTERNAL_SERVER_ERROR;
        } else if (d->first_child && check_vhosts(p, s, d->first_child, main) != OK)
            return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

int formsvc_dbd_check(apr_pool_t *ptemp, server_rec *s) {
    pool_args main = {NULL, NULL, NULL, NULL};
    collect(ap_conftree, &main);
    if (check(s, "the main server", &main) != OK)
        return HTTP_INTERNAL_SERVER_ERROR;
    return check_vhosts(ptemp, s, ap_conftree, &main);
}
