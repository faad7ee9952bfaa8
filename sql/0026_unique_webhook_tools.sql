-- 0026: issue 13, items 4 and 5.
--
-- Duplicate rules (settings.uniqueBy, docs/forms.md "Duplicate
-- submissions"): a submission of a form with uniqueBy carries uniq_hash,
-- the SHA-256 of its normalised values of those fields (fs_unique.c);
-- NULL for forms without uniqueBy, spam, and submissions missing one of
-- the values. At most one submission of a form holds a hash; deleting it
-- frees the hash.
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS uniq_hash text;
CREATE UNIQUE INDEX IF NOT EXISTS submissions_uniq ON submissions (form_id, uniq_hash)
    WHERE uniq_hash IS NOT NULL;

-- Whether form p_form may take a submission with hash p_hash: no other
-- submission of the form holds it. Exact under concurrency: called from
-- the submission's own statement (fs_public_submit, store/public_store.c),
-- it first takes a transaction lock on (form, hash), held until that
-- statement commits, and only then looks, in a fresh snapshot (a VOLATILE
-- function's queries see what committed while it waited), so a second
-- submission with the same values waits for the first and then sees it.
-- The unique index above is the backstop. Submissions with different
-- values, or of forms without uniqueBy, never take the lock.
CREATE OR REPLACE FUNCTION fs_submission_unique(p_form text, p_hash text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('fs_uniq:' || p_form || ':' || p_hash, 0));
    RETURN NOT EXISTS (SELECT 1 FROM submissions WHERE form_id = p_form AND uniq_hash = p_hash);
END $$;

-- Webhook tools (PATCH /v1/webhooks/{id}, .../test, .../retry;
-- docs/webhooks.md). A disabled webhook is queued nothing for new events,
-- and its pending deliveries are held (not claimed) until it is enabled.
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS enabled boolean NOT NULL DEFAULT true;

CREATE OR REPLACE FUNCTION fs_webhook_json(w webhooks) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', w.id, 'url', w.url, 'events', to_json(w.events),
                            'formId', w.form_id, 'enabled', w.enabled,
                            'createdAt', fs_ts(w.created_at)) $$;

CREATE OR REPLACE FUNCTION fs_event_fanout() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO deliveries (id, webhook_id, event_id)
    SELECT fs_new_id('dlv_'), w.id, NEW.id FROM webhooks w
    WHERE w.user_id = NEW.user_id AND NEW.type = ANY (w.events)
      AND (w.form_id IS NULL OR w.form_id = NEW.form_id)
      AND w.enabled
      AND fs_creator_alive(w.created_by);
    RETURN NULL;
END $$;

-- webhook.test: the event POST /v1/webhooks/{id}/test delivers to that one
-- webhook (never fanned out: no webhook subscribes to it) and that the feed
-- does not show.
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check
    CHECK (type IN ('submission.created', 'form.published', 'form.closed', 'webhook.test'));
