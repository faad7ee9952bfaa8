/* config_global: the settings of the whole server, directives allowed
 * only outside <VirtualHost> (caches, database waits, log throttling,
 * webhooks, long polls, language files, uploaded files). They live in the
 * main server's formsvc_srv (global), which every virtual host shares;
 * the parts that use them read them through formsvc_global_conf(), never
 * a copy of their own, so a restart that drops a directive gives its
 * default back. */
#ifndef FORMSVC_CONFIG_GLOBAL_H
#define FORMSVC_CONFIG_GLOBAL_H

#include <httpd.h>
#include <http_config.h>

#ifndef FS_LOCALE_DIR
#define FS_LOCALE_DIR "/usr/share/formsvc/locales"
#endif

/* The two caches of cache.h, in this order (FORMSVC_CACHE_FORMS, _CREDENTIALS). */
enum { FORMSVC_CACHE_FORMS, FORMSVC_CACHE_CREDENTIALS };

typedef struct formsvc_global {
    apr_size_t cache_size[2];  /* FormsvcFormCacheSize, FormsvcCredentialCacheSize; 0: none */
    int cache_ttl[2];          /* FormsvcFormCacheTTL, FormsvcCredentialCacheTTL, seconds */
    int db_timeout;            /* FormsvcDBTimeout, seconds; 0: no limit */
    int log_interval;          /* FormsvcLogRepeatInterval, seconds; 0: every line */
    int webhook_allow_private; /* FormsvcWebhookAllowPrivate */
    int event_waits_process;   /* FormsvcEventWaits, per child; -1: auto (ThreadsPerChild / 4) */
    int event_waits_account;   /* its second argument, per account and child */
    int mcp_streams_process;   /* FormsvcMCPStreams, per child; -1: auto (ThreadsPerChild / 4) */
    int mcp_streams_account;   /* its second argument, per account (every machine) */
    int mcp_stream_keepalive;  /* FormsvcMCPStreamTimes, seconds between keep-alives */
    int mcp_stream_max_age;    /* its second argument, seconds a stream stays open at most */
    const char *locale_dir;    /* FormsvcLocaleDir, absolute */
    int file_max_size;         /* FormsvcFileMaxSize, bytes */
    int file_max_files;        /* FormsvcFileMaxFiles */
    int file_json_max;         /* FormsvcFileMaxJSONBody, bytes */
    int file_quota_mb[2];      /* FormsvcFileQuotaUnverified, FormsvcFileQuotaVerified */
    /* FormsvcUploadTempDir; NULL until check_config puts the system's
     * temporary directory there when it is not set (formsvc_global_note) */
    const char *upload_tmp_dir;
    int upload_tmp_max_mb; /* FormsvcUploadTempMax, per child */
    int xlsx_exports;      /* FormsvcXlsxExports: XLSX exports at once, server-wide */
    /* retention (runtime/retention.c) */
    int retention_max_days;   /* FormsvcRetentionMaxDays; 0: no ceiling */
    int event_retention_days; /* FormsvcEventRetentionDays */
    int audit_retention_days; /* FormsvcAuditRetentionDays */
    int retention_interval;   /* FormsvcRetentionInterval, seconds between runs */
    /* Not directives of ours: mod_dbd's of the main server, as dbpool.c
     * needs them, read from the configuration tree by formsvc_global_note */
    int db_pool_max; /* DBDMax (at least 1); 0 with DBDPersist Off: no pool */
    /* DBDParams, unquoted, when DBDriver is pgsql (for a ping while the
     * database is suspected down); NULL otherwise */
    const char *db_ping_conninfo;
} formsvc_global;

/* A struct of defaults in pool p (formsvc_create_srv). */
formsvc_global *formsvc_global_create(apr_pool_t *p);

/* The settings of the configuration that runs: the main server's of the
 * current generation from its check_config on (so in every child), the
 * defaults before that (the parent while it reads a configuration). Never
 * NULL; read-only. */
const formsvc_global *formsvc_global_conf(void);

/* check_config, first of all: completes the main server's settings
 * (the spool directory, mod_dbd's settings) and makes them the running ones until pconf is
 * cleared for the next generation. */
int formsvc_global_note(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp, server_rec *s);

const char *formsvc_set_cache_size(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_cache_ttl(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_db_timeout(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_log_interval(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_webhook_private(cmd_parms *cmd, void *d, int on);
const char *formsvc_set_event_waits(cmd_parms *cmd, void *d, const char *proc, const char *acct);
const char *formsvc_set_mcp_streams(cmd_parms *cmd, void *d, const char *proc, const char *acct);
const char *formsvc_set_mcp_stream_times(cmd_parms *cmd, void *d, const char *ka, const char *age);
const char *formsvc_set_locale_dir(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_file_limit(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_upload_tmp_dir(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_xlsx_exports(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_upload_tmp_max(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_retention(cmd_parms *cmd, void *d, const char *arg);

/* The directives of this file, spliced into formsvc_cmds in config.c. */
#define FORMSVC_GLOBAL_CMDS                                                                        \
    AP_INIT_FLAG("FormsvcWebhookAllowPrivate", formsvc_set_webhook_private, NULL, RSRC_CONF,       \
                 "On: webhooks may target private, loopback and link-local addresses "             \
                 "and use plain http (for development and tests; default Off)"),                   \
        AP_INIT_TAKE12(                                                                            \
            "FormsvcEventWaits", formsvc_set_event_waits, NULL, RSRC_CONF,                         \
            "GET /v1/events?wait= requests that may wait at once per httpd child: auto "           \
            "(ThreadsPerChild / 4, the default) or a count; then per account and child "           \
            "(default 2). Others are answered at once."),                                          \
        AP_INIT_TAKE12("FormsvcMCPStreams", formsvc_set_mcp_streams, NULL, RSRC_CONF,              \
                       "MCP streams (GET /mcp) open at once per httpd child: auto "                \
                       "(ThreadsPerChild / 4, the default) or a count (beyond: 503); then per "    \
                       "account on all machines together (default 4; beyond: 429)."),              \
        AP_INIT_TAKE12("FormsvcMCPStreamTimes", formsvc_set_mcp_stream_times, NULL, RSRC_CONF,     \
                       "Seconds between an MCP stream's keep-alive comments (default 15), then "   \
                       "seconds a stream stays open at most before the client reconnects "         \
                       "(default 600)."),                                                          \
        AP_INIT_TAKE1("FormsvcDBTimeout", formsvc_set_db_timeout, NULL, RSRC_CONF,                 \
                      "Seconds a request waits at most for a pooled database connection and for "  \
                      "the answer to one statement; then 503 with Retry-After (default 10, 0 = "   \
                      "no limit). Keep statement_timeout in DBDParams below it."),                 \
        AP_INIT_TAKE1("FormsvcLogRepeatInterval", formsvc_set_log_interval, NULL, RSRC_CONF,       \
                      "Seconds during which a child writes the same numbered message once, "       \
                      "counting the repeats (default 10; 0 writes every one)"),                    \
        AP_INIT_TAKE1("FormsvcFormCacheSize", formsvc_set_cache_size, (void *)0, RSRC_CONF,        \
                      "Bytes of rendered public forms each httpd child keeps in memory (default "  \
                      "8388608; 0 = no cache). Global."),                                          \
        AP_INIT_TAKE1("FormsvcFormCacheTTL", formsvc_set_cache_ttl, (void *)0, RSRC_CONF,          \
                      "Seconds a cached public form is served at most without being read again "   \
                      "(default 30). Global."),                                                    \
        AP_INIT_TAKE1("FormsvcCredentialCacheSize", formsvc_set_cache_size, (void *)1, RSRC_CONF,  \
                      "Bytes of verified credentials each httpd child keeps in memory (default "   \
                      "1048576; 0 = no cache). Global."),                                          \
        AP_INIT_TAKE1("FormsvcCredentialCacheTTL", formsvc_set_cache_ttl, (void *)1, RSRC_CONF,    \
                      "Seconds a cached credential is trusted at most without being read again "   \
                      "(default 30). Global."),                                                    \
        AP_INIT_TAKE1(                                                                             \
            "FormsvcLocaleDir", formsvc_set_locale_dir, NULL, RSRC_CONF,                           \
            "global: directory of the pages' language files, <code>.json (default " FS_LOCALE_DIR  \
            ")"),                                                                                  \
        AP_INIT_TAKE1("FormsvcFileMaxSize", formsvc_set_file_limit, (void *)0, RSRC_CONF,          \
                      "Largest uploaded file in bytes, whatever a field's maxSize says (default "  \
                      "26214400). Global."),                                                       \
        AP_INIT_TAKE1("FormsvcFileMaxFiles", formsvc_set_file_limit, (void *)1, RSRC_CONF,         \
                      "Most files one file field takes, whatever its maxFiles says (default "      \
                      "10). Global."),                                                             \
        AP_INIT_TAKE1("FormsvcFileMaxJSONBody", formsvc_set_file_limit, (void *)2, RSRC_CONF,      \
                      "Largest JSON submission body, in bytes, for a form with a file field "      \
                      "(files in base64; default 2097152). Global."),                              \
        AP_INIT_TAKE1("FormsvcFileQuotaUnverified", formsvc_set_file_limit, (void *)3, RSRC_CONF,  \
                      "Megabytes of uploaded files an unverified account stores (default 50). "    \
                      "Global."),                                                                  \
        AP_INIT_TAKE1("FormsvcFileQuotaVerified", formsvc_set_file_limit, (void *)4, RSRC_CONF,    \
                      "Megabytes of uploaded files a verified account stores (default 10240). "    \
                      "Global."),                                                                  \
        AP_INIT_TAKE1("FormsvcUploadTempDir", formsvc_set_upload_tmp_dir, NULL, RSRC_CONF,         \
                      "Directory where uploaded files wait until the whole body has arrived "      \
                      "(files unlinked at once; default TMPDIR, else /tmp). Global."),             \
        AP_INIT_TAKE1("FormsvcUploadTempMax", formsvc_set_upload_tmp_max, NULL, RSRC_CONF,         \
                      "Megabytes of spool files one child holds at once; an upload past it "       \
                      "gets 503 (default 1024). Global."),                                         \
        AP_INIT_TAKE1("FormsvcXlsxExports", formsvc_set_xlsx_exports, NULL, RSRC_CONF,             \
                      "XLSX exports the server makes at once, across its children; one more "      \
                      "gets 503 (1 to 256; default 4). Global."),                                  \
        AP_INIT_TAKE1("FormsvcRetentionMaxDays", formsvc_set_retention, (void *)0, RSRC_CONF,      \
                      "Days after which every submission is deleted, whatever its form's "         \
                      "retentionDays (0 to 3650; default 0: no ceiling). Global."),                \
        AP_INIT_TAKE1("FormsvcEventRetentionDays", formsvc_set_retention, (void *)1, RSRC_CONF,    \
                      "Days an event (and its webhook deliveries) is kept (1 to 3650; default "    \
                      "30). Global."),                                                             \
        AP_INIT_TAKE1("FormsvcAuditRetentionDays", formsvc_set_retention, (void *)2, RSRC_CONF,    \
                      "Days an audit entry is kept (1 to 3650; default 365). Global."),            \
        AP_INIT_TAKE1("FormsvcRetentionInterval", formsvc_set_retention, (void *)3, RSRC_CONF,     \
                      "Seconds between two runs of the retention task (1 to 86400; default "       \
                      "3600). Global.")

#endif
