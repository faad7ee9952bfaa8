/* config_check: checks of directive values beyond a range (config_check.h). */
#include "runtime/config_check.h"
#include "runtime/config.h"
#include "runtime/log.h"

#include <grp.h>
#include <http_core.h>
#include <http_log.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unixd.h>

#include <apr_lib.h>
#include <apr_strings.h>
#include <strings.h>

/* The checks every URL a directive names gets: no space or control
 * character, a host, a port from 1 to 65535 when one is written. */
static const char *host_why(apr_pool_t *p, const char *url, const apr_uri_t *u,
                            const char *example) {
    for (const char *c = url; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f)
            return "a URL has no space or control character";
    if (!u->hostname || !*u->hostname)
        return apr_pstrcat(p, "the URL needs a host name, e.g. ", example, NULL);
    if (u->port_str) {
        char *end;
        apr_int64_t port = apr_strtoi64(u->port_str, &end, 10);
        if (!*u->port_str || *end || port < 1 || port > 65535)
            return apr_psprintf(p, "the port %s is not one from 1 to 65535", u->port_str);
    }
    return NULL;
}

const char *formsvc_url_host_why(apr_pool_t *p, const char *url, const apr_uri_t *u) {
    return host_why(p, url, u, "https://verify.example.com/siteverify");
}

const char *formsvc_smtp_url_why(apr_pool_t *p, const char *url) {
    apr_uri_t u;
    if (apr_uri_parse(p, url, &u) != APR_SUCCESS || !u.scheme ||
        (strcasecmp(u.scheme, "smtp") && strcasecmp(u.scheme, "smtps")))
        return "the URL is smtp://host[:port] or smtps://host[:port]";
    return host_why(p, url, &u, "smtp://relay.example.com:25");
}

const char *formsvc_base_url_why(apr_pool_t *p, const char *url, const apr_uri_t *u) {
    const char *why = host_why(p, url, u, "https://forms.example.com");
    if (why)
        return why;
    const char *path = u->path ? u->path : "";
    apr_size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--; /* trailing slashes are dropped */
    for (apr_size_t i = 0; i < n;) {
        /* path[i] is '/': the segment after it */
        apr_size_t j = i + 1;
        while (j < n && path[j] != '/')
            j++;
        apr_size_t len = j - i - 1;
        if (len == 0 || (len == 1 && path[i + 1] == '.') ||
            (len == 2 && path[i + 1] == '.' && path[i + 2] == '.'))
            return "its path must have no empty, \".\" or \"..\" segment (httpd normalises "
                   "the requests' paths, which would then never match it)";
        i = j;
    }
    if (memchr(path, '%', n))
        return "its path must have no %-escape (write the characters themselves; httpd "
               "compares decoded paths)";
    return NULL;
}

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

void formsvc_upload_dir_check(apr_pool_t *ptemp, server_rec *s) {
    /* once per start (not in the first of two configuration passes), and
     * under configtest */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG &&
        ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_NORMAL)
        return;
    if (geteuid() != 0)
        return; /* the children run as this user, who set the directory */
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
