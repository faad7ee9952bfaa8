-- 0061: a month partition of submissions is not dropped while a partial
-- answer (submission_partials, 0059) has an id in that month or before
-- it. Completing a partial stores the submission under the partial's id,
-- made at the filling-in's first step, so in the month partition of that
-- id: with the month dropped (retention emptied it, 0054 dropped it), the
-- completion failed (no partition for the row; nothing stored, the
-- partial kept). Partials expire after partialExpiresDays (at most 365),
-- so a month is held at most that long past its emptying.
--
-- The function is 0054's with that one condition added (the rest of its
-- rules and why: 0054). Additive: the same signature; the previous
-- release's module never calls it.
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
           -- a month of submissions is kept while a partial answer has an
           -- id in it or before it: completing the partial stores the
           -- submission under that id, so in that month's partition
           AND NOT (pp.tbl = 'submissions' AND EXISTS (
                   SELECT 1 FROM submission_partials sp
                    WHERE fs_id_at(sp.id) < CASE WHEN k.relname = pp.tbl || '_before' THEN fs_id_at(pp.bound)
                                                 ELSE (to_date(right(k.relname, 7), 'YYYY_MM') + interval '1 month')
                                                          AT TIME ZONE 'UTC' END))
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
