/* fs_link: the body of POST /v1/forms/{id}/links (prefill against the
 * field types, metadata size, expiresAt, maxUses, unknown members) and the
 * token's shape. */
#include "fs_json.h"
#include "fs_link.h"
#include "fs_test.h"

#include <apr_strings.h>

#define FIELDS                                                                                     \
    "[{\"key\":\"name\",\"type\":\"text\",\"required\":true},"                                     \
    "{\"key\":\"email\",\"type\":\"email\"},"                                                      \
    "{\"key\":\"qty\",\"type\":\"integer\",\"validation\":{\"maximum\":10}},"                      \
    "{\"key\":\"why\",\"type\":\"text\",\"visibleIf\":{\"field\":\"qty\",\"equals\":3}},"          \
    "{\"key\":\"src\",\"type\":\"hidden\"}]"

static const apr_time_t NOW = APR_INT64_C(1795000000) * APR_USEC_PER_SEC; /* 2026-11-18 */

/* Parses body against FIELDS: 1 when accepted; verr gets the failures. */
static int parse(apr_pool_t *p, const char *body, fs_error **verr, fs_link_spec *out) {
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
    json_object *o = fs_json_parse_trusted(p, body);
    assert_non_null(o);
    *verr = fs_error_validation(p);
    return fs_link_parse(p, fs, o, NOW, *verr, out);
}

/* "pointer code" of every failure, sorted by the order they were added. */
static const char *failures(apr_pool_t *p, const fs_error *e) {
    const char *s = "";
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        s = apr_pstrcat(p, s, *s ? "," : "", fe->pointer, " ", fe->code, NULL);
    }
    return s;
}

static void accepts(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    fs_link_spec l;
    assert_true(parse(p, "{}", &e, &l));
    assert_string_equal(l.prefill_json, "{}");
    assert_null(l.metadata_json);
    assert_null(l.expires_at);
    assert_int_equal(l.max_uses, 0);
    /* a partial answer: the required name may be missing, a conditional
     * field prefilled without its condition */
    assert_true(
        parse(p,
              "{\"prefill\":{\"email\":\"a@b.org\",\"why\":\"x\",\"src\":\"m\"},"
              "\"metadata\":{\"crm\": [1, \"x\"]},\"expiresAt\":\"2027-01-01T00:00:00+01:00\","
              "\"maxUses\":1000000}",
              &e, &l));
    assert_string_equal(l.metadata_json, "{\"crm\":[1,\"x\"]}");   /* compact */
    assert_string_equal(l.expires_at, "2026-12-31T23:00:00.000Z"); /* UTC */
    assert_int_equal(l.max_uses, 1000000);
    assert_true(parse(p, "{\"metadata\":null,\"expiresAt\":null,\"maxUses\":null,\"prefill\":null}",
                      &e, &l));
    assert_true(parse(p, "{\"metadata\":\"opaque\"}", &e, &l));
    assert_string_equal(l.metadata_json, "\"opaque\"");
}

static void refuses(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    fs_link_spec l;
    assert_false(parse(p,
                       "{\"prefill\":{\"qty\":\"many\",\"email\":\"nope\",\"colour\":1},"
                       "\"maxUses\":0,\"expiresAt\":\"2026-01-01T00:00:00Z\",\"x\":1}",
                       &e, &l));
    assert_string_equal(failures(p, e), "/prefill/colour unknown,/prefill/email format,"
                                        "/prefill/qty type,/expiresAt minimum,/maxUses minimum,"
                                        "/x unknown");
    assert_false(parse(p, "{\"prefill\":{\"qty\":11}}", &e, &l));
    assert_string_equal(failures(p, e), "/prefill/qty maximum");
    assert_false(parse(p, "{\"prefill\":[1]}", &e, &l));
    assert_string_equal(failures(p, e), "/prefill type");
    assert_false(parse(p, "{\"maxUses\":1.5}", &e, &l));
    assert_string_equal(failures(p, e), "/maxUses type");
    assert_false(parse(p, "{\"maxUses\":1000001}", &e, &l));
    assert_string_equal(failures(p, e), "/maxUses maximum");
    assert_false(parse(p, "{\"expiresAt\":\"tomorrow\"}", &e, &l));
    assert_string_equal(failures(p, e), "/expiresAt format");
    /* metadata: 4096 bytes compact is the most */
    char *big = apr_palloc(p, 4200);
    memcpy(big, "{\"metadata\":\"", 13);
    memset(big + 13, 'x', 4094);
    strcpy(big + 13 + 4094, "\"}"); /* the string is 4096 bytes with its quotes */
    assert_true(parse(p, big, &e, &l));
    memset(big + 13, 'x', 4095);
    strcpy(big + 13 + 4095, "\"}");
    assert_false(parse(p, big, &e, &l));
    assert_string_equal(failures(p, e), "/metadata maxLength");
}

static void tokens(void **state) {
    apr_pool_t *p = *state;
    char *t = fs_link_token_new(p);
    assert_non_null(t);
    assert_true(fs_link_token_well_formed(t));
    assert_memory_equal(t, "fsl_", 4);
    assert_string_not_equal(t, fs_link_token_new(p));
    t[10] = t[10] == 'a' ? 'b' : 'a'; /* the checksum notices */
    assert_false(fs_link_token_well_formed(t));
    assert_false(fs_link_token_well_formed("fsl_garbage"));
    assert_false(fs_link_token_well_formed(NULL));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(accepts),
    FS_TEST(refuses),
    FS_TEST(tokens),
};
FS_TEST_MAIN(tests)
