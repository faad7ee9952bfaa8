-- 0054: the partitions task also drops the month partitions that
-- retention emptied (runtime/partitions.c, docs/operations.md,
-- "Partitioned tables"). Retention deletes old submissions, files and
-- events row by row; their months' partitions stayed, empty, and every
-- statement's planning grew by one partition a month.
--
-- The rule: a partition of submission_file_chunks, submission_files,
-- events or submissions is dropped when
--   - it is empty, checked under an ACCESS EXCLUSIVE lock on it (below),
--     and its table is at most 1 MB (an emptied month not yet vacuumed
--     waits for autovacuum to truncate it: otherwise the check under the
--     lock would scan its dead rows while requests wait),
--   - and its upper bound is at least keep_months (at least 1) before
--     at: for <table>_YYYY_MM the first millisecond of the month after
--     it, for <table>_before (the table from before partitioning, 0046,
--     0053) partition_plan.bound.
-- Never the current month or a later one (its bound is after at). Why a
-- month of margin: every id begins with the time it is made (fs_id_new,
-- fs_new_id, in 0.2.0 too), so a month past its end nothing writes a new
-- row into it; the latest writes after a month ends are a file's chunks
-- (the file's id is made when its upload begins) and a machine whose
-- clock is behind, minutes, not a month. A row with an id in a dropped
-- month is refused ("no partition of relation ... found for row"),
-- never kept elsewhere or lost.
--
-- Why no row is lost: the emptiness is checked after the locks are
-- granted, by a statement of its own (in READ COMMITTED each statement of
-- a function sees what was committed before it began; the function
-- refuses another isolation level). A transaction that inserted into the
-- partition holds ROW EXCLUSIVE on it until it ends, which conflicts with
-- the ACCESS EXCLUSIVE asked for: when the lock is granted, every such
-- transaction has committed (its row is seen, the partition is kept) or
-- rolled back; no new one can route a row into it until this
-- transaction ends, and then the partition is gone.
--
-- Locks: DETACH PARTITION without CONCURRENTLY (which cannot run in a
-- function or a transaction block) takes ACCESS EXCLUSIVE on the parent,
-- on the partition, and on the tables whose foreign keys reference the
-- parent (submission_files and mail_jobs for submissions, deliveries for
-- events, submission_file_chunks for submission_files: seen in pg_locks
-- on PostgreSQL 15). They are asked for first, the parent (ONLY: not its
-- partitions), the referencing tables, then the partition, each with
-- lock_timeout 200 ms (below deadlock_timeout: a request it would
-- deadlock with wins; a request queued behind it waits 200 ms at most).
-- The DETACH and DROP of an empty table then take milliseconds; the DROP
-- removes the detached table's own foreign keys and their triggers on
-- the tables they reference, which takes ACCESS EXCLUSIVE on users,
-- forms, and the referenced parent with each of its partitions (pg_locks
-- again) for that moment, with the same timeout. A lock not granted
-- makes the call answer '-' (every lock of the attempt released at once)
-- and the next run tries again. One partition per call (per
-- transaction): the locks of one drop are gone before the next is tried.
--
-- Foreign keys: submission_file_chunks -> submission_files ->
-- submissions, mail_jobs -> submissions, deliveries -> events. DETACH of
-- a referenced partition checks that no referencing row points into it:
-- with the partition empty, none can (and the check reads nothing). The
-- tables are taken children first (chunks, files, events, submissions),
-- so a month's files go before its submissions.
--
-- Returns the name of the partition dropped (call again), '' when none is
-- left to drop, '-' when a lock was not granted within 200 ms (caught
-- here, so the locks of that attempt go at once and no error is raised:
-- the next run tries again), NULL when another session holds the
-- partitions task's advisory lock (the same as fs_partitions_ahead's: one
-- session at a time across every machine).
--
-- Additive: a new function; the previous release's module never names a
-- partition.
CREATE OR REPLACE FUNCTION fs_partitions_drop(keep_months integer, at timestamptz DEFAULT now())
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    c record;
    r record;
    limit_ts timestamptz := at - make_interval(months => GREATEST(keep_months, 1));
    found_row boolean;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'fs_partitions_drop checks emptiness after its locks: it needs READ COMMITTED, not %',
            current_setting('transaction_isolation');
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.partitions')) THEN
        RETURN NULL;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    FOR c IN
        SELECT pp.tbl, k.relname AS part
          FROM partition_plan pp
          JOIN pg_inherits i ON i.inhparent = pp.tbl::regclass
          JOIN pg_class k ON k.oid = i.inhrelid
         WHERE CASE WHEN k.relname = pp.tbl || '_before' THEN fs_id_at(pp.bound) <= limit_ts
                    WHEN k.relname ~ ('^' || pp.tbl || '_\d{4}_(0[1-9]|1[0-2])$') THEN
                        (to_date(right(k.relname, 7), 'YYYY_MM') + interval '1 month')
                            AT TIME ZONE 'UTC' <= limit_ts
                    ELSE false END
         ORDER BY array_position(ARRAY['submission_file_chunks', 'submission_files', 'events', 'submissions'],
                                 pp.tbl::text),
                  k.relname = pp.tbl || '_before' DESC, k.relname
    LOOP
        -- a table of more than 1 MB is passed over: emptied by retention
        -- but not vacuumed yet, its dead rows would make the look under
        -- the locks below a long scan while requests wait; autovacuum
        -- truncates an emptied table to nothing, and a later run drops it
        CONTINUE WHEN pg_relation_size(c.part::regclass) > 1048576;
        -- a look without the locks first: a month still holding rows is
        -- passed over (ACCESS SHARE, which only a DETACH or DROP waits for)
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM ONLY %I)', c.part) INTO found_row;
        CONTINUE WHEN found_row;
        BEGIN
            EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', c.tbl);
            -- the tables whose foreign keys reference the parent: DETACH
            -- takes ACCESS EXCLUSIVE on them too (their constraint's clone for
            -- the partition goes); asked for here, in one order
            FOR r IN SELECT DISTINCT conrelid::regclass::text AS t FROM pg_constraint
                      WHERE contype = 'f' AND confrelid = c.tbl::regclass AND conparentid = 0 ORDER BY 1 LOOP
                EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', r.t);
            END LOOP;
            EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', c.part);
            -- under the locks, in a statement of its own: what committed
            -- before they were granted
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM ONLY %I)', c.part) INTO found_row;
            IF found_row THEN
                -- written since the first look: kept; the locks go with this
                -- transaction, the next run looks again
                RETURN '';
            END IF;
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', c.tbl, c.part);
            EXECUTE format('DROP TABLE %I', c.part);
            RETURN c.part;
        EXCEPTION WHEN lock_not_available THEN
            -- a lock not granted within 200 ms (a request holds a table):
            -- this block's locks go with it; the next run tries again
            RETURN '-';
        END;
    END LOOP;
    RETURN '';
END $$;
