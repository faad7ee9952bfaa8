/* fs_mcp_res: formsvc:// URIs, resource templates and prompts. */
#include "fs_json.h"
#include "fs_mcp_res.h"
#include "fs_test.h"

#include <apr_strings.h>

static void uris(void **state) {
    apr_pool_t *p = *state;
    const char *id;
    assert_int_equal(fs_mcp_res_parse(p, "formsvc://forms/frm_a1", &id), FS_MCP_RES_FORM);
    assert_string_equal(id, "frm_a1");
    assert_int_equal(fs_mcp_res_parse(p, "formsvc://forms/frm_a1/schema", &id), FS_MCP_RES_SCHEMA);
    assert_int_equal(fs_mcp_res_parse(p, "formsvc://forms/frm_a1/submissions", &id),
                     FS_MCP_RES_SUBMISSIONS);
    assert_string_equal(fs_mcp_res_uri(p, FS_MCP_RES_SUBMISSIONS, "frm_x"),
                        "formsvc://forms/frm_x/submissions");
    assert_string_equal(fs_mcp_res_uri(p, FS_MCP_RES_FORM, "frm_x"), "formsvc://forms/frm_x");
    static const char *const bad[] = {"formsvc://forms/",
                                      "formsvc://forms/frm_a/",
                                      "formsvc://forms/frm_a/../b",
                                      "formsvc://forms/frm_a?x=1",
                                      "formsvc://forms/frm_a#f",
                                      "formsvc://forms/frm_a/schema/x",
                                      "formsvc://forms/a%2fb",
                                      "https://forms/frm_a",
                                      "formsvc://form/frm_a",
                                      "",
                                      NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(fs_mcp_res_parse(p, bad[i], &id), FS_MCP_RES_NONE);
        assert_null(id);
    }
    assert_int_equal(fs_mcp_res_parse(p, NULL, &id), FS_MCP_RES_NONE);
    char longid[260];
    memset(longid, 'a', 201);
    longid[201] = '\0';
    assert_int_equal(fs_mcp_res_parse(p, apr_pstrcat(p, "formsvc://forms/", longid, NULL), &id),
                     FS_MCP_RES_NONE);
    longid[200] = '\0';
    assert_int_equal(fs_mcp_res_parse(p, apr_pstrcat(p, "formsvc://forms/", longid, NULL), &id),
                     FS_MCP_RES_FORM);
}

static void lists(void **state) {
    apr_pool_t *p = *state;
    json_object *t = fs_json_get(fs_mcp_res_templates(p), "resourceTemplates");
    assert_int_equal(json_object_array_length(t), 3);
    json_object *pr = fs_json_get(fs_mcp_prompts_list(p), "prompts");
    assert_int_equal(json_object_array_length(pr), 2);
    assert_string_equal(
        json_object_get_string(fs_json_get(json_object_array_get_idx(pr, 0), "name")),
        "design_form");
}

static json_object *args(apr_pool_t *p, const char *s) {
    return s ? fs_json_parse_trusted(p, s) : NULL;
}

static void prompts(void **state) {
    apr_pool_t *p = *state;
    const char *text, *form, *err;
    assert_int_equal(
        fs_mcp_prompt_get(p, "design_form", args(p, "{\"goal\":\"lunch\"}"), &text, &form, &err),
        FS_MCP_PROMPT_DESIGN);
    assert_non_null(strstr(text, "lunch"));
    assert_null(form);
    assert_int_equal(fs_mcp_prompt_get(p, "summarise_answers",
                                       args(p, "{\"formId\":\"frm_a\",\"focus\":\"x\"}"), &text,
                                       &form, &err),
                     FS_MCP_PROMPT_SUMMARISE);
    assert_string_equal(form, "frm_a");
    assert_non_null(strstr(text, "untrusted"));
    /* refused: unknown prompt or argument, missing, empty or non-string value, bad id */
    static const struct {
        const char *name, *args;
    } bad[] = {{"nope", "{}"},
               {NULL, "{}"},
               {"design_form", NULL},
               {"design_form", "{}"},
               {"design_form", "{\"goal\":\"\"}"},
               {"design_form", "{\"goal\":1}"},
               {"design_form", "{\"goal\":\"g\",\"x\":\"y\"}"},
               {"design_form", "[1]"},
               {"summarise_answers", "{\"formId\":\"frm_a/../b\"}"},
               {"summarise_answers", "{\"focus\":\"x\"}"},
               {NULL, NULL}};
    for (int i = 0; bad[i].name || bad[i].args; i++) {
        assert_int_equal(
            fs_mcp_prompt_get(p, bad[i].name, args(p, bad[i].args), &text, &form, &err),
            FS_MCP_PROMPT_NONE);
        assert_non_null(err);
    }
    char *big = apr_palloc(p, 2100);
    memset(big, 'x', 2050);
    big[2050] = '\0';
    assert_int_equal(fs_mcp_prompt_get(p, "design_form",
                                       args(p, apr_psprintf(p, "{\"goal\":\"%s\"}", big)), &text,
                                       &form, &err),
                     FS_MCP_PROMPT_NONE);
}

/* What a credential may be told of: what it may read. */
static void readable(void **state) {
    apr_pool_t *p = *state;
    const char *bad;
    fs_scopes *full = fs_scopes_full(p);
    fs_scopes *forms = fs_scopes_from_string(p, "forms:read", &bad);
    fs_scopes *subs = fs_scopes_from_string(p, "submissions:write", &bad);
    fs_scopes *one = fs_scopes_from_string(
        p, "forms:read submissions:read form:frm_01M8FC2F37H66SKVFESJ37Y71S", &bad);
    assert_non_null(one);
    fs_scopes *acct = fs_scopes_from_string(p, "account:read webhooks:read", &bad);
    assert_true(
        fs_mcp_res_readable(p, full, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB/submissions"));
    assert_true(fs_mcp_res_readable(p, forms, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB"));
    assert_true(
        fs_mcp_res_readable(p, forms, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB/schema"));
    assert_false(fs_mcp_res_readable(p, forms,
                                     "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB/submissions"));
    assert_true(
        fs_mcp_res_readable(p, subs, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB/submissions"));
    assert_false(fs_mcp_res_readable(p, subs, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB"));
    assert_true(
        fs_mcp_res_readable(p, one, "formsvc://forms/frm_01M8FC2F37H66SKVFESJ37Y71S/submissions"));
    assert_true(fs_mcp_res_readable(p, one, "formsvc://forms/frm_01M8FC2F37H66SKVFESJ37Y71S"));
    assert_false(
        fs_mcp_res_readable(p, one, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB/submissions"));
    assert_false(fs_mcp_res_readable(p, one, "formsvc://forms/frm_01M8FC2F3EXX23PBDT40N8C0XB"));
    assert_false(
        fs_mcp_res_readable(p, acct, "formsvc://forms/frm_01M8FC2F37H66SKVFESJ37Y71S/submissions"));
    assert_false(fs_mcp_res_readable(p, acct, "formsvc://forms/frm_01M8FC2F37H66SKVFESJ37Y71S"));
    assert_false(fs_mcp_res_readable(p, full, "formsvc://forms/"));
    assert_false(fs_mcp_res_readable(p, full, "https://example.com/"));
    assert_false(fs_mcp_res_readable(p, NULL, "formsvc://forms/frm_01M8FC2F37H66SKVFESJ37Y71S"));
}

static const struct CMUnitTest tests[] = {FS_TEST(uris), FS_TEST(lists), FS_TEST(prompts),
                                          FS_TEST(readable)};
FS_TEST_MAIN(tests)
