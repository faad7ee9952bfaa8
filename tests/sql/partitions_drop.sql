-- Dropping the partitions retention emptied (sql/0054): with the clock
-- moved six months on, fs_partitions_drop detaches and drops exactly the
-- empty partitions whose months ended at least a month before, children
-- first, one per call; the months holding a row, the recent and future
-- ones and a first partition (<table>_before) holding rows stay, with
-- their rows; a call when none is left answers '' (idempotent).
BEGIN;
SELECT plan(9);

-- the months up to nine ahead (the first partition ends at the start of
-- the month after next, as after a migration today)
DO $$ BEGIN
    FOR a IN 0..6 LOOP
        FOR i IN 1..100 LOOP
            EXIT WHEN fs_partitions_ahead(3, now() + make_interval(months => a)) = 0;
        END LOOP;
    END LOOP;
END $$;
CREATE TEMP TABLE m AS
SELECT k, to_char(now() AT TIME ZONE 'UTC' + make_interval(months => k), 'YYYY_MM') AS mon,
       fs_id_time(date_trunc('month', now() AT TIME ZONE 'UTC' + make_interval(months => k)) AT TIME ZONE 'UTC'
                  + interval '10 days') AS t
  FROM generate_series(2, 9) k;

INSERT INTO users (id, email, email_norm) VALUES ('usr_pd', 'pd@example.org', 'pd@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_pd', 'usr_pd', 'PD');
-- rows today (in the first partitions), a submission with a file in the
-- month three ahead, an event in the month four ahead
INSERT INTO submissions (id, form_id, user_id, form_version, data)
SELECT 'sub_' || x || '000000000000000' || n, 'frm_pd', 'usr_pd', 1, '{}'
  FROM (VALUES (fs_id_time(now()), 1), ((SELECT t FROM m WHERE k = 3), 2)) v(x, n);
INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size, chunks)
SELECT 'fil_' || x || '000000000000000' || n, 'sub_' || x || '000000000000000' || n, 'usr_pd', 'doc', 'a', 'x/y', 1, 1
  FROM (VALUES (fs_id_time(now()), 1), ((SELECT t FROM m WHERE k = 3), 2)) v(x, n);
INSERT INTO submission_file_chunks (file_id, seq, data) SELECT id, 0, '\x01' FROM submission_files WHERE user_id = 'usr_pd';
INSERT INTO events (id, user_id, type, payload)
SELECT 'evt_' || x || '000000000000000' || n, 'usr_pd', 'form.published', '{}'
  FROM (VALUES (fs_id_time(now()), 1), ((SELECT t FROM m WHERE k = 4), 2)) v(x, n);
CREATE TEMP TABLE was AS
SELECT (SELECT count(*) FROM submissions WHERE user_id = 'usr_pd') AS s,
       (SELECT count(*) FROM submission_files WHERE user_id = 'usr_pd') AS f,
       (SELECT count(*) FROM submission_file_chunks c JOIN submission_files f ON f.id = c.file_id WHERE f.user_id = 'usr_pd') AS c,
       (SELECT count(*) FROM events WHERE user_id = 'usr_pd') AS e;

SELECT is(fs_partitions_drop(1), '', 'today: nothing to drop (every month is this one or later)');

-- six months on: the months that ended at least a month before (two to
-- four ahead), empty
CREATE TEMP TABLE dropped (n serial, name text);
DO $$
DECLARE d text;
BEGIN
    FOR i IN 1..40 LOOP
        d := fs_partitions_drop(1, now() + interval '6 months');
        EXIT WHEN d = '';
        INSERT INTO dropped (name) VALUES (d);
    END LOOP;
END $$;
SELECT is((SELECT array_agg(name ORDER BY n) FROM dropped),
          (SELECT ARRAY['submission_file_chunks_' || a.mon, 'submission_file_chunks_' || c.mon,
                        'submission_files_' || a.mon, 'submission_files_' || c.mon,
                        'events_' || a.mon, 'events_' || b.mon,
                        'submissions_' || a.mon, 'submissions_' || c.mon,
                        'submission_versions_' || a.mon, 'submission_versions_' || c.mon]
             FROM m a, m b, m c WHERE a.k = 2 AND b.k = 3 AND c.k = 4),
          'the empty months that ended a month before, children first, one per call (a month of '
          'versions once its month of submissions is gone, sql/0065)');
SELECT is((SELECT count(*)::int FROM pg_class WHERE relname IN (SELECT name FROM dropped)), 0,
          'the tables are gone');
SELECT is((SELECT array_agg(inhrelid::regclass::text ORDER BY inhrelid::regclass::text) FROM pg_inherits
            WHERE inhparent = 'submissions'::regclass),
          (SELECT array_agg('submissions_' || mon ORDER BY mon) || 'submissions_before'::text
             FROM m WHERE k = 3 OR k >= 5),
          'kept: the month holding a row, the month before the clock''s and later, the first partition holding rows');
SELECT is((SELECT (SELECT count(*) FROM submissions WHERE user_id = 'usr_pd') || ' '
               || (SELECT count(*) FROM submission_files WHERE user_id = 'usr_pd') || ' '
               || (SELECT count(*) FROM submission_file_chunks c JOIN submission_files f ON f.id = c.file_id WHERE f.user_id = 'usr_pd') || ' '
               || (SELECT count(*) FROM events WHERE user_id = 'usr_pd')),
          (SELECT s || ' ' || f || ' ' || c || ' ' || e FROM was), 'every row kept');
SELECT is(fs_partitions_drop(1, now() + interval '6 months'), '', 'again: nothing left to drop');
-- a month that empties: dropped once it is
DELETE FROM events WHERE id = 'evt_' || (SELECT t FROM m WHERE k = 4) || '0000000000000002';
SELECT is(fs_partitions_drop(1, now() + interval '6 months'), 'events_' || (SELECT mon FROM m WHERE k = 4),
          'the month whose event was deleted, once empty');

-- a month retention emptied whose table still holds its dead rows (more
-- than 1 MB, not vacuumed): passed over, the months after it go
INSERT INTO events (id, user_id, type, payload)
SELECT 'evt_' || (SELECT t FROM m WHERE k = 5) || lpad(g::text, 16, '0'), 'usr_pd', 'form.published',
       jsonb_build_object('x', repeat('x', 200))
  FROM generate_series(1, 8000) g;
DELETE FROM events WHERE id LIKE 'evt_' || (SELECT t FROM m WHERE k = 5) || '%';
TRUNCATE dropped;
DO $$
DECLARE d text;
BEGIN
    FOR i IN 1..40 LOOP
        d := fs_partitions_drop(1, now() + interval '7 months');
        EXIT WHEN d = '';
        INSERT INTO dropped (name) VALUES (d);
    END LOOP;
END $$;
SELECT ok((SELECT 'submissions_' || mon FROM m WHERE k = 5) IN (SELECT name FROM dropped),
          'a month later: the month five ahead dropped');
SELECT is((SELECT count(*)::int FROM pg_class WHERE relname = (SELECT 'events_' || mon FROM m WHERE k = 5)), 1,
          'but not its events: emptied, its dead rows still there (over 1 MB)');

SELECT * FROM finish();
ROLLBACK;
