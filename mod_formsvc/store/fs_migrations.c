/* fs_migrations: the schema version, read on a connection of its own (see
 * fs_migrations.h for why mod_dbd's cannot be used). */
#include "fs_migrations.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER_MS 5000 /* a server that accepted the connection and then froze */

/* libpq's message as one line of the error log, copied into p. */
static const char *one_line(apr_pool_t *p, const char *msg) {
    char *e = apr_pstrdup(p, msg ? msg : "");
    for (char *q = e; *q; q++)
        if (*q == '\n' || *q == '\r')
            *q = ' ';
    apr_size_t n = strlen(e);
    while (n > 0 && e[n - 1] == ' ')
        e[--n] = '\0';
    return e;
}

/* The result of the one query (with nparams text parameters), or NULL
 * when none came within ANSWER_MS. */
static PGresult *query_params(PGconn *c, const char *sql, int nparams, const char *const *params) {
    if (!PQsendQueryParams(c, sql, nparams, NULL, params, NULL, NULL, 0))
        return NULL;
    apr_time_t deadline = apr_time_now() + apr_time_from_msec(ANSWER_MS);
    while (PQisBusy(c)) {
        apr_time_t left = deadline - apr_time_now();
        struct pollfd pfd = {PQsocket(c), POLLIN, 0};
        if (left <= 0 || pfd.fd < 0 || poll(&pfd, 1, (int)apr_time_as_msec(left) + 1) <= 0 ||
            !PQconsumeInput(c))
            return NULL; /* PQfinish closes the connection without reading on */
    }
    PGresult *res = PQgetResult(c), *more;
    while ((more = PQgetResult(c)))
        PQclear(more);
    return res;
}

static PGresult *query(PGconn *c, const char *sql) {
    return query_params(c, sql, 0, NULL);
}

/* The pepper fingerprint recorded in the database (0039), recording fp
 * first when none is; NULL with *err NULL when the schema has no such
 * table yet, NULL with *err set when it cannot be read. */
static const char *fingerprint(apr_pool_t *p, PGconn *c, const char *fp, const char **err) {
    static const char *const sel = "SELECT fingerprint FROM pepper_fingerprint";
    PGresult *res = query(c, "SELECT to_regclass('pepper_fingerprint') IS NOT NULL");
    int has = res && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
              !strcmp(PQgetvalue(res, 0, 0), "t");
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
        *err = res ? one_line(p, PQresultErrorMessage(res)) : "the database did not answer";
    PQclear(res);
    if (!has)
        return NULL;
    const char *out = NULL;
    for (int round = 0; round < 2 && !out && !*err; round++) {
        res = query(c, sel);
        if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
            *err = res ? one_line(p, PQresultErrorMessage(res)) : "the database did not answer";
        else if (PQntuples(res) == 1)
            out = apr_pstrdup(p, PQgetvalue(res, 0, 0));
        PQclear(res);
        if (out || *err || round)
            break;
        /* none recorded yet: this pepper's, unless another start was first */
        const char *const params[1] = {fp};
        res = query_params(c,
                           "INSERT INTO pepper_fingerprint (fingerprint) VALUES ($1) "
                           "ON CONFLICT DO NOTHING",
                           1, params);
        if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
            *err = res ? one_line(p, PQresultErrorMessage(res)) : "the database did not answer";
        PQclear(res);
    }
    return out;
}

int fs_install_probe(apr_pool_t *p, const char *conninfo, const char *fp, int *version,
                     const char **recorded, const char **err) {
    /* expand_dbname: conninfo is a whole connection string; its own
     * connect_timeout, when it has one, replaces the default before it */
    const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *const vals[] = {"2", "formsvc schema check", conninfo, NULL};
    *version = 0;
    *err = NULL;
    if (recorded)
        *recorded = NULL;
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c) {
        *err = "out of memory";
        return 0;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        *err = one_line(p, PQerrorMessage(c));
        PQfinish(c);
        return 0;
    }
    PGresult *res = query(c, "SELECT COALESCE(max(version), 0) FROM schema_migrations");
    if (!res) {
        *err = "the database did not answer";
    } else if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
        *version = atoi(PQgetvalue(res, 0, 0));
    } else {
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        if (!state || strcmp(state, "42P01")) /* 42P01 undefined_table: never migrated */
            *err = one_line(p, PQresultErrorMessage(res));
    }
    PQclear(res);
    if (!*err && fp && recorded)
        *recorded = fingerprint(p, c, fp, err);
    PQfinish(c);
    return *err == NULL;
}

int fs_schema_probe(apr_pool_t *p, const char *conninfo, int *version, const char **err) {
    return fs_install_probe(p, conninfo, NULL, version, NULL, err);
}

const char *fs_schema_behind_message(apr_pool_t *p, int have, int need) {
    return apr_psprintf(p, "schema %d, module needs %d: run formsvc-admin migrate", have, need);
}
