-- Edits after sending (sql/0065): fs_submission_edit changes the answers
-- of a published form's submission within p_hours of its creation, keeps
-- the answers before (first edit) and after in submission_versions, raises
-- the owner's version, writes one submission.updated event (none for
-- spam); refuses a changed form (stale), the time over (expired), a
-- uniqueBy value another submission holds (duplicate), another form's or
-- a missing submission and a form not published (gone), changing nothing;
-- versions go with their submission; a month of versions is kept while
-- its month of submissions is (fs_partitions_drop).
BEGIN;
SELECT plan(19);

INSERT INTO users (id, email, email_norm) VALUES ('usr_e', 'e@example.org', 'e@example.org');
INSERT INTO forms (id, user_id, title, status) VALUES ('frm_e', 'usr_e', 'E', 'published'),
    ('frm_f', 'usr_e', 'F', 'draft');
INSERT INTO submissions (id, form_id, user_id, form_version, data, uniq_hash)
VALUES ('sub_00e1', 'frm_e', 'usr_e', 1, '{"a": 1}', 'u1'), ('sub_00e2', 'frm_e', 'usr_e', 1, '{"a": 2}', 'u9'),
       ('sub_00f1', 'frm_f', 'usr_e', 1, '{"a": 9}', NULL);
SELECT is((SELECT version FROM forms WHERE id = 'frm_e'), 1, 'the form at version 1');

SELECT results_eq($$SELECT outcome FROM fs_submission_edit('sub_00e1', 'frm_e', '{"a": 10}', 'u1', NULL, 1, 2, 'evt_00e1', NULL)$$,
                  $$VALUES ('ok'::text)$$, 'an edit keeping its own uniqueBy value: ok');
SELECT is((SELECT data FROM submissions WHERE id = 'sub_00e1'), '{"a": 10}'::jsonb, 'the new answers');
SELECT is((SELECT owner_version FROM submissions WHERE id = 'sub_00e1'), 2, 'version 2');
SELECT results_eq($$SELECT version, data FROM submission_versions WHERE submission_id = 'sub_00e1' ORDER BY version$$,
                  $$VALUES (1, '{"a": 1}'::jsonb), (2, '{"a": 10}'::jsonb)$$, 'two versions: as sent, as edited');
SELECT is((SELECT payload->'data' FROM events WHERE id = 'evt_00e1' AND type = 'submission.updated'),
          '{"a": 10}'::jsonb, 'a submission.updated event with the new answers');
SELECT is((SELECT payload->>'edited' FROM events WHERE id = 'evt_00e1'), 'true', 'marked edited');

SELECT is((SELECT outcome FROM fs_submission_edit('sub_00e1', 'frm_e', '{"a": 11}', 'u3', 'end', 1, 2, 'evt_00e2', NULL)),
          'ok', 'a second edit, a new uniqueBy value, an ending');
SELECT results_eq($$SELECT version, ending FROM submission_versions WHERE submission_id = 'sub_00e1' ORDER BY version$$,
                  $$VALUES (1, NULL::text), (2, NULL), (3, 'end')$$, 'one more version');
SELECT is((SELECT uniq_hash || ' ' || ending FROM submissions WHERE id = 'sub_00e1'), 'u3 end', 'hash and ending follow');

SELECT is((SELECT outcome FROM fs_submission_edit('sub_00e1', 'frm_e', '{"a": 13}', 'u9', NULL, 1, 2, 'evt_00e4', NULL)),
          'duplicate', 'a value another submission holds: duplicate');
SELECT is((SELECT outcome FROM fs_submission_edit('sub_00e1', 'frm_e', '{"a": 13}', NULL, NULL, 2, 2, 'evt_00e5', NULL)),
          'stale', 'the form at another version: stale');
SELECT is((SELECT outcome FROM fs_submission_edit('sub_00f1', 'frm_f', '{"a": 13}', NULL, NULL, 1, 2, 'evt_00e6', NULL)),
          'gone', 'a form not published: gone');
SELECT is((SELECT outcome FROM fs_submission_edit('sub_00f1', 'frm_e', '{"a": 13}', NULL, NULL, 1, 2, 'evt_00e7', NULL)),
          'gone', 'another form''s submission: gone');
UPDATE submissions SET created_at = now() - interval '2 hours' WHERE id = 'sub_00e1';
SELECT is((SELECT outcome FROM fs_submission_edit('sub_00e1', 'frm_e', '{"a": 13}', NULL, NULL, 1, 2, 'evt_00e8', NULL)),
          'expired', 'untilHours over: expired');
SELECT is((SELECT data FROM submissions WHERE id = 'sub_00e1'), '{"a": 11}'::jsonb, 'no refusal changed anything');
SELECT is((SELECT count(*)::int FROM events WHERE id IN ('evt_00e4', 'evt_00e5', 'evt_00e6', 'evt_00e7', 'evt_00e8')),
          0, 'nor wrote an event');

-- spam: no event
UPDATE submissions SET spam = true, uniq_hash = NULL WHERE id = 'sub_00e2';
SELECT is((SELECT outcome FROM fs_submission_edit('sub_00e2', 'frm_e', '{"a": 20}', NULL, NULL, 1, 2, 'evt_00e9', NULL)),
          'ok', 'a spam submission edited');
SELECT is((SELECT count(*)::int FROM events WHERE id = 'evt_00e9'), 0, 'without an event');

SELECT * FROM finish();
ROLLBACK;
