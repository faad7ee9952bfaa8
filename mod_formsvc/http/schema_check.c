/* schema_check: a database that is reached but behind, told apart from one
 * that cannot be reached (see schema_check.h). */
#include "schema_check.h"
#include "fs_migrations.h"
#include "log.h"
#include "version.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <http_config.h>
#include <http_log.h>

APLOG_USE_MODULE(formsvc);

#define KEEP_ANSWER apr_time_from_sec(2)

typedef struct server_params {
    server_rec *s;
    const char *params; /* DBDParams as mod_dbd got it (one word, unquoted) */
} server_params;

static apr_array_header_t *by_server; /* server_params, in pconf */
static const char *main_params;       /* the main server's, default of every vhost */

/* per child: the last answer, under lock */
static apr_thread_mutex_t *lock;
static apr_time_t answered;
static const char *answered_for; /* the params the answer is about */
static int last_state = -1;
static int last_version;
static char last_reason[512];

/* The last DBDParams of a list of directives, looking into <IfModule>,
 * <IfDefine> and the like but not into <VirtualHost>; v when none. */
static const char *last_params(apr_pool_t *p, ap_directive_t *d, const char *v) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, "DBDParams")) {
            const char *a = d->args;
            v = ap_getword_conf(p, &a);
        } else if (d->first_child && strcasecmp(d->directive, "<VirtualHost")) {
            v = last_params(p, d->first_child, v);
        }
    }
    return v;
}

/* Each <VirtualHost> with DBDParams of its own, matched to its server_rec
 * by the file and line it was defined at. */
static void vhost_params(apr_pool_t *p, ap_directive_t *d, server_rec *s) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, "<VirtualHost")) {
            const char *v = last_params(p, d->first_child, NULL);
            for (server_rec *sp = s->next; v && sp; sp = sp->next)
                if ((int)sp->defn_line_number == d->line_num && sp->defn_name && d->filename &&
                    !strcmp(sp->defn_name, d->filename)) {
                    server_params *e = apr_array_push(by_server);
                    e->s = sp;
                    e->params = v;
                }
        } else if (d->first_child) {
            vhost_params(p, d->first_child, s);
        }
    }
}

void formsvc_schema_post_config(apr_pool_t *pconf, server_rec *s) {
    by_server = apr_array_make(pconf, 4, sizeof(server_params));
    main_params = last_params(pconf, ap_conftree, NULL);
    vhost_params(pconf, ap_conftree, s);
}

void formsvc_schema_child_init(apr_pool_t *pchild, server_rec *s) {
    (void)s;
    answered = 0;
    answered_for = NULL;
    last_state = -1;
    if (apr_thread_mutex_create(&lock, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS)
        lock = NULL; /* then every caller probes on its own */
}

const char *formsvc_schema_params(server_rec *s) {
    for (int i = 0; by_server && i < by_server->nelts; i++)
        if (APR_ARRAY_IDX(by_server, i, server_params).s == s)
            return APR_ARRAY_IDX(by_server, i, server_params).params;
    return main_params;
}

int formsvc_schema_diagnose(apr_pool_t *p, server_rec *s, const char **msg) {
    const char *params = formsvc_schema_params(s);
    *msg = NULL;
    if (!params) {
        *msg = "no DBDParams";
        return FORMSVC_SCHEMA_UNREACHABLE;
    }
    if (lock)
        apr_thread_mutex_lock(lock);
    /* one answer per two seconds and child (per database, when vhosts
     * have databases of their own) */
    if (last_state < 0 || params != answered_for || apr_time_now() - answered > KEEP_ANSWER) {
        int version;
        const char *err;
        int was = last_state;
        if (!fs_schema_probe(p, params, &version, &err)) {
            last_state = FORMSVC_SCHEMA_UNREACHABLE;
            apr_cpystrn(last_reason, err, sizeof(last_reason));
        } else {
            last_state =
                version < FS_SCHEMA_VERSION ? FORMSVC_SCHEMA_BEHIND : FORMSVC_SCHEMA_CURRENT;
            last_version = version;
            last_reason[0] = '\0';
        }
        answered = apr_time_now();
        answered_for = params;
        /* the start of a child says it too (mod_formsvc.c); later, only a change */
        if (last_state == FORMSVC_SCHEMA_BEHIND && was >= 0 && was != FORMSVC_SCHEMA_BEHIND)
            FORMSVC_SLOG(s, APLOG_ERR, 0, 00325, "database %s",
                         fs_schema_behind_message(p, last_version, FS_SCHEMA_VERSION));
    }
    int state = last_state;
    if (state == FORMSVC_SCHEMA_BEHIND)
        *msg = fs_schema_behind_message(p, last_version, FS_SCHEMA_VERSION);
    else if (state == FORMSVC_SCHEMA_UNREACHABLE)
        *msg = apr_pstrdup(p, last_reason);
    if (lock)
        apr_thread_mutex_unlock(lock);
    return state;
}
