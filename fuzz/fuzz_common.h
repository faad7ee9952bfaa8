/* Shared by the fuzz targets: one APR pool cleared per input, and a form
 * with every field type so parsed bodies run through coercion, validation
 * and the page renderer too; and the same form in pages, so that they
 * also run through a step (the merge, the page's errors, its page) and
 * the posted state (_state) is opened. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <apr_general.h>
#include <apr_pools.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs_coerce.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_pages.h"
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

/* FUZZ_FIELDS with page fields: the conditional textarea on the page
 * after its select, the hidden field on the first page */
static const char FUZZ_PAGED[] =
    "[{\"key\":\"p0\",\"type\":\"page\",\"label\":\"P0\"},"
    "{\"key\":\"name\",\"type\":\"text\",\"required\":true},{\"key\":\"h\",\"type\":\"hidden\"},"
    "{\"key\":\"ok\",\"type\":\"boolean\"},"
    "{\"key\":\"s\",\"type\":\"select\",\"options\":[{\"value\":\"a\",\"label\":\"A\"}]},"
    "{\"key\":\"p1\",\"type\":\"page\",\"label\":\"P1\",\"description\":\"D\"},"
    "{\"key\":\"mail\",\"type\":\"email\"},{\"key\":\"r\",\"type\":\"rating\"},"
    "{\"key\":\"t\",\"type\":\"textarea\",\"visibleIf\":{\"field\":\"s\",\"equals\":\"a\"}},"
    "{\"key\":\"p2\",\"type\":\"page\",\"label\":\"P2\"}]";

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
    /* a step of the same answers on the form in pages: page 1 merged into
     * the answers of page 0, checked, shown; the posted state opened */
    fs_fieldset *ps = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FUZZ_PAGED));
    fs_coerce(p, ps, pairs, 1, &o, &hp);
    json_object *all = fs_pages_merge(p, ps, 0, NULL, o);
    all = fs_pages_merge(p, ps, 1, all, o);
    fs_error *pe = fs_pages_errors_on(p, ps, 1, fs_validate(p, ps, all));
    fs_pages_drop_inapplicable(ps, 1, all);
    fs_page pp = {"T", "D", ps, all, pe, "https://x/f/frm_1", NULL, 1, NULL, NULL, NULL, NULL, 0};
    pp.page = fs_pages_step(ps, 0, 1, all) >= 0 ? 1 : 0;
    pp.has_back = 1;
    pp.state = fs_pages_answers_text(p, all);
    if (!fs_html_form(p, &pp))
        abort();
    for (int i = 0; pairs && i < pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
        fs_pagestate st;
        if (!strcmp(pr->name, FS_STATE_NAME) &&
            fs_pagestate_open(p, (const unsigned char *)"0123456789abcdef", 16, "frm_1", "",
                              pr->value, 0, &st) == FS_PAGESTATE_OK)
            abort(); /* nothing but the server's seal opens */
    }
}
#endif
