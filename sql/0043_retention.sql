-- 0043: retention. Submissions older than a form's settings.retentionDays
-- (or the server's FormsvcRetentionMaxDays) are deleted by the retention
-- task of the tally worker (runtime/retention.c), in batches of short
-- statements; DELETE /v1/forms/{id}/submissions?before= deletes in bulk,
-- at once for a small set, else through a row of submission_purges that
-- the same task finishes. Both say what they did: an audit entry with a
-- count, and for the bulk delete a submissions.deleted event.
--
-- Additive only: the previous release's module reads and writes these
-- tables as before (a new nullable column, a new table, new functions, one
-- more event type allowed).

-- the number of rows an entry of the retention task or of a bulk delete
-- concerns (NULL for every other entry)
ALTER TABLE audit ADD COLUMN IF NOT EXISTS count bigint;

CREATE OR REPLACE FUNCTION fs_audit_json(a audit) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN a.count IS NULL THEN json_build_object(
       'id', a.id, 'action', a.action, 'targetId', a.target_id,
       'credentialId', a.credential_id, 'clientId', a.client_id, 'actor', a.actor,
       'createdAt', fs_ts(a.created_at))
     ELSE json_build_object(
       'id', a.id, 'action', a.action, 'targetId', a.target_id,
       'credentialId', a.credential_id, 'clientId', a.client_id, 'actor', a.actor,
       'createdAt', fs_ts(a.created_at), 'count', a.count) END $$;

-- audit entries expire after FormsvcAuditRetentionDays: the sweep walks
-- them by age
CREATE INDEX IF NOT EXISTS audit_created ON audit (created_at);

-- one more event type, submissions.deleted; the list is read from the
-- constraint as it stands, so a type another migration added stays. NOT
-- VALID, as 0042 did: the rows there satisfy the narrower list already, and
-- no scan of a large events table runs under the table's lock.
DO $$
DECLARE
    types text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO types
      FROM pg_constraint c,
           regexp_matches(pg_get_constraintdef(c.oid), '''([a-z_.]+)''', 'g') AS m
     WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check';
    types := array_append(array_remove(types, 'submissions.deleted'), 'submissions.deleted');
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (%L::text[])) NOT VALID',
                   types);
END $$;

-- A bulk delete too large to do in its request: the retention task deletes
-- the form's submissions created before "before", a batch at a time,
-- counting them in deleted, then sets finished_at and records the event
-- and the audit entry.
CREATE TABLE IF NOT EXISTS submission_purges (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    form_id     text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    before      timestamptz NOT NULL,
    deleted     bigint NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS submission_purges_pending ON submission_purges (created_at)
    WHERE finished_at IS NULL;

-- Deletes up to lim of the form's submissions created before t; returns
-- how many. Their files and mail jobs go with them (foreign keys), their
-- events keep only {id, formId, deleted} (the submissions_forget trigger),
-- and the form's submissionCount drops by the non-spam ones (the tally,
-- sql/0024). One short statement: the caller commits after each batch.
CREATE OR REPLACE FUNCTION fs_submissions_delete_batch(p_form text, p_before timestamptz, lim integer)
RETURNS integer LANGUAGE sql AS
$$ WITH d AS (
       DELETE FROM submissions
        WHERE form_id = p_form AND created_at < p_before
          AND id IN (SELECT id FROM submissions
                      WHERE form_id = p_form AND created_at < p_before LIMIT lim)
       RETURNING form_id, user_id, spam),
   u AS (INSERT INTO submission_tally (form_id, user_id, month, n)
         SELECT form_id, user_id, NULL, -count(*)::integer FROM d WHERE NOT spam
          GROUP BY form_id, user_id
         RETURNING 1)
   SELECT count(*)::integer FROM d $$;

-- An audit entry written by the server itself (no credential): the
-- retention task's and a finished bulk delete's, with a count.
CREATE OR REPLACE FUNCTION fs_audit_count(p_user text, p_action text, p_form text, p_count bigint)
RETURNS text LANGUAGE sql AS
$$ INSERT INTO audit (id, user_id, actor, action, target_id, form_id, count)
   VALUES (fs_new_id('aud_'), p_user, 'formsvc', p_action, p_form, p_form, p_count)
   RETURNING id $$;

-- DELETE /v1/forms/{id}/submissions?before=: when the account's form has at
-- most lim submissions created before p_before, deletes them now and
-- records the event ('deleted', the count); else queues a purge p_id for
-- the retention task ('queued', the count so far: 0); 'not_found' when the
-- form is not the account's.
CREATE OR REPLACE FUNCTION fs_submissions_purge(p_id text, p_user text, p_form text,
                                                p_before timestamptz, lim integer)
RETURNS TABLE (outcome text, deleted integer) LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM forms WHERE id = p_form AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, 0;
        RETURN;
    END IF;
    SELECT count(*) INTO n FROM (SELECT 1 FROM submissions
                                  WHERE form_id = p_form AND created_at < p_before
                                  LIMIT lim + 1) s;
    IF n > lim THEN
        INSERT INTO submission_purges (id, user_id, form_id, before)
        VALUES (p_id, p_user, p_form, p_before);
        RETURN QUERY SELECT 'queued'::text, 0;
        RETURN;
    END IF;
    n := fs_submissions_delete_batch(p_form, p_before, lim);
    INSERT INTO events (id, user_id, type, form_id, payload)
    VALUES (fs_new_id('evt_'), p_user, 'submissions.deleted', p_form,
            jsonb_build_object('formId', p_form, 'before', fs_ts(p_before), 'count', n,
                               'purgeId', NULL));
    RETURN QUERY SELECT 'deleted'::text, n;
END $$;

-- One step of a queued purge: deletes up to lim submissions; when fewer
-- were left, finishes it (finished_at, the submissions.deleted event, the
-- audit entry). Returns the rows deleted and whether it is finished (also
-- true when there is no such unfinished purge).
CREATE OR REPLACE FUNCTION fs_purge_step(p_id text, lim integer)
RETURNS TABLE (deleted integer, done boolean) LANGUAGE plpgsql AS $$
DECLARE
    j submission_purges;
    n integer;
BEGIN
    SELECT * INTO j FROM submission_purges WHERE id = p_id AND finished_at IS NULL
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 0, true;
        RETURN;
    END IF;
    n := fs_submissions_delete_batch(j.form_id, j.before, lim);
    UPDATE submission_purges SET deleted = submission_purges.deleted + n,
           finished_at = CASE WHEN n < lim THEN clock_timestamp() END
     WHERE id = p_id;
    IF n < lim THEN
        INSERT INTO events (id, user_id, type, form_id, payload)
        VALUES (fs_new_id('evt_'), j.user_id, 'submissions.deleted', j.form_id,
                jsonb_build_object('formId', j.form_id, 'before', fs_ts(j.before),
                                   'count', j.deleted + n, 'purgeId', j.id));
        PERFORM fs_audit_count(j.user_id, 'submissions.deleted', j.form_id, j.deleted + n);
    END IF;
    RETURN QUERY SELECT n, n < lim;
END $$;
