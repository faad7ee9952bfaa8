/* i18n: the pages' language files, loaded at startup (see i18n.h). */
#include "http/i18n.h"
#include "runtime/config.h"
#include "runtime/config_global.h"
#include "runtime/log.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* Loaded in check_config (so configtest fails on a bad directory) into pconf and only read
 * afterwards: children inherit it; a restart loads it again. */
static fs_locales *locales;

int formsvc_locale_load(apr_pool_t *pconf, server_rec *s) {
    const char *dir = formsvc_conf(s)->global->locale_dir;
    fs_locales *ls;
    const char *why = fs_locales_load(pconf, dir, &ls);
    if (why) {
        locales = NULL;
        FORMSVC_SLOG(s, APLOG_CRIT, 0, 03601,
                     "the pages' language files cannot be loaded: %s (FormsvcLocaleDir names "
                     "their directory; make install and the package put them in " FS_LOCALE_DIR ")",
                     why);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    locales = ls;
    return OK;
}

static void vary(request_rec *r) {
    apr_table_mergen(r->headers_out, "Vary", "Accept-Language");
}

const fs_locale *formsvc_locale_negotiated(request_rec *r) {
    vary(r);
    return fs_locales_get(
        locales, fs_locale_negotiate(r->pool, apr_table_get(r->headers_in, "Accept-Language")));
}

const fs_locale *formsvc_locale_for(request_rec *r, const char *setting) {
    if (setting && !strcmp(setting, "auto"))
        return formsvc_locale_negotiated(r);
    return fs_locales_get(locales, fs_locale_match(setting));
}

const char *formsvc_locale_cache_key(request_rec *r) {
    const char *c = fs_locale_negotiate(r->pool, apr_table_get(r->headers_in, "Accept-Language"));
    return c ? c : "-";
}
