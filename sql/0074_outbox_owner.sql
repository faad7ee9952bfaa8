-- Mail waiting in the outbox knows whose it is. A message was only a
-- recipient and its text, so the erasures could not find the mail an
-- account's forms had queued for others: after DELETE /v1/me a
-- respondent's copy (with the answers and the private edit link), a
-- resume URL mailed to a respondent, or a notification to a form's
-- recipients still left if it was waiting (the SMTP server down, a retry
-- hours away), and sent copies kept the answers for 7 days; after POST
-- /v1/erasures the mail to the erased address (its copy, its resume URL)
-- and the notifications carrying its answers stayed and were sent.
--
-- outbox.user_id: the account whose form (or ask) the message is about
-- (NULL: mail to an account itself, verification and recovery, and mail
-- the previous release queues). outbox.submission_id: the submission a notification or
-- a respondent's copy is about (NULL when several, a digest, or none).
-- outbox.form_id: the form (NULL as user_id is); deleting the form
-- (fs_form_delete) deletes its messages.
-- fs_account_erase deletes the account's messages, sent or not, at once;
-- fs_erasure deletes the account's messages to the address; deleting a
-- submission, in any way, deletes the messages about it.
--
-- Additive: three nullable columns (no rewrite), indexes on a small table
-- (sent mail lives 7 days), the three functions that queue form mail
-- (fs_mail_done, fs_partial_mail, fs_ask_create) and the delete trigger's
-- function replaced with the same signatures. The previous release's inserts name
-- their columns and leave the new ones NULL; its erasure does what it did.

ALTER TABLE outbox ADD COLUMN IF NOT EXISTS user_id text;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS submission_id text;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS form_id text;
CREATE INDEX IF NOT EXISTS outbox_user ON outbox (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS outbox_submission ON outbox (submission_id) WHERE submission_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS outbox_form ON outbox (form_id) WHERE form_id IS NOT NULL;

-- Deleting a submission deletes the mail about it too (sql/0018's trigger
-- function, which scrubs its events, with one more statement): whoever
-- deletes it (the owner, a bulk delete, retention, an erasure), a
-- notification or the respondent's copy that waits for a retry is not
-- sent with the answers afterwards, and a sent one does not keep them.
CREATE OR REPLACE FUNCTION fs_submission_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'formId', OLD.form_id,
                                                   'deleted', true)
    WHERE submission_id = OLD.id;
    DELETE FROM outbox WHERE submission_id = OLD.id;
    RETURN NULL;
END $$;

-- sql/0038's function, each message now tagged with the account and,
-- when the jobs were about one submission (one form), with it.
CREATE OR REPLACE FUNCTION fs_mail_done(jobs text, uid text, msgs text, cap_unverified integer,
                             cap_verified integer, per_address integer,
                             OUT queued integer, OUT dropped integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    m jsonb;
    gone integer;
    cap integer;
    addr_key text;
    subs text[];
    frms text[];
BEGIN
    queued := 0; dropped := 0;
    WITH d AS (DELETE FROM mail_jobs
                WHERE id IN (SELECT x::bigint FROM jsonb_array_elements_text(jobs::jsonb) x)
               RETURNING submission_id, form_id)
    SELECT count(*), array_agg(DISTINCT d.submission_id) FILTER (WHERE d.submission_id IS NOT NULL),
           array_agg(DISTINCT d.form_id)
      INTO gone, subs, frms FROM d;
    IF gone = 0 THEN RETURN; END IF;
    SELECT CASE WHEN u.verified THEN cap_verified ELSE cap_unverified END INTO cap
      FROM users u WHERE u.id = uid;
    FOR m IN SELECT x FROM jsonb_array_elements(msgs::jsonb) x LOOP
        addr_key := NULL;
        IF m ->> 'kind' = 'address' THEN
            -- still pending and listed: else the confirmation is not needed any more
            PERFORM 1 FROM notify_recipients n WHERE n.id = m ->> 'recipientId'
                AND n.status = 'pending' AND n.listed FOR UPDATE;
            CONTINUE WHEN NOT FOUND;
        END IF;
        -- mail to an address that has agreed to nothing (a respondent's
        -- copy, a request to confirm notifications): capped per address
        IF m ->> 'kind' IN ('confirmation', 'address') THEN
            -- the mailbox the module names (fs_mail_mailbox: lower case,
            -- without a +tag), the address itself from an older module
            addr_key := 'resp:' || encode(sha256(convert_to(
                COALESCE(m ->> 'mailbox', lower(btrim(m ->> 'to'))), 'UTF8')), 'hex');
            IF NOT fs_mail_day_take(addr_key, per_address) THEN
                dropped := dropped + 1; CONTINUE;
            END IF;
        END IF;
        IF NOT fs_mail_day_take('notify:' || uid, COALESCE(cap, 0)) THEN
            IF addr_key IS NOT NULL THEN PERFORM fs_mail_day_give(addr_key); END IF;
            dropped := dropped + 1; CONTINUE;
        END IF;
        IF m ->> 'kind' = 'address' THEN
            UPDATE notify_recipients SET token_hash = m ->> 'tokenHash',
                   token_expires_at = now() + interval '7 days'
             WHERE id = m ->> 'recipientId';
        END IF;
        INSERT INTO outbox (id, recipient, message, user_id, submission_id, form_id)
        VALUES (m ->> 'id', m ->> 'to', m ->> 'message', uid,
                CASE WHEN cardinality(subs) = 1 THEN subs[1] END,
                CASE WHEN cardinality(frms) = 1 THEN frms[1] END);
        queued := queued + 1;
    END LOOP;
END $$;

-- sql/0059's function, the resume mail tagged with the form and its account.
CREATE OR REPLACE FUNCTION fs_partial_mail(p_form text, p_to text, p_mailbox text, p_id text,
                                           p_message text, cap_unverified integer,
                                           cap_verified integer, p_per_address integer)
    RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    uid text;
    cap integer;
    addr_key text;
BEGIN
    SELECT f.user_id, CASE WHEN u.verified THEN cap_verified ELSE cap_unverified END
      INTO uid, cap
      FROM forms f JOIN users u ON u.id = f.user_id
     WHERE f.id = p_form AND f.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN 'gone';
    END IF;
    addr_key := 'resp:' || encode(sha256(convert_to(p_mailbox, 'UTF8')), 'hex');
    IF NOT fs_mail_day_take(addr_key, p_per_address) THEN
        RETURN 'limited';
    END IF;
    IF NOT fs_mail_day_take('notify:' || uid, COALESCE(cap, 0)) THEN
        PERFORM fs_mail_day_give(addr_key);
        RETURN 'limited';
    END IF;
    INSERT INTO outbox (id, recipient, message, user_id, form_id)
    VALUES (p_id, p_to, p_message, uid, p_form);
    RETURN 'queued';
END $$;

-- sql/0049's function, the mail asking a person (an ask with "to")
-- tagged with the asking account and the ask's form: an erasure of the
-- account, or deleting the form, stops it.
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
        INSERT INTO outbox (id, recipient, message, user_id, form_id)
        VALUES (p_msg, p_to, p_mail, p_user, p_form);
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_ask_json(a)::text;
END $$;
