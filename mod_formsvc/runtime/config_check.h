/* config_check: checks of directive values that need more than a range,
 * made when the directive is read so that `apache2 -t` refuses what could
 * not serve (docs/configuration.md). */
#ifndef FORMSVC_CONFIG_CHECK_H
#define FORMSVC_CONFIG_CHECK_H

#include <apr_pools.h>
#include <apr_uri.h>

/* NULL when url (parsed into u) can be the service's base URL, else why
 * not: a host is needed, a port from 1 to 65535, no space or control
 * character (it goes into Location and Link headers), and a path httpd's
 * own normalisation leaves as it is (no "%", no empty, "." or ".."
 * segment): the module compares it with the request's decoded,
 * normalised path, which could never match another spelling. */
const char *formsvc_base_url_why(apr_pool_t *p, const char *url, const apr_uri_t *u);

/* NULL when url (parsed into u) has a host, a port from 1 to 65535 when
 * one is written and no space or control character; else why not. */
const char *formsvc_url_host_why(apr_pool_t *p, const char *url, const apr_uri_t *u);

/* NULL when url can be FormsvcMailTransport smtp's relay: smtp:// or
 * smtps://, a host, a port from 1 to 65535 when one is written, no space;
 * else why not (libcurl would fail every delivery). */
const char *formsvc_smtp_url_why(apr_pool_t *p, const char *url);

#endif
