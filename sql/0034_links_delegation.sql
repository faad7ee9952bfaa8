-- 0034: respondent links in the delegation tree (docs/api.md, "Delegation
-- rules"; issue 13, item 3 follow-up).
--
-- A link records the credential that made it (created_by, like webhooks
-- since 0019). A link made by a delegate dies with it: once that delegate
-- is revoked or expires (the rule of fs_creator_alive), the link's URL answers 410
-- link-expired, the owner's API no longer lists, shows or counts it (404,
-- like a webhook of an ended delegate), and a delegate manages only the
-- links made inside its own tree. Links made by an owner key, and links
-- made before this migration (created_by NULL), belong to the account.

ALTER TABLE links ADD COLUMN IF NOT EXISTS created_by text;
CREATE INDEX IF NOT EXISTS links_created_by ON links (created_by) WHERE created_by IS NOT NULL;

-- Whether key k is a delegate that has ended (revoked or expired): what it
-- made has died with it. The negation of fs_creator_alive (0019) for a key
-- that exists, written without a sub-select so that PostgreSQL inlines it
-- into the statements that test a link's creator with
--   EXISTS (SELECT 1 FROM keys k WHERE k.id = l.created_by AND fs_key_ended_delegate(k))
-- (fs_creator_alive is not inlined: calling it per link cost about 0.08 ms,
-- three to five times the lookup of the link by its token).
CREATE FUNCTION fs_key_ended_delegate(k keys) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT NOT (fs_key_is_owner(k) OR fs_key_active(k)) $$;

-- The link test of a public submission through a link (0027), now also
-- 'expired' when the link's creator has ended. A repeat of a stored
-- submission is still let through, to be answered as a replay. Only
-- submissions through a link call this (LINK_STATE in public_store.c).
CREATE OR REPLACE FUNCTION fs_link_admit_locked(p_link text, p_form text, p_ikey text)
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
    IF l.created_by IS NOT NULL AND EXISTS (SELECT 1 FROM keys k WHERE k.id = l.created_by
            AND fs_key_ended_delegate(k)) THEN
        RETURN 'expired';
    END IF;
    RETURN CASE fs_link_state(l) WHEN 'active' THEN 'ok' ELSE fs_link_state(l) END;
END $$;

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
    SELECT count(*) INTO used FROM links x
    WHERE x.form_id = p_form AND x.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.id = x.created_by AND fs_key_ended_delegate(k));
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
