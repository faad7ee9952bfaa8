-- The submissions per form and hour (sql/0047): the trigger tallies every
-- insert and delete (+n, -n, spam apart), the rollup moves the tally into
-- the hours without changing the sums, the recount of a form in the
-- backlog writes the same hours as a count over its submissions and takes
-- it out of the backlog, the worker takes the backlog least recently tried
-- first, and a form's deletion takes its counters.
BEGIN;
SELECT plan(12);

INSERT INTO users (id, email, email_norm) VALUES ('usr_h', 'h@example.org', 'h@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_h1', 'usr_h', 'H1'), ('frm_h2', 'usr_h', 'H2');

-- the sums per hour of the counters: hours plus tally
CREATE TEMP VIEW h_sums AS
SELECT form_id, hour, sum(submissions)::int AS n, sum(spam)::int AS sp
  FROM (SELECT form_id, hour, submissions, spam FROM submission_hours
        UNION ALL SELECT form_id, hour, submissions, spam FROM submission_hour_tally) x
 WHERE form_id LIKE 'frm_h%' GROUP BY 1, 2 HAVING sum(submissions) <> 0 OR sum(spam) <> 0;
-- the same from the submissions
CREATE TEMP VIEW h_direct AS
SELECT form_id, fs_utc_hour(created_at) AS hour, count(*) FILTER (WHERE NOT spam)::int AS n,
       count(*) FILTER (WHERE spam)::int AS sp
  FROM submissions WHERE form_id LIKE 'frm_h%' GROUP BY 1, 2;

-- one statement of five rows over two hours and two forms
INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) VALUES
    ('sub_00h1', 'frm_h1', 'usr_h', 1, '{}', false, '2026-11-20T10:05:00Z'),
    ('sub_00h2', 'frm_h1', 'usr_h', 1, '{}', false, '2026-11-20T10:59:59Z'),
    ('sub_00h3', 'frm_h1', 'usr_h', 1, '{}', true,  '2026-11-20T10:30:00Z'),
    ('sub_00h4', 'frm_h1', 'usr_h', 1, '{}', false, '2026-11-20T11:00:00Z'),
    ('sub_00h5', 'frm_h2', 'usr_h', 1, '{}', false, '2026-11-20T10:00:00Z');
SELECT is((SELECT count(*)::int FROM submission_hour_tally WHERE form_id LIKE 'frm_h%'), 3,
          'one tally row per form and hour of the statement');
SELECT is((SELECT n || '/' || sp FROM h_sums WHERE form_id = 'frm_h1' AND hour = '2026-11-20T10:00:00Z'),
          '2/1', 'the hour: 2 submissions, 1 spam');
DELETE FROM submissions WHERE id IN ('sub_00h1', 'sub_00h3');
SELECT set_eq('SELECT * FROM h_sums', 'SELECT * FROM h_direct', 'after a delete: the counters are the count');

SELECT cmp_ok(fs_submission_hours_rollup(1000000), '>=', 4, 'the rollup moves the tally rows (3 inserted, 1 deleted)');
SELECT is((SELECT count(*)::int FROM submission_hour_tally WHERE form_id LIKE 'frm_h%'), 0, 'no tally row left');
SELECT set_eq('SELECT * FROM h_sums', 'SELECT * FROM h_direct', 'after the rollup: the same');

-- history the trigger never saw (as before sql/0047), and the backlog
SET LOCAL session_replication_role = replica;
INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at) VALUES
    ('sub_00h6', 'frm_h2', 'usr_h', 1, '{}', false, '2026-10-01T08:15:00Z'),
    ('sub_00h7', 'frm_h2', 'usr_h', 1, '{}', true,  '2026-10-01T08:45:00Z');
SET LOCAL session_replication_role = origin;
INSERT INTO submission_hours_backlog VALUES ('frm_h2');
SELECT is(fs_submission_hours_recount('frm_h2'), 2, 'the recount writes the form''s two hours');
SELECT is((SELECT count(*)::int FROM submission_hours_backlog WHERE form_id = 'frm_h2'), 0,
          'and takes it out of the backlog');
SELECT set_eq('SELECT * FROM h_sums', 'SELECT * FROM h_direct', 'after the recount: the count');

-- the worker's pick: least recently tried first, so a form whose count
-- keeps failing does not hold up the others
DELETE FROM submission_hours_backlog;
INSERT INTO submission_hours_backlog (form_id, tried_at) VALUES
    ('frm_h1', now() - interval '1 minute'), ('frm_h2', NULL);
SELECT is(fs_submission_hours_next(), 'frm_h2', 'a form never tried first');
SELECT is(fs_submission_hours_next(), 'frm_h1', 'then the one tried longest ago');

DELETE FROM forms WHERE id = 'frm_h1';
SELECT is((SELECT count(*)::int FROM (SELECT 1 FROM submission_hours WHERE form_id = 'frm_h1'
           UNION ALL SELECT 1 FROM submission_hour_tally WHERE form_id = 'frm_h1') x), 0,
          'a deleted form takes its hours and tally');

SELECT * FROM finish();
ROLLBACK;
