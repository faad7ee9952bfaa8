-- 0036: deliveries sent concurrently and fairly, and webhooks that keep
-- failing paused (docs/webhooks.md, "Delivery" and "Paused webhooks").
--
-- A claimed delivery carries its lease in leased_until (cleared when its
-- outcome is recorded), so the claim can count how many deliveries of a
-- webhook are in flight and take at most a few of each webhook, fewest
-- first across accounts. A webhook counts its failed attempts in a row
-- (consecutive_failures, since failing_since; a 2xx resets both); after
-- a long enough run the recording statement pauses it (paused_at,
-- pause_reason) and writes a webhook.paused event. A paused webhook is
-- still queued deliveries, but none is claimed until the owner resumes
-- it (PATCH status "active").

ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS consecutive_failures integer NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS failing_since timestamptz;
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS paused_at timestamptz;
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS pause_reason text;

ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS leased_until timestamptz;
-- the webhooks with pending deliveries (walked one webhook at a time by
-- the claim) and each one's due deliveries in order
CREATE INDEX IF NOT EXISTS deliveries_pending_webhook ON deliveries (webhook_id, next_at)
    WHERE status = 'pending';
-- the deliveries in flight, by webhook
CREATE INDEX IF NOT EXISTS deliveries_leased ON deliveries (webhook_id)
    WHERE leased_until IS NOT NULL;

ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check
    CHECK (type IN ('submission.created', 'form.published', 'form.closed', 'webhook.test',
                    'webhook.paused'));

CREATE OR REPLACE FUNCTION fs_webhook_json(w webhooks) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', w.id, 'url', w.url, 'events', to_json(w.events),
                            'formId', w.form_id, 'enabled', w.enabled,
                            'status', CASE WHEN w.paused_at IS NULL THEN 'active' ELSE 'paused' END,
                            'pausedAt', fs_ts(w.paused_at), 'pauseReason', w.pause_reason,
                            'consecutiveFailures', w.consecutive_failures,
                            'createdAt', fs_ts(w.created_at)) $$;
