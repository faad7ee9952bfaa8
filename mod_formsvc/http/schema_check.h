/* schema_check: why no database connection can be had, told apart: the
 * database cannot be reached, or it is reached but its schema is behind
 * this module (mod_dbd then opens no connection at all, because preparing
 * the statements fails; fs_migrations.h). Used when a child starts and by
 * /readyz. */
#ifndef FORMSVC_SCHEMA_CHECK_H
#define FORMSVC_SCHEMA_CHECK_H

#include <httpd.h>

enum { FORMSVC_SCHEMA_CURRENT, FORMSVC_SCHEMA_BEHIND, FORMSVC_SCHEMA_UNREACHABLE };

/* post_config: notes the DBDParams of each server (mod_dbd keeps its own
 * private). child_init: makes the per-child lock of the probe. */
void formsvc_schema_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_schema_child_init(apr_pool_t *pchild, server_rec *s);

/* The DBDParams in force for server s (its own, or the main server's), as
 * mod_dbd reads them; NULL when there are none. After post_config. */
const char *formsvc_schema_params(server_rec *s);

/* Connects on its own with s's DBDParams and reads the schema version.
 * BEHIND: *msg is "schema N, module needs M: run formsvc-admin migrate".
 * UNREACHABLE: *msg is libpq's reason (for the log, not for clients).
 * CURRENT: *msg is NULL. The answer is kept for two seconds per child and
 * one thread at a time asks, so a busy /readyz does not open a connection
 * per request. *msg is in p. */
int formsvc_schema_diagnose(apr_pool_t *p, server_rec *s, const char **msg);

#endif
