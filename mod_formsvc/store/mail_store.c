/* The store of the mail of submissions (include/fs_store_mail.h): the
 * statements (arguments in order, all text, cast in SQL) and the typed
 * functions that run them. The work is in sql/0028's functions. */
#include "fs_store_mail.h"
#include "store_int.h"

#include <apr_strings.h>

const fs_stmt fs_stmts_mail[] = {
    /* 1 lease (s), 2 batch: jobs, kind, user id, payload */
    {"fs_mail_claim", 2,
     "SELECT jobs, kind, user_id, payload FROM fs_mail_claim(%s::integer, "
     "%s::integer)"},

    /* 1 jobs, 2 user id, 3 messages, 4 unverified cap, 5 verified cap,
     * 6 per address: queued, dropped */
    {"fs_mail_done", 6,
     "SELECT queued::text, dropped::text FROM fs_mail_done(%s, %s, %s, %s::integer, %s::integer, "
     "%s::integer)"},

    /* 1 token hash: email, form title */
    {"fs_notify_confirm", 1,
     "UPDATE notify_recipients n SET status = 'confirmed', confirmed_at = now(), "
     "  token_hash = NULL, token_expires_at = NULL "
     "WHERE n.token_hash = %s AND n.status = 'pending' AND n.listed "
     "  AND n.token_expires_at > now() "
     "RETURNING n.email, (SELECT f.title FROM forms f WHERE f.id = n.form_id)"},

    /* 1 recipient id: email, form title (also when it had unsubscribed) */
    {"fs_notify_unsubscribe", 1,
     "WITH a AS (SELECT %s::text AS id), "
     "u AS (UPDATE notify_recipients SET status = 'unsubscribed', unsubscribed_at = now(), "
     "  token_hash = NULL, token_expires_at = NULL "
     "  WHERE id = (SELECT id FROM a) AND status <> 'unsubscribed' RETURNING id) "
     "SELECT n.email, f.title, "
     "  EXISTS (SELECT 1 FROM asks k WHERE k.form_id = n.form_id)::text "
     "FROM notify_recipients n JOIN forms f ON f.id = n.form_id "
     "WHERE n.id = (SELECT id FROM a)"},

    /* 1 form id, 2 user id: the recipients as a JSON array */
    {"fs_notify_recipients", 2,
     "SELECT COALESCE(json_agg(json_build_object('id', n.id, 'email', n.email, "
     "  'status', n.status, 'listed', n.listed, 'createdAt', fs_ts(n.created_at), "
     "  'confirmedAt', fs_ts(n.confirmed_at), 'unsubscribedAt', fs_ts(n.unsubscribed_at)) "
     "  ORDER BY n.listed DESC, n.email_norm), '[]')::text "
     "FROM notify_recipients n JOIN forms f ON f.id = n.form_id "
     "WHERE n.form_id = %s AND f.user_id = %s"},

    /* 1 user id: notifications sent today */
    {"fs_mail_sent_today", 1,
     "SELECT COALESCE((SELECT sent FROM mail_daily WHERE key = 'notify:' || %s "
     "  AND day = fs_utc_day()), 0)::text"},

    {"fs_mail_sweep", 0, "DELETE FROM mail_daily WHERE day < fs_utc_day() - 1"},

    {NULL, 0, NULL}};

fs_error *fs_store_mail_claim(fs_store *st, int lease, int batch, fs_mail_jobs *out) {
    const char *args[] = {FS_ARG_INT(st->pool, lease), FS_ARG_INT(st->pool, batch)};
    fs_rows *rs;
    out->n = 0;
    out->job = NULL;
    fs_error *e = FS_RUN(st, "fs_mail_claim", args, 4, &rs);
    if (e)
        return e;
    out->job = apr_pcalloc(st->pool, sizeof(*out->job) * (apr_size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        fs_mail_job *j = &out->job[out->n];
        j->jobs = FS_CELL(rs, i, 0);
        j->kind = FS_CELL(rs, i, 1);
        j->user_id = FS_CELL(rs, i, 2);
        j->payload = FS_CELL(rs, i, 3);
        if (j->jobs && j->kind && j->user_id) /* a form deleted meanwhile has no account */
            out->n++;
    }
    return NULL;
}

fs_error *fs_store_mail_done(fs_store *st, const fs_mail_job *j, const char *msgs,
                             const fs_mail_caps *caps, int *queued, int *dropped) {
    const char *args[] = {j->jobs,
                          j->user_id,
                          msgs,
                          FS_ARG_INT(st->pool, caps->unverified),
                          FS_ARG_INT(st->pool, caps->verified),
                          FS_ARG_INT(st->pool, caps->per_address)};
    fs_rows *rs;
    *queued = *dropped = 0;
    fs_error *e = FS_RUN(st, "fs_mail_done", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *queued = fs_cell_int(FS_CELL(rs, 0, 0));
    *dropped = fs_cell_int(FS_CELL(rs, 0, 1));
    return NULL;
}

/* email and title of a statement's one row, NULL when none came back */
static fs_error *email_title(fs_store *st, const char *label, const char *arg, const char **email,
                             const char **title) {
    const char *args[] = {arg};
    fs_rows *rs;
    *email = *title = NULL;
    fs_error *e = FS_RUN(st, label, args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *email = FS_CELL(rs, 0, 0);
    *title = FS_CELL(rs, 0, 1);
    return NULL;
}

fs_error *fs_store_notify_confirm(fs_store *st, const char *token_hash, const char **email,
                                  const char **title) {
    return email_title(st, "fs_notify_confirm", token_hash, email, title);
}

fs_error *fs_store_notify_unsubscribe(fs_store *st, const char *id, const char **email,
                                      const char **title, int *ask) {
    const char *args[] = {id};
    fs_rows *rs;
    *email = *title = NULL;
    *ask = 0;
    fs_error *e = FS_RUN(st, "fs_notify_unsubscribe", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    *email = FS_CELL(rs, 0, 0);
    *title = FS_CELL(rs, 0, 1);
    *ask = FS_CELL(rs, 0, 2) && !strcmp(FS_CELL(rs, 0, 2), "true");
    return NULL;
}

fs_error *fs_store_notify_recipients(fs_store *st, const char *form_id, const char *user_id,
                                     const char **json) {
    const char *args[] = {form_id, user_id};
    return FS_ONE(st, "fs_notify_recipients", args, json);
}

fs_error *fs_store_mail_sent_today(fs_store *st, const char *user_id, int *sent) {
    const char *args[] = {user_id};
    return fs_store_int(st, "fs_mail_sent_today", FS_NARGS(args), args, 0, sent);
}

fs_error *fs_store_mail_sweep(fs_store *st) {
    fs_rows *rs;
    return fs_store_run(st, "fs_mail_sweep", 0, NULL, 0, &rs);
}
