-- Retention and bulk deletes (sql/0043): the batch delete takes only the
-- form's submissions before the time, at most the limit, and counts the
-- non-spam ones off submissionCount; the request's function deletes a
-- small set at once and queues a large one; a purge step finishes with
-- its event and an audit entry with the count.
BEGIN;
SELECT plan(17);

INSERT INTO users (id, email, email_norm) VALUES ('usr_r', 'r@example.org', 'r@example.org'),
    ('usr_o', 'o@example.org', 'o@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_r1', 'usr_r', 'R1'), ('frm_r2', 'usr_r', 'R2');
-- frm_r1: 5 old (one spam), 2 new; frm_r2: 3 old
INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at)
SELECT 'sub_00r1_' || g, 'frm_r1', 'usr_r', 1, '{}', g = 5, '2025-01-01'::timestamptz + g * interval '1 hour'
  FROM generate_series(1, 5) g;
INSERT INTO submissions (id, form_id, user_id, form_version, data, created_at)
SELECT 'sub_00r1_new' || g, 'frm_r1', 'usr_r', 1, '{}', '2026-06-01' FROM generate_series(1, 2) g;
INSERT INTO submissions (id, form_id, user_id, form_version, data, created_at)
SELECT 'sub_00r2_' || g, 'frm_r2', 'usr_r', 1, '{}', '2025-01-01' FROM generate_series(1, 3) g;

SELECT is(fs_submissions_delete_batch('frm_r1', '2026-01-01', 3), 3, 'a batch deletes at most its limit');
SELECT is(fs_submissions_delete_batch('frm_r1', '2026-01-01', 3), 2, 'the next batch the rest');
SELECT is(fs_submissions_delete_batch('frm_r1', '2026-01-01', 3), 0, 'then none');
SELECT is((SELECT count(*)::int FROM submissions WHERE form_id = 'frm_r1'), 2, 'the newer ones stay');
SELECT is((SELECT count(*)::int FROM submissions WHERE form_id = 'frm_r2'), 3, 'another form untouched');
SELECT is((SELECT sum(n)::int FROM submission_tally WHERE form_id = 'frm_r1' AND month IS NULL), -4,
          'submissionCount drops by the 4 non-spam ones');

SELECT is((SELECT outcome FROM fs_submissions_purge('prg_x', 'usr_o', 'frm_r2', '2026-01-01', 2)),
          'not_found', 'another account''s form: not_found');
SELECT is((SELECT outcome FROM fs_submissions_purge('prg_q', 'usr_r', 'frm_r2', '2026-01-01', 2)),
          'queued', 'more than the limit: queued');
SELECT is((SELECT count(*)::int FROM submissions WHERE form_id = 'frm_r2'), 3, 'nothing deleted when queued');
SELECT is((SELECT done FROM fs_purge_step('prg_q', 2)), false, 'a first step: not done');
SELECT is((SELECT done FROM fs_purge_step('prg_q', 2)), true, 'the second: done');
SELECT is((SELECT deleted::int FROM submission_purges WHERE id = 'prg_q'), 3, 'the purge counts 3');
SELECT is((SELECT (payload->>'count')::int FROM events WHERE type = 'submissions.deleted'
            AND payload->>'purgeId' = 'prg_q'), 3, 'its submissions.deleted event with the count');
SELECT is((SELECT (fs_audit_json(a)->>'count')::int FROM audit a WHERE form_id = 'frm_r2'
            AND action = 'submissions.deleted'), 3, 'its audit entry with the count');
SELECT is((SELECT done FROM fs_purge_step('prg_q', 2)), true, 'a finished purge: done at once');

SELECT is((SELECT deleted FROM fs_submissions_purge('prg_s', 'usr_r', 'frm_r1', '2027-01-01', 2)), 2,
          'a small set: deleted at once');
SELECT is((SELECT count(*)::int FROM events WHERE type = 'submissions.deleted' AND form_id = 'frm_r1'
            AND payload->'purgeId' = 'null'::jsonb), 1, 'with its event');

SELECT * FROM finish();
ROLLBACK;
