/* user_access: whether httpd's User may make files in
 * FormsvcUploadTempDir and run the sendmail program (user_access.h). */
#include "runtime/user_access.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"

#include <apr_strings.h>
#include <grp.h>
#include <http_core.h>
#include <http_log.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unixd.h>

APLOG_USE_MODULE(formsvc);

/* whether user uid (primary group gid, name) holds the permission bits
 * want (owner's: S_IWUSR, S_IXUSR; shifted for group and others) on a
 * file of st */
static int may(apr_pool_t *p, const struct stat *st, uid_t uid, gid_t gid, const char *name,
               mode_t want) {
    if (uid == 0)
        return 1;
    if (st->st_uid == uid)
        return (st->st_mode & want) == want;
    int in_group = st->st_gid == gid;
    if (!in_group && name) {
        int n = 64;
        gid_t *groups = apr_palloc(p, sizeof(gid_t) * (apr_size_t)n);
        if (getgrouplist(name, gid, groups, &n) < 0) {
            groups = apr_palloc(p, sizeof(gid_t) * (apr_size_t)n);
            if (getgrouplist(name, gid, groups, &n) < 0)
                n = 0;
        }
        for (int i = 0; i < n && !in_group; i++)
            in_group = groups[i] == st->st_gid;
    }
    return (st->st_mode & (in_group ? want >> 3 : want >> 6)) == (in_group ? want >> 3 : want >> 6);
}

/* whether the user may make files in dir: search every directory above
 * it, write and search dir */
static int may_make_in(apr_pool_t *p, const char *dir, uid_t uid, gid_t gid, const char *name) {
    struct stat st;
    if (stat(dir, &st) != 0 || !may(p, &st, uid, gid, name, S_IWUSR | S_IXUSR))
        return 0;
    char *up = apr_pstrdup(p, dir);
    for (char *slash = strrchr(up, '/'); slash && slash > up; slash = strrchr(up, '/')) {
        *slash = '\0';
        if (stat(up, &st) != 0 || !may(p, &st, uid, gid, name, S_IXUSR))
            return 0;
    }
    return 1;
}

/* once per start (not in the first of two configuration passes), and
 * under configtest; only when root starts httpd (else the children run
 * as the user who set things up) */
static int time_to_say(void) {
    return !(ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG &&
             ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_NORMAL) &&
           geteuid() == 0;
}

void formsvc_sendmail_check(apr_pool_t *ptemp, server_rec *s) {
    if (!time_to_say())
        return;
    for (server_rec *sp = s; sp; sp = sp->next) {
        const formsvc_acct *a = formsvc_conf(sp)->acct;
        char **argv;
        struct stat st;
        if (a->mail != FORMSVC_MAIL_SENDMAIL || !a->mail_target ||
            apr_tokenize_to_argv(a->mail_target, &argv, ptemp) != APR_SUCCESS || !argv[0] ||
            stat(argv[0], &st) != 0)
            continue; /* the directive checked it */
        uid_t uid = ap_unixd_config.user_id;
        gid_t gid = ap_unixd_config.group_id;
        const char *name = ap_unixd_config.user_name;
        int ok = may(ptemp, &st, uid, gid, name, S_IXUSR);
        char *up = apr_pstrdup(ptemp, argv[0]);
        for (char *slash = strrchr(up, '/'); ok && slash && slash > up; slash = strrchr(up, '/')) {
            *slash = '\0';
            ok = stat(up, &st) == 0 && may(ptemp, &st, uid, gid, name, S_IXUSR);
        }
        if (!ok)
            FORMSVC_SLOG(sp, APLOG_WARNING, 0, 00343,
                         "FormsvcMailTransport sendmail: %s cannot be run by httpd's User %s: "
                         "every mail would fail; give that user the right to run it (chmod "
                         "o+x, or its group) or use FormsvcMailTransport smtp",
                         argv[0], name ? name : "?");
    }
}

void formsvc_upload_dir_check(apr_pool_t *ptemp, server_rec *s) {
    if (!time_to_say())
        return;
    const char *dir = formsvc_conf(s)->global->upload_tmp_dir;
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return; /* the directive checked it; the default is TMPDIR */
    if (may_make_in(ptemp, dir, ap_unixd_config.user_id, ap_unixd_config.group_id,
                    ap_unixd_config.user_name))
        return;
    FORMSVC_SLOG(s, APLOG_WARNING, 0, 00341,
                 "FormsvcUploadTempDir %s cannot be written by httpd's User %s: uploads larger "
                 "than memory holds and XLSX exports will be answered 503; give the directory "
                 "to that user (chown) or name another",
                 dir, ap_unixd_config.user_name ? ap_unixd_config.user_name : "?");
}
