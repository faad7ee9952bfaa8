-- 0042: account erasure (DELETE /v1/me, docs/privacy.md).
--
-- An account being erased has users.deleted_at set, in the one statement
-- that answers DELETE /v1/me (store/account_store.c, fs_account_erase):
-- its keys, access tokens and clients are revoked in that statement (the
-- key triggers of 0025 notify every credential cache, as a revocation
-- does), its forms get forms.deleted_at (the form triggers notify the
-- public form caches; the public side answers 410 form-deleted), its
-- webhooks are disabled and its pending mail jobs deleted. Its address is
-- freed at once (email_norm becomes 'deleted:<id>', which no address
-- normalises to), so it may sign up again. fs_account_purge, run by a
-- background task, then deletes the rows in small batches.
--
-- Only columns and a function are added: the previous release's module
-- keeps working on this schema (it sees revoked keys and disabled webhooks;
-- it does not know deleted_at, so it would still serve the forms).

ALTER TABLE users ADD COLUMN deleted_at timestamptz;
ALTER TABLE forms ADD COLUMN deleted_at timestamptz;

CREATE INDEX users_deleted ON users (deleted_at) WHERE deleted_at IS NOT NULL;

-- Deleting an event looks for its deliveries (ON DELETE CASCADE): without
-- this index, once per event, over the whole table. The erasure deletes an
-- account's events in batches of 500, as the 30-day sweep does.
CREATE INDEX deliveries_event ON deliveries (event_id);

-- One step of the erasure of the account erased longest ago: deletes at
-- most batch rows of one kind (the first kind, in the order below, that
-- still has rows), or, when none is left, the account's row itself (the
-- cascades then remove the few rows left per account). Returns how many
-- rows it deleted; 0 when no account is being erased. Every step is a
-- statement of its own (the caller's autocommit), so no lock is held
-- long and a step that fails is simply run again.
CREATE FUNCTION fs_account_purge(batch integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    u users;
    n integer;
BEGIN
    SELECT * INTO u FROM users WHERE deleted_at IS NOT NULL ORDER BY deleted_at LIMIT 1;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    -- Idempotency records are scoped by key id (API) or form id (public):
    -- first, while both are still there.
    DELETE FROM idempotency i WHERE (i.scope, i.key) IN (
        SELECT x.scope, x.key FROM idempotency x
         WHERE x.scope IN (SELECT k.id FROM keys k WHERE k.user_id = u.id
                           UNION ALL SELECT f.id FROM forms f WHERE f.user_id = u.id)
         LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM deliveries d WHERE d.id IN (
        SELECT x.id FROM webhooks w JOIN deliveries x ON x.webhook_id = w.id
         WHERE w.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM mail_jobs m WHERE m.id IN (
        SELECT x.id FROM forms f JOIN mail_jobs x ON x.form_id = f.id
         WHERE f.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- files go with their submissions (a chunk is at most a few hundred
    -- kilobytes: a tenth of the batch of files at a time)
    DELETE FROM submission_files sf WHERE sf.id IN (
        SELECT x.id FROM submission_files x WHERE x.user_id = u.id
         LIMIT greatest(batch / 10, 1));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM submissions s WHERE s.id IN (
        SELECT x.id FROM forms f JOIN submissions x ON x.form_id = f.id
         WHERE f.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM events e WHERE e.id IN (
        SELECT x.id FROM events x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM audit a WHERE a.id IN (
        SELECT x.id FROM audit x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- links, notification recipients and per-form counters go with their form
    DELETE FROM forms f WHERE f.id IN (
        SELECT x.id FROM forms x WHERE x.user_id = u.id LIMIT greatest(batch / 10, 1));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- keys delete their delegates (parent_key_id cascades)
    DELETE FROM keys k WHERE k.id IN (
        SELECT x.id FROM keys x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- Mail to the account's own address (verification, recovery), and the
    -- account-mail counters keyed by its id or by the hash of its address
    -- (0021), unless another account now has that address.
    DELETE FROM outbox o WHERE lower(o.recipient) = lower(u.email);
    IF NOT EXISTS (SELECT 1 FROM users x WHERE x.email_norm = lower(u.email)) THEN
        DELETE FROM mail_quota q
         WHERE q.key = 'addr:' || encode(sha256(convert_to(lower(u.email), 'UTF8')), 'hex');
    END IF;
    DELETE FROM mail_quota q WHERE q.key = 'user:' || u.id;
    DELETE FROM mail_daily d WHERE d.key = 'notify:' || u.id;
    -- what is left (clients, webhooks, account codes, counters) cascades
    DELETE FROM users x WHERE x.id = u.id;
    RETURN 1;
END $$;

-- POST /v1/erasures (a respondent's erasure request received by the owner)
-- writes one summary event, submissions.erased: how many submissions of
-- which forms went, never the address. The allowed types widen; the
-- previous release's module writes none of the new type.
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (ARRAY[
    'submission.created', 'form.published', 'form.closed', 'webhook.test', 'webhook.paused',
    'submissions.erased'])) NOT VALID;
