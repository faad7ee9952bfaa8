/* config_global: the server-wide directives, their defaults and the
 * running generation's settings (config_global.h). */
#include "runtime/config_global.h"
#include "fs_field.h"
#include "fs_util.h"
#include "runtime/config.h"

#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_strings.h>

/* The defaults, one place: docs/configuration.md and conf/formsvc.conf say the same. */
static const formsvc_global defaults = {
    .cache_size = {8 * 1024 * 1024, 1024 * 1024},
    .cache_ttl = {30, 30},
    .db_timeout = 10,
    .log_interval = 10,
    .webhook_allow_private = 0,
    .event_waits_process = -1,
    .event_waits_account = 2,
    .mcp_streams_process = -1,
    .mcp_streams_account = 4,
    .mcp_stream_keepalive = 15,
    .mcp_stream_max_age = 600,
    .locale_dir = FS_LOCALE_DIR,
    .file_max_size = 25 * 1024 * 1024,
    .file_max_files = 10,
    .file_json_max = 2 * 1024 * 1024,
    .file_quota_mb = {50, 10240},
    .upload_tmp_dir = NULL,
    .upload_tmp_max_mb = 1024,
    .xlsx_exports = 4,
    .retention_max_days = 0,
    .event_retention_days = 30,
    .audit_retention_days = 365,
    .retention_interval = 3600,
    .db_pool_max = 10, /* mod_dbd's DBDMax default (threaded MPMs) */
    .db_ping_conninfo = NULL,
};

/* The main server's settings of the generation that runs: set by
 * formsvc_global_note at its check_config, forgotten when its pconf is
 * cleared (so between two generations the defaults answer, never the
 * settings of a configuration that is gone). Written by the parent
 * only, before any child of that generation is made. */
static const formsvc_global *running;

formsvc_global *formsvc_global_create(apr_pool_t *p) {
    formsvc_global *g = apr_palloc(p, sizeof(*g));
    *g = defaults;
    return g;
}

const formsvc_global *formsvc_global_conf(void) {
    return running ? running : &defaults;
}

/* The last value of a directive of the main server, looking into
 * <IfModule>, <IfDefine> and the like but not into <VirtualHost>; NULL
 * when it is not set. */
static const char *directive_arg(ap_directive_t *d, const char *name, const char *v) {
    for (; d; d = d->next) {
        if (!strcasecmp(d->directive, name))
            v = d->args;
        else if (d->first_child && strcasecmp(d->directive, "<VirtualHost"))
            v = directive_arg(d->first_child, name, v);
    }
    return v;
}

/* mod_dbd's settings that the connection gate needs (dbpool.c). */
static void note_dbd(apr_pool_t *pconf, formsvc_global *g) {
    const char *max = directive_arg(ap_conftree, "DBDMax", NULL),
               *persist = directive_arg(ap_conftree, "DBDPersist", NULL),
               *driver = directive_arg(ap_conftree, "DBDriver", NULL),
               *params = directive_arg(ap_conftree, "DBDParams", NULL);
    g->db_ping_conninfo = driver && params && !strcasecmp(driver, "pgsql")
                              ? ap_getword_conf(pconf, &params) /* unquoted */
                              : NULL;
    if (max)
        g->db_pool_max = atoi(max) < 1 ? 1 : atoi(max);
    if (persist && (!strcasecmp(persist, "off") || !strcmp(persist, "0")))
        g->db_pool_max = 0;
}

static apr_status_t forget_running(void *data) {
    (void)data;
    running = NULL;
    return APR_SUCCESS;
}

int formsvc_global_note(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp, server_rec *s) {
    (void)plog;
    (void)ptemp;
    formsvc_global *g = formsvc_conf(s)->global;
    if (!g->upload_tmp_dir && apr_temp_dir_get(&g->upload_tmp_dir, pconf) != APR_SUCCESS)
        g->upload_tmp_dir = "/tmp";
    note_dbd(pconf, g);
    running = g;
    apr_pool_cleanup_register(pconf, NULL, forget_running, apr_pool_cleanup_null);
    return OK;
}

/* The settings a directive of cmd writes: the main server's (each
 * directive here checks GLOBAL_ONLY first). */
static formsvc_global *glob(cmd_parms *cmd) {
    return formsvc_conf(cmd->server)->global;
}

static const char *const size_names[2] = {"FormsvcFormCacheSize", "FormsvcCredentialCacheSize"};
static const char *const ttl_names[2] = {"FormsvcFormCacheTTL", "FormsvcCredentialCacheTTL"};

const char *formsvc_set_cache_size(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    int which = cmd->info != NULL;
    char *end;
    apr_int64_t v = apr_strtoi64(arg, &end, 10);
    if (*end || end == arg || (v != 0 && (v < 65536 || v > 1024LL * 1024 * 1024)))
        return apr_psprintf(cmd->pool,
                            "%s takes 0 (no cache) or a byte count from 65536 to "
                            "1073741824",
                            size_names[which]);
    glob(cmd)->cache_size[which] = (apr_size_t)v;
    return NULL;
}

const char *formsvc_set_cache_ttl(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    int which = cmd->info != NULL;
    return formsvc_set_global_int(
        cmd, arg, 1, 3600, &glob(cmd)->cache_ttl[which],
        apr_psprintf(cmd->pool, "%s takes seconds from 1 to 3600", ttl_names[which]));
}

const char *formsvc_set_db_timeout(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    return formsvc_set_global_int(cmd, arg, 0, 3600, &glob(cmd)->db_timeout,
                                  "FormsvcDBTimeout takes seconds from 0 (no limit) to 3600");
}

const char *formsvc_set_log_interval(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    return formsvc_set_global_int(
        cmd, arg, 0, 3600, &glob(cmd)->log_interval,
        "FormsvcLogRepeatInterval takes seconds from 0 (write every line) to 3600");
}

const char *formsvc_set_webhook_private(cmd_parms *cmd, void *d, int on) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    glob(cmd)->webhook_allow_private = on;
    return NULL;
}

/* FormsvcEventWaits auto|<per process> [<per account>] */
const char *formsvc_set_event_waits(cmd_parms *cmd, void *d, const char *proc, const char *acct) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    formsvc_global *g = glob(cmd);
    if (!strcasecmp(proc, "auto"))
        g->event_waits_process = -1;
    else if (!fs_int_parse(proc, 0, 100000, &g->event_waits_process))
        return "FormsvcEventWaits: the first argument is auto or a count from 0 to 100000 "
               "(waiting requests per httpd child)";
    if (acct && !fs_int_parse(acct, 0, 100000, &g->event_waits_account))
        return "FormsvcEventWaits: the second argument is a count from 0 to 100000 "
               "(waiting requests per account and httpd child)";
    return NULL;
}

/* FormsvcMCPStreams auto|<per child> [<per account>] */
const char *formsvc_set_mcp_streams(cmd_parms *cmd, void *d, const char *proc, const char *acct) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    formsvc_global *g = glob(cmd);
    if (!strcasecmp(proc, "auto"))
        g->mcp_streams_process = -1;
    else if (!fs_int_parse(proc, 0, 100000, &g->mcp_streams_process))
        return "FormsvcMCPStreams: the first argument is auto or a count from 0 to 100000 "
               "(streams per httpd child)";
    if (acct && !fs_int_parse(acct, 0, 100000, &g->mcp_streams_account))
        return "FormsvcMCPStreams: the second argument is a count from 0 to 100000 "
               "(streams per account)";
    return NULL;
}

/* FormsvcMCPStreamTimes <keep-alive seconds> [<most seconds open>] */
const char *formsvc_set_mcp_stream_times(cmd_parms *cmd, void *d, const char *ka, const char *age) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    formsvc_global *g = glob(cmd);
    if (!fs_int_parse(ka, 1, 3600, &g->mcp_stream_keepalive))
        return "FormsvcMCPStreamTimes: the first argument is seconds from 1 to 3600 "
               "(between keep-alive comments)";
    if (age && !fs_int_parse(age, 1, 86400, &g->mcp_stream_max_age))
        return "FormsvcMCPStreamTimes: the second argument is seconds from 1 to 86400 "
               "(a stream's longest life)";
    return NULL;
}

const char *formsvc_set_locale_dir(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    const char *dir = ap_server_root_relative(cmd->pool, arg);
    if (!dir)
        return "FormsvcLocaleDir: invalid path";
    glob(cmd)->locale_dir = dir;
    return NULL;
}

const char *formsvc_set_file_limit(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    formsvc_global *g = glob(cmd);
    switch ((int)(apr_uintptr_t)cmd->info) {
    case 0:
        return formsvc_set_global_int(cmd, arg, 1, 1000000000, &g->file_max_size,
                                      "FormsvcFileMaxSize takes bytes from 1 to 1000000000");
    case 1:
        return formsvc_set_global_int(cmd, arg, 1, FS_FILE_MAX_FILES_LIMIT, &g->file_max_files,
                                      "FormsvcFileMaxFiles takes a count from 1 to 20");
    case 2:
        return formsvc_set_global_int(cmd, arg, 65536, 100 * 1024 * 1024, &g->file_json_max,
                                      "FormsvcFileMaxJSONBody takes bytes from 65536 to "
                                      "104857600");
    default: {
        int v = (int)(apr_uintptr_t)cmd->info - 3;
        return formsvc_set_global_int(cmd, arg, 0, 100000000, &g->file_quota_mb[v],
                                      v ? "FormsvcFileQuotaVerified takes megabytes from 0 to "
                                          "100000000"
                                        : "FormsvcFileQuotaUnverified takes megabytes from 0 to "
                                          "100000000");
    }
    }
}

const char *formsvc_set_retention(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    formsvc_global *g = glob(cmd);
    switch ((int)(apr_uintptr_t)cmd->info) {
    case 0:
        return formsvc_set_global_int(cmd, arg, 0, 3650, &g->retention_max_days,
                                      "FormsvcRetentionMaxDays takes days from 0 (no ceiling) "
                                      "to 3650");
    case 1:
        return formsvc_set_global_int(cmd, arg, 1, 3650, &g->event_retention_days,
                                      "FormsvcEventRetentionDays takes days from 1 to 3650");
    case 2:
        return formsvc_set_global_int(cmd, arg, 1, 3650, &g->audit_retention_days,
                                      "FormsvcAuditRetentionDays takes days from 1 to 3650");
    default:
        return formsvc_set_global_int(cmd, arg, 1, 86400, &g->retention_interval,
                                      "FormsvcRetentionInterval takes seconds from 1 to 86400");
    }
}

/* Checked when the configuration is read, so that configtest refuses a
 * directory that does not exist. */
const char *formsvc_set_upload_tmp_dir(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    const char *dir = ap_server_root_relative(cmd->pool, arg);
    apr_finfo_t fi;
    if (!dir || apr_stat(&fi, dir, APR_FINFO_TYPE, cmd->temp_pool) != APR_SUCCESS ||
        fi.filetype != APR_DIR)
        return apr_psprintf(cmd->pool, "FormsvcUploadTempDir: %s is not a directory", arg);
    glob(cmd)->upload_tmp_dir = dir;
    return NULL;
}

const char *formsvc_set_upload_tmp_max(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    return formsvc_set_global_int(cmd, arg, 1, 10000000, &glob(cmd)->upload_tmp_max_mb,
                                  "FormsvcUploadTempMax takes megabytes from 1 to 10000000");
}

const char *formsvc_set_xlsx_exports(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    return formsvc_set_global_int(cmd, arg, 1, 256, &glob(cmd)->xlsx_exports,
                                  "FormsvcXlsxExports takes a number of exports from 1 to 256");
}
