-- migrate: no transaction
-- 0060: GET /v1/forms/{id}/stats over a year in a few milliseconds.
--
-- The stats read the hourly counters of sql/0047: a year by day added up
-- to 8,784 hour rows (8,400 buffers, 54-136 ms on the ten-million-row
-- bench: docs/performance.md, "Stats by day"). Now the same tally worker
-- keeps a row per form and UTC day beside the hours, and the stats read
-- whole days from it and only the hours of the last, unfinished day from
-- the hours: a year is at most 366 day rows and 23 hour rows.
--
--   submission_days   per form and UTC day, the sum of that day's rows of
--                     submission_hours, always: both are written by the
--                     same statements (fs_submission_hours_rollup and
--                     fs_submission_hours_recount, replaced below), in
--                     one transaction, under the counters' advisory lock
----   form_view_days    per form and UTC day, the sum of that day's rows of
--                     form_views (sql/0031), always: a statement trigger
--                     on form_views adds what each statement added to its
--                     hours (the children's flushes, INSERT ... ON
--                     CONFLICT DO UPDATE, the previous release's too)
--
-- Additive: new tables, a trigger, and two functions replaced with the
-- same names, arguments and results. The previous release's module calls the rollup
-- and the recount (if it has the tally worker) and so keeps the days too;
-- it never reads them. Its inserts and deletes are tallied by the triggers
-- of sql/0047 as before, and its view flushes reach the view days through
-- the trigger below.
--
-- The days of the hours already rolled up are written at the end, in a
-- transaction of its own that holds the counters' advisory lock (the
-- worker's rollups skip their turn meanwhile and try again; submissions
-- do not wait: the tally takes them): one pass over submission_hours,
-- 4.4-4.8 s for 409,000 hour rows on the loaded 2-core build machine,
-- so about 80 s for the 7.3 million of the ten-million-row bench
-- (docs/performance.md). Each statement runs in a transaction of its own
-- (CREATE TABLE's lock on forms, for its foreign key, is held for
-- milliseconds, not for the pass), and running the file again after a
-- failure half-way finishes it. Until the migration is recorded no
-- module reads the days. A form still in the backlog has hours only for
-- what was tallied since sql/0047, and days to match; its stats are
-- counted from its submissions until the worker recounts it, which
-- writes its days anew.

CREATE TABLE IF NOT EXISTS submission_days (
    form_id     text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    day         timestamptz NOT NULL, -- the start of the UTC day
    submissions bigint NOT NULL,      -- stored, not spam
    spam        bigint NOT NULL,
    PRIMARY KEY (form_id, day)
);

-- The UTC day a time (an hour of submission_hours) counts in.
CREATE OR REPLACE FUNCTION fs_utc_day(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS
$$ SELECT date_trunc('day', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

-- As in sql/0047, and each day gets what its hours get.
CREATE OR REPLACE FUNCTION fs_submission_hours_rollup(p_limit integer) RETURNS integer
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
           SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam),
    y AS (
        INSERT INTO submission_days AS c (form_id, day, submissions, spam)
        SELECT form_id, fs_utc_day(hour), sum(submissions), sum(spam) FROM d
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE
           SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam)
    SELECT count(*) INTO moved FROM d;
    RETURN moved;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

-- As in sql/0047, and the form's days become the sums of its new hours.
CREATE OR REPLACE FUNCTION fs_submission_hours_recount(p_form text) RETURNS integer
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
    cd AS (SELECT fs_utc_day(c.hour) AS day, sum(c.n) AS dn, sum(c.sp) AS dsp FROM c GROUP BY 1),
    dt AS (DELETE FROM submission_hour_tally WHERE form_id = p_form),
    db AS (DELETE FROM submission_hours_backlog WHERE form_id = p_form),
    dh AS (DELETE FROM submission_hours h WHERE h.form_id = p_form
            AND NOT EXISTS (SELECT 1 FROM c WHERE c.hour = h.hour)),
    dd AS (DELETE FROM submission_days y WHERE y.form_id = p_form
            AND NOT EXISTS (SELECT 1 FROM cd WHERE cd.day = y.day)),
    iy AS (
        INSERT INTO submission_days AS y (form_id, day, submissions, spam)
        SELECT p_form, cd.day, cd.dn, cd.dsp FROM cd
         WHERE EXISTS (SELECT 1 FROM forms WHERE id = p_form)
        ON CONFLICT (form_id, day) DO UPDATE
           SET submissions = EXCLUDED.submissions, spam = EXCLUDED.spam),
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

CREATE TABLE IF NOT EXISTS form_view_days (
    form_id text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    day     timestamptz NOT NULL, -- the start of the UTC day
    views   bigint NOT NULL,
    PRIMARY KEY (form_id, day)
);

-- What a statement changed in form_views, per form and UTC day, added to
-- the days: rows inserted (+views), updated (+new -old: the flush's
-- upsert adds to an hour), deleted (-views; rows of a form being deleted
-- are left out: its days go with it, and a row for a form already gone
-- would break the foreign key). In (form, day) order, after the hours
-- the statement locked in (form, hour) order: two flushes lock rows in
-- the same order.
CREATE OR REPLACE FUNCTION fs_form_view_days_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), sum(views) FROM new_views GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), sum(v) FROM (
            SELECT form_id, hour, views AS v FROM new_views
            UNION ALL SELECT form_id, hour, -views FROM old_views) d
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    ELSE
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), -sum(views) FROM old_views o
         WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = o.form_id)
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    END IF;
    RETURN NULL;
END $$;

-- From here on every change to form_views reaches its day (the lock
-- CREATE TRIGGER takes on form_views is held for this statement's
-- transaction only).
CREATE OR REPLACE TRIGGER form_views_days_added AFTER INSERT ON form_views
    REFERENCING NEW TABLE AS new_views
    FOR EACH STATEMENT EXECUTE FUNCTION fs_form_view_days_add();
CREATE OR REPLACE TRIGGER form_views_days_updated AFTER UPDATE ON form_views
    REFERENCING OLD TABLE AS old_views NEW TABLE AS new_views
    FOR EACH STATEMENT EXECUTE FUNCTION fs_form_view_days_add();
CREATE OR REPLACE TRIGGER form_views_days_removed AFTER DELETE ON form_views
    REFERENCING OLD TABLE AS old_views
    FOR EACH STATEMENT EXECUTE FUNCTION fs_form_view_days_add();

-- The view days of the hours written before the trigger, a few hundred
-- forms at a time, each batch in a transaction of its own that holds
-- form_views in SHARE mode (the children's flushes wait for the batch,
-- not for the whole pass; reads do not wait): under it no flush runs, and
-- the batch's snapshot, taken after the lock, sees every flush before; a
-- day a flush already reached through the trigger is written over with
-- the sum of its hours, which holds that flush too.
DO $$
DECLARE
    lo text := '';
    hi text;
BEGIN
    LOOP
        SELECT max(id) INTO hi FROM (SELECT id FROM forms WHERE id > lo ORDER BY id LIMIT 200) f;
        EXIT WHEN hi IS NULL;
        LOCK TABLE form_views IN SHARE MODE;
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), sum(views) FROM form_views
         WHERE form_id > lo AND form_id <= hi GROUP BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = EXCLUDED.views;
        COMMIT;
        lo := hi;
    END LOOP;
END $$;

-- The days of the hours rolled up so far: under the lock no rollup or
-- recount runs, and the INSERT's snapshot, taken after the lock, sees
-- every one that committed before; a day such a rollup already wrote
-- (after the functions above were replaced) is written over with the sum
-- of its hours, which holds its part too.
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('formsvc.submission_hours'));
INSERT INTO submission_days AS y (form_id, day, submissions, spam)
SELECT form_id, fs_utc_day(hour), sum(submissions), sum(spam)
  FROM submission_hours GROUP BY 1, 2
ON CONFLICT (form_id, day) DO UPDATE
   SET submissions = EXCLUDED.submissions, spam = EXCLUDED.spam;
COMMIT;
