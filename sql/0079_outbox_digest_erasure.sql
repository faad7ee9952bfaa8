-- 0079: an hourly digest waiting in the outbox, or kept there 7 days
-- after it was sent, carried the answers of up to 50 submissions, but
-- named none of them (outbox.submission_id is for a message about one):
-- deleting one of those submissions (an erasure, the owner, retention)
-- left its answers in the digest, which was then sent. A message written
-- a moment before the deletion committed was queued with them too.
--
-- outbox.submission_ids: the submissions a digest lists in full (the
-- module names them in the message it writes). Deleting a submission
-- deletes every message listing it; a digest not yet sent is written
-- again for the other submissions it listed, in the next digest of the
-- form (their jobs queued again: a recipient whose copy was sent while
-- another's waited may get those again; none is lost). fs_mail_done locks
-- a digest's jobs so that a deletion either comes before (the message is
-- not queued, the jobs left go again) or after (its trigger finds the
-- message).
--
-- Additive: a nullable column with a GIN index on a small table (sent
-- mail lives 7 days), the trigger function and fs_mail_done replaced with
-- the same signatures. The previous release's module names no
-- submissionIds: its digests are queued as before, unlisted.

ALTER TABLE outbox ADD COLUMN IF NOT EXISTS submission_ids text[];
CREATE INDEX IF NOT EXISTS outbox_submission_ids ON outbox USING gin (submission_ids)
    WHERE submission_ids IS NOT NULL;

-- sql/0074's function: the messages listing the submission go too, and
-- the jobs of the others a waiting digest listed are queued again.
CREATE OR REPLACE FUNCTION fs_submission_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'formId', OLD.form_id,
                                                   'deleted', true)
    WHERE submission_id = OLD.id;
    DELETE FROM outbox WHERE submission_id = OLD.id;
    -- a digest being queued now (fs_mail_done holds its jobs) is waited
    -- for, so that the delete below sees its messages, whichever of this
    -- trigger and the jobs' ON DELETE CASCADE runs first
    PERFORM 1 FROM mail_jobs WHERE submission_id = OLD.id FOR UPDATE;
    WITH d AS (DELETE FROM outbox o WHERE o.submission_ids @> ARRAY[OLD.id]
               RETURNING o.form_id, o.submission_ids, o.sent_at, o.failed_at)
    INSERT INTO mail_jobs (kind, form_id, submission_id)
    SELECT DISTINCT 'digest', d.form_id, x FROM d, unnest(d.submission_ids) x
     WHERE d.sent_at IS NULL AND d.failed_at IS NULL AND d.form_id IS NOT NULL
       AND x <> OLD.id AND EXISTS (SELECT 1 FROM submissions s WHERE s.id = x);
    RETURN NULL;
END $$;

-- sql/0074's function: a digest is queued only when all its jobs are
-- still there, and the submissions it lists are kept with its messages.
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
    job_ids bigint[];
    got bigint[];
BEGIN
    queued := 0; dropped := 0;
    SELECT array_agg(x::bigint) INTO job_ids FROM jsonb_array_elements_text(jobs::jsonb) x;
    -- A digest (its messages name the submissions they list): every one
    -- of its jobs must still be there, or the text was written with the
    -- answers of a submission deleted since (its job goes with it, ON
    -- DELETE CASCADE) or being deleted now (its job locked by that
    -- deletion): then nothing is queued and the jobs left are claimed
    -- again, to be written without it. The jobs are locked here, not
    -- waited for (SKIP LOCKED): a deletion that reaches one of them
    -- later waits for this transaction, and its trigger then finds the
    -- message (fs_submission_forget). A message about one submission needs
    -- none of this: its one job is deleted below, waiting for a deletion
    -- under way, and a job found gone queues nothing.
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(msgs::jsonb) e (msg)
                WHERE e.msg ? 'submissionIds') THEN
        SELECT array_agg(j.id) INTO got
          FROM (SELECT x.id FROM mail_jobs x WHERE x.id = ANY (job_ids)
                   FOR UPDATE SKIP LOCKED) j;
        IF got IS NULL THEN RETURN; END IF;
        IF cardinality(got) < cardinality(job_ids) THEN
            UPDATE mail_jobs SET leased_until = '-infinity' WHERE id = ANY (got);
            RETURN;
        END IF;
    END IF;
    WITH d AS (DELETE FROM mail_jobs WHERE id = ANY (job_ids)
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
        INSERT INTO outbox (id, recipient, message, user_id, submission_id, form_id,
                            submission_ids)
        VALUES (m ->> 'id', m ->> 'to', m ->> 'message', uid,
                CASE WHEN cardinality(subs) = 1 THEN subs[1] END,
                CASE WHEN cardinality(frms) = 1 THEN frms[1] END,
                CASE WHEN m ? 'submissionIds' THEN
                     ARRAY(SELECT jsonb_array_elements_text(m -> 'submissionIds')) END);
        queued := queued + 1;
    END LOOP;
END $$;

