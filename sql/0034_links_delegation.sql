-- 0034: respondent links in the delegation tree (docs/api.md, "Delegation
-- rules"; issue 13, item 3 follow-up).
--
-- A link records the credential that made it (created_by, like webhooks
-- since 0019). A link made by a delegate dies with it: once that delegate
-- is revoked or expires (fs_creator_alive), the link's URL answers 410
-- link-expired, the owner's API no longer lists, shows or counts it (404,
-- like a webhook of an ended delegate), and a delegate manages only the
-- links made inside its own tree. Links made by an owner key, and links
-- made before this migration (created_by NULL), belong to the account.

ALTER TABLE links ADD COLUMN IF NOT EXISTS created_by text;
CREATE INDEX IF NOT EXISTS links_created_by ON links (created_by) WHERE created_by IS NOT NULL;

-- A link whose creator has ended is expired for respondents. This is the
-- state fs_link_find and fs_link_admit_locked read, so both the page and
-- the submission statement refuse it; a submission without a link never
-- calls this (LINK_STATE in public_store.c).
CREATE OR REPLACE FUNCTION fs_link_state(l links) RETURNS text
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN l.deleted_at IS NOT NULL OR (l.expires_at IS NOT NULL AND l.expires_at <= now())
                    OR NOT fs_creator_alive(l.created_by)
               THEN 'expired'
               WHEN l.max_uses IS NOT NULL AND l.uses >= l.max_uses THEN 'used'
               ELSE 'active' END $$;

-- fs_link_create (0027) gains the creating credential; links whose creator
-- has ended no longer count against the form's quota.
DROP FUNCTION IF EXISTS fs_link_create(text, text, text, text, text, jsonb, jsonb, timestamptz,
                                       integer, integer);
CREATE FUNCTION fs_link_create(p_id text, p_form text, p_user text, p_hash text, p_sealed text,
                               p_prefill jsonb, p_metadata jsonb, p_expires timestamptz,
                               p_max integer, p_limit integer, p_created_by text)
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
    SELECT count(*) INTO used FROM links
    WHERE form_id = p_form AND deleted_at IS NULL AND fs_creator_alive(created_by);
    IF used >= p_limit THEN
        RETURN QUERY SELECT 'quota'::text, used::text;
        RETURN;
    END IF;
    INSERT INTO links (id, form_id, user_id, token_hash, token_sealed, prefill, metadata,
                       expires_at, max_uses, created_by)
    VALUES (p_id, p_form, p_user, p_hash, p_sealed, p_prefill, p_metadata, p_expires, p_max,
            p_created_by)
    RETURNING * INTO l;
    RETURN QUERY SELECT 'ok'::text, fs_link_json(l)::text;
END $$;
