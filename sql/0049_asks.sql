-- 0049: asks (docs/api.md "Asks"): a question put to one person in one
-- call. An ask is a published form made from a JSON Schema, a single-use
-- respondent link to it (maxUses 1, expiring with the ask) and this row.
-- The ask is answered by the submission that comes through its link
-- (the trigger below, on the submission.created event of that
-- submission), declined from the link's page, or expires.
--
-- Additive: a new table, a trigger on events, two more event types. The
-- previous release's module never reads the table; its submissions through
-- an ask's link answer the ask all the same (the trigger).

CREATE TABLE IF NOT EXISTS asks (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    form_id       text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    link_id       text NOT NULL UNIQUE REFERENCES links(id) ON DELETE CASCADE,
    message       text NOT NULL,
    recipient     text,           -- the "to" address; NULL: none mailed
    metadata      jsonb,          -- the caller's; NULL: none
    expires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by    text,           -- the key that made it
    answered_at   timestamptz,
    submission_id text,           -- the answer (kept when the submission is deleted: NULL answer)
    declined_at   timestamptz
);
-- the account's asks, newest first; its pending ones (the quota)
CREATE INDEX IF NOT EXISTS asks_user ON asks (user_id, id DESC);

-- What an ask is now.
CREATE OR REPLACE FUNCTION fs_ask_status(a asks) RETURNS text
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN a.answered_at IS NOT NULL THEN 'answered'
               WHEN a.declined_at IS NOT NULL THEN 'declined'
               WHEN a.expires_at <= now() THEN 'expired'
               ELSE 'pending' END $$;

-- The owner's representation without the url (the glue adds it from the
-- link's sealed token): answer and answeredAt when answered, declinedAt
-- when declined.
CREATE OR REPLACE FUNCTION fs_ask_json(a asks) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT (jsonb_build_object('id', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                              'status', fs_ask_status(a), 'message', a.message,
                              'to', a.recipient, 'metadata', a.metadata,
                              'expiresAt', fs_ts(a.expires_at), 'createdAt', fs_ts(a.created_at))
           || CASE WHEN a.answered_at IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('answeredAt', fs_ts(a.answered_at),
                          'submissionId', a.submission_id,
                          'answer', (SELECT s.data FROM submissions s
                                     WHERE s.id = a.submission_id)) END
           || CASE WHEN a.declined_at IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('declinedAt', fs_ts(a.declined_at)) END)::json $$;

-- Creates the form (published), its single-use link and the ask in one
-- transaction, when the account has fewer than p_forms forms and fewer
-- than p_asks pending asks. The account's row is locked first (as
-- fs_form_create does), and both counts are read by later statements of
-- this function, so they see every ask and form committed before the lock
-- was granted: the limits are exact under concurrent requests.
-- With p_to, the message p_mail (written by the module, with the link and
-- an unsubscribe link for recipient p_rcpt) goes into the outbox in the
-- same transaction, counted as the mail of submissions is (fs_mail_done):
-- against the account's notifications of the day (p_cap) and the mail of
-- the day to an address that asked for none (p_per_address, by mailbox
-- p_mailbox). The person's "stop these mails" unsubscribes recipient
-- p_rcpt (notify_recipients, not listed: it gets no submission mail); an
-- address unsubscribed from an ask of the account is mailed no more asks
-- of it (outcome refused).
-- Outcomes: ok (body: the ask json), quota-forms / quota-asks /
-- quota-notifications / quota-address (body: how many are in use),
-- refused.
CREATE OR REPLACE FUNCTION fs_ask_create(p_id text, p_user text, p_form text, p_title text,
                                         p_fields jsonb, p_link text, p_hash text,
                                         p_sealed text, p_expires timestamptz, p_message text,
                                         p_to text, p_metadata jsonb, p_created_by text,
                                         p_forms integer, p_asks integer, p_rcpt text,
                                         p_mailbox text, p_msg text, p_mail text,
                                         p_cap integer, p_per_address integer)
RETURNS TABLE (outcome text, body text)
LANGUAGE plpgsql AS $$
DECLARE
    used bigint;
    a asks;
    addr_key text;
BEGIN
    PERFORM 1 FROM users WHERE id = p_user FOR UPDATE;
    SELECT count(*) INTO used FROM forms WHERE user_id = p_user;
    IF used >= p_forms THEN
        RETURN QUERY SELECT 'quota-forms'::text, used::text;
        RETURN;
    END IF;
    SELECT count(*) INTO used FROM asks k
     WHERE k.user_id = p_user AND fs_ask_status(k) = 'pending';
    IF used >= p_asks THEN
        RETURN QUERY SELECT 'quota-asks'::text, used::text;
        RETURN;
    END IF;
    IF p_to IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM asks k JOIN notify_recipients n ON n.form_id = k.form_id
                    WHERE k.user_id = p_user AND n.email_norm = p_mailbox
                      AND n.status = 'unsubscribed') THEN
            RETURN QUERY SELECT 'refused'::text, NULL::text;
            RETURN;
        END IF;
        addr_key := 'resp:' || encode(sha256(convert_to(p_mailbox, 'UTF8')), 'hex');
        IF NOT fs_mail_day_take(addr_key, p_per_address) THEN
            RETURN QUERY SELECT 'quota-address'::text, p_per_address::text;
            RETURN;
        END IF;
        IF NOT fs_mail_day_take('notify:' || p_user, p_cap) THEN
            PERFORM fs_mail_day_give(addr_key);
            RETURN QUERY SELECT 'quota-notifications'::text, p_cap::text;
            RETURN;
        END IF;
    END IF;
    INSERT INTO forms (id, user_id, title, description, fields, status, published_at)
    VALUES (p_form, p_user, p_title, p_message, p_fields, 'published', clock_timestamp());
    INSERT INTO links (id, form_id, user_id, token_hash, token_sealed, metadata, expires_at,
                       max_uses, created_by)
    VALUES (p_link, p_form, p_user, p_hash, p_sealed,
            COALESCE(p_metadata, '{}'::jsonb) || jsonb_build_object('askId', p_id),
            p_expires, 1, p_created_by);
    INSERT INTO asks (id, user_id, form_id, link_id, message, recipient, metadata, expires_at,
                      created_by)
    VALUES (p_id, p_user, p_form, p_link, p_message, p_to, p_metadata, p_expires, p_created_by)
    RETURNING * INTO a;
    IF p_to IS NOT NULL THEN
        INSERT INTO notify_recipients (id, form_id, email, email_norm, status, listed, confirmed_at)
        VALUES (p_rcpt, p_form, p_to, p_mailbox, 'confirmed', false, now());
        INSERT INTO outbox (id, recipient, message) VALUES (p_msg, p_to, p_mail);
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_ask_json(a)::text;
END $$;

-- Declines the pending ask whose link has this token hash: the ask
-- becomes declined, its link is withdrawn (no answer after it), and an
-- ask.declined event is recorded. A submission through the link holds
-- the link's row until it commits (fs_link_admit_locked) and answers the
-- ask in the same transaction, so an answer and a decline never both
-- win. Returns the ask's status afterwards ('declined', or what it was:
-- 'answered', 'expired'), or no row for a token of no ask.
CREATE OR REPLACE FUNCTION fs_ask_decline(p_form text, p_hash text)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    l links;
    a asks;
BEGIN
    SELECT * INTO l FROM links WHERE form_id = p_form AND token_hash = p_hash FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO a FROM asks WHERE link_id = l.id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF fs_ask_status(a) <> 'pending' OR fs_link_state(l) <> 'active' THEN
        RETURN CASE WHEN fs_ask_status(a) = 'pending' THEN 'expired' ELSE fs_ask_status(a) END;
    END IF;
    UPDATE asks SET declined_at = clock_timestamp() WHERE id = a.id RETURNING * INTO a;
    -- withdrawn, not merely expired: expires_at is compared with now(), the
    -- start of a transaction, and a submission's transaction may have
    -- started before this one and wait for the link's row lock
    UPDATE links SET deleted_at = a.declined_at WHERE id = l.id;
    INSERT INTO events (id, user_id, type, form_id, payload)
    VALUES (fs_new_id('evt_'), a.user_id, 'ask.declined', a.form_id,
            jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                               'metadata', a.metadata, 'declinedAt', fs_ts(a.declined_at)));
    RETURN 'declined';
END $$;

-- two more event types; the list is read from the constraint as it
-- stands, NOT VALID: the rows there satisfy it already. The constraint
-- 0043 wrote reads back as '{form.closed,...}'::text[], not as a list of
-- quoted names (which 0043's own pattern expects): every dotted name is
-- taken, in either form.
DO $$
DECLARE
    types text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO types
      FROM pg_constraint c,
           regexp_matches(pg_get_constraintdef(c.oid), '([a-z_]+\.[a-z_]+)', 'g') AS m
     WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check';
    IF types IS NULL OR NOT 'submission.created' = ANY (types) THEN
        RAISE EXCEPTION 'events_type_check not read: %', types;
    END IF;
    types := array_append(array_remove(types, 'ask.answered'), 'ask.answered');
    types := array_append(array_remove(types, 'ask.declined'), 'ask.declined');
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (%L::text[])) NOT VALID',
                   types);
END $$;

-- An ask is answered by the (non-spam) submission through its link: on
-- that submission's submission.created event, in the statement that
-- stored it, the ask gets answered_at and an ask.answered event carrying
-- the answer. One statement-level trigger for every insert of events;
-- the events it inserts are not submission.created, so it runs once more
-- and returns at once.
CREATE OR REPLACE FUNCTION fs_asks_answer() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- a statement-level trigger runs for an insert of no rows too: the
    -- insert below would call it again, without end
    IF NOT EXISTS (SELECT 1 FROM new_events n WHERE n.type = 'submission.created') THEN
        RETURN NULL;
    END IF;
    WITH a AS (
        UPDATE asks k SET answered_at = n.created_at, submission_id = n.submission_id
          FROM new_events n
         WHERE n.type = 'submission.created' AND n.submission_id IS NOT NULL
           AND n.payload ? 'linkId' AND k.link_id = n.payload->>'linkId'
           AND k.answered_at IS NULL AND k.declined_at IS NULL
        RETURNING k.*, n.payload->'data' AS data)
    INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
    SELECT fs_new_id('evt_'), a.user_id, 'ask.answered', a.form_id, a.submission_id,
           jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                              'metadata', a.metadata, 'submissionId', a.submission_id,
                              'answer', a.data, 'answeredAt', fs_ts(a.answered_at))
      FROM a;
    RETURN NULL;
END $$;

CREATE TRIGGER events_asks AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION fs_asks_answer();
