/* Shared by the fuzz targets: one APR pool cleared per input, and a form
 * with every field type so parsed bodies run through coercion, validation
 * and the page renderer too. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <apr_general.h>
#include <apr_pools.h>
#include <stdint.h>
#include <stdlib.h>

#include "fs_coerce.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_urlencoded.h"
#include "fs_validate.h"

static apr_pool_t *fuzz_pool;

static const char FUZZ_FIELDS[] =
    "[{\"key\":\"name\",\"type\":\"text\",\"required\":true,\"validation\":{\"pattern\":\"^[A-Z]\"}"
    "},"
    "{\"key\":\"mail\",\"type\":\"email\"},{\"key\":\"site\",\"type\":\"url\"},"
    "{\"key\":\"tel\",\"type\":\"tel\"},{\"key\":\"n\",\"type\":\"number\"},"
    "{\"key\":\"i\",\"type\":\"integer\"},{\"key\":\"ok\",\"type\":\"boolean\"},"
    "{\"key\":\"d\",\"type\":\"date\"},{\"key\":\"dt\",\"type\":\"datetime\"},"
    "{\"key\":\"s\",\"type\":\"select\",\"options\":[{\"value\":\"a\",\"label\":\"A\"},{\"value\":"
    "2,\"label\":\"B\"}]},"
    "{\"key\":\"m\",\"type\":\"multiselect\",\"options\":[{\"value\":\"a\",\"label\":\"A\"}]},"
    "{\"key\":\"r\",\"type\":\"rating\"},{\"key\":\"h\",\"type\":\"hidden\"},"
    "{\"key\":\"t\",\"type\":\"textarea\",\"visibleIf\":{\"field\":\"s\",\"equals\":\"a\"}}]";

static void fuzz_init(void) {
    if (!fuzz_pool) {
        apr_initialize();
        apr_pool_create(&fuzz_pool, NULL);
    }
}

/* Coerce, validate and render what a parser produced. */
static void fuzz_downstream(apr_pool_t *p, apr_array_header_t *pairs) {
    fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FUZZ_FIELDS));
    json_object *o;
    int hp;
    fs_coerce(p, fs, pairs, 1, &o, &hp);
    fs_error *e = fs_validate(p, fs, o);
    fs_page pg = {"T", "D", fs, o, e, "https://x/f/frm_1", NULL, 1, NULL, NULL, NULL, NULL, 0};
    const char *h = fs_html_form(p, &pg);
    if (!h)
        abort();
}
#endif
