/* fs_mcp_res: the MCP resources and prompts of the server, as data: the
 * formsvc:// URIs of a form, its JSON Schema and its latest submissions,
 * their templates, and the prompts with their arguments and text. The
 * httpd glue (handle_mcp.c) reads each resource through the REST route
 * that answers it. */
#ifndef FS_MCP_RES_H
#define FS_MCP_RES_H

#include <apr_pools.h>
#include <json.h>

#include "fs_scope.h"

/* What a formsvc:// URI names. */
typedef enum {
    FS_MCP_RES_NONE = 0,    /* not one of ours */
    FS_MCP_RES_FORM,        /* formsvc://forms/{id}: the form (GET /v1/forms/{id}) */
    FS_MCP_RES_SCHEMA,      /* formsvc://forms/{id}/schema: its answers' JSON Schema */
    FS_MCP_RES_SUBMISSIONS, /* formsvc://forms/{id}/submissions: its latest submissions */
} fs_mcp_res_kind;

/* How many submissions formsvc://forms/{id}/submissions holds (newest first). */
#define FS_MCP_RES_SUBMISSIONS_PAGE 20

/* Parses uri; *form_id (in p) gets the form id, which matches
 * ^[A-Za-z0-9_-]{1,200}$ so that it can stand in a path. FS_MCP_RES_NONE
 * for anything else (another scheme, a query or fragment, a bad id). */
fs_mcp_res_kind fs_mcp_res_parse(apr_pool_t *p, const char *uri, const char **form_id);
/* The URI of kind for form_id. In p. */
const char *fs_mcp_res_uri(apr_pool_t *p, fs_mcp_res_kind kind, const char *form_id);

/* May a credential with scopes sc read the resource uri (so be told that
 * it changed)? What resources/read asks of it: forms:read for a form and
 * its schema, submissions:read for its submissions, and the form within
 * the form: constraints. 0 for a URI that is not one of ours. */
int fs_mcp_res_readable(apr_pool_t *p, const fs_scopes *sc, const char *uri);

/* resources/templates/list's result: {resourceTemplates: [...]}. Owned by p. */
json_object *fs_mcp_res_templates(apr_pool_t *p);

/* prompts/list's result: {prompts: [...]}. Owned by p. */
json_object *fs_mcp_prompts_list(apr_pool_t *p);

/* The prompts. */
typedef enum {
    FS_MCP_PROMPT_NONE = 0,
    FS_MCP_PROMPT_DESIGN,    /* design_form {goal, audience?}: a form from a goal */
    FS_MCP_PROMPT_SUMMARISE, /* summarise_answers {formId, focus?}: the latest answers */
} fs_mcp_prompt_kind;

/* Checks prompts/get's name and arguments (an object of strings, or NULL)
 * and writes the text of the prompt's user message to *text (in p).
 * For summarise_answers *form_id is the form, whose resources the glue
 * embeds after the text. Returns the kind, or FS_MCP_PROMPT_NONE with
 * *err the message of an invalid-params error. */
fs_mcp_prompt_kind fs_mcp_prompt_get(apr_pool_t *p, const char *name, json_object *args,
                                     const char **text, const char **form_id, const char **err);

#endif
