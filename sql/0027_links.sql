-- 0027: respondent links (issue 13, item 3; docs/api.md "Respondent links").
--
-- A link is a capability to answer one form with prefilled answers and
-- owner metadata attached to the submission. Its token is a secret: only
-- its HMAC-SHA-256 under the server's pepper is looked up (token_hash), and
-- a copy sealed under a key derived from the pepper and the link id
-- (AES-256-GCM, like webhook secrets) lets GET show the URL again.
-- Deleting a link keeps the row (deleted_at), so that its URL answers
-- 410 link-expired rather than 404.

CREATE TABLE links (
    id           text PRIMARY KEY,
    form_id      text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash   text NOT NULL UNIQUE,
    token_sealed text NOT NULL,
    prefill      jsonb NOT NULL DEFAULT '{}',
    metadata     jsonb,             -- NULL: none
    expires_at   timestamptz,       -- NULL: never
    max_uses     integer,           -- NULL: any number
    uses         integer NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_at   timestamptz
);
CREATE INDEX links_form ON links (form_id, id DESC) WHERE deleted_at IS NULL;

-- The link a submission came through, and the link's metadata as it was.
ALTER TABLE submissions ADD COLUMN link_id text, ADD COLUMN link_metadata jsonb;
CREATE INDEX submissions_link ON submissions (link_id) WHERE link_id IS NOT NULL;

-- The state of a link as respondents see it.
CREATE FUNCTION fs_link_state(l links) RETURNS text
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN l.deleted_at IS NOT NULL OR (l.expires_at IS NOT NULL AND l.expires_at <= now())
               THEN 'expired'
               WHEN l.max_uses IS NOT NULL AND l.uses >= l.max_uses THEN 'used'
               ELSE 'active' END $$;

-- The owner's representation, without the URL (the glue adds it: only it
-- can open the sealed token).
CREATE FUNCTION fs_link_json(l links) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', l.id, 'formId', l.form_id, 'prefill', l.prefill,
                            'metadata', l.metadata, 'expiresAt', fs_ts(l.expires_at),
                            'maxUses', l.max_uses, 'uses', l.uses, 'status', fs_link_state(l),
                            'createdAt', fs_ts(l.created_at)) $$;

-- A submission's representation gains linkId and metadata when it came
-- through a link (and only then: older clients see the same members).
CREATE OR REPLACE FUNCTION fs_submission_json(s submissions) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                              'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at))
           || CASE WHEN s.link_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata) END
          )::json $$;

-- Creates a link when the form holds fewer than p_limit links that are not
-- deleted. The form row is locked until commit, so concurrent creations
-- cannot pass the quota. Outcomes: ok (body: the link json), quota (body:
-- links in use), gone (no such form of the account).
CREATE FUNCTION fs_link_create(p_id text, p_form text, p_user text, p_hash text, p_sealed text,
                               p_prefill jsonb, p_metadata jsonb, p_expires timestamptz,
                               p_max integer, p_limit integer)
RETURNS TABLE (outcome text, body text)
LANGUAGE plpgsql AS $$
DECLARE
    used bigint;
    l links;
BEGIN
    PERFORM 1 FROM forms WHERE id = p_form AND user_id = p_user FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    SELECT count(*) INTO used FROM links WHERE form_id = p_form AND deleted_at IS NULL;
    IF used >= p_limit THEN
        RETURN QUERY SELECT 'quota'::text, used::text;
        RETURN;
    END IF;
    INSERT INTO links (id, form_id, user_id, token_hash, token_sealed, prefill, metadata,
                       expires_at, max_uses)
    VALUES (p_id, p_form, p_user, p_hash, p_sealed, p_prefill, p_metadata, p_expires, p_max)
    RETURNING * INTO l;
    RETURN QUERY SELECT 'ok'::text, fs_link_json(l)::text;
END $$;

-- The link test of a public submission through a link (fs_public_submit*):
-- locks the link row FOR NO KEY UPDATE until commit, then reads it as it is
-- now (a fresh snapshot in this function), so that submissions through one
-- link queue on it and a link with maxUses takes exactly maxUses of them:
-- the count (uses) is raised by the same statement that stores the
-- submission. A repeat of a stored submission (its Idempotency-Key has a
-- record) is let through, to be answered as a replay.
-- Returns ok, used or expired (also: deleted, or not a link of the form).
CREATE FUNCTION fs_link_admit_locked(p_link text, p_form text, p_ikey text)
RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    l links;
BEGIN
    SELECT * INTO l FROM links WHERE id = p_link AND form_id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN 'expired';
    END IF;
    IF p_ikey IS NOT NULL AND EXISTS (SELECT 1 FROM idempotency i WHERE i.scope = p_form
            AND i.key = p_ikey AND i.created_at > now() - interval '24 hours') THEN
        RETURN 'ok';
    END IF;
    RETURN CASE fs_link_state(l) WHEN 'active' THEN 'ok' ELSE fs_link_state(l) END;
END $$;
