/* schema_check: a database that is reached but behind, told apart from one
 * that cannot be reached (see schema_check.h). */
#include "runtime/schema_check.h"
#include "fs_error.h"
#include "fs_migrations.h"
#include "fs_secret.h"
#include "fs_store_ops.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/version.h"

#include <apr_atomic.h>
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
static const char *answered_for;             /* the params the answer is about */
static const unsigned char *answered_pepper; /* and the pepper */
static int last_state = -1;
static int last_version;
static char last_reason[512];

/* per child: the (DBDParams, pepper) pairs found CURRENT or AHEAD, which
 * formsvc_gate lets through from then on without asking again */
#define PASSED_MAX 8
typedef struct passed_pair {
    const char *params;
    const unsigned char *pepper;
} passed_pair;
static passed_pair passed[PASSED_MAX];
static volatile apr_uint32_t npassed;

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
    answered_pepper = NULL;
    last_state = -1;
    apr_atomic_set32(&npassed, 0);
    if (apr_thread_mutex_create(&lock, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS)
        lock = NULL; /* then every caller probes on its own */
}

const char *formsvc_schema_params(server_rec *s) {
    for (int i = 0; by_server && i < by_server->nelts; i++)
        if (APR_ARRAY_IDX(by_server, i, server_params).s == s)
            return APR_ARRAY_IDX(by_server, i, server_params).params;
    return main_params;
}

/* Why the pepper does not fit, for the log, /readyz and the 503s. */
static const char *pepper_message(apr_pool_t *p, server_rec *s, const char *recorded,
                                  const char *mine) {
    const char *file = formsvc_conf(s)->pepper_file;
    return apr_psprintf(
        p,
        "the database's secrets were hashed with the pepper of fingerprint %s, but %s has "
        "fingerprint %s: put back the pepper file the data was made with (formsvc-admin check "
        "prints a file's fingerprint), or accept that every key and link dies with "
        "formsvc-admin setup-db --new-pepper",
        recorded, file ? apr_psprintf(p, "FormsvcSecretPepperFile %s", file) : "no pepper", mine);
}

/* formsvc_schema_diagnose with the lock held (or without one). */
static int diagnose_locked(apr_pool_t *p, server_rec *s, const char **msg) {
    const char *params = formsvc_schema_params(s);
    formsvc_srv *c = formsvc_conf(s);
    *msg = NULL;
    if (!params) {
        *msg = "no DBDParams";
        return FORMSVC_SCHEMA_UNREACHABLE;
    }
    /* one answer per two seconds and child (per database and pepper, when
     * vhosts have their own) */
    if (last_state < 0 || params != answered_for || c->pepper != answered_pepper ||
        apr_time_now() - answered > KEEP_ANSWER) {
        int version;
        const char *err, *recorded;
        const char *mine = fs_pepper_fingerprint(p, c->pepper, c->pepper ? c->pepper_len : 0);
        int was = last_state;
        if (!mine || !fs_install_probe(p, params, mine, &version, &recorded, &err)) {
            last_state = FORMSVC_SCHEMA_UNREACHABLE;
            apr_cpystrn(last_reason, mine ? err : "the pepper cannot be hashed",
                        sizeof(last_reason));
        } else if (version < FS_SCHEMA_VERSION) {
            last_state = FORMSVC_SCHEMA_BEHIND;
            last_reason[0] = '\0';
        } else if (recorded && strcmp(recorded, mine)) {
            last_state = FORMSVC_SCHEMA_PEPPER;
            apr_cpystrn(last_reason, pepper_message(p, s, recorded, mine), sizeof(last_reason));
        } else if (version > FS_SCHEMA_VERSION) {
            last_state = FORMSVC_SCHEMA_AHEAD;
            last_reason[0] = '\0';
        } else {
            last_state = FORMSVC_SCHEMA_CURRENT;
            last_reason[0] = '\0';
        }
        last_version = version;
        answered = apr_time_now();
        answered_for = params;
        answered_pepper = c->pepper;
        /* the start of a child says "behind" too (mod_formsvc.c); later,
         * only a change; the other two from the start */
        if (last_state == FORMSVC_SCHEMA_BEHIND && was >= 0 && was != FORMSVC_SCHEMA_BEHIND)
            FORMSVC_SLOG(s, APLOG_ERR, 0, 00325, "database %s",
                         fs_schema_behind_message(p, last_version, FS_SCHEMA_VERSION));
        if (last_state == FORMSVC_SCHEMA_PEPPER && was != FORMSVC_SCHEMA_PEPPER)
            FORMSVC_SLOG(s, APLOG_CRIT, 0, 00391, "refusing to serve: %s", last_reason);
        if (last_state == FORMSVC_SCHEMA_AHEAD && was != FORMSVC_SCHEMA_AHEAD)
            FORMSVC_SLOG(s, APLOG_WARNING, 0, 00392,
                         "database schema %d is newer than this module's %d (an older module, "
                         "or a downgrade): serving, but install the module that matches the "
                         "database",
                         last_version, FS_SCHEMA_VERSION);
    }
    int state = last_state;
    if (state == FORMSVC_SCHEMA_BEHIND)
        *msg = fs_schema_behind_message(p, last_version, FS_SCHEMA_VERSION);
    else if (state == FORMSVC_SCHEMA_AHEAD)
        *msg = apr_psprintf(p, "schema %d is newer than this module's %d", last_version,
                            FS_SCHEMA_VERSION);
    else if (state == FORMSVC_SCHEMA_UNREACHABLE || state == FORMSVC_SCHEMA_PEPPER)
        *msg = apr_pstrdup(p, last_reason);
    return state;
}

int formsvc_schema_diagnose(apr_pool_t *p, server_rec *s, const char **msg) {
    if (lock)
        apr_thread_mutex_lock(lock);
    int state = diagnose_locked(p, s, msg);
    if (lock)
        apr_thread_mutex_unlock(lock);
    return state;
}

static int has_passed(const char *params, const unsigned char *pepper) {
    apr_uint32_t n = apr_atomic_read32(&npassed);
    for (apr_uint32_t i = 0; i < n && i < PASSED_MAX; i++)
        if (passed[i].params == params && passed[i].pepper == pepper)
            return 1;
    return 0;
}

/* Paths that answer whatever the database holds: probes, metrics, the
 * problem pages, the error document. */
static int gate_exempt(const char *path) {
    static const char *const free_paths[] = {"/healthz",  "/readyz",   "/metrics",
                                             "/problems", "/.formsvc", "/openapi.json"};
    for (unsigned i = 0; i < sizeof(free_paths) / sizeof(free_paths[0]); i++) {
        apr_size_t n = strlen(free_paths[i]);
        if (!strncmp(path, free_paths[i], n) && (path[n] == '\0' || path[n] == '/'))
            return 1;
    }
    return 0;
}

fs_error *formsvc_gate(request_rec *r, const char *path) {
    if (!path || gate_exempt(path))
        return NULL;
    const char *params = formsvc_schema_params(r->server);
    const unsigned char *pepper = formsvc_conf(r->server)->pepper;
    if (!params || has_passed(params, pepper))
        return NULL;
    /* a request never waits for another thread's probe (a database that
     * does not answer takes seconds): it goes on, and meets the database
     * as it is */
    if (lock && apr_thread_mutex_trylock(lock) != APR_SUCCESS) {
        int known = last_state; /* the last answer (read without the lock) */
        if (known == FORMSVC_SCHEMA_BEHIND || known == FORMSVC_SCHEMA_PEPPER)
            return fs_error_make(r->pool, "service-unavailable",
                                 "The service is not ready: its database does not fit this "
                                 "module (/readyz says why).");
        return NULL;
    }
    const char *why;
    int state = diagnose_locked(r->pool, r->server, &why);
    if (state == FORMSVC_SCHEMA_CURRENT || state == FORMSVC_SCHEMA_AHEAD) {
        apr_uint32_t n = apr_atomic_read32(&npassed);
        if (n < PASSED_MAX && !has_passed(params, pepper)) {
            passed[n].params = params;
            passed[n].pepper = pepper;
            apr_atomic_set32(&npassed, n + 1);
        }
    }
    if (lock)
        apr_thread_mutex_unlock(lock);
    switch (state) {
    case FORMSVC_SCHEMA_CURRENT:
    case FORMSVC_SCHEMA_AHEAD: return NULL;
    case FORMSVC_SCHEMA_BEHIND:
        return fs_error_make(r->pool, "service-unavailable",
                             "The service is not ready: its database %s.", why);
    case FORMSVC_SCHEMA_PEPPER:
        return fs_error_make(r->pool, "service-unavailable", "The service is not ready: %s.", why);
    default: /* unreachable: the request meets that on its own */ return NULL;
    }
}

void formsvc_planning_check(apr_pool_t *p, server_rec *s, fs_store *st) {
    const char *mode, *jit;
    fs_error *e = fs_store_session_planning(st, &mode, &jit);
    if (e || !mode || !jit)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02191,
                     "the database session's planner settings cannot be read: %s",
                     e ? (e->cause ? e->cause : e->slug) : "no row");
    else if (strcmp(mode, "force_generic_plan") != 0 || strcmp(jit, "off") != 0)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02192,
                     "the database sessions plan with plan_cache_mode=%s and jit=%s, not "
                     "force_generic_plan and off: each statement is planned at every "
                     "execution over all partitions",
                     mode, jit);
    else
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02193,
                     "database sessions keep one generic plan per statement "
                     "(plan_cache_mode=%s, jit=%s)",
                     mode, jit);
    (void)p;
}
