-- 0050: what an owner needs to act on answers. A form that closes by
-- itself says so (form.closed with a reason); submissions carry the
-- owner's state (status, tags, note, and a version for If-Match); and
-- per-question answer counts are kept by day, so that insights read
-- tallies rather than every submission.
--
-- Additive only: the previous release's module reads and writes these
-- tables as before (new tables, new nullable or defaulted columns, new
-- functions, new triggers that only append to new tables, one more event
-- type allowed).

-- ---- form.closed when a form closes by itself ---------------------------

-- One row per closesAt moment a form reached while published: written by
-- the closings task of the tally worker (runtime/closings.c) together with
-- the event, so that any number of children and machines emit it once
-- (the primary key: the others' inserts find the row and do nothing). A
-- form that was already full (maxSubmissions) at that moment gets the row
-- without an event (event_id NULL): it had closed then, and said so.
CREATE TABLE IF NOT EXISTS form_closings (
    form_id    text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    closes_at  timestamptz NOT NULL,
    event_id   text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (form_id, closes_at)
);

-- the forms whose closesAt comes: the task looks a second ahead
CREATE INDEX IF NOT EXISTS forms_closes_at ON forms (fs_public_closes_at(settings))
    WHERE status = 'published' AND deleted_at IS NULL;

-- forms whose closesAt passed before this migration closed without an
-- event, as they always did: no late events for them
INSERT INTO form_closings (form_id, closes_at)
SELECT f.id, fs_public_closes_at(f.settings) FROM forms f
 WHERE f.status = 'published' AND fs_public_closes_at(f.settings) <= now()
ON CONFLICT DO NOTHING;

-- The data of a form.closed event of a form that closed by itself: the
-- form's state at that moment (no publicUrl: no request names the base
-- URL then) and why. count: its submissions then.
CREATE OR REPLACE FUNCTION fs_form_closed_json(f forms, p_reason text, p_count bigint)
RETURNS jsonb LANGUAGE sql STABLE AS
$$ SELECT jsonb_build_object('id', f.id, 'title', f.title, 'status', 'closed',
       'reason', p_reason, 'closesAt', f.settings -> 'closesAt',
       'maxSubmissions', f.settings -> 'maxSubmissions', 'submissionCount', p_count,
       'closedAt', fs_ts(CASE WHEN p_reason = 'closesAt' THEN fs_public_closes_at(f.settings)
                              ELSE clock_timestamp() END)) $$;

-- Emits form.closed (reason closesAt) for up to lim published forms whose
-- closesAt has passed in the last 7 days and was not handled yet; the
-- number of events written. Any number of sessions may run it at once:
-- each (form, closesAt) is inserted once (the others wait for its commit
-- and then find it). A cluster stopped for longer than 7 days writes no
-- late events for the forms that closed meanwhile.
CREATE OR REPLACE FUNCTION fs_form_closings_emit(lim integer) RETURNS integer
LANGUAGE sql AS
$$ WITH due AS (
       SELECT f.id, f.user_id, fs_public_closes_at(f.settings) AS at,
              COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false) AS is_full
         FROM forms f
        WHERE f.status = 'published' AND f.deleted_at IS NULL
          AND fs_public_closes_at(f.settings) <= now()
          AND fs_public_closes_at(f.settings) > now() - interval '7 days'
          AND NOT EXISTS (SELECT 1 FROM form_closings c
                           WHERE c.form_id = f.id AND c.closes_at = fs_public_closes_at(f.settings))
        ORDER BY 3 LIMIT lim),
   ins AS (INSERT INTO form_closings (form_id, closes_at, event_id)
           SELECT id, at, CASE WHEN NOT is_full THEN fs_new_id('evt_') END FROM due
           ON CONFLICT DO NOTHING RETURNING form_id, event_id),
   ev AS (INSERT INTO events (id, user_id, type, form_id, payload)
          SELECT ins.event_id, f.user_id, 'form.closed', f.id,
                 fs_form_closed_json(f, 'closesAt', fs_form_count(f.id))
            FROM ins JOIN forms f ON f.id = ins.form_id
           WHERE ins.event_id IS NOT NULL RETURNING 1)
   SELECT count(*)::integer FROM ev $$;

-- Seconds until the next closesAt of a published form within ahead
-- seconds (NULL: none that soon): the task sleeps until then.
CREATE OR REPLACE FUNCTION fs_form_closings_next(ahead double precision)
RETURNS double precision LANGUAGE sql STABLE AS
$$ SELECT extract(epoch FROM min(fs_public_closes_at(f.settings)) - now())::double precision
     FROM forms f
    WHERE f.status = 'published' AND f.deleted_at IS NULL
      AND fs_public_closes_at(f.settings) > now()
      AND fs_public_closes_at(f.settings) <= now() + make_interval(secs => ahead) $$;

-- With the form's row locked (the submission statement of a form with
-- maxSubmissions has locked it through fs_public_closed_locked, which runs
-- first in the same row), how many submissions the form still takes
-- before this one is stored, counted in a fresh snapshot; NULL without
-- maxSubmissions. A submission stored when it is 1 fills the form: that
-- statement writes form.closed (reason maxSubmissions), at the moment the
-- last allowed submission commits.
CREATE OR REPLACE FUNCTION fs_public_left_locked(p_form text) RETURNS bigint
LANGUAGE plpgsql AS
$$
DECLARE
    f forms;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND OR fs_public_max_submissions(f.settings) IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (fs_public_max_submissions(f.settings) - fs_form_count(p_form))::bigint;
END $$;

-- ---- the owner's state of a submission ---------------------------------
-- status: one of new, in_progress, done, rejected (checked by the module,
-- mod_formsvc/core/fs_owner_state.c; no CHECK here, whose validation would
-- scan the table under its lock); tags: at most 20 lower-case tags; note:
-- at most 10,000 characters; owner_version: the submission's ETag, raised
-- by each change (If-Match). Columns with constant defaults: no rewrite,
-- and the previous release's inserts get the defaults.
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS owner_status text NOT NULL DEFAULT 'new';
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS note text;
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS owner_version integer NOT NULL DEFAULT 1;
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS owner_updated_at timestamptz;

CREATE OR REPLACE FUNCTION fs_submission_json(s submissions) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                              'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at),
                              'status', s.owner_status, 'tags', to_jsonb(s.tags), 'note', s.note,
                              'version', s.owner_version, 'updatedAt', fs_ts(s.owner_updated_at))
           || CASE WHEN s.link_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata) END
          )::json $$;

-- one more event type, submission.updated (the owner changed a
-- submission's state; its data is the submission); the list is read from
-- the constraint as it stands, NOT VALID as 0042 and 0043 did. Since 0043
-- the constraint reads ANY ('{a.b,c.d}'::text[]), not ARRAY['a.b', ...]:
-- every event type has a dot and nothing else there does, so the dotted
-- words are the types, whichever way it is written.
DO $$
DECLARE
    types text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO types
      FROM pg_constraint c,
           regexp_matches(pg_get_constraintdef(c.oid), '([a-z_]+(\.[a-z_]+)+)', 'g') AS m
     WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check';
    IF types IS NULL OR NOT 'submission.created' = ANY (types) THEN
        RAISE EXCEPTION 'events_type_check: cannot read the event types from %',
            (SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
              WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check');
    END IF;
    types := array_append(array_remove(types, 'submission.updated'), 'submission.updated');
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (%L::text[])) NOT VALID',
                   types);
END $$;

-- the forms any of whose submissions the owner ever changed: their CSV
-- export has the owner's columns (as link columns come once a form has had
-- a link), found without looking at the submissions
CREATE TABLE IF NOT EXISTS submission_state_forms (
    form_id text PRIMARY KEY REFERENCES forms (id) ON DELETE CASCADE
);

-- ---- insights: answer counts per form, UTC day and question -------------
-- What GET /v1/forms/{id}/insights reads instead of the submissions. Each
-- stored or deleted submission (not spam) appends its deltas to
-- insight_tally, +1 or -1 per item, by statement triggers on submissions
-- (whatever writes or deletes them: the public side, the owner, retention,
-- erasure, the previous release's module); the tally worker rolls them up
-- into insight_counts (fs_insight_rollup), dropping counts that reach 0.
-- Readers add what is not rolled up yet, so the figures are exact at
-- every moment. Items of a submission (fs_insight_items):
--   kind 'sub' (key '', value ''): the submission itself;
--   kind 'ans' (value ''): a question answered (not null, "" or []);
--   kind 'opt': a boolean's true/false, a select field's option, each
--     string of an array (multiselect);
--   kind 'num': a number (number, integer, rating fields): its value, so
--     that histograms, min, max, mean and median are exact.
-- A string counts as an option when the form's field of that key is a
-- select at the time the submission is stored or deleted.
CREATE TABLE IF NOT EXISTS insight_tally (
    form_id text NOT NULL,
    day     date NOT NULL,
    key     text NOT NULL,
    kind    text NOT NULL,
    value   text NOT NULL,
    n       integer NOT NULL
);
CREATE INDEX IF NOT EXISTS insight_tally_form ON insight_tally (form_id, day);

CREATE TABLE IF NOT EXISTS insight_counts (
    form_id text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    day     date NOT NULL,
    key     text NOT NULL,
    kind    text NOT NULL,
    value   text NOT NULL,
    n       bigint NOT NULL,
    PRIMARY KEY (form_id, day, key, kind, value)
);

CREATE OR REPLACE FUNCTION fs_insight_items(p_data jsonb, p_fields jsonb)
RETURNS TABLE (key text, kind text, value text) LANGUAGE sql IMMUTABLE AS
$$ SELECT '', 'sub', ''
   UNION ALL
   SELECT d.key, 'ans', '' FROM jsonb_each(p_data) d
    WHERE d.value NOT IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb)
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'boolean'
   UNION ALL
   SELECT d.key, 'num', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'number'
   UNION ALL
   SELECT d.key, 'opt', e #>> '{}' FROM jsonb_each(p_data) d, jsonb_array_elements(d.value) e
    WHERE jsonb_typeof(d.value) = 'array' AND jsonb_typeof(e) = 'string'
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'select') $$;

CREATE OR REPLACE FUNCTION fs_insight_count() RETURNS trigger
LANGUAGE plpgsql AS
$$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO insight_tally (form_id, day, key, kind, value, n)
        SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value,
               count(*)
          FROM new_subs s JOIN forms f ON f.id = s.form_id,
               LATERAL fs_insight_items(s.data, f.fields) x
         WHERE NOT s.spam
         GROUP BY 1, 2, 3, 4, 5;
    ELSE
        INSERT INTO insight_tally (form_id, day, key, kind, value, n)
        SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value,
               -count(*)
          FROM old_subs s LEFT JOIN forms f ON f.id = s.form_id,
               LATERAL fs_insight_items(s.data, COALESCE(f.fields, '[]'::jsonb)) x
         WHERE NOT s.spam
         GROUP BY 1, 2, 3, 4, 5;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS submissions_insight_insert ON submissions;
CREATE TRIGGER submissions_insight_insert AFTER INSERT ON submissions
    REFERENCING NEW TABLE AS new_subs FOR EACH STATEMENT EXECUTE FUNCTION fs_insight_count();
DROP TRIGGER IF EXISTS submissions_insight_delete ON submissions;
CREATE TRIGGER submissions_insight_delete AFTER DELETE ON submissions
    REFERENCING OLD TABLE AS old_subs FOR EACH STATEMENT EXECUTE FUNCTION fs_insight_count();

-- the submissions stored before this migration: counted once, now
INSERT INTO insight_tally (form_id, day, key, kind, value, n)
SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value, count(*)
  FROM submissions s JOIN forms f ON f.id = s.form_id,
       LATERAL fs_insight_items(s.data, f.fields) x
 WHERE NOT s.spam
 GROUP BY 1, 2, 3, 4, 5;

-- Moves at most p_limit tally rows into insight_counts: rows moved, or -1
-- when another session is rolling up (one at a time, as fs_tally_rollup)
-- or a form went away under it (its rows go in the next round).
CREATE OR REPLACE FUNCTION fs_insight_rollup(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS
$$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.fs_insight_rollup')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM insight_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM insight_tally LIMIT p_limit))
        RETURNING form_id, day, key, kind, value, n),
    g AS (SELECT d.form_id, d.day, d.key, d.kind, d.value, sum(d.n) AS n FROM d
           WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = d.form_id)
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.n) <> 0),
    u AS (INSERT INTO insight_counts AS c (form_id, day, key, kind, value, n)
          SELECT * FROM g
          ON CONFLICT (form_id, day, key, kind, value) DO UPDATE SET n = c.n + EXCLUDED.n
          RETURNING 1)
    SELECT count(*) INTO moved FROM d;
    DELETE FROM insight_counts WHERE n = 0;
    RETURN moved;
EXCEPTION WHEN lock_not_available OR foreign_key_violation THEN
    RETURN -1;
END $$;
CREATE INDEX IF NOT EXISTS insight_counts_zero ON insight_counts (form_id) WHERE n = 0;

-- The insights of a form for [p_since, p_until) (UTC days): per key, kind
-- and value, the count; what is rolled up and what is not yet, together.
-- Numbers sorted by value, so that the reader walks them in order.
CREATE OR REPLACE FUNCTION fs_insights(p_form text, p_since date, p_until date)
RETURNS TABLE (key text, kind text, value text, n bigint) LANGUAGE sql STABLE AS
$$ SELECT t.key, t.kind, t.value, sum(t.n)::bigint
     FROM (SELECT c.key, c.kind, c.value, c.n FROM insight_counts c
            WHERE c.form_id = p_form AND c.day >= p_since AND c.day < p_until
           UNION ALL
           SELECT i.key, i.kind, i.value, i.n FROM insight_tally i
            WHERE i.form_id = p_form AND i.day >= p_since AND i.day < p_until) t
    GROUP BY t.key, t.kind, t.value
   HAVING sum(t.n) <> 0
    ORDER BY t.key, t.kind, CASE WHEN t.kind = 'num' THEN t.value::numeric END, t.value $$;
