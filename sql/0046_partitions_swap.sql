-- migrate: no transaction
-- 0046: submissions, events and submission_files become partitioned
-- tables (RANGE on id, a partition a month; the scheme and why: 0045).
--
-- Each table in one short transaction (the swap), in which today's table
--   - is renamed to <table>_before, with its indexes (the parent takes
--     their names) and its statistics object;
--   - gives way to a partitioned parent of the same columns, defaults,
--     CHECK constraints and indexes (made on the empty parent: instant);
--   - is attached as the parent's first partition, FROM (MINVALUE) TO
--     (bound, partition_plan): the check 0045 validated spares ATTACH its
--     scan, and every index of the parent finds its twin on the table
--     (0045 built the one that was missing), so nothing is built either;
--   - hands its row triggers and statement triggers to the parent (a
--     statement trigger of a partition fires only for statements naming
--     the partition);
--   - gets the parent's foreign keys to forms and users: the table's own
--     ones are equivalent and already valid, so the parent adopts them
--     (no scan);
--   - and the foreign keys that referenced it (they follow the table's oid
--     through the rename, so they would keep pointing at the first
--     partition only) are made again against the parent NOT VALID: no
--     scan under the lock; each is VALIDATEd right after, in a transaction
--     of its own (SHARE UPDATE EXCLUSIVE on the referencing table: reads
--     and writes go on during its scan).
-- The functions that take a row of the table (fs_submission_json,
-- fs_mail_submission_json, fs_event_json, fs_delivery_json, and any other)
-- follow the renamed table's row type: each is made again for the
-- parent's row type in the same transaction, and the old one dropped.
-- Locks: each swap first takes every lock it needs (LOCK TABLE, in one
-- order), with lock_timeout 200 ms, below deadlock_timeout (1 s): when a
-- request's transaction holds one of those tables and waits for another
-- that the swap holds, the swap gives up its locks (not the request: tried
-- without this, the 0.2.0 module's submissions and delivery claims were
-- the victims of "deadlock detected" during the migration) and tries again
-- a moment later, up to 50 times; a queued ACCESS EXCLUSIVE request never
-- blocks readers for longer than that. Past 50 tries it fails, and
-- migrating again finishes the file (every step is guarded).
--
-- submission_files goes last: its reference to submissions is first made
-- against the submissions parent and validated on today's table, so that
-- the files parent adopts it when its own turn comes (PostgreSQL 15 adds
-- no NOT VALID foreign key to a partitioned table: one added there is
-- validated at once, scanning every file under a lock that stops writes).
--
-- What does not carry over: the unique index submissions_uniq (form_id,
-- uniq_hash) cannot be the parent's (a unique index of a partitioned table
-- must contain the partition key). uniqueBy never relied on it: it is
-- exact through fs_submission_unique (an advisory lock per form and hash,
-- and a fresh snapshot, sql/0026), which reads the parent's non-unique
-- index; the unique index stays on the first partition as it was.
-- No ON CONFLICT of this module or of 0.2.0 names a column of these
-- tables.
--
-- The months ahead: fs_partitions_ahead (below), run by every httpd's
-- tally worker each FormsvcRetentionInterval (runtime/partitions.c), one
-- session at a time; this file runs it once, so that a new installation
-- has its partitions before the worker's first round. There is no DEFAULT
-- partition: a row whose id's time is beyond the last partition (a clock
-- months ahead, or a worker stopped for months) is refused (the request
-- fails with a 500 and the error log says "no partition of relation ...
-- found for row") rather than kept where every later CREATE or ATTACH of
-- a month would have to scan it, under a lock, and move it out.

-- (the VALIDATEs take SHARE UPDATE EXCLUSIVE, which no request's lock
-- conflicts with: they may wait as long as it takes)
SET lock_timeout = 0;

-- ---- submissions ----------------------------------------------------------
DO $$
DECLARE
    b text := (SELECT bound FROM partition_plan WHERE tbl = 'submissions');
    f record;
BEGIN
    IF to_regclass('submissions_before') IS NOT NULL THEN
        RETURN; -- done by an earlier run
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            LOCK TABLE submissions, mail_jobs IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE submission_files, forms, users IN SHARE ROW EXCLUSIVE MODE;
            ALTER TABLE submissions RENAME TO submissions_before;
            ALTER INDEX submissions_pkey RENAME TO submissions_before_pkey;
            ALTER INDEX submissions_form_id RENAME TO submissions_before_form_id;
            ALTER INDEX submissions_form_created RENAME TO submissions_before_form_created;
            ALTER INDEX submissions_link RENAME TO submissions_before_link;
            ALTER INDEX submissions_user_month RENAME TO submissions_before_user_month;
            ALTER INDEX submissions_uniq RENAME TO submissions_before_uniq;
            ALTER INDEX submissions_uniq_hash RENAME TO submissions_before_uniq_hash;
            ALTER STATISTICS submissions_form_user RENAME TO submissions_before_form_user;

            CREATE TABLE submissions (LIKE submissions_before INCLUDING DEFAULTS) PARTITION BY RANGE (id);
            ALTER TABLE submissions ADD CONSTRAINT submissions_pkey PRIMARY KEY (id);
            CREATE INDEX submissions_form_id ON submissions (form_id, id DESC);
            CREATE INDEX submissions_form_created ON submissions (form_id, created_at);
            CREATE INDEX submissions_link ON submissions (link_id) WHERE link_id IS NOT NULL;
            CREATE INDEX submissions_user_month ON submissions (user_id, created_at) WHERE NOT spam;
            CREATE INDEX submissions_uniq_hash ON submissions (form_id, uniq_hash) WHERE uniq_hash IS NOT NULL;

            DROP TRIGGER submissions_forget ON submissions_before;
            EXECUTE format('ALTER TABLE submissions ATTACH PARTITION submissions_before FOR VALUES FROM (MINVALUE) TO (%L)', b);
            CREATE TRIGGER submissions_forget AFTER DELETE ON submissions
                FOR EACH ROW EXECUTE FUNCTION fs_submission_forget();
            ALTER TABLE submissions ADD CONSTRAINT submissions_form_id_fkey FOREIGN KEY (form_id)
                REFERENCES forms(id) ON DELETE CASCADE;
            ALTER TABLE submissions ADD CONSTRAINT submissions_user_id_fkey FOREIGN KEY (user_id)
                REFERENCES users(id) ON DELETE CASCADE;

            ALTER TABLE mail_jobs DROP CONSTRAINT mail_jobs_submission_id_fkey,
                ADD CONSTRAINT mail_jobs_submission_id_fkey FOREIGN KEY (submission_id)
                    REFERENCES submissions(id) ON DELETE CASCADE NOT VALID;
            -- the files' reference to the parent, beside the one to the first
            -- partition (dropped once the files parent adopts the new one)
            ALTER TABLE submission_files ADD CONSTRAINT submission_files_submission_fkey FOREIGN KEY (submission_id)
                REFERENCES submissions(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED NOT VALID;

            FOR f IN SELECT p.oid FROM pg_proc p WHERE 'submissions_before'::regtype = ANY (p.proargtypes::oid[]) LOOP
                EXECUTE regexp_replace(pg_get_functiondef(f.oid), '\msubmissions_before\M', 'submissions', 'g');
                EXECUTE format('DROP FUNCTION %s', f.oid::regprocedure);
            END LOOP;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2); -- another turn
        END;
    END LOOP;
    RAISE EXCEPTION 'the swap of % did not get its locks in 50 tries of 200 ms (a long transaction holds one of its tables): migrate again', 'submissions';
END $$;
ALTER TABLE mail_jobs VALIDATE CONSTRAINT mail_jobs_submission_id_fkey;
ALTER TABLE submission_files VALIDATE CONSTRAINT submission_files_submission_fkey;

-- ---- events ---------------------------------------------------------------
DO $$
DECLARE
    b text := (SELECT bound FROM partition_plan WHERE tbl = 'events');
    f record;
BEGIN
    IF to_regclass('events_before') IS NOT NULL THEN
        RETURN;
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            LOCK TABLE events, deliveries IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE;
            ALTER TABLE events RENAME TO events_before;
            ALTER INDEX events_pkey RENAME TO events_before_pkey;
            ALTER INDEX events_created RENAME TO events_before_created;
            ALTER INDEX events_feed RENAME TO events_before_feed;
            ALTER INDEX events_submission RENAME TO events_before_submission;

            CREATE TABLE events (LIKE events_before INCLUDING DEFAULTS) PARTITION BY RANGE (id);
            -- NOT VALID as on today's table (0042 widened it without a scan)
            EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_type_check %s',
                           (SELECT pg_get_constraintdef(oid) FROM pg_constraint
                             WHERE conrelid = 'events_before'::regclass AND conname = 'events_type_check'));
            ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id);
            CREATE INDEX events_created ON events (created_at);
            CREATE INDEX events_feed ON events (user_id, xid, id);
            CREATE INDEX events_submission ON events (submission_id) WHERE submission_id IS NOT NULL;

            DROP TRIGGER events_fanout ON events_before;
            DROP TRIGGER events_mail ON events_before;
            EXECUTE format('ALTER TABLE events ATTACH PARTITION events_before FOR VALUES FROM (MINVALUE) TO (%L)', b);
            CREATE TRIGGER events_fanout AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
                FOR EACH STATEMENT EXECUTE FUNCTION fs_events_fanout();
            CREATE TRIGGER events_mail AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
                FOR EACH STATEMENT EXECUTE FUNCTION fs_events_mail();
            ALTER TABLE events ADD CONSTRAINT events_user_id_fkey FOREIGN KEY (user_id)
                REFERENCES users(id) ON DELETE CASCADE;

            ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey,
                ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id)
                    REFERENCES events(id) ON DELETE CASCADE NOT VALID;

            FOR f IN SELECT p.oid FROM pg_proc p WHERE 'events_before'::regtype = ANY (p.proargtypes::oid[]) LOOP
                EXECUTE regexp_replace(pg_get_functiondef(f.oid), '\mevents_before\M', 'events', 'g');
                EXECUTE format('DROP FUNCTION %s', f.oid::regprocedure);
            END LOOP;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2); -- another turn
        END;
    END LOOP;
    RAISE EXCEPTION 'the swap of % did not get its locks in 50 tries of 200 ms (a long transaction holds one of its tables): migrate again', 'events';
END $$;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_event_id_fkey;

-- ---- submission_files -----------------------------------------------------
DO $$
DECLARE
    b text := (SELECT bound FROM partition_plan WHERE tbl = 'submission_files');
    f record;
BEGIN
    IF to_regclass('submission_files_before') IS NOT NULL THEN
        RETURN;
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            LOCK TABLE submission_files, submission_file_chunks IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE submissions, users IN SHARE ROW EXCLUSIVE MODE;
            ALTER TABLE submission_files RENAME TO submission_files_before;
            ALTER INDEX submission_files_pkey RENAME TO submission_files_before_pkey;
            ALTER INDEX submission_files_submission RENAME TO submission_files_before_submission;
            ALTER INDEX submission_files_user RENAME TO submission_files_before_user;
            -- the reference to the first partition of submissions: the one to the
            -- parent (validated above) replaces it, and takes its name
            ALTER TABLE submission_files_before DROP CONSTRAINT submission_files_submission_id_fkey;
            ALTER TABLE submission_files_before RENAME CONSTRAINT submission_files_submission_fkey
                TO submission_files_submission_id_fkey;

            CREATE TABLE submission_files (LIKE submission_files_before INCLUDING DEFAULTS) PARTITION BY RANGE (id);
            ALTER TABLE submission_files ADD CONSTRAINT submission_files_pkey PRIMARY KEY (id);
            CREATE INDEX submission_files_submission ON submission_files (submission_id);
            CREATE INDEX submission_files_user ON submission_files (user_id) INCLUDE (size);

            DROP TRIGGER submission_files_usage ON submission_files_before;
            EXECUTE format('ALTER TABLE submission_files ATTACH PARTITION submission_files_before '
                           'FOR VALUES FROM (MINVALUE) TO (%L)', b);
            CREATE TRIGGER submission_files_usage AFTER INSERT OR DELETE OR UPDATE OF size, user_id
                ON submission_files FOR EACH ROW EXECUTE FUNCTION fs_file_usage_count();
            ALTER TABLE submission_files ADD CONSTRAINT submission_files_submission_id_fkey
                FOREIGN KEY (submission_id) REFERENCES submissions(id)
                ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED;
            ALTER TABLE submission_files ADD CONSTRAINT submission_files_user_id_fkey FOREIGN KEY (user_id)
                REFERENCES users(id) ON DELETE CASCADE;

            ALTER TABLE submission_file_chunks DROP CONSTRAINT submission_file_chunks_file_id_fkey,
                ADD CONSTRAINT submission_file_chunks_file_id_fkey FOREIGN KEY (file_id)
                    REFERENCES submission_files(id) ON DELETE CASCADE NOT VALID;

            FOR f IN SELECT p.oid FROM pg_proc p WHERE 'submission_files_before'::regtype = ANY (p.proargtypes::oid[]) LOOP
                EXECUTE regexp_replace(pg_get_functiondef(f.oid), '\msubmission_files_before\M', 'submission_files', 'g');
                EXECUTE format('DROP FUNCTION %s', f.oid::regprocedure);
            END LOOP;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2); -- another turn
        END;
    END LOOP;
    RAISE EXCEPTION 'the swap of % did not get its locks in 50 tries of 200 ms (a long transaction holds one of its tables): migrate again', 'submission_files';
END $$;
ALTER TABLE submission_file_chunks VALIDATE CONSTRAINT submission_file_chunks_file_id_fkey;

RESET lock_timeout;

-- ---- the months ahead -------------------------------------------------------
-- Makes the partitions of the month of at and of the months after it, up
-- to months ahead, for every table of partition_plan: a partition a month,
-- <table>_YYYY_MM, ids from the month's first millisecond (or the first
-- partition's bound, if later) to the next month's; months the first
-- partition covers are skipped. Idempotent: a month that has its partition
-- is left alone. One partition per call (per transaction: the locks of one
-- ATTACH are held for a moment only, never while waiting for the next
-- one's): 1 when it made one (call again), 0 when none is missing, -1 when
-- another session holds the transaction advisory lock.
-- Each partition is made empty and then attached: ATTACH takes SHARE
-- UPDATE EXCLUSIVE on the parent (reads and writes go on), where CREATE
-- TABLE ... PARTITION OF would take ACCESS EXCLUSIVE; lock_timeout keeps it
-- from queueing behind a long reader.
CREATE OR REPLACE FUNCTION fs_partitions_ahead(months integer, at timestamptz DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    p record;
    m timestamp;
    lo text; hi text; name text;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.partitions')) THEN
        RETURN -1;
    END IF;
    -- below deadlock_timeout: this gives way to a request it would
    -- deadlock with, never the request
    SET LOCAL lock_timeout = '200ms';
    FOR p IN SELECT * FROM partition_plan ORDER BY tbl LOOP
        FOR i IN 0..months LOOP
            m := date_trunc('month', at AT TIME ZONE 'UTC') + make_interval(months => i);
            lo := p.prefix || fs_id_time(m AT TIME ZONE 'UTC');
            hi := p.prefix || fs_id_time((m + interval '1 month') AT TIME ZONE 'UTC');
            CONTINUE WHEN hi <= p.bound;
            name := p.tbl || '_' || to_char(m, 'YYYY_MM');
            CONTINUE WHEN to_regclass(name) IS NOT NULL;
            EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name, p.tbl);
            EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                           p.tbl, name, GREATEST(lo, p.bound), hi);
            IF p.tbl = 'submissions' THEN
                -- a form has one owner (sql/0044): the planner estimates a
                -- partition's rows with the partition's own statistics
                EXECUTE format('CREATE STATISTICS %I (dependencies) ON form_id, user_id FROM %I',
                               name || '_form_user', name);
            END IF;
            RETURN 1;
        END LOOP;
    END LOOP;
    RETURN 0;
END $$;

-- The time an id begins with (the inverse of fs_id_time, sql/0044); NULL
-- for NULL. The event feed bounds its partitions with it
-- (fs_id_since('evt_', fs_id_at(cursor)), store/webhooks_store.c).
CREATE OR REPLACE FUNCTION fs_id_at(id text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                    substr(id, strpos(id, '_') + 1 + i, 1)) - 1)::bigint << (45 - 5 * i)) / 1000.0)
          FROM generate_series(0, 9) i $$;

-- the parents have no rows of their own: ANALYZE of a parent samples its
-- partitions (autovacuum never analyzes a partitioned table)
CREATE STATISTICS IF NOT EXISTS submissions_form_user (dependencies) ON form_id, user_id FROM submissions;

-- three months ahead, as the worker keeps them (runtime/partitions.c): a
-- partition per transaction, a lock timeout tried again after a pause
DO $$
DECLARE n integer;
BEGIN
    FOR i IN 1..200 LOOP
        BEGIN
            n := fs_partitions_ahead(3);
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2);
            n := 1;
        END;
        COMMIT;
        EXIT WHEN n = 0;
    END LOOP;
    IF n <> 0 THEN
        RAISE EXCEPTION 'the partitions ahead were not all made (locks not granted): migrate again';
    END IF;
END $$;
