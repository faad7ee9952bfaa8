/* config_check: checks of directive values beyond a range (config_check.h). */
#include "runtime/config_check.h"

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
