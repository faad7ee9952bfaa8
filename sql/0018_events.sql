-- 0018: events (a feed an agent can poll), webhooks (signed delivery of
-- those events) and the delivery queue drained by the module's workers.
-- See docs/webhooks.md.

-- A new id in the format of fs_id_new (include/fs_secret.h): prefix, 10
-- Crockford base32 characters of Unix milliseconds, 16 of 80 random bits
-- (bytes of gen_random_uuid() that are wholly random), so ids made here
-- and in C sort together by creation time.
CREATE FUNCTION fs_new_id(prefix text) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    a constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    u bytea := uuid_send(gen_random_uuid());
    rb bit(80) := ('x' || encode(substring(u FROM 11 FOR 6) || substring(u FROM 1 FOR 4), 'hex'))::bit(80);
    tb bit(50) := ms::bit(50);
    s text := prefix;
BEGIN
    FOR i IN 0..9 LOOP
        s := s || substr(a, substring(tb FROM 5 * i + 1 FOR 5)::integer + 1, 1);
    END LOOP;
    FOR i IN 0..15 LOOP
        s := s || substr(a, substring(rb FROM 5 * i + 1 FOR 5)::integer + 1, 1);
    END LOOP;
    RETURN s;
END $$;

-- One row per thing that happened. Written by the statement that makes it
-- happen (the public submission, the owner's publish/close), so an event
-- exists exactly when its cause committed. xid is the writing transaction:
-- the feed orders by (xid, id) and shows only transactions older than every
-- one still running, so a reader never skips an event that commits late.
CREATE TABLE events (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type       text NOT NULL CHECK (type IN ('submission.created', 'form.published', 'form.closed')),
    form_id    text,
    submission_id text,                -- submission.created: the submission
    payload    jsonb NOT NULL,
    xid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX events_feed ON events (user_id, xid, id);
CREATE INDEX events_created ON events (created_at);
CREATE INDEX events_submission ON events (submission_id) WHERE submission_id IS NOT NULL;

-- Deleting data deletes what events hold of it: the event stays (a cursor
-- naming it keeps working) but its data becomes {id, formId, deleted: true}.
-- A pending delivery of it sends that.
CREATE FUNCTION fs_submission_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'formId', OLD.form_id,
                                                   'deleted', true)
    WHERE submission_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER submissions_forget AFTER DELETE ON submissions
    FOR EACH ROW EXECUTE FUNCTION fs_submission_forget();

CREATE FUNCTION fs_form_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'deleted', true)
    WHERE user_id = OLD.user_id AND form_id = OLD.id AND submission_id IS NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER forms_forget AFTER DELETE ON forms
    FOR EACH ROW EXECUTE FUNCTION fs_form_forget();

CREATE FUNCTION fs_event_json(e events) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', e.id, 'type', e.type, 'formId', e.form_id,
                            'createdAt', fs_ts(e.created_at), 'data', e.payload) $$;

CREATE TABLE webhooks (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    url        text NOT NULL,
    events     text[] NOT NULL,
    form_id    text REFERENCES forms(id) ON DELETE CASCADE, -- NULL: every form
    secret     text NOT NULL,          -- sealed (AES-256-GCM, key from the pepper)
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhooks_user ON webhooks (user_id, id DESC);

CREATE FUNCTION fs_webhook_json(w webhooks) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', w.id, 'url', w.url, 'events', to_json(w.events),
                            'formId', w.form_id, 'createdAt', fs_ts(w.created_at)) $$;

-- One row per (event, webhook). status: pending until a 2xx (succeeded) or
-- until retrying stops about a day after the event (failed). attempts_log
-- holds every attempt: {at, status (HTTP status or null), error, ms}.
CREATE TABLE deliveries (
    id           text PRIMARY KEY,
    webhook_id   text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id     text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    status       text NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    attempts_log jsonb NOT NULL DEFAULT '[]',
    -- when due; a worker that claims a delivery moves it a lease ahead
    next_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    done_at      timestamptz
);
CREATE INDEX deliveries_due ON deliveries (next_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id DESC);

CREATE FUNCTION fs_delivery_json(d deliveries, e events) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', d.id, 'webhookId', d.webhook_id, 'eventId', d.event_id,
       'eventType', e.type, 'status', d.status, 'attempts', d.attempts,
       'nextAttemptAt', CASE WHEN d.status = 'pending' THEN fs_ts(d.next_at) END,
       'attemptLog', d.attempts_log, 'createdAt', fs_ts(d.created_at),
       'completedAt', fs_ts(d.done_at)) $$;

-- Deliveries are queued in the transaction that writes the event, so an
-- event and the deliveries it owes commit (or vanish) together.
CREATE FUNCTION fs_event_fanout() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO deliveries (id, webhook_id, event_id)
    SELECT fs_new_id('dlv_'), w.id, NEW.id FROM webhooks w
    WHERE w.user_id = NEW.user_id AND NEW.type = ANY (w.events)
      AND (w.form_id IS NULL OR w.form_id = NEW.form_id);
    RETURN NULL;
END $$;
CREATE TRIGGER events_fanout AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION fs_event_fanout();
