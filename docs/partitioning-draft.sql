-- DRAFT (not a migration yet; not applied by scripts/migrate): submissions
-- partitioned by month, without rewriting or long-locking today's table.
--
-- Scheme: RANGE on id, not on created_at. An id begins with the
-- millisecond it was made (fs_id_new, fs_id_time in sql/0044), so a range
-- of ids is a range of time, and:
--   - the primary key (id) contains the partition key: it stays the
--     primary key, and the foreign keys that reference submissions(id)
--     (submission_files.submission_id, mail_jobs.submission_id) stay;
--   - a lookup by id alone (fs_sub_get, fs_sub_delete, the files' join)
--     is pruned to one partition at plan time;
--   - the list pages already seek by id (sql/0044), and are pruned to the
--     partitions of their window.
-- The partition of a month M holds ids from 'sub_' || fs_id_time(M) to
-- 'sub_' || fs_id_time(M + 1 month). created_at is at most the length of
-- an upload later than the id's time, so a retention that drops a month's
-- partition must wait a day past the month's end (docs).
--
-- What does not carry over: the unique index submissions_uniq (form_id,
-- uniq_hash) cannot be global (a unique index on a partitioned table must
-- contain the partition key); uniqueBy is exact already through
-- fs_submission_unique (advisory lock, fresh snapshot, sql/0026): the index
-- becomes per partition, a backstop within a month only.
--
-- Steps, each short:
-- 1. (instant, ACCESS EXCLUSIVE for a moment) rename the table, create the
--    partitioned parent with the same columns, defaults and indexes.
-- 2. (no rewrite) the old table gets CHECK (id < bound) NOT VALID, then
--    VALIDATE CONSTRAINT (SHARE UPDATE EXCLUSIVE: reads and writes go on;
--    a scan of the table), then ATTACH PARTITION ... FOR VALUES FROM
--    (MINVALUE) TO (bound): the validated check lets PostgreSQL skip its
--    own scan. bound = the start of next month, so the old table takes the
--    rest of this month's rows as well.
-- 3. the partitions of the next months, empty, attached.
-- 4. the foreign keys that referenced the old table (they follow its oid
--    through the rename: they still point at the partition, which is
--    correct but lets the parent's other partitions escape them) are
--    re-added against the parent NOT VALID, then VALIDATEd.
-- 5. functions taking the row type `submissions` (fs_submission_json,
--    fs_mail_submission_json) follow the renamed table's row type: they
--    are created again for the parent's row type, and kept for the old one
--    for the previous release's statements until the contract step.
-- Steps 1 and 2's ATTACH must run in one transaction with the rename, or
-- the module would see no `submissions` between them; VALIDATE cannot be
-- inside that transaction (it would hold the rename's lock for its scan):
-- so the migration is two files (0045 expand: check NOT VALID + VALIDATE,
-- 0046: rename + parent + attach + FKs) and scripts/migrate already runs
-- each in its own transaction.

-- Tried on a database of 1,000,000 submissions (a year, 10 forms) and
-- 62,762 files, PostgreSQL 15, 2 loaded cores (2026-11-27):
--   0045: ADD CONSTRAINT ... NOT VALID 1.7 ms; VALIDATE 155 ms (a scan,
--         SHARE UPDATE EXCLUSIVE: reads and writes go on)
--   0046: the swap transaction about 210 ms, nearly all of it the ATTACH
--         (203 ms), holding ACCESS EXCLUSIVE on the old table: the
--         validated check spares the partition-constraint scan, but the
--         parent's non-unique (form_id, uniq_hash) index matches no index
--         of the old table (its one is UNIQUE) and is built during ATTACH.
--         To do: build that index on the old table CONCURRENTLY in 0045
--         so ATTACH only adopts indexes. Then VALIDATE of the
--         submission_files foreign key 196 ms, mail_jobs 2 ms (outside the
--         transaction).
--   After: 1,000,001 rows (none lost or doubled; the new one went to the
--   next month's partition); a lookup by id is pruned to one partition;
--   fs_partitions_ahead made 3 partitions, then 0 when run again.
-- Not done: events and submission_files the same way (deliveries.event_id
-- and submission_file_chunks.file_id reference them); the worker task in
-- runtime/ calling fs_partitions_ahead hourly; the module's own
-- statements are unchanged (they need none); make test groups not run on
-- a partitioned schema; the previous release (0.2.0) against it not run
-- (its statements use fs_submission_json(s): the overload below is what
-- keeps them working).

-- ---- 0045 (expand): the bound, validated while the service runs ----
CREATE TABLE partition_plan (tbl text PRIMARY KEY, bound text NOT NULL);
INSERT INTO partition_plan VALUES
  ('submissions', 'sub_' || fs_id_time(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'));
DO $$ BEGIN
  EXECUTE format('ALTER TABLE submissions ADD CONSTRAINT submissions_before_partitions CHECK (id < %L) NOT VALID',
                 (SELECT bound FROM partition_plan WHERE tbl = 'submissions'));
END $$;
ALTER TABLE submissions VALIDATE CONSTRAINT submissions_before_partitions;

-- ---- 0046: the swap (one short transaction), then the foreign keys validated ----
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE submissions RENAME TO submissions_before;
CREATE TABLE submissions (LIKE submissions_before INCLUDING DEFAULTS) PARTITION BY RANGE (id);
ALTER TABLE submissions ADD PRIMARY KEY (id);
CREATE INDEX submissions_p_form_id ON submissions (form_id, id DESC);
CREATE INDEX submissions_p_form_created ON submissions (form_id, created_at);
CREATE INDEX submissions_p_link ON submissions (link_id) WHERE link_id IS NOT NULL;
CREATE INDEX submissions_p_user_month ON submissions (user_id, created_at) WHERE NOT spam;
CREATE INDEX submissions_p_uniq ON submissions (form_id, uniq_hash) WHERE uniq_hash IS NOT NULL;
DROP TRIGGER submissions_forget ON submissions_before;
DO $$ BEGIN
  EXECUTE format('ALTER TABLE submissions ATTACH PARTITION submissions_before FOR VALUES FROM (MINVALUE) TO (%L)',
                 (SELECT bound FROM partition_plan WHERE tbl = 'submissions'));
END $$;
CREATE TRIGGER submissions_forget AFTER DELETE ON submissions FOR EACH ROW EXECUTE FUNCTION fs_submission_forget();
ALTER TABLE submissions ADD FOREIGN KEY (form_id) REFERENCES forms(id) ON DELETE CASCADE;
ALTER TABLE submissions ADD FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
ALTER TABLE submission_files DROP CONSTRAINT submission_files_submission_id_fkey,
  ADD CONSTRAINT submission_files_submission_id_fkey FOREIGN KEY (submission_id)
    REFERENCES submissions(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE mail_jobs DROP CONSTRAINT mail_jobs_submission_id_fkey,
  ADD CONSTRAINT mail_jobs_submission_id_fkey FOREIGN KEY (submission_id)
    REFERENCES submissions(id) ON DELETE CASCADE NOT VALID;
COMMIT;
ALTER TABLE submission_files VALIDATE CONSTRAINT submission_files_submission_id_fkey;
ALTER TABLE mail_jobs VALIDATE CONSTRAINT mail_jobs_submission_id_fkey;

-- ---- 0046 too: functions on the row type, and the worker function ----
-- the functions on the row type, for the parent (the old ones stay for the
-- renamed table's row type)
CREATE FUNCTION fs_submission_json(s submissions) RETURNS json LANGUAGE sql STABLE
    AS $$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                              'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at))
           || CASE WHEN s.link_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata) END
          )::json $$;
CREATE FUNCTION fs_mail_submission_json(s submissions) RETURNS jsonb LANGUAGE sql STABLE
    AS $$ SELECT jsonb_build_object('id', s.id, 'data', s.data, 'createdAt', fs_ts(s.created_at)) $$;
-- ---- the worker's task (runtime/, every hour): months ahead ----
CREATE FUNCTION fs_partitions_ahead(tbl text, prefix text, months integer) RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    m timestamptz := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    lo text; hi text; name text; made integer := 0;
BEGIN
    FOR i IN 0..months LOOP
        lo := prefix || fs_id_time(m + make_interval(months => i));
        hi := prefix || fs_id_time(m + make_interval(months => i + 1));
        name := tbl || '_' || to_char(m + make_interval(months => i), 'YYYY_MM');
        -- a month the old table's range already covers is skipped
        CONTINUE WHEN EXISTS (SELECT 1 FROM partition_plan WHERE partition_plan.tbl = fs_partitions_ahead.tbl
                                AND bound >= hi);
        IF to_regclass(name) IS NULL THEN
            -- lock_timeout: never queue behind a long reader of the parent
            SET LOCAL lock_timeout = '1s';
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                           name, tbl, GREATEST(lo, (SELECT bound FROM partition_plan p WHERE p.tbl = fs_partitions_ahead.tbl)), hi);
            made := made + 1;
        END IF;
    END LOOP;
    RETURN made;
END $$;
