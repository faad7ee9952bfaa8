-- The statement triggers of events (sql/0035): a delivery for each enabled
-- webhook that subscribes to the event's type and form, a mail job for a
-- stored submission whose form asks for mail.
BEGIN;
SELECT plan(6);

INSERT INTO users (id, email, email_norm) VALUES ('usr_a', 'a@example.org', 'a@example.org'),
                                                 ('usr_b', 'b@example.org', 'b@example.org');
INSERT INTO forms (id, user_id, title, settings) VALUES
    ('frm_1', 'usr_a', 'One', '{"confirmation": {"subject": "thanks"}}'),
    ('frm_2', 'usr_a', 'Two', '{}');
INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES
    ('sub_001', 'frm_1', 'usr_a', 1, '{}'), ('sub_002', 'frm_1', 'usr_a', 1, '{}'),
    ('sub_003', 'frm_2', 'usr_a', 1, '{}');
INSERT INTO webhooks (id, user_id, url, events, form_id, secret, enabled) VALUES
    ('whk_all', 'usr_a', 'https://h.example/1', '{submission.created}', NULL, 's', true),
    ('whk_f1', 'usr_a', 'https://h.example/2', '{submission.created}', 'frm_1', 's', true),
    ('whk_off', 'usr_a', 'https://h.example/3', '{submission.created}', NULL, 's', false),
    ('whk_pub', 'usr_a', 'https://h.example/4', '{form.published}', NULL, 's', true),
    ('whk_b', 'usr_b', 'https://h.example/5', '{submission.created}', NULL, 's', true);

-- one statement, three events
INSERT INTO events (id, user_id, type, form_id, submission_id, payload) VALUES
    ('evt_001', 'usr_a', 'submission.created', 'frm_1', 'sub_001', '{}'),
    ('evt_002', 'usr_a', 'submission.created', 'frm_1', 'sub_002', '{}'),
    ('evt_003', 'usr_a', 'submission.created', 'frm_2', 'sub_003', '{}');

SELECT results_eq(
    $$SELECT event_id, webhook_id FROM deliveries ORDER BY 1, 2$$,
    $$VALUES ('evt_001', 'whk_all'), ('evt_001', 'whk_f1'), ('evt_002', 'whk_all'), ('evt_002', 'whk_f1'),
             ('evt_003', 'whk_all')$$,
    'a delivery per event and enabled, subscribed webhook of its account and form');
SELECT is((SELECT count(*)::int FROM deliveries WHERE status = 'pending'), 5,
          'the deliveries start pending');
SELECT results_eq(
    $$SELECT kind, submission_id FROM mail_jobs ORDER BY submission_id$$,
    $$VALUES ('confirmation', 'sub_001'), ('confirmation', 'sub_002')$$,
    'a confirmation job per submission of the form that sends the respondent a copy');

-- a form.published event: only the webhook that subscribes to it
INSERT INTO events (id, user_id, type, form_id, payload)
    VALUES ('evt_004', 'usr_a', 'form.published', 'frm_2', '{}');
SELECT results_eq($$SELECT webhook_id FROM deliveries WHERE event_id = 'evt_004'$$,
                  $$VALUES ('whk_pub')$$, 'form.published goes to its subscriber only');
SELECT is((SELECT count(*)::int FROM mail_jobs), 2, 'no mail job for a form event');

-- a notify recipient that is confirmed: an "each" job besides the copy
UPDATE forms SET settings = '{"notify": {"mode": "each"}}' WHERE id = 'frm_2';
INSERT INTO notify_recipients (id, form_id, email, email_norm, status)
    VALUES ('nrc_1', 'frm_2', 'n@example.org', 'n@example.org', 'confirmed')
    ON CONFLICT (form_id, email_norm) DO UPDATE SET status = 'confirmed';
INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('sub_004', 'frm_2', 'usr_a', 1, '{}');
INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
    VALUES ('evt_005', 'usr_a', 'submission.created', 'frm_2', 'sub_004', '{}');
SELECT results_eq($$SELECT kind FROM mail_jobs WHERE submission_id = 'sub_004'$$,
                  $$VALUES ('each')$$, 'an each job for a form that notifies confirmed recipients');

SELECT * FROM finish();
ROLLBACK;
