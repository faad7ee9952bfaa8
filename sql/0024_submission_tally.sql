-- 0024: a submission path without shared row locks.
--
-- Until now each public submission raised a row of form_counts and one of
-- submission_months (16 shards each) in its own statement and held those
-- row locks until its commit, so concurrent submissions of one form or one
-- account queued on a handful of rows: the submission statement did ~900
-- a second at any concurrency, against ~22,000 one-row INSERTs.
--
-- Now a submission only appends: the submission, its event, and one row of
-- submission_tally (+1). Deleting a submission appends a -1 for its form.
-- A rollup (fs_tally_rollup, run about once a second by one httpd child at
-- a time) moves tally rows into form_counts and submission_months in one
-- transaction. Every reader adds the rows not yet rolled up, so counts are
-- exact at the reader's snapshot whether or not the rollup ran:
--   form's submissionCount and maxSubmissions  fs_form_count
--   the monthly quota and GET /v1/me           fs_month_received
-- The monthly quota reads without a lock, so concurrent submissions of one
-- account can pass it by at most the number in flight at that moment (as
-- before); maxSubmissions stays exact (fs_public_closed_locked, sql/0020).

CREATE TABLE submission_tally (
    form_id text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month   date,              -- the UTC month the submission counts in; NULL for a deletion
    n       integer NOT NULL   -- +1 a stored non-spam submission, -1 one deleted
);
CREATE INDEX submission_tally_form ON submission_tally (form_id);
CREATE INDEX submission_tally_month ON submission_tally (user_id, month) WHERE month IS NOT NULL;

CREATE OR REPLACE FUNCTION fs_form_count(fid text) RETURNS bigint
LANGUAGE sql STABLE AS
$$ SELECT COALESCE((SELECT sum(n) FROM form_counts WHERE form_id = fid), 0)
        + COALESCE((SELECT sum(n) FROM submission_tally WHERE form_id = fid), 0) $$;

-- Non-spam public submissions an account received in a UTC month.
CREATE FUNCTION fs_month_received(uid text, m date) RETURNS bigint
LANGUAGE sql STABLE AS
$$ SELECT COALESCE((SELECT sum(received) FROM submission_months
                     WHERE user_id = uid AND month = m), 0)
        + COALESCE((SELECT sum(n) FROM submission_tally
                     WHERE user_id = uid AND month = m), 0) $$;

-- Moves at most p_limit tally rows into the counters; returns how many, or
-- -1 when another session is rolling up or holds the counters locked (the
-- caller tries again later: a rollup never waits long for a lock, and a
-- lock it cannot get is not an error).
-- Readers see the rows either in the tally or in the counters, never both
-- nor neither: the DELETE and the counter upserts commit together.
CREATE FUNCTION fs_tally_rollup(p_limit integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.fs_tally_rollup')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM submission_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM submission_tally LIMIT p_limit))
        RETURNING form_id, user_id, month, n),
    fc AS (
        INSERT INTO form_counts AS c (form_id, shard, n)
        SELECT form_id, 0, sum(n) FROM d GROUP BY form_id
        ON CONFLICT (form_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n),
    sm AS (
        INSERT INTO submission_months AS m (user_id, month, shard, received)
        SELECT user_id, month, 0, sum(n) FROM d WHERE month IS NOT NULL
         GROUP BY user_id, month
        ON CONFLICT (user_id, month, shard) DO UPDATE SET received = m.received + EXCLUDED.received)
    SELECT count(*) INTO moved FROM d;
    RETURN moved;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

-- GET /v1/me's usage: the monthly count now comes from fs_month_received.
CREATE OR REPLACE FUNCTION fs_account_usage(uid text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
    forms_n bigint := 0; subs_n bigint := 0; keys_n bigint := 0;
    clients_n bigint := 0; hooks_n bigint := 0; fields_max bigint := 0;
BEGIN
    SELECT count(*), COALESCE(max(jsonb_array_length(f.fields)), 0)
      INTO forms_n, fields_max FROM forms f WHERE f.user_id = uid;
    subs_n := fs_month_received(uid, date_trunc('month', now() AT TIME ZONE 'UTC')::date);
    SELECT count(*) INTO keys_n FROM keys k WHERE k.user_id = uid AND fs_key_active(k);
    BEGIN
        IF to_regclass('clients') IS NOT NULL THEN
            EXECUTE 'SELECT count(*) FROM clients c WHERE c.user_id = $1 AND c.revoked_at IS NULL'
               INTO clients_n USING uid;
        END IF;
    EXCEPTION WHEN undefined_column OR undefined_table THEN clients_n := 0;
    END;
    BEGIN
        IF to_regclass('webhooks') IS NOT NULL THEN
            EXECUTE 'SELECT count(*) FROM webhooks w WHERE w.user_id = $1'
               INTO hooks_n USING uid;
        END IF;
    EXCEPTION WHEN undefined_column OR undefined_table THEN hooks_n := 0;
    END;
    RETURN json_build_object('forms', forms_n, 'fields', fields_max,
        'submissions', subs_n, 'keys', keys_n, 'clients', clients_n, 'webhooks', hooks_n,
        'monthResetsAt', fs_ts((date_trunc('month', now() AT TIME ZONE 'UTC')
                                + interval '1 month') AT TIME ZONE 'UTC'));
END $$;
