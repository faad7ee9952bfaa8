/* fs_mcp_tools: what each MCP tool runs, and its input schema (fs_mcp.h).
 * The schemas describe the arguments for clients; the REST handler the
 * tool runs still checks everything itself and answers 422 problems. */
#include "fs_mcp.h"

#define ID(what)                                                                                   \
    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,\"pattern\":\"^[A-Za-z0-9_-]+$\","     \
    "\"description\":\"" what "\"}"
#define FORM_ID "\"formId\":" ID("The form's id (frm_...).")
#define LIMIT "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":20}"
#define CURSOR                                                                                     \
    "\"cursor\":{\"type\":\"string\",\"description\":\"nextCursor of the previous page.\"}"
#define IF_MATCH                                                                                   \
    "\"ifMatchVersion\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Only change the "    \
    "form if its version is still this one (If-Match); otherwise precondition-failed.\"}"
#define SETTINGS                                                                                   \
    "\"settings\":{\"type\":\"object\",\"properties\":{"                                           \
    "\"closesAt\":{\"type\":[\"string\",\"null\"],\"format\":\"date-time\"},"                      \
    "\"maxSubmissions\":{\"type\":[\"integer\",\"null\"],\"minimum\":1},"                          \
    "\"confirmationMessage\":{\"type\":[\"string\",\"null\"],\"maxLength\":2000},"                 \
    "\"redirectUrl\":{\"type\":[\"string\",\"null\"],\"format\":\"uri\"},"                         \
    "\"honeypot\":{\"type\":\"boolean\"},"                                                         \
    "\"submitLabel\":{\"type\":[\"string\",\"null\"],\"maxLength\":100},"                          \
    "\"closedMessage\":{\"type\":[\"string\",\"null\"],\"maxLength\":2000},"                       \
    "\"opensAt\":{\"type\":[\"string\",\"null\"],\"format\":\"date-time\"},"                       \
    "\"theme\":{\"type\":[\"object\",\"null\"],\"properties\":{"                                   \
    "\"accentColor\":{\"type\":[\"string\",\"null\"],\"description\":\"#rrggbb, 4.5:1 against "    \
    "white\"},\"logoUrl\":{\"type\":[\"string\",\"null\"],\"format\":\"uri\"}},"                   \
    "\"additionalProperties\":false},"                                                             \
    "\"embed\":{\"type\":[\"object\",\"null\"],\"properties\":{\"allowedOrigins\":{\"type\":"      \
    "\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Origins that may frame the "      \
    "public page: https://host[:port]\"}},\"additionalProperties\":false}},"                       \
    "\"additionalProperties\":false}"
#define FIELD_PROPS                                                                                \
    "\"key\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\"},"                        \
    "\"type\":{\"enum\":[\"text\",\"textarea\",\"email\",\"url\",\"tel\",\"number\","              \
    "\"integer\",\"boolean\",\"date\",\"datetime\",\"select\",\"multiselect\",\"rating\","         \
    "\"hidden\"]},"                                                                                \
    "\"label\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"                           \
    "\"description\":{\"type\":[\"string\",\"null\"],\"maxLength\":2000},"                         \
    "\"required\":{\"type\":\"boolean\"},"                                                         \
    "\"placeholder\":{\"type\":[\"string\",\"null\"],\"maxLength\":200},"                          \
    "\"options\":{\"type\":[\"array\",\"null\"],\"items\":{\"anyOf\":[{\"type\":\"string\"},"      \
    "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"},"                        \
    "\"label\":{\"type\":\"string\"}},\"required\":[\"value\"]}]}},"                               \
    "\"validation\":{\"type\":\"object\",\"description\":\"minLength, maxLength, pattern, "        \
    "minimum, maximum, minItems, maxItems as the type allows.\"},"                                 \
    "\"visibleIf\":{\"type\":[\"object\",\"null\"],\"description\":\"{field, equals} or "          \
    "{field, in: [...]}\"},"                                                                       \
    "\"position\":{\"type\":\"integer\",\"minimum\":0},"                                           \
    "\"timeZone\":{\"type\":[\"string\",\"null\"],\"description\":\"datetime only: IANA zone "     \
    "of the page's local times, e.g. Europe/Berlin\"}"
#define FIELD                                                                                      \
    "{\"type\":\"object\",\"properties\":{" FIELD_PROPS "},\"required\":[\"key\",\"type\"]}"
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"

/* Output schemas: on success the members a result always has (REST
 * representations carry more; see /openapi.json); with isError, an RFC 9457
 * problem. MCP clients validate structuredContent against them, errors
 * included (the TypeScript SDK does). */
#define PROBLEM                                                                                    \
    "{\"properties\":{\"type\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"             \
    "\"status\":{\"type\":\"integer\",\"minimum\":400},\"detail\":{\"type\":\"string\"},"          \
    "\"errors\":{\"type\":\"array\"}},\"required\":[\"type\",\"title\",\"status\"]}"
#define OUT(props, req)                                                                            \
    "{\"type\":\"object\",\"anyOf\":[{\"properties\":{" props "},\"required\":[" req "]}," PROBLEM \
    "]}"
#define S "{\"type\":\"string\"}"
#define OUT_FORM                                                                                   \
    OUT("\"id\":" S ",\"status\":{\"enum\":[\"draft\",\"published\",\"closed\"]},"                 \
        "\"version\":{\"type\":\"integer\"},\"fields\":{\"type\":\"array\"},\"publicUrl\":" S,     \
        "\"id\",\"status\",\"version\",\"fields\",\"publicUrl\"")
#define OUT_PAGE                                                                                   \
    OUT("\"data\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"                           \
        "\"nextCursor\":{\"type\":[\"string\",\"null\"]}",                                         \
        "\"data\",\"nextCursor\"")
#define OUT_FIELD OUT("\"id\":" S ",\"key\":" S ",\"type\":" S, "\"id\",\"key\",\"type\"")
#define OUT_DELETED OUT("\"deleted\":{\"const\":true}", "\"deleted\"")
#define OUT_KEY                                                                                    \
    OUT("\"id\":" S ",\"keyPrefix\":" S ",\"scopes\":{\"type\":[\"array\",\"null\"]},"             \
        "\"revokedAt\":{\"type\":[\"string\",\"null\"]}",                                          \
        "\"id\",\"keyPrefix\",\"scopes\",\"revokedAt\"")
#define OUT_KEY_SECRET                                                                             \
    OUT("\"id\":" S ",\"keyPrefix\":" S ",\"secret\":" S, "\"id\",\"keyPrefix\",\"secret\"")
#define OUT_ME                                                                                     \
    OUT("\"user\":{\"type\":\"object\"},\"credential\":{\"type\":\"object\"},"                     \
        "\"quota\":{\"type\":\"object\"}",                                                         \
        "\"user\",\"credential\",\"quota\"")
#define OUT_SUB                                                                                    \
    OUT("\"id\":" S ",\"formId\":" S ",\"data\":{\"type\":\"object\"}",                            \
        "\"id\",\"formId\",\"data\"")

const fs_mcp_tool fs_mcp_tools[] = {
    {"whoami", "Who am I", "The account, the calling credential and the quotas (GET /v1/me).",
     "GET", "/v1/me", NULL, 0, 0, 1, 0, 1, OBJ("", ""), OUT_ME},
    {"list_forms", "List forms", "The caller's forms, newest first, one page (GET /v1/forms).",
     "GET", "/v1/forms", "status:s limit:i cursor:s", 0, 0, 1, 0, 1,
     OBJ("\"status\":{\"enum\":[\"draft\",\"published\",\"closed\"]}," LIMIT "," CURSOR, ""),
     OUT_PAGE},
    {"get_form", "Get a form", "One form with its fields (GET /v1/forms/{id}).", "GET",
     "/v1/forms/{formId}", NULL, 0, 0, 1, 0, 1, OBJ(FORM_ID, "\"formId\""), OUT_FORM},
    {"create_form", "Create a form",
     "Creates a draft form, optionally with its fields (POST /v1/forms).", "POST", "/v1/forms",
     NULL, 1, 0, 0, 0, 0,
     OBJ("\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
         "\"description\":{\"type\":[\"string\",\"null\"],\"maxLength\":5000},"
         "\"slug\":{\"type\":[\"string\",\"null\"],"
         "\"pattern\":\"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$\"},"
         "\"fields\":{\"type\":\"array\",\"items\":" FIELD "}," SETTINGS,
         "\"title\""),
     OUT_FORM},
    {"update_form", "Update a form",
     "Changes title, description, slug or settings; members given as null are removed "
     "(JSON merge patch, PATCH /v1/forms/{id}).",
     "PATCH", "/v1/forms/{formId}", NULL, 1, 1, 0, 0, 1,
     OBJ(FORM_ID ",\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                 "\"description\":{\"type\":[\"string\",\"null\"],\"maxLength\":5000},"
                 "\"slug\":{\"type\":[\"string\",\"null\"]}," SETTINGS "," IF_MATCH,
         "\"formId\""),
     OUT_FORM},
    {"delete_form", "Delete a form",
     "Deletes a form with its fields and submissions (DELETE /v1/forms/{id}).", "DELETE",
     "/v1/forms/{formId}", NULL, 0, 1, 0, 1, 1, OBJ(FORM_ID "," IF_MATCH, "\"formId\""),
     OUT_DELETED},
    {"publish_form", "Publish a form",
     "Makes a draft or closed form public (POST /v1/forms/{id}/publish).", "POST",
     "/v1/forms/{formId}/publish", NULL, 0, 1, 0, 0, 0, OBJ(FORM_ID "," IF_MATCH, "\"formId\""),
     OUT_FORM},
    {"close_form", "Close a form",
     "Stops a published form taking submissions (POST /v1/forms/{id}/close).", "POST",
     "/v1/forms/{formId}/close", NULL, 0, 1, 0, 0, 0, OBJ(FORM_ID "," IF_MATCH, "\"formId\""),
     OUT_FORM},
    {"add_field", "Add a field",
     "Adds a field to a form, at the end or at position (POST /v1/forms/{id}/fields).", "POST",
     "/v1/forms/{formId}/fields", NULL, 1, 1, 0, 0, 0,
     OBJ(FORM_ID "," FIELD_PROPS "," IF_MATCH, "\"formId\",\"key\",\"type\""), OUT_FIELD},
    {"update_field", "Update a field",
     "Changes a field (merge patch; position moves it) "
     "(PATCH /v1/forms/{id}/fields/{fieldId}).",
     "PATCH", "/v1/forms/{formId}/fields/{fieldId}", NULL, 1, 1, 0, 0, 1,
     OBJ(FORM_ID ",\"fieldId\":" ID("The field's id (fld_...).") "," FIELD_PROPS "," IF_MATCH,
         "\"formId\",\"fieldId\""),
     OUT_FIELD},
    {"delete_field", "Delete a field",
     "Removes a field from a form (DELETE /v1/forms/{id}/fields/{fieldId}).", "DELETE",
     "/v1/forms/{formId}/fields/{fieldId}", NULL, 0, 1, 0, 1, 1,
     OBJ(FORM_ID ",\"fieldId\":" ID("The field's id (fld_...).") "," IF_MATCH,
         "\"formId\",\"fieldId\""),
     OUT_DELETED},
    {"replace_fields", "Replace all fields",
     "Replaces a form's whole field list at once; items with the id of an existing field keep "
     "it (PUT /v1/forms/{id}/fields).",
     "PUT", "/v1/forms/{formId}/fields", NULL, 1, 1, 0, 1, 1,
     OBJ(FORM_ID ",\"fields\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
                 "\"id\":{\"type\":\"string\"}," FIELD_PROPS
                 "},\"required\":[\"key\",\"type\"]}}," IF_MATCH,
         "\"formId\",\"fields\""),
     OUT_FORM},
    {"list_submissions", "List submissions",
     "A form's submissions, newest first, one page (GET /v1/forms/{id}/submissions).", "GET",
     "/v1/forms/{formId}/submissions", "since:s until:s limit:i cursor:s", 0, 0, 1, 0, 1,
     OBJ(FORM_ID ",\"since\":{\"type\":\"string\",\"format\":\"date-time\"},"
                 "\"until\":{\"type\":\"string\",\"format\":\"date-time\"}," LIMIT "," CURSOR,
         "\"formId\""),
     OUT_PAGE},
    {"get_submission", "Get a submission", "One submission (GET /v1/forms/{id}/submissions/{sid}).",
     "GET", "/v1/forms/{formId}/submissions/{submissionId}", NULL, 0, 0, 1, 0, 1,
     OBJ(FORM_ID ",\"submissionId\":" ID("The submission's id (sub_...)."),
         "\"formId\",\"submissionId\""),
     OUT_SUB},
    {"delete_submission", "Delete a submission",
     "Deletes one submission (DELETE /v1/forms/{id}/submissions/{sid}).", "DELETE",
     "/v1/forms/{formId}/submissions/{submissionId}", NULL, 0, 0, 0, 1, 1,
     OBJ(FORM_ID ",\"submissionId\":" ID("The submission's id (sub_...)."),
         "\"formId\",\"submissionId\""),
     OUT_DELETED},
    {"list_keys", "List API keys",
     "The account's API keys and delegated tokens, without secrets (GET /v1/keys).", "GET",
     "/v1/keys", "includeRevoked:b limit:i cursor:s", 0, 0, 1, 0, 1,
     OBJ("\"includeRevoked\":{\"type\":\"boolean\",\"default\":false}," LIMIT "," CURSOR, ""),
     OUT_PAGE},
    {"create_key", "Create an API key",
     "Creates an API key no broader than the caller; the secret is shown only in this answer "
     "(POST /v1/keys).",
     "POST", "/v1/keys", NULL, 1, 0, 0, 0, 0,
     OBJ("\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100},"
         "\"scopes\":{\"type\":[\"array\",\"null\"],\"items\":{\"type\":\"string\"},"
         "\"description\":\"e.g. forms:read, submissions:read, form:frm_...; null: the "
         "caller's own\"},"
         "\"expiresAt\":{\"type\":[\"string\",\"null\"],\"format\":\"date-time\"}",
         "\"name\""),
     OUT_KEY_SECRET},
    {"revoke_key", "Revoke an API key",
     "Revokes a key and every token delegated from it (DELETE /v1/keys/{id}).", "DELETE",
     "/v1/keys/{keyId}", NULL, 0, 0, 0, 1, 1,
     OBJ("\"keyId\":" ID("The key's id (key_...)."), "\"keyId\""), OUT_KEY},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL}};
