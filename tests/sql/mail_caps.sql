-- fs_mail_done (sql/0028, sql/0038): the day's caps on mail, per account
-- and per mailbox of an address that agreed to nothing.
BEGIN;
SELECT plan(5);

INSERT INTO users (id, email, email_norm) VALUES ('usr_m', 'm@example.org', 'm@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_m', 'usr_m', 'Mail');
INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('sub_00m', 'frm_m', 'usr_m', 1, '{}');

-- jobs to finish: one per call
CREATE TEMP TABLE job_ids AS
WITH j AS (INSERT INTO mail_jobs (kind, form_id, submission_id)
           SELECT 'confirmation', 'frm_m', 'sub_00m' FROM generate_series(1, 3) RETURNING id)
SELECT id, row_number() OVER (ORDER BY id) AS n FROM j;

-- five copies to the tags of one mailbox: 3 a day for the mailbox
SELECT results_eq(
    $$SELECT queued, dropped FROM fs_mail_done((SELECT json_build_array(id)::text FROM job_ids WHERE n = 1), 'usr_m',
        (SELECT json_agg(json_build_object('kind', 'confirmation', 'id', 'msg_' || i, 'to', 'x+' || i || '@example.org',
                                           'mailbox', 'x@example.org', 'message', 'm'))::text
           FROM generate_series(1, 5) i), 100, 100, 3)$$,
    $$VALUES (3, 2)$$, 'the tags of one mailbox share its cap: 3 queued, 2 dropped');
SELECT is((SELECT count(*)::int FROM outbox), 3, 'three messages in the outbox');
SELECT is((SELECT count(*)::int FROM mail_jobs), 2, 'the finished job is deleted');

-- the account's cap (unverified: 4) counts what was queued today
SELECT results_eq(
    $$SELECT queued, dropped FROM fs_mail_done((SELECT json_build_array(id)::text FROM job_ids WHERE n = 2), 'usr_m',
        (SELECT json_agg(json_build_object('kind', 'confirmation', 'id', 'msg2_' || i, 'to', 'y' || i || '@example.org',
                                           'mailbox', 'y' || i || '@example.org', 'message', 'm'))::text
           FROM generate_series(1, 3) i), 4, 100, 3)$$,
    $$VALUES (1, 2)$$, 'the account cap: one more of three');

-- a job already finished (deleted) sends nothing again
SELECT results_eq(
    $$SELECT queued, dropped FROM fs_mail_done((SELECT json_build_array(id)::text FROM job_ids WHERE n = 1), 'usr_m',
        '[{"kind": "confirmation", "id": "msg3", "to": "z@example.org", "message": "m"}]', 100, 100, 3)$$,
    $$VALUES (0, 0)$$, 'a job finished twice queues nothing the second time');

SELECT * FROM finish();
ROLLBACK;
