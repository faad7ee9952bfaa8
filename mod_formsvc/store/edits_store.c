/* The store of edits after sending (fs_store_edits.h, sql/0065). */
#include "fs_store_edits.h"
#include "store_int.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* A version's list item: its cursor id and its JSON (V: a row of
 * submission_versions or the submission itself, with the same columns). */
#define VERSION_ITEM(V)                                                                            \
    "'ver_' || lpad(" V ".version::text, 26, '0') AS id, "                                         \
    "(jsonb_build_object('version', " V ".version, 'formVersion', " V ".form_version, "            \
    "  'data', " V ".data, 'createdAt', fs_ts(" V ".created_at)) "                                 \
    "  || CASE WHEN " V ".ending IS NULL THEN '{}'::jsonb "                                        \
    "     ELSE jsonb_build_object('ending', " V ".ending) END)::text AS json"

const fs_stmt fs_stmts_edits[] = {
    /* 1 submission id, 2 form id, 3 hours: data, open ('t'/'f') */
    {"fs_edit_get", 3,
     "SELECT s.data::text, (s.created_at + make_interval(hours => %s::integer) > now())::text "
     "FROM submissions s WHERE s.id = %s AND s.form_id = %s"},

    /* 1 submission id, 2 form, 3 data, 4 uniqueBy hash, 5 ending, 6 form
     * version, 7 hours, 8 event id, 9 what the server calculated from the
     * new answers (or NULL: sql/0062): outcome, JSON */
    {"fs_edit_save", 9,
     "SELECT outcome, json FROM fs_submission_edit(%s, %s, %s::jsonb, %s, %s, %s::integer, "
     "  %s::integer, %s, %s::jsonb)"},

    /* 1 submission, 2 form, 3 user, 4-5 after version (or NULL), 6 limit
     * + 1, 7-9 submission, form, user again: (id, json) newest first */
    {"fs_versions_list", 9,
     "SELECT l.id, l.json FROM ("
     "  SELECT " VERSION_ITEM(
         "v") ", v.version AS n FROM submission_versions v "
              "  JOIN submissions s ON s.id = v.submission_id "
              "  WHERE v.submission_id = %s AND s.form_id = %s AND s.user_id = %s "
              "  UNION ALL "
              "  SELECT " VERSION_ITEM(
                  "o") ", o.version AS n FROM (SELECT s.id, 1 AS version, "
                       "    s.form_version, s.data, s.ending, s.created_at FROM submissions s "
                       "    WHERE s.id = %s AND s.form_id = %s AND s.user_id = %s AND NOT EXISTS "
                       "      (SELECT 1 FROM submission_versions x WHERE x.submission_id = s.id)) o"
                       ") l WHERE (%s::integer IS NULL OR l.n < %s::integer) ORDER BY l.n DESC "
                       "LIMIT %s::integer"},

    {NULL, 0, NULL}};

fs_error *fs_store_edit_get(fs_store *st, const char *sid, const char *form_id, int hours,
                            const char **data, int *open) {
    const char *args[] = {FS_ARG_INT(st->pool, hours), sid, form_id};
    fs_rows *rs;
    *data = NULL;
    *open = 0;
    fs_error *e = FS_RUN(st, "fs_edit_get", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *data = FS_CELL(rs, 0, 0);
    *open = FS_CELL(rs, 0, 1) && !strcmp(FS_CELL(rs, 0, 1), "true");
    return NULL;
}

fs_error *fs_store_edit_save(fs_store *st, const fs_edit *in, fs_edit_outcome *out,
                             const char **json) {
    const char *args[] = {in->sid,
                          in->form_id,
                          in->data_json,
                          in->uniq_hash,
                          in->ending,
                          in->form_version,
                          FS_ARG_INT(st->pool, in->hours),
                          in->event_id,
                          in->calculated};
    fs_rows *rs;
    *out = FS_EDIT_GONE;
    *json = NULL;
    fs_error *e = FS_RUN(st, "fs_edit_save", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    if (!o)
        return fs_error_internal(st->pool, "fs_submission_edit answered NULL");
    if (!strcmp(o, "ok")) {
        *out = FS_EDIT_OK;
        *json = FS_CELL(rs, 0, 1);
    } else if (!strcmp(o, "stale")) {
        *out = FS_EDIT_STALE;
    } else if (!strcmp(o, "expired")) {
        *out = FS_EDIT_EXPIRED;
    } else if (!strcmp(o, "duplicate")) {
        *out = FS_EDIT_DUPLICATE;
    } else if (strcmp(o, "gone")) {
        return fs_error_internal(st->pool, "fs_submission_edit answered %s", o);
    }
    return NULL;
}

fs_error *fs_store_versions_list(fs_store *st, const char *sid, const char *form_id,
                                 const char *user_id, const char *after, int limit,
                                 fs_list_page *out) {
    /* the version in the cursor's id: its 26 digits */
    const char *n = after && strlen(after) > 4 ? apr_itoa(st->pool, atoi(after + 4)) : NULL;
    const char *args[] = {
        sid, form_id, user_id, sid, form_id, user_id, n, n, FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_versions_list", args, limit, out);
}
