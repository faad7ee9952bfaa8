/* fs_migrations: which schema version a database is at, read without the
 * prepared statements of the store.
 *
 * mod_dbd prepares every statement when it opens a pooled connection, and
 * refuses the connection when one fails; against a database whose schema
 * is behind (a table or function a statement names is missing) it opens
 * none, and the module would only see "no connection". A plain libpq
 * connection with the same parameters tells "unreachable" and "schema
 * behind" apart. Nothing here includes httpd headers. */
#ifndef FS_MIGRATIONS_H
#define FS_MIGRATIONS_H

#include <apr_pools.h>

/* Connects with conninfo (libpq syntax, as in DBDParams for the pgsql
 * driver; connect_timeout defaults to 2 s when it names none), reads the
 * highest version in schema_migrations (0 when the table does not exist
 * yet) into *version and disconnects. Returns 1 on success; 0 when the
 * database cannot be reached or read, with *err (in p) saying why in
 * libpq's words (no password: libpq does not repeat it). */
int fs_schema_probe(apr_pool_t *p, const char *conninfo, int *version, const char **err);

/* As fs_schema_probe, and when recorded is not NULL: the fingerprint of
 * the pepper the database's secrets are hashed with (table
 * pepper_fingerprint, sql/0039) into *recorded, in p. When none is
 * recorded yet, fp (the fingerprint of the caller's pepper,
 * fs_pepper_fingerprint) is recorded first and returned. *recorded is NULL
 * when the schema has no such table yet (before 0039). */
int fs_install_probe(apr_pool_t *p, const char *conninfo, const char *fp, int *version,
                     const char **recorded, const char **err);

/* The one wording of a schema behind the module, for the error log, the
 * /readyz problem and formsvc-admin's users alike:
 * "schema N, module needs M: run formsvc-admin migrate". In p. */
const char *fs_schema_behind_message(apr_pool_t *p, int have, int need);

#endif
