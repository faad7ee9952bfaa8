/* fs_store_mcp: MCP sessions, their resource subscriptions and the leases
 * of their open streams (mod_formsvc/store/mcp_store.c, sql/0051).
 * Conventions: fs_store.h. */
#ifndef FS_STORE_MCP_H
#define FS_STORE_MCP_H

#include "fs_store.h"

/* A new session id of user_id, starting after the account's newest event;
 * elicitation: its client declared the elicitation capability. Forgets
 * the account's sessions unused for a day. */
fs_error *fs_store_mcp_session_create(fs_store *st, const char *session_id, const char *user_id,
                                      int elicitation);
/* *yes 1 when session_id is user_id's and its client declared the
 * elicitation capability. */
fs_error *fs_store_mcp_session_elicits(fs_store *st, const char *session_id, const char *user_id,
                                       int *yes);

/* An elicitation/create request sent to the client of session_id
 * (sql/0055): request_id is its JSON-RPC id, ask_id the caller's ask it
 * asks for. State pending. */
fs_error *fs_store_mcp_request_create(fs_store *st, const char *request_id, const char *session_id,
                                      const char *user_id, const char *ask_id);
/* The request's state (pending, answering, accept, decline, cancel,
 * invalid, ended); NULL when there is none (its session ended). */
fs_error *fs_store_mcp_request_state(fs_store *st, const char *request_id, const char **state);
/* Claims request_id of session_id and user_id for the response being
 * taken (state answering; the first response wins): *ask_id its ask. When
 * it cannot be claimed *ask_id is NULL, and *known says whether the
 * session has such a request at all (then it was answered already). */
fs_error *fs_store_mcp_request_claim(fs_store *st, const char *request_id, const char *session_id,
                                     const char *user_id, const char **ask_id, int *known);
/* Moves request_id from state from to state to; *done 0 when it was not
 * in from. */
fs_error *fs_store_mcp_request_finish(fs_store *st, const char *request_id, const char *from,
                                      const char *to, int *done);
/* *exists 1 when session_id is a live session of user_id (marks it used,
 * at most once every ten minutes). */
fs_error *fs_store_mcp_session_exists(fs_store *st, const char *session_id, const char *user_id,
                                      int *exists);
/* Ends the session with its subscriptions; *deleted 1 when there was one. */
fs_error *fs_store_mcp_session_delete(fs_store *st, const char *session_id, const char *user_id,
                                      int *deleted);

/* Outcomes of fs_store_mcp_subscribe and fs_store_mcp_stream_open. */
typedef enum { FS_MCP_OK, FS_MCP_FULL, FS_MCP_NO_SESSION } fs_mcp_outcome;

/* Subscribes the session to uri (a resource of form_id), at most max per
 * session (exact); subscribing again is FS_MCP_OK. */
fs_error *fs_store_mcp_subscribe(fs_store *st, const char *session_id, const char *user_id,
                                 const char *uri, const char *form_id, int max,
                                 fs_mcp_outcome *out);
/* Forgets a subscription (none is fine). */
fs_error *fs_store_mcp_unsubscribe(fs_store *st, const char *session_id, const char *user_id,
                                   const char *uri);

/* Takes a lease of lease seconds for stream stream_id of the session when
 * the account has fewer than max streams with live leases (exact across
 * machines). */
fs_error *fs_store_mcp_stream_open(fs_store *st, const char *stream_id, const char *user_id,
                                   const char *session_id, int max, int lease, fs_mcp_outcome *out);
/* Extends the lease by lease seconds from now and marks the session used;
 * *alive 0 when the session (or the lease) is gone, or the stream's
 * credential key_id was revoked or has expired: the stream ends. */
fs_error *fs_store_mcp_stream_renew(fs_store *st, const char *stream_id, const char *user_id,
                                    const char *session_id, const char *key_id, int lease,
                                    int *alive);
/* Gives the lease back. */
fs_error *fs_store_mcp_stream_close(fs_store *st, const char *stream_id);

/* The account's newest event (in the feed's commit order,
 * fs_store_event_list) when the session began: where a stream opened
 * without Last-Event-ID starts. NULL when there was none (or no such
 * session). */
fs_error *fs_store_mcp_session_start_event(fs_store *st, const char *session_id,
                                           const char *user_id, const char **event_id);

/* One event after the cursor and what the session is told of it. */
typedef struct fs_mcp_update {
    const char *event_id;
    const char *uri; /* the subscribed resource it updates, or NULL: none */
} fs_mcp_update;
/* Up to limit of the account's events after the event after (NULL: from
 * the oldest kept), in commit order as fs_store_event_list, each with the
 * URI of the session's subscription it updates (submission.*,
 * submissions.* events: formsvc://forms/{id}/submissions; other events of
 * a form: formsvc://forms/{id}). *n rows in *out (st->pool). */
fs_error *fs_store_mcp_updates(fs_store *st, const char *session_id, const char *user_id,
                               const char *after, int limit, fs_mcp_update **out, int *n);

/* The retention task's sweep: deletes up to lim sessions unused for days
 * days, with their subscriptions (*deleted: how many), and the stream
 * leases that ran out and the elicitation requests made as long ago
 * (those of a child that died). */
fs_error *fs_store_mcp_expire(fs_store *st, int days, int lim, int *deleted);

#endif
