-- Partial answers (settings.partial, docs/forms.md "Partial answers"):
-- what a respondent of a form of several pages has given so far, kept at
-- each page step as one row per filling-in, updated in place, until the
-- last page's Submit turns it into the submission (the same id) or it
-- expires (expires_at, partialExpiresDays after its last step; the
-- retention task deletes expired rows in batches).
--
-- A table of its own, not rows of submissions: every reader of
-- submissions (lists, exports, counts, quotas, the hour and insight
-- tallies, mail, the previous release's module during a rolling upgrade)
-- goes on seeing completed submissions only, without a filter added to
-- each. Completing is one statement (public_store.c) that inserts the
-- submission under the partial's id and deletes the partial row: one
-- row at any moment, never two.
--
-- Additive: a new table, two new functions and two more event types; the
-- previous release never reads or writes any of them.

CREATE TABLE IF NOT EXISTS submission_partials (
    id           text PRIMARY KEY,            -- sub_...: the submission's id once completed
    form_id      text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    form_version integer NOT NULL,
    data         jsonb NOT NULL,              -- the answers so far
    page         integer NOT NULL,            -- the page reached (0-based)
    resume_hash  text NOT NULL,               -- keyed hash of the resume secret (fs_secret_hash)
    link_id      text,                        -- the respondent link it came through
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at   timestamptz NOT NULL,
    event_at     timestamptz                  -- its last submission.partial event
);
CREATE INDEX IF NOT EXISTS submission_partials_form ON submission_partials (form_id, id);
CREATE INDEX IF NOT EXISTS submission_partials_expires ON submission_partials (expires_at);
-- one row per filling-in: its secret is derived from the page's
-- submission token (fs_partial.h), so concurrent first steps meet here
CREATE UNIQUE INDEX IF NOT EXISTS submission_partials_resume ON submission_partials (resume_hash);

-- A partial as the API shows it (completed: false).
CREATE OR REPLACE FUNCTION fs_partial_json(p submission_partials) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', p.id, 'formId', p.form_id, 'formVersion', p.form_version,
                              'data', p.data, 'completed', false, 'page', p.page + 1,
                              'createdAt', fs_ts(p.created_at), 'updatedAt', fs_ts(p.updated_at),
                              'expiresAt', fs_ts(p.expires_at))
        || CASE WHEN p.link_id IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('linkId', p.link_id) END $$;

-- Stores the answers so far of one filling-in: the row whose resume
-- hash is p_hash updated in place, else a new row with the id p_id. When
-- the step named a row (p_named: its resume token), p_id is that row's:
-- another secret's row is refused (the caller has compared the hash
-- already, in constant time; this is a second guard), and an id that is
-- a submission already is 'done'. Its expiry moves to p_days days from
-- now. A submission.partial event (p_evid) is written when the row has
-- had none for 10 minutes. Returns the outcome, ok, gone (no published
-- form), done or forbidden, and when ok the row's id and new expiry.
CREATE OR REPLACE FUNCTION fs_partial_save(p_id text, p_named boolean, p_form text, p_hash text,
                                           p_data jsonb, p_page integer, p_version integer,
                                           p_link text, p_days integer, p_evid text)
    RETURNS TABLE (outcome text, id text, expires_at text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    f record;
    p submission_partials;
BEGIN
    SELECT fo.id, fo.user_id, fo.version INTO f FROM forms fo
     WHERE fo.id = p_form AND fo.status = 'published' AND fo.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p_named THEN
        IF EXISTS (SELECT 1 FROM submissions s WHERE s.id = p_id) THEN
            RETURN QUERY SELECT 'done'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM submission_partials x WHERE x.id = p_id
                    AND (x.resume_hash <> p_hash OR x.form_id <> p_form)) THEN
            RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
    END IF;
    INSERT INTO submission_partials AS x (id, form_id, user_id, form_version, data, page,
                                          resume_hash, link_id, expires_at)
    VALUES (p_id, p_form, f.user_id, COALESCE(p_version, f.version), p_data, p_page, p_hash,
            p_link, now() + make_interval(days => p_days))
    ON CONFLICT (resume_hash) DO UPDATE
       SET data = EXCLUDED.data, page = EXCLUDED.page, form_version = EXCLUDED.form_version,
           updated_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
     WHERE x.form_id = EXCLUDED.form_id AND (NOT p_named OR x.id = EXCLUDED.id)
    RETURNING * INTO p;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p.event_at IS NULL OR p.event_at < now() - interval '10 minutes' THEN
        UPDATE submission_partials SET event_at = now() WHERE id = p.id;
        INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
        VALUES (p_evid, p.user_id, 'submission.partial', p.form_id, p.id, fs_partial_json(p));
    END IF;
    RETURN QUERY SELECT 'ok'::text, p.id, fs_ts(p.expires_at);
END $$;

-- A partial that goes (expired, its form or account deleted, or
-- completed) takes its answers out of its submission.partial events, as
-- a deleted submission does (fs_submission_forget): {id, formId,
-- deleted: true}, or completed: true when it became a submission (whose
-- own events carry the answers). Per statement: a batch of expired rows
-- is one UPDATE.
CREATE OR REPLACE FUNCTION fs_partial_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE events e
       SET payload = jsonb_build_object('id', o.id, 'formId', o.form_id,
                                        CASE WHEN EXISTS (SELECT 1 FROM submissions s WHERE s.id = o.id)
                                             THEN 'completed' ELSE 'deleted' END, true)
      FROM old_partials o
     WHERE e.submission_id = o.id AND e.type = 'submission.partial';
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS submission_partials_forget ON submission_partials;
CREATE TRIGGER submission_partials_forget AFTER DELETE ON submission_partials
    REFERENCING OLD TABLE AS old_partials FOR EACH STATEMENT EXECUTE FUNCTION fs_partial_forget();

-- The resume URL mailed to the respondent ("save and continue later" on
-- a form with an e-mail answer): the message, composed by the module,
-- goes into the outbox the mail worker drains, within the caps of a
-- respondent's copy (fs_mail_done's 'confirmation'): p_per_address a day
-- per mailbox (the same count as copies and confirmation requests), and
-- the form owner's daily notification quota by tier. Returns queued,
-- limited or gone (no such form).
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
    INSERT INTO outbox (id, recipient, message) VALUES (p_id, p_to, p_message);
    RETURN 'queued';
END $$;

-- At most lim expired partials deleted; how many were.
CREATE OR REPLACE FUNCTION fs_partials_expire(lim integer) RETURNS integer
LANGUAGE sql AS $$
    WITH d AS (DELETE FROM submission_partials
                WHERE id IN (SELECT id FROM submission_partials
                              WHERE expires_at < now() ORDER BY expires_at LIMIT lim)
               RETURNING 1)
    SELECT count(*)::integer FROM d $$;

-- Two more event types: submission.partial and submission.completed. The
-- list is read from the constraint as it stands (as 0050 reads it), so a type another
-- migration added stays.
DO $$
DECLARE
    types text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO types
      FROM pg_constraint c,
           regexp_matches(pg_get_constraintdef(c.oid), '([a-z_]+(\.[a-z_]+)+)', 'g') AS m
     WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check';
    IF types IS NULL OR NOT 'submission.created' = ANY (types) THEN
        RAISE EXCEPTION 'events_type_check: cannot read the event types';
    END IF;
    types := array_append(array_remove(types, 'submission.partial'), 'submission.partial');
    types := array_append(array_remove(types, 'submission.completed'), 'submission.completed');
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (%L::text[])) NOT VALID',
                   types);
END $$;
