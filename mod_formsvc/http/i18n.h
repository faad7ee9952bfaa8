/* i18n: the language files of the public pages (fs_locale.h), loaded
 * once in check_config from FormsvcLocaleDir and shared read-only by every
 * thread of every child; choosing a page's language for a request. */
#ifndef FORMSVC_I18N_H
#define FORMSVC_I18N_H

#include <httpd.h>
#include <http_config.h>

#include "fs_locale.h"

/* Loads the files of FormsvcLocaleDir (runtime/config_global.h) into pconf; runs in check_config,
 * so that configtest fails on a missing or broken one as the start would (FS03601). */
int formsvc_locale_load(apr_pool_t *pconf, server_rec *s);

/* The language of a page of a form whose settings.locale is setting
 * (NULL: none, English). "auto" follows Accept-Language and adds
 * Accept-Language to the answer's Vary. Never NULL after startup. */
const fs_locale *formsvc_locale_for(request_rec *r, const char *setting);

/* The language Accept-Language picks, English when none fits: for pages
 * that have no form to ask (the database away, no copy of the form).
 * Adds Accept-Language to Vary. */
const fs_locale *formsvc_locale_negotiated(request_rec *r);

/* The code Accept-Language picks ("-" for none): a key part of the
 * cached pages, so that "auto" forms are cached per language. */
const char *formsvc_locale_cache_key(request_rec *r);

#endif
