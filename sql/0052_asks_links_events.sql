-- 0052: an ask's form answers only through its link; submissions name
-- their ask; ask.expired is written when an ask's expiresAt passes
-- (docs/api.md "Asks", docs/webhooks.md).
--
-- Additive: a trigger on asks, a nullable column, a function replaced
-- with one that returns one more member, one more event type allowed.
-- The previous release's module never writes asks; it serves an ask's
-- form without the link as before (it does not read linkRequired) until
-- it is replaced.

-- ---- an ask's form takes answers only through its link -----------------
-- settings.linkRequired (docs/forms.md): the public side refuses a page
-- or a submission without a respondent link of the form (403
-- link-required). fs_ask_create (sql/0049) inserts the form before the
-- ask, in the same transaction; the ask's insert marks its form.
CREATE OR REPLACE FUNCTION fs_ask_form_link_required() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE forms SET settings = settings || '{"linkRequired": true}'::jsonb
     WHERE id = NEW.form_id AND NOT (settings @> '{"linkRequired": true}'::jsonb);
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS asks_link_required ON asks;
CREATE TRIGGER asks_link_required AFTER INSERT ON asks
    FOR EACH ROW EXECUTE FUNCTION fs_ask_form_link_required();

-- the asks made before (a new version: an owner's If-Match of the form as
-- it was no longer matches)
UPDATE forms f SET settings = f.settings || '{"linkRequired": true}'::jsonb, version = f.version + 1
  FROM asks a
 WHERE a.form_id = f.id AND NOT (f.settings @> '{"linkRequired": true}'::jsonb);

-- ---- askId on a submission made through an ask's link -------------------
-- an ask's form: is it one (the CSV export's askId column), and deleting a
-- form finds its ask without reading every ask
CREATE INDEX IF NOT EXISTS asks_form ON asks (form_id);

-- as 0050 wrote it, plus askId (the ask whose link it came through; an
-- ask has one link, asks.link_id is unique)
CREATE OR REPLACE FUNCTION fs_submission_json(s submissions) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                              'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at),
                              'status', s.owner_status, 'tags', to_jsonb(s.tags), 'note', s.note,
                              'version', s.owner_version, 'updatedAt', fs_ts(s.owner_updated_at))
           || CASE WHEN s.link_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata)
                        || COALESCE((SELECT jsonb_build_object('askId', a.id) FROM asks a
                                      WHERE a.link_id = s.link_id), '{}'::jsonb) END
          )::json $$;

-- ---- ask.expired -------------------------------------------------------
-- When an ask's expiresAt passes unanswered and not declined, the
-- closings worker (runtime/closings.c) writes ask.expired, once per
-- cluster: expired_at marks the ask whose event was written. Its link is
-- withdrawn at that moment as a decline withdraws it (expires_at is
-- compared with the now() of a submission's transaction, which may have
-- begun before the moment), so an answer and an expiry never both win.
ALTER TABLE asks ADD COLUMN IF NOT EXISTS expired_at timestamptz;
-- the pending asks, by expiry: what the worker looks at
CREATE INDEX IF NOT EXISTS asks_expiring ON asks (expires_at)
    WHERE answered_at IS NULL AND declined_at IS NULL AND expired_at IS NULL;

-- asks that expired before this migration: no late events for them
UPDATE asks SET expired_at = expires_at
 WHERE expires_at <= now() AND answered_at IS NULL AND declined_at IS NULL AND expired_at IS NULL;

-- one more event type, read from the constraint as it stands (as 0049 and
-- 0050 did: every dotted word of its definition is a type, whichever way
-- PostgreSQL prints the array), NOT VALID: the rows there satisfy it
DO $$
DECLARE
    types text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO types
      FROM pg_constraint c,
           regexp_matches(pg_get_constraintdef(c.oid), '([a-z_]+(\.[a-z_]+)+)', 'g') AS m
     WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check';
    IF types IS NULL OR NOT 'submission.created' = ANY (types) OR NOT 'ask.answered' = ANY (types) THEN
        RAISE EXCEPTION 'events_type_check: cannot read the event types from %',
            (SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
              WHERE c.conrelid = 'events'::regclass AND c.conname = 'events_type_check');
    END IF;
    types := array_append(array_remove(types, 'ask.expired'), 'ask.expired');
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check;
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type = ANY (%L::text[])) NOT VALID',
                   types);
END $$;

-- Writes ask.expired for up to lim asks whose expiresAt has passed in the
-- last 7 days, pending until then; the number of events written. Any
-- number of sessions may run it at once: each takes the asks' rows with
-- SKIP LOCKED, and a row another session (or an answer, or a decline)
-- changed meanwhile is read again by the UPDATE, which then passes it
-- over. An ask whose link a submission holds at that moment (its row
-- lock, fs_link_admit_locked) is left for the next round: that answer may
-- still commit. A cluster stopped for longer than 7 days writes no late
-- events for the asks that expired meanwhile.
CREATE OR REPLACE FUNCTION fs_asks_expire_emit(lim integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    WITH due AS (
        SELECT k.id, k.link_id FROM asks k
         WHERE k.expires_at <= now() AND k.expires_at > now() - interval '7 days'
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL
         ORDER BY k.expires_at LIMIT lim
           FOR NO KEY UPDATE SKIP LOCKED),
    free AS (
        SELECT due.id, l.id AS link_id FROM due JOIN links l ON l.id = due.link_id
           FOR NO KEY UPDATE OF l SKIP LOCKED),
    a AS (
        UPDATE asks k SET expired_at = clock_timestamp()
          FROM free
         WHERE k.id = free.id
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL
        RETURNING k.*),
    -- (a data-modifying WITH runs whether or not it is read)
    l AS (
        UPDATE links SET deleted_at = a.expired_at FROM a
         WHERE links.id = a.link_id AND links.deleted_at IS NULL),
    ev AS (
        INSERT INTO events (id, user_id, type, form_id, payload)
        SELECT fs_new_id('evt_'), a.user_id, 'ask.expired', a.form_id,
               jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                                  'metadata', a.metadata, 'expiresAt', fs_ts(a.expires_at),
                                  'expiredAt', fs_ts(a.expired_at))
          FROM a
        RETURNING 1)
    SELECT count(*)::integer INTO n FROM ev;
    RETURN n;
END $$;
