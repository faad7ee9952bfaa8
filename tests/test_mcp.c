/* fs_mcp: JSON-RPC classification, protocol versions, the tool table and
 * the mapping of tool arguments onto REST requests. */
#include "fs_json.h"
#include "fs_mcp.h"
#include "fs_test.h"

#include <apr_strings.h>

static fs_rpc_msg parse(apr_pool_t *p, const char *s) {
    fs_rpc_msg m;
    fs_rpc_parse(p, s, strlen(s), &m);
    return m;
}

static void rpc_requests(void **state) {
    apr_pool_t *p = *state;
    fs_rpc_msg m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
    assert_int_equal(m.kind, FS_RPC_REQUEST);
    assert_string_equal(m.method, "ping");
    assert_int_equal(json_object_get_int(m.id), 7);
    m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"ping\"}");
    assert_int_equal(m.kind, FS_RPC_REQUEST);
    assert_string_equal(json_object_to_json_string(m.id), "9223372036854775807");
    m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775807,\"method\":\"ping\"}");
    assert_int_equal(m.kind, FS_RPC_REQUEST);
    assert_string_equal(json_object_to_json_string(m.id), "-9223372036854775807");
    assert_true(json_object_is_type(m.params, json_type_object));

    m = parse(
        p,
        "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
    assert_int_equal(m.kind, FS_RPC_REQUEST);
    assert_string_equal(json_object_get_string(m.id), "a");
    assert_string_equal(json_object_get_string(fs_json_get(m.params, "name")), "x");

    m = parse(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assert_int_equal(m.kind, FS_RPC_NOTIFICATION);
    /* a notification is never answered, whatever its params */
    m = parse(p, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[1]}");
    assert_int_equal(m.kind, FS_RPC_NOTIFICATION);

    m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
    assert_int_equal(m.kind, FS_RPC_RESPONSE);
    assert_non_null(m.result);
    assert_null(m.error);
    m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1,\"message\":\"m\"}}");
    assert_int_equal(m.kind, FS_RPC_RESPONSE);
    assert_null(m.result);
    assert_non_null(m.error);
    /* a null result is no result: taken as an error */
    m = parse(p, "{\"jsonrpc\":\"2.0\",\"id\":\"mrq_1\",\"result\":null}");
    assert_int_equal(m.kind, FS_RPC_RESPONSE);
    assert_null(m.result);
    assert_non_null(m.error);
}

/* The requestedSchema of an elicitation made from an ask's schema. */
static void elicit_schema(void **state) {
    apr_pool_t *p = *state;
    const char *why;
    json_object *in = fs_json_parse_trusted(
        p, "{\"title\":\"Deploy?\",\"type\":\"object\",\"additionalProperties\":false,"
           "\"properties\":{\"decision\":{\"title\":\"Decision\",\"enum\":[\"approve\",\"reject\"],"
           "\"$comment\":\"x\"},\"comment\":{\"type\":\"string\",\"maxLength\":2000,"
           "\"description\":\"Why\"},\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
           "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9},"
           "\"ok\":{\"type\":\"boolean\"}},\"required\":[\"decision\"]}");
    json_object *out = fs_mcp_elicit_schema(p, in, &why);
    assert_non_null(out);
    assert_null(why);
    assert_string_equal(
        fs_json_str(p, out),
        "{\"type\":\"object\",\"properties\":{"
        "\"decision\":{\"title\":\"Decision\",\"type\":\"string\","
        "\"enum\":[\"approve\",\"reject\"]},"
        "\"comment\":{\"description\":\"Why\",\"type\":\"string\",\"maxLength\":2000},"
        "\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
        "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9},"
        "\"ok\":{\"type\":\"boolean\"}},\"required\":[\"decision\"]}");
    /* a multiple choice does not fit */
    in = fs_json_parse_trusted(p, "{\"properties\":{\"a\":{\"type\":\"string\"},\"tags\":{"
                                  "\"type\":\"array\",\"items\":{\"enum\":[\"x\"]}}}}");
    assert_null(fs_mcp_elicit_schema(p, in, &why));
    assert_non_null(strstr(why, "tags"));
    assert_null(fs_mcp_elicit_schema(p, fs_json_parse_trusted(p, "{}"), &why));
    assert_non_null(why);
}

static void expect_bad(apr_pool_t *p, const char *s, int code, int with_id) {
    fs_rpc_msg m = parse(p, s);
    if (m.kind != FS_RPC_BAD || m.code != code || (with_id != (m.id != NULL)))
        fail_msg("%s: kind %d code %d id %p", s, m.kind, m.code, (void *)m.id);
    assert_non_null(m.message);
}

static void rpc_errors(void **state) {
    apr_pool_t *p = *state;
    expect_bad(p, "", FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", FS_RPC_PARSE_ERROR, 0);
    expect_bad(p, "{'jsonrpc':'2.0'}", FS_RPC_PARSE_ERROR, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", FS_RPC_PARSE_ERROR,
               0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\u0000\"}", FS_RPC_PARSE_ERROR, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x", FS_RPC_PARSE_ERROR, 0);
    expect_bad(p, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", FS_RPC_INVALID_REQUEST,
               0);
    expect_bad(p, "[]", FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "\"ping\"", FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "null", FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"id\":1,\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST, 1);
    expect_bad(p, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST, 1);
    expect_bad(p, "{\"jsonrpc\":2,\"id\":1,\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST, 1);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", FS_RPC_INVALID_REQUEST, 1);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1}", FS_RPC_INVALID_REQUEST, 1);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST,
               0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", FS_RPC_INVALID_REQUEST,
               0);
    /* integers that would not come back as sent */
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"ping\"}",
               FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\"ping\"}",
               FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775809,\"method\":\"ping\"}",
               FS_RPC_INVALID_REQUEST, 0);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}",
               FS_RPC_INVALID_PARAMS, 1);
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":null}",
               FS_RPC_INVALID_PARAMS, 1);
    /* a result without an id is no response to anything */
    expect_bad(p, "{\"jsonrpc\":\"2.0\",\"result\":{}}", FS_RPC_INVALID_REQUEST, 0);
}

static void rpc_answers(void **state) {
    apr_pool_t *p = *state;
    json_object *id = fs_json_own(p, json_object_new_string("q"));
    assert_string_equal(fs_json_str(p, fs_rpc_result(p, id, json_object_new_object())),
                        "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{}}");
    assert_string_equal(fs_json_str(p, fs_rpc_error(p, NULL, FS_RPC_PARSE_ERROR, "bad")),
                        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                        "\"message\":\"bad\"}}");
}

static void versions(void **state) {
    (void)state;
    assert_string_equal(fs_mcp_negotiate("2025-03-26"), "2025-03-26");
    assert_string_equal(fs_mcp_negotiate("2025-06-18"), "2025-06-18");
    assert_string_equal(fs_mcp_negotiate("2099-01-01"), "2025-06-18");
    assert_string_equal(fs_mcp_negotiate(NULL), "2025-06-18");
    assert_true(fs_mcp_version_supported("2024-11-05"));
    assert_false(fs_mcp_version_supported("2025-06-18 "));
    assert_false(fs_mcp_version_supported(NULL));
}

/* Every tool: a valid object schema that names each argument the mapping
 * uses; path arguments required; unique names. */
static void tool_table(void **state) {
    apr_pool_t *p = *state;
    int n = 0;
    for (const fs_mcp_tool *t = fs_mcp_tools; t->name; t++, n++) {
        json_object *s = fs_json_parse_trusted(p, t->input_schema);
        if (!s)
            fail_msg("%s: input schema is not JSON", t->name);
        assert_string_equal(json_object_get_string(fs_json_get(s, "type")), "object");
        json_object *o = fs_json_parse_trusted(p, t->output_schema);
        if (!o)
            fail_msg("%s: output schema is not JSON", t->name);
        assert_string_equal(json_object_get_string(fs_json_get(o, "type")), "object");
        json_object *props = fs_json_get(s, "properties"), *req = fs_json_get(s, "required");
        assert_non_null(props);
        assert_non_null(req);
        assert_ptr_equal(fs_mcp_tool_find(t->name), t);
        assert_true(t->path[0] == '/');
        assert_true(!strcmp(t->method, "GET") || !strcmp(t->method, "POST") ||
                    !strcmp(t->method, "PATCH") || !strcmp(t->method, "PUT") ||
                    !strcmp(t->method, "DELETE"));
        for (const char *c = strchr(t->path, '{'); c; c = strchr(c + 1, '{')) {
            const char *name = apr_pstrndup(p, c + 1, (apr_size_t)(strchr(c, '}') - c - 1));
            if (!fs_json_get(props, name))
                fail_msg("%s: path argument %s not in the schema", t->name, name);
            int found = 0;
            for (size_t i = 0; i < json_object_array_length(req); i++)
                found |= !strcmp(json_object_get_string(json_object_array_get_idx(req, i)), name);
            if (!found)
                fail_msg("%s: path argument %s not required", t->name, name);
        }
        if (t->query) {
            char *q = apr_pstrdup(p, t->query), *last;
            for (char *a = apr_strtok(q, " ", &last); a; a = apr_strtok(NULL, " ", &last)) {
                *strchr(a, ':') = '\0';
                if (!fs_json_get(props, a))
                    fail_msg("%s: query argument %s not in the schema", t->name, a);
            }
        }
        assert_int_equal(t->if_match, fs_json_get(props, "ifMatchVersion") != NULL);
        if (!t->body && !t->query) { /* only path and control arguments */
            json_object_object_foreach(props, k, v) {
                (void)v;
                const char *local = fs_mcp_tool_extra_of(t)->local_arg;
                if (strcmp(k, "ifMatchVersion") && !(local && !strcmp(k, local)) &&
                    !strstr(t->path, apr_pstrcat(p, "{", k, "}", NULL)))
                    fail_msg("%s: argument %s goes nowhere", t->name, k);
            }
        }
    }
    assert_true(n >= 38); /* with links (4) and webhook tools (7) */
    /* every extras row names a tool */
    for (const fs_mcp_tool_extra *x = fs_mcp_tool_extras; x->name; x++) {
        const fs_mcp_tool *t = fs_mcp_tool_find(x->name);
        if (!t)
            fail_msg("extras of %s: no such tool", x->name);
        assert_ptr_equal(fs_mcp_tool_extra_of(t), x);
        /* a result with answers says so in its output schema too */
        assert_int_equal(x->untrusted, strstr(t->output_schema, FS_MCP_UNTRUSTED) != NULL);
        assert_int_equal(x->untrusted, strstr(t->description, FS_MCP_UNTRUSTED) != NULL);
    }
    assert_null(fs_mcp_tool_extra_of(fs_mcp_tool_find("get_form"))->name);
    assert_null(fs_mcp_tool_find("nope"));
    assert_null(fs_mcp_tool_find(NULL));
}

static const char *build(apr_pool_t *p, const char *tool, const char *args, fs_mcp_call *c) {
    json_object *a = fs_json_parse_trusted(p, args);
    assert_non_null(a);
    return fs_mcp_build_call(p, fs_mcp_tool_find(tool), a, c);
}

static void build_calls(void **state) {
    apr_pool_t *p = *state;
    fs_mcp_call c;
    assert_null(build(p, "get_form", "{\"formId\":\"frm_abc\"}", &c));
    assert_string_equal(c.path, "/v1/forms/frm_abc");
    assert_null(c.query);
    assert_null(c.body);
    assert_null(c.if_match);

    assert_null(build(
        p, "update_field",
        "{\"formId\":\"frm_a\",\"fieldId\":\"fld_b\",\"label\":\"L\",\"ifMatchVersion\":4}", &c));
    assert_string_equal(c.path, "/v1/forms/frm_a/fields/fld_b");
    assert_string_equal(c.body, "{\"label\":\"L\"}");
    assert_string_equal(c.if_match, "\"4\"");

    /* body tools pass unknown members on: the REST handler refuses them */
    assert_null(build(p, "create_form", "{\"title\":\"T\",\"colour\":1}", &c));
    assert_string_equal(c.path, "/v1/forms");
    assert_string_equal(c.body, "{\"title\":\"T\",\"colour\":1}");
    assert_null(build(p, "create_form", "{}", &c));
    assert_string_equal(c.body, "{}");

    /* query arguments are encoded */
    assert_null(build(p, "list_submissions",
                      "{\"formId\":\"frm_a\",\"since\":\"2026-01-01T00:00:00+01:00\",\"limit\":5,"
                      "\"cursor\":\"a&b=c\"}",
                      &c));
    assert_string_equal(c.path, "/v1/forms/frm_a/submissions");
    assert_string_equal(c.query,
                        "since=2026-01-01T00%3a00%3a00%2b01%3a00&limit=5&cursor=a%26b%3dc");
    assert_null(build(p, "list_keys", "{\"includeRevoked\":true}", &c));
    assert_string_equal(c.query, "includeRevoked=true");
    assert_null(c.accept);

    /* extras: a fixed query first, a required query argument, Accept */
    assert_null(build(p, "wait_for_submissions", "{\"formId\":\"frm_a\",\"wait\":30}", &c));
    assert_string_equal(c.path, "/v1/events");
    assert_string_equal(c.query, "type=submission.created&formId=frm_a&wait=30");
    assert_non_null(build(p, "wait_for_submissions", "{\"wait\":3}", &c));
    assert_non_null(build(p, "wait_for_submissions", "{\"formId\":\"frm_a\",\"type\":\"x\"}", &c));
    assert_null(build(p, "export_submissions_csv", "{\"formId\":\"frm_a\",\"spam\":true}", &c));
    assert_string_equal(c.path, "/v1/forms/frm_a/submissions");
    assert_string_equal(c.query, "spam=true");
    assert_string_equal(c.accept, "text/csv");

    /* a local argument: kept for the result, not sent */
    assert_null(build(p, "get_file_url",
                      "{\"formId\":\"frm_a\",\"submissionId\":\"sub_b\",\"fileId\":\"fil_c\"}",
                      &c));
    assert_string_equal(c.path, "/v1/forms/frm_a/submissions/sub_b");
    assert_null(c.query);
    assert_string_equal(c.local, "fil_c");
    assert_non_null(
        build(p, "get_file_url", "{\"formId\":\"frm_a\",\"submissionId\":\"sub_b\"}", &c));
    assert_non_null(build(p, "get_file_url",
                          "{\"formId\":\"frm_a\",\"submissionId\":\"sub_b\",\"fileId\":\"../x\"}",
                          &c));
    assert_null(build(p, "roll_key", "{\"keyId\":\"key_a\",\"expiresIn\":60}", &c));
    assert_string_equal(c.path, "/v1/keys/key_a/roll");
    assert_string_equal(c.body, "{\"expiresIn\":60}");
    assert_null(build(p, "list_events", "{\"type\":\"form.closed\",\"wait\":2}", &c));
    assert_string_equal(c.path, "/v1/events");
    assert_string_equal(c.query, "type=form.closed&wait=2");

    /* invalid params */
    assert_non_null(build(p, "get_form", "{}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":7}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":\"\"}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":\"frm_a/publish\"}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":\"..\"}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":\"frm_a?x=1\"}", &c));
    assert_non_null(build(p, "get_form", "{\"formId\":\"frm_a\",\"extra\":1}", &c));
    assert_non_null(build(p, "list_forms", "{\"limit\":\"5\"}", &c));
    assert_non_null(build(p, "list_forms", "{\"limit\":5.5}", &c));
    assert_non_null(build(p, "list_keys", "{\"includeRevoked\":\"true\"}", &c));
    assert_non_null(build(p, "list_forms", "{\"status\":null}", &c));
    assert_non_null(
        build(p, "publish_form", "{\"formId\":\"frm_a\",\"ifMatchVersion\":\"3\"}", &c));
    /* ifMatchVersion is a body member of tools without If-Match */
    assert_null(build(p, "create_key", "{\"name\":\"n\",\"ifMatchVersion\":1}", &c));
    assert_string_equal(c.body, "{\"name\":\"n\",\"ifMatchVersion\":1}");
    char id[202];
    memset(id, 'a', 201);
    id[201] = '\0';
    assert_non_null(build(p, "get_form", apr_psprintf(p, "{\"formId\":\"%s\"}", id), &c));
    id[200] = '\0'; /* 200 characters: fine */
    assert_null(build(p, "get_form", apr_psprintf(p, "{\"formId\":\"%s\"}", id), &c));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(rpc_requests), FS_TEST(rpc_errors),  FS_TEST(rpc_answers),   FS_TEST(versions),
    FS_TEST(tool_table),   FS_TEST(build_calls), FS_TEST(elicit_schema),
};
FS_TEST_MAIN(tests)
