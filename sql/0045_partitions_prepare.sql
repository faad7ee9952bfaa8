-- migrate: no transaction
-- 0045: submissions, submission_files and events are about to become
-- partitioned tables (0046); this prepares today's tables, while the
-- service runs, so that 0046's swap holds its lock for milliseconds.
--
-- Scheme: RANGE on id, by month. An id begins with the millisecond it was
-- made (fs_id_new in C, fs_new_id in SQL; fs_id_time, sql/0044), in every
-- release since 0.2.0 too, so a range of ids is a range of time:
--   - the primary key (id) contains the partition key and stays the
--     primary key: the foreign keys to submissions(id), events(id) and
--     submission_files(id) stay;
--   - a lookup by id (a submission, a file, an event cursor) is pruned to
--     one partition; the list pages already seek by an id range (0044) and
--     are pruned to the months of their window; the event feed from a
--     cursor gets a lower bound from the cursor's time (webhooks_store.c).
-- submission_files by its own id, not by submission_id: its id begins
-- with its time too (made during the upload, just after the submission's
-- id), and submission_file_chunks.file_id references submission_files(id),
-- which needs id unique, so id must contain the partition key. A file
-- falls in its submission's month but for one made in the last moments of
-- a month (the next month's partition: nothing depends on them sharing it).
--
-- Today's table becomes the first partition, FROM (MINVALUE) TO (bound),
-- without being rewritten or scanned under the swap's lock:
--   1. here: CHECK (id < bound) NOT VALID (a moment of ACCESS EXCLUSIVE,
--      no scan), committed; then VALIDATE in a transaction of its own
--      (SHARE UPDATE EXCLUSIVE: reads and writes go on during its scan).
--      ATTACH PARTITION (0046) then sees the validated check and skips its
--      own scan of the table.
--   2. here: the indexes the partitioned parent will have that today's
--      table lacks, CONCURRENTLY, so that ATTACH adopts every index instead
--      of building one under its lock: submissions (form_id, uniq_hash)
--      non-unique (the unique submissions_uniq cannot be the parent's: a
--      unique index of a partitioned table must contain the partition
--      key; see 0046).
-- bound is the start of the month after next (UTC), not of next month:
-- the 0.2.0 module forgets old events with DELETE ... WHERE ctid IN
-- (SELECT ctid ...), and a ctid names a row only within one partition;
-- while every event younger than that is in the first partition (at
-- least a month from now), its statement deletes exactly what it meant
-- to. A rolling upgrade therefore finishes within a month of this
-- migration (docs/operations.md, "Partitioned tables").
--
-- This file runs outside a transaction (the first line; scripts/migrate):
-- CREATE INDEX CONCURRENTLY cannot run in one, and a VALIDATE in the
-- transaction that added the constraint would hold its ACCESS EXCLUSIVE
-- lock for the whole scan. Each statement is its own transaction, and the
-- file can be run again after failing half-way (IF NOT EXISTS, guards).
--
-- Measured on 1,000,000 submissions, 62,500 files and 1,000,000 events:
-- docs/performance.md, "Partitioning a million submissions".


-- Where each table's first partition (today's table) ends: ids below bound.
CREATE TABLE IF NOT EXISTS partition_plan (
    tbl text PRIMARY KEY,
    prefix text NOT NULL,
    bound text NOT NULL
);
INSERT INTO partition_plan (tbl, prefix, bound)
SELECT t.tbl, t.prefix,
       t.prefix || fs_id_time((date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months') AT TIME ZONE 'UTC')
  FROM (VALUES ('submissions', 'sub_'), ('submission_files', 'fil_'), ('events', 'evt_')) t(tbl, prefix)
ON CONFLICT (tbl) DO NOTHING;

-- CHECK (id < bound) NOT VALID on one table, in a statement (transaction)
-- of its own: one ACCESS EXCLUSIVE lock at a time, asked for with
-- lock_timeout 200 ms (below deadlock_timeout) and again after a pause, up
-- to 50 times, so that it neither queues readers behind it for long nor
-- makes a request the victim of a deadlock.
CREATE FUNCTION pg_temp.fs_bound_check(t text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE b text := (SELECT bound FROM partition_plan WHERE tbl = t);
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = t::regclass) <> 'r'
       OR EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = t::regclass AND conname = t || '_before_partitions') THEN
        RETURN;
    END IF;
    PERFORM set_config('lock_timeout', '200ms', true);
    FOR attempt IN 1..50 LOOP
        BEGIN
            EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', t);
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (id < %L) NOT VALID', t, t || '_before_partitions', b);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05 + random() * 0.2);
        END;
    END LOOP;
    RAISE EXCEPTION 'no lock on % in 50 tries of 200 ms (a long transaction holds it): migrate again', t;
END $f$;
SELECT pg_temp.fs_bound_check('submissions');
SELECT pg_temp.fs_bound_check('submission_files');
SELECT pg_temp.fs_bound_check('events');

-- the VALIDATEs and the index take SHARE UPDATE EXCLUSIVE, which no
-- request's lock conflicts with: they may wait as long as it takes
SET lock_timeout = 0;
ALTER TABLE submissions VALIDATE CONSTRAINT submissions_before_partitions;
ALTER TABLE submission_files VALIDATE CONSTRAINT submission_files_before_partitions;
ALTER TABLE events VALIDATE CONSTRAINT events_before_partitions;

-- a build that failed half-way leaves an invalid index: build it again
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('submissions_uniq_hash')
                AND NOT indisvalid) THEN
        DROP INDEX submissions_uniq_hash;
    END IF;
END $$;
CREATE INDEX CONCURRENTLY IF NOT EXISTS submissions_uniq_hash ON submissions (form_id, uniq_hash)
    WHERE uniq_hash IS NOT NULL;

RESET lock_timeout;
