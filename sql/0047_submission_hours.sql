-- 0047: GET /v1/forms/{id}/stats at a cost set by the intervals asked, not
-- by the form's submissions.
--
-- The stats counted a form's submissions in the window on every request:
-- 165,000 rows for 30 days of a form of 2 million, 2 million for a year
-- (docs/performance.md, "Ten million submissions"). Now submissions and
-- spam are counted per form and UTC hour, the way the submission tally
-- keeps submissionCount (sql/0024): nothing on the submission path updates
-- a row that other submissions update too.
--
--   submission_hour_tally  appended by a statement trigger on submissions:
--                          one row per (form, hour) a statement touched,
--                          +n for rows inserted, -n for rows deleted
--   submission_hours       what the tally worker (runtime/tally.c) rolled
--                          up: fs_submission_hours_rollup moves tally rows
--                          into it in one transaction
--   submission_hours_backlog  forms whose history (the submissions stored
--                          before this migration) is not counted yet; the
--                          same worker counts them one form at a time
--                          (fs_submission_hours_next, _recount); until then the
--                          stats of such a form count its submissions as
--                          before
--
-- A trigger rather than deltas written by the store's statements: every
-- path that adds or removes a submission is counted without knowing of the
-- counters, including the ones that do not name submissions at all (a
-- form's or an account's deletion cascades; retention, DELETE ?before=,
-- erasures delete by statement) and the previous release's module during a
-- rolling upgrade, which inserts and deletes submissions without knowing
-- of this table. A delete appends a negative row rather than recounting the
-- hour: it costs the same per statement and never reads submissions. The
-- trigger runs once per statement over its transition table, so the batch
-- insert of up to 64 submissions (store/public_store.c) writes one row per
-- form and hour in it.
--
-- The history is counted by the worker, not by this migration: counting
-- ten million rows here would hold the lock CREATE TRIGGER takes on
-- submissions (it blocks inserts until the migration commits) for the
-- whole count. The migration itself only creates empty tables, the trigger
-- and one backlog row per form: milliseconds.

CREATE TABLE submission_hours (
    form_id     text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    hour        timestamptz NOT NULL, -- the start of the UTC hour
    submissions bigint NOT NULL,      -- stored, not spam
    spam        bigint NOT NULL,
    PRIMARY KEY (form_id, hour)
);

CREATE TABLE submission_hour_tally (
    form_id     text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    hour        timestamptz NOT NULL,
    submissions integer NOT NULL,     -- + inserted, - deleted
    spam        integer NOT NULL
);
CREATE INDEX submission_hour_tally_form ON submission_hour_tally (form_id, hour);

CREATE TABLE submission_hours_backlog (
    form_id  text PRIMARY KEY REFERENCES forms(id) ON DELETE CASCADE,
    tried_at timestamptz      -- when the worker last took it (NULL: never)
);

-- The UTC hour a submission counts in (its created_at, as the stats always
-- grouped it).
CREATE FUNCTION fs_utc_hour(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS
$$ SELECT date_trunc('hour', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

-- (An inserted submission's form exists: its foreign key says so.)
CREATE FUNCTION fs_submission_hours_added() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO submission_hour_tally (form_id, hour, submissions, spam)
    SELECT s.form_id, fs_utc_hour(s.created_at),
           count(*) FILTER (WHERE NOT s.spam), count(*) FILTER (WHERE s.spam)
      FROM added_submissions s
     GROUP BY 1, 2;
    RETURN NULL;
END $$;

-- Rows of forms that are being deleted are left out: their counters go
-- with the form (ON DELETE CASCADE), and a row for a form already gone
-- would break the foreign key.
CREATE FUNCTION fs_submission_hours_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO submission_hour_tally (form_id, hour, submissions, spam)
    SELECT s.form_id, fs_utc_hour(s.created_at),
           -count(*) FILTER (WHERE NOT s.spam), -count(*) FILTER (WHERE s.spam)
      FROM removed_submissions s
     WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = s.form_id)
     GROUP BY 1, 2;
    RETURN NULL;
END $$;

-- Moves at most p_limit tally rows into submission_hours; returns how many,
-- or -1 when another session holds the counters (the caller tries again
-- later). Readers see each tally row either in the tally or in the hours,
-- never both: the DELETE and the upsert commit together.
CREATE FUNCTION fs_submission_hours_rollup(p_limit integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.submission_hours')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM submission_hour_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM submission_hour_tally LIMIT p_limit))
        RETURNING form_id, hour, submissions, spam),
    h AS (
        INSERT INTO submission_hours AS c (form_id, hour, submissions, spam)
        SELECT form_id, hour, sum(submissions), sum(spam) FROM d
         GROUP BY form_id, hour ORDER BY form_id, hour
        ON CONFLICT (form_id, hour) DO UPDATE
           SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam)
    SELECT count(*) INTO moved FROM d;
    RETURN moved;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

-- Counts one form's hours again from its submissions: its hours become the
-- count, its tally rows are dropped, and it leaves the backlog. One
-- statement, so one snapshot: a tally row is dropped exactly when the
-- insert or delete that wrote it is in the count (both committed before
-- the snapshot), and the changes committed after it keep their tally rows.
-- Holds the rollup's lock, the only other writer. Returns the number of
-- hours written, or -1 when a lock is taken (the caller tries later).
CREATE FUNCTION fs_submission_hours_recount(p_form text) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.submission_hours')) THEN
        RETURN -1;
    END IF;
    -- a form being deleted meanwhile holds its rows: give way (a deadlock
    -- would be detected only after a second, and might cancel the delete)
    SET LOCAL lock_timeout = '200ms';
    WITH c AS (
        SELECT fs_utc_hour(created_at) AS hour,
               count(*) FILTER (WHERE NOT spam) AS n, count(*) FILTER (WHERE spam) AS sp
          FROM submissions WHERE form_id = p_form GROUP BY 1),
    dt AS (DELETE FROM submission_hour_tally WHERE form_id = p_form),
    db AS (DELETE FROM submission_hours_backlog WHERE form_id = p_form),
    dh AS (DELETE FROM submission_hours h WHERE h.form_id = p_form
            AND NOT EXISTS (SELECT 1 FROM c WHERE c.hour = h.hour)),
    i AS (
        INSERT INTO submission_hours AS h (form_id, hour, submissions, spam)
        SELECT p_form, c.hour, c.n, c.sp FROM c
         WHERE EXISTS (SELECT 1 FROM forms WHERE id = p_form)
        ON CONFLICT (form_id, hour) DO UPDATE
           SET submissions = EXCLUDED.submissions, spam = EXCLUDED.spam
        RETURNING 1)
    SELECT count(*) INTO n FROM i;
    RETURN n;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

-- The worker's step through the history: takes the backlog's form tried
-- least recently and marks it tried, in a statement of its own, before it
-- counts it with fs_submission_hours_recount: a form whose count fails (a
-- statement_timeout shorter than the count of its rows) does not hold up
-- the forms after it, and is tried again after them. Returns the form's
-- id, or no row when the backlog is empty.
CREATE FUNCTION fs_submission_hours_next() RETURNS text
LANGUAGE sql VOLATILE AS $$
    UPDATE submission_hours_backlog SET tried_at = now()
     WHERE form_id = (SELECT form_id FROM submission_hours_backlog
                       ORDER BY tried_at NULLS FIRST, form_id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING form_id
$$;

-- The trigger first: from here on every insert and delete is tallied.
-- CREATE TRIGGER waits for the transactions writing submissions and holds
-- their next writes until this migration commits; every submission it does
-- not see was committed before, and its form is in the backlog written
-- below (a form made later has all its submissions tallied).
CREATE TRIGGER submissions_hours_added AFTER INSERT ON submissions
    REFERENCING NEW TABLE AS added_submissions
    FOR EACH STATEMENT EXECUTE FUNCTION fs_submission_hours_added();
CREATE TRIGGER submissions_hours_removed AFTER DELETE ON submissions
    REFERENCING OLD TABLE AS removed_submissions
    FOR EACH STATEMENT EXECUTE FUNCTION fs_submission_hours_removed();

INSERT INTO submission_hours_backlog (form_id)
SELECT f.id FROM forms f WHERE EXISTS (SELECT 1 FROM submissions s WHERE s.form_id = f.id);
