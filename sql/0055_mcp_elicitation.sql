-- 0055: MCP elicitation (docs/mcp.md, "Asking in the client"). A session
-- remembers whether its client declared the elicitation capability in
-- initialize; each elicitation/create request the server sends (for
-- ask_human) is a row, so that the client's response, a later POST that
-- any machine may receive, finds the request it answers and its ask, and
-- the thread that waits for it (on another machine, maybe) sees the
-- outcome at its next read.
--
-- Additive only: a new defaulted column and a new table; the previous
-- release's module does not use either.

ALTER TABLE mcp_sessions ADD COLUMN IF NOT EXISTS elicitation boolean NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS mcp_requests (
    -- the JSON-RPC id of the request sent to the client (mrq_…)
    id          text PRIMARY KEY,
    session_id  text NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
    user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    ask_id      text NOT NULL REFERENCES asks (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- pending: sent, no response yet; answering: a response is being
    -- stored (claimed by one POST); accept, decline, cancel: the client's
    -- action, done; invalid: a response that could not be taken (nothing
    -- stored); ended: the tool call stopped waiting first (a response
    -- may still come and is taken while the ask is pending)
    state       text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'answering', 'accept', 'decline', 'cancel',
                                 'invalid', 'ended')),
    answered_at timestamptz
);
CREATE INDEX IF NOT EXISTS mcp_requests_session ON mcp_requests (session_id);
CREATE INDEX IF NOT EXISTS mcp_requests_created ON mcp_requests (created_at);
