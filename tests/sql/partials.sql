-- Partial answers (sql/0059): fs_partial_save keeps one row per
-- filling-in (found by its resume hash), refuses another secret's row and
-- a completed one, writes submission.partial at most every 10 minutes;
-- a deleted partial takes its answers out of its events; fs_partials_expire
-- deletes only expired rows; fs_partial_mail queues within a respondent
-- copy's caps.
BEGIN;
SELECT plan(22);

INSERT INTO users (id, email, email_norm) VALUES ('usr_p', 'p@example.org', 'p@example.org');
INSERT INTO forms (id, user_id, title, status) VALUES ('frm_p', 'usr_p', 'P', 'published'),
    ('frm_q', 'usr_p', 'Q', 'draft');

SELECT results_eq($$SELECT outcome, id FROM fs_partial_save('sub_00p1', false, 'frm_p', 'h1',
                        '{"a": 1}', 1, NULL, NULL, 30, 'evt_00p1')$$,
                  $$VALUES ('ok'::text, 'sub_00p1'::text)$$, 'a first step: a new row');
SELECT is((SELECT count(*)::int FROM events WHERE type = 'submission.partial' AND submission_id = 'sub_00p1'),
          1, 'with a submission.partial event');
SELECT is((SELECT payload->'data' FROM events WHERE id = 'evt_00p1'), '{"a": 1}'::jsonb, 'carrying the answers');
SELECT results_eq($$SELECT outcome, id FROM fs_partial_save('sub_00p2', false, 'frm_p', 'h1',
                        '{"a": 2}', 2, NULL, NULL, 30, 'evt_00p2')$$,
                  $$VALUES ('ok'::text, 'sub_00p1'::text)$$,
                  'a concurrent first step of the same filling-in (same hash): the same row');
SELECT is((SELECT count(*)::int FROM submission_partials), 1, 'one row');
SELECT is((SELECT data FROM submission_partials WHERE id = 'sub_00p1'), '{"a": 2}'::jsonb, 'updated in place');
SELECT is((SELECT count(*)::int FROM events WHERE type = 'submission.partial'), 1,
          'no second event within 10 minutes');
UPDATE submission_partials SET event_at = now() - interval '11 minutes';
SELECT is((SELECT outcome FROM fs_partial_save('sub_00p1', true, 'frm_p', 'h1', '{"a": 3}', 2, NULL, NULL,
                                               30, 'evt_00p3')), 'ok', 'a named step');
SELECT is((SELECT count(*)::int FROM events WHERE type = 'submission.partial'), 2,
          'an event again after 10 minutes');
SELECT is((SELECT outcome FROM fs_partial_save('sub_00p1', true, 'frm_p', 'h2', '{"x": 1}', 1, NULL, NULL,
                                               30, 'evt_00p4')), 'forbidden', 'another secret for the id: forbidden');
SELECT is((SELECT data FROM submission_partials WHERE id = 'sub_00p1'), '{"a": 3}'::jsonb, 'nothing changed');
SELECT is((SELECT outcome FROM fs_partial_save('sub_00p9', false, 'frm_q', 'h9', '{}', 0, NULL, NULL,
                                               30, 'evt_00p9')), 'gone', 'a form not published: gone');

-- completed: the id is a submission
INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('sub_00p1', 'frm_p', 'usr_p', 1, '{"a": 3}');
DELETE FROM submission_partials WHERE id = 'sub_00p1';
SELECT is((SELECT payload FROM events WHERE id = 'evt_00p1'),
          '{"id": "sub_00p1", "formId": "frm_p", "completed": true}'::jsonb,
          'completed: its events keep no answer');
SELECT is((SELECT outcome FROM fs_partial_save('sub_00p1', true, 'frm_p', 'h1', '{}', 1, NULL, NULL,
                                               30, 'evt_00p5')), 'done', 'a step naming a completed one: done');

-- expiry
SELECT is((SELECT outcome FROM fs_partial_save('sub_00pa', false, 'frm_p', 'ha', '{"b": 1}', 1, NULL, NULL,
                                               30, 'evt_00pa')), 'ok', 'another filling-in');
SELECT is((SELECT outcome FROM fs_partial_save('sub_00pb', false, 'frm_p', 'hb', '{"b": 2}', 1, NULL, NULL,
                                               30, 'evt_00pb')), 'ok', 'and a third');
UPDATE submission_partials SET expires_at = now() - interval '1 second' WHERE id = 'sub_00pa';
SELECT is(fs_partials_expire(10), 1, 'one expired: deleted');
SELECT is((SELECT array_agg(id)::text FROM submission_partials), '{sub_00pb}', 'the other stays');
SELECT is((SELECT payload FROM events WHERE id = 'evt_00pa'),
          '{"id": "sub_00pa", "formId": "frm_p", "deleted": true}'::jsonb, 'its event keeps no answer');

-- mail: per mailbox (2 a day here), then the account's cap
SELECT is(fs_partial_mail('frm_p', 'z@example.org', 'z@example.org', 'msg_p1', 'm', 5, 5, 2), 'queued', 'a mail queued');
SELECT is(fs_partial_mail('frm_p', 'Z+x@example.org', 'z@example.org', 'msg_p2', 'm', 5, 5, 2) ||
          fs_partial_mail('frm_p', 'z@example.org', 'z@example.org', 'msg_p3', 'm', 5, 5, 2),
          'queuedlimited', 'the mailbox''s cap counts its tags');
SELECT is(fs_partial_mail('frm_p', 'w@example.org', 'w@example.org', 'msg_p4', 'm', 0, 0, 2), 'limited',
          'an owner without a notifications quota: limited');

SELECT * FROM finish();
ROLLBACK;
