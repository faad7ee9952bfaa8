-- 0051: MCP sessions, resource subscriptions and server-to-client streams
-- (docs/mcp.md, "Streams and sessions"). Every machine behind the load
-- balancer serves any request of a session: what a session is and what it
-- subscribed to live here, never in one child's memory. A stream (GET
-- /mcp) holds a lease row while it is open, so that the number of open
-- streams of an account is counted exactly across machines; a stream of a
-- child that died leaves a lease that runs out.
--
-- Additive only: new tables and a new function; the previous release's
-- module does not use them.

CREATE TABLE IF NOT EXISTS mcp_sessions (
    id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    seen_at timestamptz NOT NULL DEFAULT now(),
    -- the account's newest event (in the feed's commit order) when the
    -- session began, or NULL: a stream opened without Last-Event-ID tells
    -- of what touched a subscription after it
    start_event text
);
CREATE INDEX IF NOT EXISTS mcp_sessions_user ON mcp_sessions (user_id, seen_at);

CREATE TABLE IF NOT EXISTS mcp_subscriptions (
    session_id text NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
    uri text NOT NULL,
    form_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, uri)
);

CREATE TABLE IF NOT EXISTS mcp_streams (
    id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    session_id text NOT NULL,
    lease_until timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_streams_user ON mcp_streams (user_id);

-- Opens stream p_id of p_user's session p_session if the account has
-- fewer than p_max streams whose lease has not run out: 'ok', 'full', or
-- 'nosession' (no such session of the account). Exact under concurrency:
-- the account's streams are counted under a transaction-level advisory
-- lock on the account, by a statement that starts after the lock is held.
CREATE OR REPLACE FUNCTION fs_mcp_stream_open(p_id text, p_user text, p_session text,
                                              p_max integer, p_lease integer)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    UPDATE mcp_sessions SET seen_at = now() WHERE id = p_session AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN 'nosession';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('formsvc:mcp_streams:' || p_user, 0));
    DELETE FROM mcp_streams WHERE user_id = p_user AND lease_until < now();
    SELECT count(*) INTO n FROM mcp_streams WHERE user_id = p_user;
    IF n >= p_max THEN
        RETURN 'full';
    END IF;
    INSERT INTO mcp_streams (id, user_id, session_id, lease_until)
    VALUES (p_id, p_user, p_session, now() + make_interval(secs => p_lease));
    RETURN 'ok';
END $$;

-- Subscribes p_session of p_user to p_uri (of form p_form), at most p_max
-- subscriptions per session (counted under the session's row lock):
-- 'ok' (also when it was subscribed already), 'full' or 'nosession'.
CREATE OR REPLACE FUNCTION fs_mcp_subscribe(p_session text, p_user text, p_uri text,
                                            p_form text, p_max integer)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM mcp_sessions WHERE id = p_session AND user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'nosession';
    END IF;
    UPDATE mcp_sessions SET seen_at = now() WHERE id = p_session;
    IF EXISTS (SELECT 1 FROM mcp_subscriptions WHERE session_id = p_session AND uri = p_uri) THEN
        RETURN 'ok';
    END IF;
    SELECT count(*) INTO n FROM mcp_subscriptions WHERE session_id = p_session;
    IF n >= p_max THEN
        RETURN 'full';
    END IF;
    INSERT INTO mcp_subscriptions (session_id, uri, form_id) VALUES (p_session, p_uri, p_form);
    RETURN 'ok';
END $$;
