/* schema_check: why no database connection can be had, told apart: the
 * database cannot be reached, or it is reached but its schema is behind
 * this module (mod_dbd then opens no connection at all, because preparing
 * the statements fails; fs_migrations.h). Used when a child starts and by
 * /readyz. */
#ifndef FORMSVC_SCHEMA_CHECK_H
#define FORMSVC_SCHEMA_CHECK_H

#include <httpd.h>

#include "fs_error.h"
#include "fs_store.h"

/* CURRENT: the schema the module needs, and the pepper fits. BEHIND: run
 * formsvc-admin migrate. UNREACHABLE: no answer. PEPPER: the database's
 * secrets were hashed under another pepper (sql/0039). AHEAD: the schema
 * is newer than the module (an older module, a downgrade): served, with a
 * warning. */
enum {
    FORMSVC_SCHEMA_CURRENT,
    FORMSVC_SCHEMA_BEHIND,
    FORMSVC_SCHEMA_UNREACHABLE,
    FORMSVC_SCHEMA_PEPPER,
    FORMSVC_SCHEMA_AHEAD
};

/* post_config: notes the DBDParams of each server (mod_dbd keeps its own
 * private). child_init: makes the per-child lock of the probe. */
void formsvc_schema_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_schema_child_init(apr_pool_t *pchild, server_rec *s);

/* The DBDParams in force for server s (its own, or the main server's), as
 * mod_dbd reads them; NULL when there are none. After post_config. */
const char *formsvc_schema_params(server_rec *s);

/* Connects on its own with s's DBDParams and reads the schema version and
 * the pepper fingerprint (recording s's when none is: the first start).
 * BEHIND: *msg is "schema N, module needs M: run formsvc-admin migrate".
 * PEPPER: *msg says which fingerprint the data needs and what to do.
 * AHEAD: *msg says "schema N is newer than this module's M".
 * UNREACHABLE: *msg is libpq's reason (for the log, not for clients).
 * CURRENT: *msg is NULL. The answer is kept for two seconds per child and
 * one thread at a time asks, so a busy /readyz does not open a connection
 * per request. *msg is in p. */
int formsvc_schema_diagnose(apr_pool_t *p, server_rec *s, const char **msg);

/* The one rule for a database that does not fit the module, for every
 * request to path (the part after the base path): NULL to go on, or a 503
 * problem naming the fix (`formsvc-admin migrate`, or the pepper). The
 * probes (/healthz, /readyz), /metrics and the problem pages are never
 * refused. Once a child found its database CURRENT (or AHEAD) it asks no
 * more: the check costs a connection of its own only until then (at most
 * one per two seconds). */
fs_error *formsvc_gate(request_rec *r, const char *path);

/* child_init, on a connection of the pool: says how the module's
 * sessions plan (fs_db.c sets every one to generic plans without JIT):
 * FS02193 (info) when they do, FS02192 (warning) when something left them
 * planning at every execution, FS02191 when it cannot be read. */
void formsvc_planning_check(apr_pool_t *p, server_rec *s, fs_store *st);

#endif
