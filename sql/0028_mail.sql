-- 0028: mail about submissions (issue 13, items 1 and 2): the owner's
-- notification (settings.notify: a mail per submission or an hourly
-- digest, only to addresses that confirmed) and the respondent's copy
-- (settings.confirmation).
--
-- The statement that stores a submission writes its event; a trigger on
-- the event adds a row to mail_jobs, for forms that ask for mail only. The
-- mail worker of every httpd child claims jobs under a lease
-- (fs_mail_claim), writes the messages in C (fs_notify.c) and hands them
-- to fs_mail_done, which counts them against the daily quotas and queues
-- them in the outbox, in one transaction. No shared row is written on the
-- submission path.

-- The addresses settings.notify.emails names, with what each agreed to.
-- A row outlives its removal from the list (listed false), so that adding
-- an address again after it unsubscribed asks it again.
CREATE TABLE notify_recipients (
    id               text PRIMARY KEY,
    form_id          text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    email            text NOT NULL,
    email_norm       text NOT NULL,
    status           text NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
    listed           boolean NOT NULL DEFAULT true,
    token_hash       text,        -- the confirmation link's token, HMAC under the pepper
    token_expires_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    confirmed_at     timestamptz,
    unsubscribed_at  timestamptz,
    UNIQUE (form_id, email_norm)
);
CREATE UNIQUE INDEX notify_recipients_token ON notify_recipients (token_hash)
    WHERE token_hash IS NOT NULL;

-- Mail owed: 'address' asks a recipient to confirm; 'each' is a
-- submission for the confirmed recipients; 'digest' a submission for the
-- next hourly digest; 'confirmation' the respondent's copy.
CREATE TABLE mail_jobs (
    id            bigserial PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('address', 'each', 'digest', 'confirmation')),
    form_id       text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    submission_id text REFERENCES submissions(id) ON DELETE CASCADE,
    recipient_id  text REFERENCES notify_recipients(id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    leased_until  timestamptz NOT NULL DEFAULT '-infinity'
);
CREATE INDEX mail_jobs_due ON mail_jobs (leased_until, id);
CREATE INDEX mail_jobs_digest ON mail_jobs (form_id, created_at) WHERE kind = 'digest';
CREATE INDEX mail_jobs_submission ON mail_jobs (submission_id) WHERE submission_id IS NOT NULL;
CREATE INDEX mail_jobs_recipient ON mail_jobs (recipient_id) WHERE recipient_id IS NOT NULL;

-- Mails per key and UTC day: 'notify:<user id>' (the account's
-- notifications quota) and 'resp:<sha256 of the address>' (mail one
-- address receives from the whole service without having agreed to it:
-- respondents' copies and requests to confirm notifications).
CREATE TABLE mail_daily (
    key  text NOT NULL,
    day  date NOT NULL,
    sent integer NOT NULL,
    PRIMARY KEY (key, day)
);

CREATE FUNCTION fs_utc_day() RETURNS date
LANGUAGE sql STABLE AS $$ SELECT (now() AT TIME ZONE 'UTC')::date $$;

-- One more mail under key today, if fewer than cap went: exact under
-- concurrency (the row is locked by the upsert and its condition read
-- again after the lock).
CREATE FUNCTION fs_mail_day_take(k text, cap integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n integer;
BEGIN
    IF cap <= 0 THEN RETURN false; END IF;
    INSERT INTO mail_daily AS m (key, day, sent) VALUES (k, fs_utc_day(), 1)
        ON CONFLICT (key, day) DO UPDATE SET sent = m.sent + 1 WHERE m.sent < cap
        RETURNING m.sent INTO n;
    RETURN n IS NOT NULL;
END $$;

CREATE FUNCTION fs_mail_day_give(k text) RETURNS void
LANGUAGE sql VOLATILE AS
$$ UPDATE mail_daily SET sent = sent - 1 WHERE key = k AND day = fs_utc_day() AND sent > 0 $$;

-- settings.notify.emails → notify_recipients. A new address is confirmed
-- at once when it is the owner's own verified one, else pending with a
-- job that mails it a confirmation link; an address listed again after
-- it left the list is asked again unless it had confirmed.
CREATE FUNCTION fs_notify_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    list jsonb := CASE WHEN jsonb_typeof(NEW.settings -> 'notify' -> 'emails') = 'array'
                       THEN NEW.settings -> 'notify' -> 'emails' ELSE '[]'::jsonb END;
    own text;
    e text;
    r notify_recipients;
BEGIN
    SELECT u.email_norm INTO own FROM users u WHERE u.id = NEW.user_id AND u.verified;
    UPDATE notify_recipients n SET listed = false
     WHERE n.form_id = NEW.id AND n.listed
       AND NOT n.email_norm IN (SELECT lower(btrim(x)) FROM jsonb_array_elements_text(list) x);
    FOR e IN SELECT x FROM jsonb_array_elements_text(list) x LOOP
        SELECT * INTO r FROM notify_recipients n
         WHERE n.form_id = NEW.id AND n.email_norm = lower(btrim(e)) FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO notify_recipients AS n (id, form_id, email, email_norm, status,
                                                confirmed_at)
            VALUES (fs_new_id('nrc_'), NEW.id, btrim(e), lower(btrim(e)),
                    CASE WHEN lower(btrim(e)) = own THEN 'confirmed' ELSE 'pending' END,
                    CASE WHEN lower(btrim(e)) = own THEN clock_timestamp() END)
            RETURNING * INTO r;
        ELSIF r.listed THEN
            CONTINUE;
        ELSE
            UPDATE notify_recipients n SET listed = true,
                   status = CASE WHEN n.status = 'confirmed' OR n.email_norm = own
                                 THEN 'confirmed' ELSE 'pending' END,
                   token_hash = NULL, token_expires_at = NULL
             WHERE n.id = r.id RETURNING * INTO r;
        END IF;
        IF r.status = 'pending' THEN
            INSERT INTO mail_jobs (kind, form_id, recipient_id) VALUES ('address', NEW.id, r.id);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
CREATE TRIGGER forms_notify_insert AFTER INSERT ON forms FOR EACH ROW
    WHEN (NEW.settings -> 'notify' IS NOT NULL AND NEW.settings -> 'notify' <> 'null'::jsonb)
    EXECUTE FUNCTION fs_notify_sync();
CREATE TRIGGER forms_notify_update AFTER UPDATE OF settings ON forms FOR EACH ROW
    WHEN (OLD.settings -> 'notify' IS DISTINCT FROM NEW.settings -> 'notify')
    EXECUTE FUNCTION fs_notify_sync();

-- A stored submission's event owes mail when its form asks for it: a job
-- for the confirmed recipients (each or digest), and one for the
-- respondent's copy.
CREATE FUNCTION fs_mail_on_submission() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE s jsonb;
BEGIN
    SELECT f.settings INTO s FROM forms f WHERE f.id = NEW.form_id;
    IF s -> 'notify' IS NOT NULL AND s -> 'notify' <> 'null'::jsonb
       AND EXISTS (SELECT 1 FROM notify_recipients n WHERE n.form_id = NEW.form_id
                   AND n.listed AND n.status = 'confirmed') THEN
        INSERT INTO mail_jobs (kind, form_id, submission_id)
        VALUES (CASE WHEN s -> 'notify' ->> 'mode' = 'hourly' THEN 'digest' ELSE 'each' END,
                NEW.form_id, NEW.submission_id);
    END IF;
    IF s -> 'confirmation' IS NOT NULL AND s -> 'confirmation' <> 'null'::jsonb THEN
        INSERT INTO mail_jobs (kind, form_id, submission_id)
        VALUES ('confirmation', NEW.form_id, NEW.submission_id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER events_mail AFTER INSERT ON events FOR EACH ROW
    WHEN (NEW.type = 'submission.created' AND NEW.submission_id IS NOT NULL)
    EXECUTE FUNCTION fs_mail_on_submission();

CREATE FUNCTION fs_mail_submission_json(s submissions) RETURNS jsonb
LANGUAGE sql STABLE AS
$$ SELECT jsonb_build_object('id', s.id, 'data', s.data, 'createdAt', fs_ts(s.created_at)) $$;

CREATE FUNCTION fs_mail_form_json(f forms) RETURNS jsonb
LANGUAGE sql STABLE AS
$$ SELECT jsonb_build_object('id', f.id, 'title', f.title, 'fields', f.fields,
                             'confirmation', f.settings -> 'confirmation') $$;

CREATE FUNCTION fs_mail_recipients_json(fid text) RETURNS jsonb
LANGUAGE sql STABLE AS
$$ SELECT COALESCE(jsonb_agg(jsonb_build_object('id', n.id, 'email', n.email) ORDER BY n.id),
                   '[]'::jsonb)
     FROM notify_recipients n WHERE n.form_id = fid AND n.listed AND n.status = 'confirmed' $$;

-- Claims due jobs for lease seconds: up to batch single jobs ('address',
-- 'each', 'confirmation'), then the digests of up to batch forms whose
-- submissions of an ended UTC hour wait (all of a form's at once, under
-- an advisory lock, so a digest is never split between two workers).
-- A row per message to write: the job ids (a JSON array), the kind, the
-- account and what the message needs (payload).
CREATE FUNCTION fs_mail_claim(lease integer, batch integer)
RETURNS TABLE (jobs text, kind text, user_id text, payload text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    j mail_jobs;
    d record;
    hour timestamptz := date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    ids bigint[];
    f forms;
BEGIN
    FOR j IN UPDATE mail_jobs m SET leased_until = now() + make_interval(secs => lease)
              WHERE m.id IN (SELECT x.id FROM mail_jobs x WHERE x.leased_until < now()
                               AND x.kind <> 'digest' ORDER BY x.id LIMIT batch
                               FOR UPDATE SKIP LOCKED)
              RETURNING m.* LOOP
        SELECT * INTO f FROM forms WHERE id = j.form_id;
        jobs := jsonb_build_array(j.id)::text;
        kind := j.kind;
        user_id := f.user_id;
        payload := CASE j.kind
            WHEN 'address' THEN (SELECT jsonb_build_object('form', fs_mail_form_json(f),
                    'recipient', jsonb_build_object('id', n.id, 'email', n.email,
                                                    'pending', n.status = 'pending' AND n.listed))
                 FROM notify_recipients n WHERE n.id = j.recipient_id)
            ELSE (SELECT jsonb_build_object('form', fs_mail_form_json(f),
                    'submission', fs_mail_submission_json(s),
                    'recipients', CASE WHEN j.kind = 'each'
                                       THEN fs_mail_recipients_json(f.id) ELSE '[]' END)
                 FROM submissions s WHERE s.id = j.submission_id) END::text;
        RETURN NEXT;
    END LOOP;
    FOR d IN SELECT DISTINCT x.form_id FROM mail_jobs x
              WHERE x.kind = 'digest' AND x.leased_until < now() AND x.created_at < hour
              LIMIT batch LOOP
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtextextended('fs_digest:' || d.form_id, 0));
        WITH u AS (UPDATE mail_jobs m SET leased_until = now() + make_interval(secs => lease)
                    WHERE m.kind = 'digest' AND m.form_id = d.form_id AND m.leased_until < now()
                      AND m.created_at < hour RETURNING m.id)
        SELECT array_agg(u.id) INTO ids FROM u;
        CONTINUE WHEN ids IS NULL;
        SELECT * INTO f FROM forms WHERE id = d.form_id;
        jobs := to_jsonb(ids)::text;
        kind := 'digest';
        user_id := f.user_id;
        payload := jsonb_build_object('form', fs_mail_form_json(f),
            'recipients', fs_mail_recipients_json(f.id),
            'total', (SELECT count(*) FROM mail_jobs m JOIN submissions s ON s.id = m.submission_id
                       WHERE m.id = ANY (ids)),
            'submissions', COALESCE((SELECT jsonb_agg(fs_mail_submission_json(s) ORDER BY s.created_at, s.id)
                FROM (SELECT s.* FROM mail_jobs m JOIN submissions s ON s.id = m.submission_id
                       WHERE m.id = ANY (ids) ORDER BY s.created_at, s.id LIMIT 50) s), '[]'))::text;
        RETURN NEXT;
    END LOOP;
END $$;

-- The messages written for claimed jobs: msgs is a JSON array of {id (the
-- outbox id), to, message, kind ('notify', 'confirmation' or 'address'),
-- recipientId and tokenHash (address)}. The jobs are deleted; when none
-- of them was left (another worker finished them after the lease ran out)
-- nothing is queued. Each message counts against the account's quota of
-- the day (cap of its tier; 0 sends none), a respondent's copy and a
-- request to confirm also against the address's (per_address); one over
-- either is dropped.
-- Returns how many were queued and dropped.
CREATE FUNCTION fs_mail_done(jobs text, uid text, msgs text, cap_unverified integer,
                             cap_verified integer, per_address integer,
                             OUT queued integer, OUT dropped integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    m jsonb;
    gone integer;
    cap integer;
    addr_key text;
BEGIN
    queued := 0; dropped := 0;
    DELETE FROM mail_jobs WHERE id IN (SELECT x::bigint FROM jsonb_array_elements_text(jobs::jsonb) x);
    GET DIAGNOSTICS gone = ROW_COUNT;
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
            addr_key := 'resp:' || encode(sha256(convert_to(lower(btrim(m ->> 'to')), 'UTF8')), 'hex');
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
        INSERT INTO outbox (id, recipient, message) VALUES (m ->> 'id', m ->> 'to', m ->> 'message');
        queued := queued + 1;
    END LOOP;
END $$;
