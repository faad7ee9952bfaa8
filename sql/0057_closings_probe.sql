-- The closings worker (runtime/closings.c) runs a round every second in
-- every httpd child of every machine, and each round calls the three
-- functions below. Almost always nothing is due. Until now each call
-- still planned and ran the whole writing statement (LANGUAGE sql
-- functions are planned on every call, and the INSERT into the
-- partitioned events table fires the events' three statement triggers
-- even for no rows): 3-10 ms of PostgreSQL CPU per call on an empty
-- database, about 20 ms a second per child. Here each is PL/pgSQL (its
-- statements' plans are kept per session) and first asks a cheap question
-- of an index (forms_closes_at, asks_expiring): the writing statement runs
-- only when something is due. What they write, and when, is unchanged.
--
-- Additive: the same names, arguments and results; the previous release
-- never calls them.

CREATE OR REPLACE FUNCTION fs_form_closings_emit(lim integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM forms f
         WHERE f.status = 'published' AND f.deleted_at IS NULL
           AND fs_public_closes_at(f.settings) <= now()
           AND fs_public_closes_at(f.settings) > now() - interval '7 days'
           AND NOT EXISTS (SELECT 1 FROM form_closings c
                            WHERE c.form_id = f.id AND c.closes_at = fs_public_closes_at(f.settings)))
    THEN
        RETURN 0;
    END IF;
    WITH due AS (
           SELECT f.id, f.user_id, fs_public_closes_at(f.settings) AS at,
                  COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false) AS is_full
             FROM forms f
            WHERE f.status = 'published' AND f.deleted_at IS NULL
              AND fs_public_closes_at(f.settings) <= now()
              AND fs_public_closes_at(f.settings) > now() - interval '7 days'
              AND NOT EXISTS (SELECT 1 FROM form_closings c
                               WHERE c.form_id = f.id AND c.closes_at = fs_public_closes_at(f.settings))
            ORDER BY 3 LIMIT lim),
       ins AS (INSERT INTO form_closings (form_id, closes_at, event_id)
               SELECT id, at, CASE WHEN NOT is_full THEN fs_new_id('evt_') END FROM due
               ON CONFLICT DO NOTHING RETURNING form_id, event_id),
       ev AS (INSERT INTO events (id, user_id, type, form_id, payload)
              SELECT ins.event_id, f.user_id, 'form.closed', f.id,
                     fs_form_closed_json(f, 'closesAt', fs_form_count(f.id))
                FROM ins JOIN forms f ON f.id = ins.form_id
               WHERE ins.event_id IS NOT NULL RETURNING 1)
    SELECT count(*)::integer INTO n FROM ev;
    RETURN n;
END $$;

CREATE OR REPLACE FUNCTION fs_form_closings_next(ahead double precision)
RETURNS double precision LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT extract(epoch FROM min(fs_public_closes_at(f.settings)) - now())::double precision
              FROM forms f
             WHERE f.status = 'published' AND f.deleted_at IS NULL
               AND fs_public_closes_at(f.settings) > now()
               AND fs_public_closes_at(f.settings) <= now() + make_interval(secs => ahead));
END $$;

CREATE OR REPLACE FUNCTION fs_asks_expire_emit(lim integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM asks k
         WHERE k.expires_at <= now() AND k.expires_at > now() - interval '7 days'
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL)
    THEN
        RETURN 0;
    END IF;
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
