-- Asks (sql/0049): fs_ask_create counts pending asks (not answered,
-- declined or expired) against its limit; a submission.created event of
-- the ask's link answers it with an ask.answered event (the trigger), and
-- only the first; fs_ask_decline declines a pending ask once, expires its
-- link, and refuses an answered one; the event types are accepted.
-- sql/0052: an ask's form gets settings.linkRequired; a submission
-- through its link names it (fs_submission_json); fs_asks_expire_emit
-- writes ask.expired once for a pending ask past expiresAt, withdraws its
-- link, and passes answered and declined asks over.
BEGIN;
SELECT plan(18);

INSERT INTO users (id, email, email_norm) VALUES ('usr_a', 'a@example.org', 'a@example.org');
SELECT results_eq(
    $$SELECT outcome FROM fs_ask_create('ask_1', 'usr_a', 'frm_a1', 'T', '[]', 'lnk_a1', 'h1', 's1',
        now() + interval '1 hour', 'Q?', NULL, '{"k":1}', NULL, 10, 2,
        NULL, NULL, NULL, NULL, NULL, NULL)$$,
    $$VALUES ('ok')$$, 'a first ask');
SELECT results_eq(
    $$SELECT outcome FROM fs_ask_create('ask_2', 'usr_a', 'frm_a2', 'T', '[]', 'lnk_a2', 'h2', 's2',
        now() + interval '1 hour', 'Q?', NULL, NULL, NULL, 10, 2,
        NULL, NULL, NULL, NULL, NULL, NULL)$$,
    $$VALUES ('ok')$$, 'a second');
SELECT results_eq(
    $$SELECT outcome, body FROM fs_ask_create('ask_3', 'usr_a', 'frm_a3', 'T', '[]', 'lnk_a3', 'h3', 's3',
        now() + interval '1 hour', 'Q?', NULL, NULL, NULL, 10, 2,
        NULL, NULL, NULL, NULL, NULL, NULL)$$,
    $$VALUES ('quota-asks', '2')$$, 'the third is over the limit of 2 pending');
SELECT is((SELECT count(*)::int FROM forms WHERE user_id = 'usr_a'), 2, 'and made no form');
SELECT is((SELECT max_uses FROM links WHERE id = 'lnk_a1'), 1, 'the link is single-use');
SELECT is((SELECT metadata FROM links WHERE id = 'lnk_a1'), '{"k":1,"askId":"ask_1"}'::jsonb,
          'its metadata names the ask');

-- an answer through the link (what the public submission statement writes)
INSERT INTO submissions (id, form_id, user_id, form_version, data, link_id)
VALUES ('sub_00a1', 'frm_a1', 'usr_a', 1, '{"x":"y"}', 'lnk_a1');
INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
VALUES ('evt_00a1', 'usr_a', 'submission.created', 'frm_a1', 'sub_00a1',
        '{"id":"sub_a1","data":{"x":"y"},"linkId":"lnk_a1"}');
SELECT results_eq($$SELECT fs_ask_status(a), submission_id FROM asks a WHERE id = 'ask_1'$$,
                  $$VALUES ('answered', 'sub_00a1')$$, 'the submission through the link answers the ask');
SELECT results_eq(
    $$SELECT payload ->> 'askId', payload -> 'answer' FROM events WHERE type = 'ask.answered'$$,
    $$VALUES ('ask_1', '{"x":"y"}'::jsonb)$$, 'with one ask.answered event carrying the answer');
SELECT results_eq(
    $$SELECT outcome FROM fs_ask_create('ask_3', 'usr_a', 'frm_a3', 'T', '[]', 'lnk_a3', 'h3', 's3',
        now() + interval '1 hour', 'Q?', NULL, NULL, NULL, 10, 2,
        NULL, NULL, NULL, NULL, NULL, NULL)$$,
    $$VALUES ('ok')$$, 'an answered ask frees its place');

SELECT is(fs_ask_decline('frm_a1', 'h1'), 'answered', 'an answered ask is not declined');
SELECT is(fs_ask_decline('frm_a2', 'h2'), 'declined', 'a pending one is');
SELECT results_eq(
    $$SELECT fs_ask_decline('frm_a2', 'h2'), fs_link_state(l),
             (SELECT count(*)::int FROM events WHERE type = 'ask.declined')
        FROM links l WHERE id = 'lnk_a2'$$,
    $$VALUES ('declined', 'expired', 1)$$, 'once: its link expired, one ask.declined event');

SELECT is((SELECT settings -> 'linkRequired' FROM forms WHERE id = 'frm_a1'), 'true'::jsonb,
          'an ask''s form takes answers only through its link');
SELECT is((SELECT fs_submission_json(s)::jsonb ->> 'askId' FROM submissions s WHERE id = 'sub_00a1'),
          'ask_1', 'the submission through its link names the ask');

UPDATE asks SET expires_at = now() - interval '1 second' WHERE user_id = 'usr_a';
SELECT is(fs_asks_expire_emit(10), 1, 'ask.expired for the one pending ask past its expiresAt');
SELECT is(fs_asks_expire_emit(10), 0, 'once');
SELECT results_eq(
    $$SELECT payload ->> 'askId', payload -> 'metadata', fs_link_state(l)
        FROM events e, links l WHERE e.type = 'ask.expired' AND l.id = 'lnk_a3'$$,
    $$VALUES ('ask_3', 'null'::jsonb, 'expired')$$, 'naming the ask; its link withdrawn');
SELECT results_eq($$SELECT id, fs_ask_status(a) FROM asks a WHERE user_id = 'usr_a' ORDER BY id$$,
                  $$VALUES ('ask_1', 'answered'), ('ask_2', 'declined'), ('ask_3', 'expired')$$,
                  'the answered and the declined ask stay so');

SELECT * FROM finish();
ROLLBACK;
