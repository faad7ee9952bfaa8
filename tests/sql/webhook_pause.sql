-- Paused webhooks (sql/0036): a paused webhook still gets its deliveries
-- queued by the fan-out (none is claimed until it is resumed: the claim is
-- in store/webhook_store.c), and fs_webhook_json shows the pause.
BEGIN;
SELECT plan(5);

INSERT INTO users (id, email, email_norm) VALUES ('usr_p', 'p@example.org', 'p@example.org');
INSERT INTO webhooks (id, user_id, url, events, secret) VALUES
    ('whk_p', 'usr_p', 'https://h.example/p', '{form.published,webhook.paused}', 's');

SELECT is((SELECT fs_webhook_json(w)::jsonb ->> 'status' FROM webhooks w WHERE id = 'whk_p'), 'active',
          'a webhook starts active');
SELECT is((SELECT (fs_webhook_json(w)::jsonb ->> 'consecutiveFailures')::int FROM webhooks w WHERE id = 'whk_p'), 0,
          'with no failures');

UPDATE webhooks SET paused_at = now(), pause_reason = 'failing', consecutive_failures = 20 WHERE id = 'whk_p';
SELECT results_eq(
    $$SELECT j ->> 'status', j ->> 'pauseReason', (j ->> 'consecutiveFailures')::int, j ->> 'pausedAt' IS NOT NULL
        FROM webhooks w, fs_webhook_json(w) x, jsonb(x) j WHERE w.id = 'whk_p'$$,
    $$VALUES ('paused', 'failing', 20, true)$$, 'a paused webhook shows its pause');

INSERT INTO events (id, user_id, type, payload) VALUES
    ('evt_00p1', 'usr_p', 'form.published', '{}'), ('evt_00p2', 'usr_p', 'webhook.paused', '{}');
SELECT results_eq($$SELECT event_id FROM deliveries WHERE webhook_id = 'whk_p' ORDER BY 1$$,
                  $$VALUES ('evt_00p1'), ('evt_00p2')$$, 'a paused webhook is still queued its deliveries');
SELECT is((SELECT count(*)::int FROM deliveries WHERE webhook_id = 'whk_p' AND leased_until IS NULL), 2,
          'none of them leased');

SELECT * FROM finish();
ROLLBACK;
