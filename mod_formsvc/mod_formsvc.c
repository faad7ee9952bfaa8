/* mod_formsvc: the module record, the startup checks (mod_dbd present, a
 * database configured, statements prepared, the schema version at child
 * start) and the registration of every hook. No part registers a hook of
 * its own: each exports its hook functions, and the phases where order
 * matters (pre_config, post_config, child_init) have one caller here that
 * calls the parts in the order written, so what must come first is code. */
#include "fs_migrations.h"
#include "fs_store.h"
#include "fs_store_ops.h"
#include "http/auth.h"
#include "http/files.h"
#include "http/i18n.h"
#include "http/router.h"
#include "public/form_cache.h"
#include "public/public.h"
#include "runtime/cache.h"
#include "runtime/closings.h"
#include "runtime/config.h"
#include "runtime/dbd_check.h"
#include "runtime/dbpool.h"
#include "runtime/export_slots.h"
#include "runtime/log.h"
#include "runtime/mail.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/ratelimit_store.h"
#include "runtime/request_id.h"
#include "runtime/schema_check.h"
#include "runtime/submit_batch.h"
#include "runtime/tally.h"
#include "runtime/user_access.h"
#include "runtime/version.h"
#include "runtime/views.h"
#include "runtime/webhooks.h"
#include "runtime/worker.h"

#include <apr_file_io.h>
#include <apr_hash.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <http_core.h>
#include <http_protocol.h>
#include <http_request.h>
#include <mod_auth.h>
#include <mod_dbd.h>
#include <unistd.h>

static server_rec *main_server;

static void store_log(int level, const char *msg) {
    static const int map[] = {APLOG_EMERG,   APLOG_ALERT,  APLOG_CRIT, APLOG_ERR,
                              APLOG_WARNING, APLOG_NOTICE, APLOG_INFO, APLOG_DEBUG};
    int lvl = level >= 0 && level < 8 ? map[level] : APLOG_ERR;
    formsvc_log_store_line(main_server, lvl, msg); /* msg starts with its number */
}

static int has_directive(ap_directive_t *d, const char *name) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, name))
            return 1;
        if (d->first_child && has_directive(d->first_child, name))
            return 1;
    }
    return 0;
}

/* Registers every statement with mod_dbd once per database configuration.
 * A virtual host without DBD directives of its own shares the main
 * server's mod_dbd configuration object (mod_dbd makes one only where a
 * directive is used), and registering the same label on it twice makes
 * mod_dbd warn (AH02653) once per statement and virtual host. Hosts with
 * their own DBD directives have their own object and need the statements
 * there too (mod_dbd pools identical configurations together). */
static void prepare_statements(apr_pool_t *ptemp, server_rec *s,
                               APR_OPTIONAL_FN_TYPE(ap_dbd_prepare) * prepare) {
    module *dbd = ap_find_linked_module("mod_dbd.c");
    apr_hash_t *done = apr_hash_make(ptemp);
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    for (server_rec *sp = s; sp; sp = sp->next) {
        void *cfg = dbd ? ap_get_module_config(sp->module_config, dbd) : NULL;
        if (cfg && apr_hash_get(done, &cfg, sizeof(cfg)))
            continue;
        if (cfg) {
            void **key = apr_palloc(ptemp, sizeof(*key));
            *key = cfg;
            apr_hash_set(done, key, sizeof(*key), "");
        }
        for (int i = 0; i < n; i++)
            prepare(sp, st[i].sql, st[i].label);
    }
}

/* Everything that could stop httpd at start, checked when the
 * configuration is read: check_config runs under `apachectl configtest`
 * (httpd -t) as at every start and restart, before post_config, so a
 * configuration that configtest accepts never takes the server down on a
 * graceful restart. (post_config does not run under -t.) */
static int formsvc_check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                                server_rec *s) {
    (void)plog;
    if (!APR_RETRIEVE_OPTIONAL_FN(ap_dbd_prepare) || !APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire)) {
        FORMSVC_SLOG(s, APLOG_CRIT, 0, 00302,
                     "mod_formsvc needs mod_dbd: add LoadModule dbd_module "
                     "(a2enmod dbd) before mod_formsvc");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!has_directive(ap_conftree, "DBDriver") || !has_directive(ap_conftree, "DBDParams")) {
        FORMSVC_SLOG(s, APLOG_CRIT, 0, 00303,
                     "mod_formsvc needs a database: set DBDriver pgsql and "
                     "DBDParams \"host=... dbname=... user=... connect_timeout=2\"");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* a statement table that overflowed or whose statements do not take
     * the arguments they declare would fail at the first request */
    const char *bad = fs_store_check(ptemp);
    if (bad) {
        FORMSVC_SLOG(s, APLOG_CRIT, 0, 00304, "the module's statements are broken: %s", bad);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    int rc = formsvc_dbd_check(ptemp, s);
    if (rc == OK)
        rc = formsvc_mail_check_config(ptemp, s);
    if (rc == OK)
        rc = formsvc_locale_load(pconf, s);
    formsvc_upload_dir_check(ptemp, s);
    formsvc_sendmail_check(ptemp, s);
    return rc;
}

/* What this server has loaded, for `formsvc-admin version` (which cannot
 * ask the module otherwise): <runtime dir>/formsvc.loaded holds the
 * module's version, the schema it needs and the parent's pid. Written at
 * every start and restart (not in the first of the two configuration
 * passes); a failure only costs that answer. */
static void write_loaded(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s) {
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return;
    const char *path = ap_runtime_dir_relative(pconf, "formsvc.loaded");
    const char *tmp = path ? apr_pstrcat(ptemp, path, ".new", NULL) : NULL;
    const char *text = apr_psprintf(ptemp, "module %s\nschema %d\npid %" APR_PID_T_FMT "\n",
                                    FS_MODULE_VERSION, FS_SCHEMA_VERSION, getpid());
    apr_file_t *f;
    if (!tmp || apr_file_open(&f, tmp, APR_WRITE | APR_CREATE | APR_TRUNCATE, APR_FPROT_OS_DEFAULT,
                              ptemp) != APR_SUCCESS)
        return;
    int ok = apr_file_write_full(f, text, strlen(text), NULL) == APR_SUCCESS;
    ok = apr_file_close(f) == APR_SUCCESS && ok;
    if (!ok || apr_file_rename(tmp, path, ptemp) != APR_SUCCESS) {
        apr_file_remove(tmp, ptemp);
        FORMSVC_SLOG(s, APLOG_INFO, 0, 00393,
                     "cannot write %s (formsvc-admin version will not know what runs)", path);
    }
}

/* A restart: what the last generation made in its pool is forgotten (the
 * directives need nothing: they live in this generation's configuration,
 * runtime/config_global.h). */
static int formsvc_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp) {
    formsvc_cache_pre_config(pconf, plog, ptemp);
    return OK;
}

/* Runs before mod_dbd's post_config, the last moment ap_dbd_prepare works.
 * What can fail because of the configuration was checked in
 * formsvc_check_config. */
static int formsvc_post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                               server_rec *s) {
    (void)plog;
    main_server = s;
    fs_store_set_logger(store_log);
    APR_OPTIONAL_FN_TYPE(ap_dbd_prepare) *prepare = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_prepare);
    prepare_statements(ptemp, s, prepare);
    write_loaded(pconf, ptemp, s);
    if (!formsvc_conf(s)->pepper)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00305,
                     "no FormsvcSecretPepperFile: secrets are stored as plain "
                     "SHA-256; set a pepper in production");
    formsvc_metrics_post_config(pconf, s);
    formsvc_export_slots_post_config(pconf, s); /* FormsvcXlsxExports' count */
    formsvc_router_post_config(pconf, s);       /* the routes' counters: in the metrics' memory */
    formsvc_schema_post_config(pconf, s);
    formsvc_cache_post_config(pconf, s); /* after the DBDParams were noted */
    formsvc_public_post_config(pconf, s);
    int rc = formsvc_mail_post_config(pconf, s);
    if (rc == OK)
        rc = formsvc_openapi_post_config(pconf, s);
    return rc != OK ? rc : formsvc_ratelimit_post_config(pconf, s);
}

/* After mod_dbd has its pool, every part's child start in this order: the
 * log throttle before any line of ours, the gauges' slot before anything
 * sets one, libcurl (formsvc_worker_child_init) before any thread of ours
 * (formsvc_worker_start refuses one before it, FS02185), then the parts
 * that start workers; and say at once when the schema is behind. */
static void formsvc_child_init(apr_pool_t *p, server_rec *s) {
    formsvc_log_child_init(p, s);
    formsvc_metrics_child_init(p, s);
    formsvc_dbpool_child_init(p, s);
    formsvc_submit_batch_child_init(p, s);
    formsvc_worker_child_init(p, s);
    formsvc_cache_child_init(p, s); /* the listener's worker */
    formsvc_ratelimit_child_init(p, s);
    formsvc_mail_child_init(p, s);
    formsvc_webhook_child_init(p, s);
    formsvc_schema_child_init(p, s);
    formsvc_tally_child_init(p, s);
    formsvc_closings_child_init(p, s);
    formsvc_views_child_init(p, s);
    APR_OPTIONAL_FN_TYPE(ap_dbd_open) *open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    APR_OPTIONAL_FN_TYPE(ap_dbd_close) *close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    if (!open || !close)
        return;
    apr_pool_t *tmp;
    apr_pool_create(&tmp, p);
    ap_dbd_t *d = open(tmp, s);
    if (!d) {
        /* mod_dbd opens no connection when preparing a statement fails,
         * which is what a schema behind the module looks like: ask the
         * database on a connection of our own which it is */
        const char *why;
        switch (formsvc_schema_diagnose(tmp, s, &why)) {
        case FORMSVC_SCHEMA_BEHIND:
            FORMSVC_SLOG(s, APLOG_ERR, 0, 00307, "database %s; /readyz answers 503 until then",
                         why);
            break;
        case FORMSVC_SCHEMA_PEPPER: /* said by formsvc_schema_diagnose (FS00391) */ break;
        case FORMSVC_SCHEMA_UNREACHABLE:
            FORMSVC_SLOG(s, APLOG_WARNING, 0, 00306,
                         "database not reachable at start (%s); /readyz answers 503 "
                         "until it is",
                         why);
            break;
        default:
            FORMSVC_SLOG(s, APLOG_WARNING, 0, 00310,
                         "database reachable and its schema current, but mod_dbd "
                         "opened no connection (see its lines above); /readyz answers 503 "
                         "until it does");
        }
    } else {
        fs_db db = {d->driver, d->handle, d->prepared, d->pool, 0, 0};
        int ok, version;
        fs_error *e =
            fs_store_schema_version(fs_store_on(tmp, &db), FS_SCHEMA_VERSION, &ok, &version);
        if (e)
            FORMSVC_SLOG(s, APLOG_ERR, 0, 00309, "the schema version cannot be read: %s",
                         e->cause    ? e->cause
                         : e->detail ? e->detail
                                     : e->slug);
        else if (!ok)
            FORMSVC_SLOG(
                s, APLOG_ERR, 0, 00323, "database %s; /readyz answers 503 until then",
                fs_schema_behind_message(tmp, version >= 0 ? version : 0, FS_SCHEMA_VERSION));
        if (!e && ok)
            formsvc_planning_check(tmp, s, fs_store_on(tmp, &db));
        close(s, d);
        if (!e && ok) {
            /* the pepper's fingerprint (recorded by the first start) and a
             * schema ahead of the module: said now, refused by formsvc_gate */
            const char *why;
            formsvc_schema_diagnose(tmp, s, &why);
        }
    }
    apr_pool_destroy(tmp);
}

static void formsvc_register_hooks(apr_pool_t *p) {
    static const char *const before_dbd[] = {"mod_dbd.c", NULL};
    static const char *const after_dbd[] = {"mod_dbd.c", NULL};
    static const char *const after_unique_id[] = {"mod_unique_id.c", NULL};
    /* startup and child start, each with one caller above; the server-wide
     * settings of a generation noted before anything reads them */
    ap_hook_pre_config(formsvc_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(formsvc_global_note, NULL, NULL, APR_HOOK_REALLY_FIRST);
    ap_hook_check_config(formsvc_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(formsvc_post_config, NULL, before_dbd, APR_HOOK_MIDDLE);
    ap_hook_child_init(formsvc_child_init, after_dbd, NULL, APR_HOOK_LAST);
    /* a request, in the order httpd runs the phases */
    ap_hook_post_read_request(formsvc_redact_request, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_post_read_request(formsvc_request_id_assign, after_unique_id, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(formsvc_translate, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_map_to_storage(formsvc_map_to_storage, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_force_authn(formsvc_force_authn, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_authn(formsvc_check_authn, NULL, NULL, APR_HOOK_MIDDLE,
                        AP_AUTH_INTERNAL_PER_CONF);
    ap_hook_note_auth_failure(formsvc_note_auth_failure, NULL, NULL, APR_HOOK_MIDDLE);
    formsvc_register_authz(p);     /* the formsvc-scope provider */
    formsvc_rl_stores_register(p); /* the rate-limit stores, before FormsvcRateLimitStore is read */
    /* the cache barrier first, then the public form cache's filter */
    ap_hook_insert_filter(formsvc_cache_insert_filter, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_insert_filter(formsvc_form_cache_insert_filter, NULL, NULL, APR_HOOK_MIDDLE);
    formsvc_cache_filters();
    formsvc_form_cache_filters();
    ap_hook_handler(formsvc_handler_hook, NULL, NULL, APR_HOOK_MIDDLE);
    /* before mod_log_config (APR_HOOK_MIDDLE) writes the access log */
    ap_hook_log_transaction(formsvc_redact_for_log, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_log_transaction(formsvc_count_request, NULL, NULL, APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(formsvc) = {STANDARD20_MODULE_STUFF,
                              NULL, /* per-directory config: none */
                              NULL,
                              formsvc_create_srv,
                              formsvc_merge_srv,
                              formsvc_cmds,
                              formsvc_register_hooks,
                              0};
