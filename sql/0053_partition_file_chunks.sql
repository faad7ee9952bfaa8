-- migrate: no transaction
-- 0053: submission_file_chunks becomes a partitioned table, as
-- submission_files did in 0046: RANGE on file_id, a partition a month.
--
-- file_id is a file's id (fil_, beginning with the upload's time,
-- fs_id_time), so a month of file ids is a month of chunks, and the
-- primary key (file_id, seq) contains the partition key and stays the
-- primary key. A chunk falls in the month of its file's id, the month its
-- file's row is in (submission_files is partitioned on the same ids, with
-- its own first bound): reading a file (file_id = $1 AND seq = $2) and the
-- cascade from a deleted file read one partition.
--
-- Today's table becomes the first partition, FROM (MINVALUE) TO (bound),
-- where bound is the start of the month after next (UTC) at the time of
-- this migration (partition_plan); the partitions task
-- (fs_partitions_ahead, made again below so that a month's chunks keep
-- their storage) makes the months after it. The steps, each in a
-- transaction of its own (the file runs outside one, scripts/migrate):
--   1. CHECK (file_id < bound) NOT VALID: ACCESS EXCLUSIVE for a moment,
--      no scan; asked for with lock_timeout 200 ms, again after a pause;
--   2. VALIDATE: SHARE UPDATE EXCLUSIVE, uploads and downloads go on
--      during its scan of the table (the chunks' bytes are TOASTed out of
--      line: the scan reads the small rows, not the bytes);
--   3. the swap, one short transaction: the table renamed to
--      submission_file_chunks_before (its primary key with it), a
--      partitioned parent of the same columns, storage (EXTERNAL: no
--      pglz on bytes that are mostly compressed already) and primary key,
--      the table attached as its first partition (the validated check
--      spares ATTACH its scan; the parent's primary key adopts the
--      table's), and the foreign key to submission_files made on the
--      parent, which adopts the table's own (equivalent and valid: no
--      scan). Nothing references the chunks, and no trigger or function
--      takes their row.
-- The previous release's module (0.2.0) inserts and reads chunks by
-- file_id and seq, never by ctid or with ON CONFLICT: it works on the
-- parent unchanged during a rolling upgrade.
-- Measured: docs/performance.md, "Partitioning a million submissions".
-- At its end, a plan fix found measuring the partitioned tables at ten
-- million rows: fs_submissions_delete_batch (retention, bulk deletes).

INSERT INTO partition_plan (tbl, prefix, bound)
SELECT 'submission_file_chunks', 'fil_',
       'fil_' || fs_id_time((date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months') AT TIME ZONE 'UTC')
ON CONFLICT (tbl) DO NOTHING;

-- 1. the bound as a check, not validated (a moment of ACCESS EXCLUSIVE)
DO $$
DECLARE b text := (SELECT bound FROM partition_plan WHERE tbl = 'submission_file_chunks');
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = 'submission_file_chunks'::regclass) <> 'r'
       OR EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'submission_file_chunks'::regclass
                   AND conname = 'submission_file_chunks_before_partitions') THEN
        RETURN;
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            LOCK TABLE submission_file_chunks IN ACCESS EXCLUSIVE MODE;
            EXECUTE format('ALTER TABLE submission_file_chunks ADD CONSTRAINT submission_file_chunks_before_partitions '
                           'CHECK (file_id < %L) NOT VALID', b);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2);
        END;
    END LOOP;
    RAISE EXCEPTION 'no lock on submission_file_chunks in 50 tries of 200 ms (a long transaction holds it): migrate again';
END $$;

-- 2. validated while reads and writes go on (SHARE UPDATE EXCLUSIVE, which
-- no request's lock conflicts with: it may wait as long as it takes)
SET lock_timeout = 0;
DO $$ BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = 'submission_file_chunks'::regclass) = 'r' THEN
        ALTER TABLE submission_file_chunks VALIDATE CONSTRAINT submission_file_chunks_before_partitions;
    END IF;
END $$;

-- 3. the swap: every lock first, in one order, 200 ms at most each (below
-- deadlock_timeout: a request it would deadlock with wins, the swap tries
-- again a moment later), up to 50 times
DO $$
DECLARE
    b text := (SELECT bound FROM partition_plan WHERE tbl = 'submission_file_chunks');
    f record;
BEGIN
    IF to_regclass('submission_file_chunks_before') IS NOT NULL THEN
        RETURN; -- done by an earlier run
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            LOCK TABLE submission_file_chunks IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE submission_files IN SHARE ROW EXCLUSIVE MODE;
            ALTER TABLE submission_file_chunks RENAME TO submission_file_chunks_before;
            ALTER INDEX submission_file_chunks_pkey RENAME TO submission_file_chunks_before_pkey;

            CREATE TABLE submission_file_chunks (LIKE submission_file_chunks_before INCLUDING DEFAULTS INCLUDING STORAGE)
                PARTITION BY RANGE (file_id);
            ALTER TABLE submission_file_chunks ADD CONSTRAINT submission_file_chunks_pkey PRIMARY KEY (file_id, seq);
            EXECUTE format('ALTER TABLE submission_file_chunks ATTACH PARTITION submission_file_chunks_before '
                           'FOR VALUES FROM (MINVALUE) TO (%L)', b);
            ALTER TABLE submission_file_chunks ADD CONSTRAINT submission_file_chunks_file_id_fkey
                FOREIGN KEY (file_id) REFERENCES submission_files(id) ON DELETE CASCADE;

            FOR f IN SELECT p.oid FROM pg_proc p
                      WHERE 'submission_file_chunks_before'::regtype = ANY (p.proargtypes::oid[]) LOOP
                EXECUTE regexp_replace(pg_get_functiondef(f.oid), '\msubmission_file_chunks_before\M',
                                       'submission_file_chunks', 'g');
                EXECUTE format('DROP FUNCTION %s', f.oid::regprocedure);
            END LOOP;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2); -- another turn
        END;
    END LOOP;
    RAISE EXCEPTION 'the swap of % did not get its locks in 50 tries of 200 ms (a long transaction holds one of its tables): migrate again', 'submission_file_chunks';
END $$;

RESET lock_timeout;

-- The months ahead (0046's function), with one change: a month's table is
-- made with the parent's column storage too (INCLUDING STORAGE), so the
-- chunks of every month are stored EXTERNAL as the parent says (LIKE
-- copies no storage by default; the other tables keep the default storage
-- and are unchanged by it).
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
            EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)',
                           name, p.tbl);
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

-- the months ahead of the chunks now, as the worker keeps them
-- (runtime/partitions.c): a partition per transaction, a lock timeout
-- tried again after a pause
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

-- A batch of retention or of a bulk delete (sql/0043) read every
-- submission of the form older than the cutoff to delete lim of them: with
-- the form's filter on the DELETE too, the planner joined the lim ids to
-- all of those rows (a hash semi join; 356,000 rows, 2.1 s for a batch of
-- 1,000 in a form of 2 million at ten million rows, and as much again for
-- every batch). The ids alone, looked up by primary key in the partition
-- of each id (run-time pruning), cost the batch and not the backlog
-- (docs/performance.md). The rows are the ones the sub-select chose in
-- the statement's snapshot; form and time are not changed by any update.
CREATE OR REPLACE FUNCTION fs_submissions_delete_batch(p_form text, p_before timestamptz, lim integer)
RETURNS integer LANGUAGE sql AS
$$ WITH d AS (
       DELETE FROM submissions
        WHERE id IN (SELECT id FROM submissions
                      WHERE form_id = p_form AND created_at < p_before LIMIT lim)
       RETURNING form_id, user_id, spam),
   u AS (INSERT INTO submission_tally (form_id, user_id, month, n)
         SELECT form_id, user_id, NULL, -count(*)::integer FROM d WHERE NOT spam
          GROUP BY form_id, user_id
         RETURNING 1)
   SELECT count(*)::integer FROM d $$;
