/* mcp_elicit: ask_human asked in the MCP client itself (MCP 2025-06-18
 * elicitation/create; docs/mcp.md, "Asking in the client"). The tool call
 * of handle_mcp.c makes the ask as POST /v1/asks does, answers its POST as
 * text/event-stream, sends elicitation/create on it and waits; the
 * client's response is a later POST /mcp, on any machine, which stores the
 * answer through the ask's link exactly as the person's form post would
 * (POST /f/{ref}?l=…, one validator) or declines the ask. What both sides
 * share is in PostgreSQL (mcp_requests, sql/0055): the waiting thread
 * holds no database connection between its reads. */
#ifndef FORMSVC_MCP_ELICIT_H
#define FORMSVC_MCP_ELICIT_H

#include <httpd.h>
#include <json.h>

#include "fs_mcp.h"
#include "http/capture.h"

typedef enum {
    FORMSVC_ELICIT_NO,   /* not asked in the client: the tool runs as usual, nothing was done */
    FORMSVC_ELICIT_JSON, /* *cap is the tool's answer, to send as JSON (the stream never began) */
    FORMSVC_ELICIT_SSE,  /* *cap is the tool's answer; the POST's stream is open: end it with
                            formsvc_mcp_elicit_end */
} formsvc_elicit_how;

/* ask_human with arguments args (an object) in session sid (NULL: none),
 * waiting wait seconds: asked in the client when the session's client
 * declared elicitation, the POST accepts text/event-stream, wait > 0, no
 * "to" names another person, the caller may read answers
 * (submissions:read), the schema fits elicitation, and the account and
 * this child have a stream to spare (FormsvcMCPStreams). Then *cap is the
 * ask as GET /v1/asks/{id} answers it after the wait, with "elicitation":
 * accepted, declined, cancelled, invalid or unanswered; or the problem of
 * POST /v1/asks when the ask could not be made. */
formsvc_elicit_how formsvc_mcp_elicit(request_rec *r, const char *sid, json_object *args, int wait,
                                      formsvc_capture *cap);

/* Sends msg (the tool call's JSON-RPC response) as the last event of the
 * stream formsvc_mcp_elicit began, and ends it. */
int formsvc_mcp_elicit_end(request_rec *r, json_object *msg);

/* The client's response m (FS_RPC_RESPONSE) to an elicitation/create of
 * session sid: 202 when taken (accept: the answer stored as the ask's
 * submission; decline: the ask declined; cancel or an error: the ask left
 * to its link) or when the request was answered before (the first
 * response wins); a problem otherwise, with nothing stored: 404 for an id
 * that is no request of this session, the form's 422 for content the ask
 * does not take, 422 for a result that is no elicitation result, 409 for
 * an ask that is no longer pending. */
int formsvc_mcp_elicit_answer(request_rec *r, const char *sid, const fs_rpc_msg *m);

#endif
