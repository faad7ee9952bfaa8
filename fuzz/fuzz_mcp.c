/* libFuzzer target: the MCP server's parsers. The input is a POST /mcp
 * body: it is classified as a JSON-RPC message, and a tools/call request
 * is mapped onto its REST request. Invariants: a bad message carries a
 * JSON-RPC error code and message; a mapped path never leaves the tool's
 * route (no '/', '?', '.' or '%' comes from an argument). A
 * resources/read or resources/subscribe uri and a prompts/get request go
 * through their parsers: a form id taken from a uri is an identifier that
 * makes the same uri again.
 *
 * Build and run:
 *   clang -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -Iinclude \
 *     $(apr-1-config --cflags --cppflags --includes) $(apu-1-config --includes) \
 *     -I/usr/include/json-c fuzz/fuzz_mcp.c mod_formsvc/core/fs_mcp.c \
 *     mod_formsvc/core/fs_mcp_tools.c mod_formsvc/core/fs_json.c mod_formsvc/core/fs_error.c \
 *     mod_formsvc/core/fs_util.c mod_formsvc/core/fs_secret.c -o fuzz_mcp \
 *     -ljson-c -lcrypto -lz -laprutil-1 -lapr-1 && ./fuzz_mcp fuzz/corpus/mcp -max_total_time=60 */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs_json.h"
#include "fs_mcp.h"
#include "fs_mcp_res.h"

static apr_pool_t *root;

/* Does path match the template, with every {arg} one identifier? */
static int path_fits(const char *tpl, const char *path) {
    while (*tpl) {
        if (*tpl == '{') {
            tpl = strchr(tpl, '}') + 1;
            if (!*path)
                return 0;
            while (*path && *path != '/') {
                if (*path == '?' || *path == '.' || *path == '%')
                    return 0;
                path++;
            }
        } else if (*tpl++ != *path++) {
            return 0;
        }
    }
    return *path == '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) {
        apr_initialize();
        apr_pool_create(&root, NULL);
    }
    apr_pool_t *p;
    apr_pool_create(&p, root);
    char *buf = apr_pstrmemdup(p, (const char *)data, size);
    fs_rpc_msg m;
    fs_rpc_parse(p, buf, size, &m);
    if (m.kind == FS_RPC_BAD &&
        ((m.code != FS_RPC_PARSE_ERROR && m.code != FS_RPC_INVALID_REQUEST &&
          m.code != FS_RPC_INVALID_PARAMS) ||
         !m.message))
        abort();
    if (m.kind == FS_RPC_REQUEST && !strcmp(m.method, "tools/call")) {
        json_object *name = fs_json_get(m.params, "name"),
                    *args = fs_json_get(m.params, "arguments");
        const fs_mcp_tool *t = name && json_object_is_type(name, json_type_string)
                                   ? fs_mcp_tool_find(json_object_get_string(name))
                                   : NULL;
        if (t && args && json_object_is_type(args, json_type_object)) {
            fs_mcp_call c;
            const char *bad = fs_mcp_build_call(p, t, args, &c);
            if (!bad && !path_fits(t->path, c.path))
                abort();
            if (!bad && t->body && !c.body)
                abort();
        }
    }
    if (m.kind == FS_RPC_REQUEST && !strncmp(m.method, "resources/", 10)) {
        json_object *u = fs_json_get(m.params, "uri");
        const char *form;
        fs_mcp_res_kind k = u && json_object_is_type(u, json_type_string)
                                ? fs_mcp_res_parse(p, json_object_get_string(u), &form)
                                : FS_MCP_RES_NONE;
        if (k != FS_MCP_RES_NONE && (!path_fits("{id}", form) ||
                                     strcmp(fs_mcp_res_uri(p, k, form), json_object_get_string(u))))
            abort();
    }
    if (m.kind == FS_RPC_REQUEST && !strcmp(m.method, "prompts/get")) {
        json_object *name = fs_json_get(m.params, "name");
        const char *text, *form, *err;
        fs_mcp_prompt_kind k = fs_mcp_prompt_get(
            p,
            name && json_object_is_type(name, json_type_string) ? json_object_get_string(name)
                                                                : NULL,
            fs_json_get(m.params, "arguments"), &text, &form, &err);
        if ((k == FS_MCP_PROMPT_NONE) != (err != NULL) || (k != FS_MCP_PROMPT_NONE && !text) ||
            (k == FS_MCP_PROMPT_SUMMARISE && !path_fits("{id}", form)))
            abort();
    }
    fs_rpc_error(p, m.id, -32600, "x");
    apr_pool_destroy(p);
    return 0;
}
