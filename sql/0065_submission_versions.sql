-- Editing after sending (settings.allowEdits, docs/forms.md "Editing
-- after sending"): a respondent's private edit link changes the answers
-- of their submission for untilHours after it was sent. The submission
-- row holds the current answers (every reader of submissions goes on
-- reading one row per submission); each edit bumps its version (the
-- owner's ETag, owner_version: a PATCH that read the submission before
-- the edit gets 412) and keeps the answers in submission_versions.
--
-- submission_versions: the answers of a submission at each version at
-- which they changed: on the first edit two rows (the answers as sent,
-- version 1, and the edit's), one more per later
-- edit. A submission never edited has no row (its one version is the
-- submission itself). Rows go with their submission (the foreign key
-- cascades: deleted by the owner, by retention, by an account's erasure
-- through its forms), and they are partitioned as submissions are: RANGE
-- on the submission's id (sub_..., beginning with its time), a partition
-- a month made ahead by the partitions task (partition_plan), so a month
-- of versions lives in the month of its submissions.
--
-- Additive: a new table and a new function; the previous release's
-- module never reads or writes them, and its writes of submissions are
-- unchanged.

CREATE TABLE IF NOT EXISTS submission_versions (
    submission_id text NOT NULL,
    version       integer NOT NULL,             -- the submission's owner_version then
    form_id       text NOT NULL,
    user_id       text NOT NULL,
    form_version  integer NOT NULL,
    data          jsonb NOT NULL,
    ending        text,
    created_at    timestamptz NOT NULL,         -- when these answers were stored
    PRIMARY KEY (submission_id, version)
) PARTITION BY RANGE (submission_id);

-- an account's versions (its export, GET /v1/me/export, pages by
-- submission and version)
CREATE INDEX IF NOT EXISTS submission_versions_user ON submission_versions (user_id, submission_id, version);

INSERT INTO partition_plan (tbl, prefix, bound)
SELECT 'submission_versions', 'sub_', bound FROM partition_plan WHERE tbl = 'submissions'
ON CONFLICT (tbl) DO NOTHING;

DO $$
DECLARE b text := (SELECT bound FROM partition_plan WHERE tbl = 'submission_versions');
BEGIN
    IF to_regclass('submission_versions_before') IS NULL THEN
        CREATE TABLE submission_versions_before (LIKE submission_versions INCLUDING DEFAULTS);
        EXECUTE format('ALTER TABLE submission_versions ATTACH PARTITION submission_versions_before '
                       'FOR VALUES FROM (MINVALUE) TO (%L)', b);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'submission_versions_submission_id_fkey') THEN
        ALTER TABLE submission_versions ADD CONSTRAINT submission_versions_submission_id_fkey
            FOREIGN KEY (submission_id) REFERENCES submissions(id) ON DELETE CASCADE;
    END IF;
END $$;

-- The months ahead of the new table, as the partitions task keeps them
-- (fs_partitions_ahead, sql/0053; it makes every table of partition_plan).
-- Run by the task at start too: here only so that the months exist at once.
DO $$
DECLARE n integer;
BEGIN
    FOR i IN 1..50 LOOP
        BEGIN
            n := fs_partitions_ahead(3);
        EXCEPTION WHEN lock_not_available THEN
            n := 0; -- the task makes them
        END;
        EXIT WHEN n <> 1;
    END LOOP;
END $$;

-- An edit of submission p_id of form p_form by its respondent: the
-- answers p_data checked against form version p_version, p_uhash their
-- settings.uniqueBy hash (NULL: none), p_ending the ending they reach.
-- Allowed while the form is published and within p_hours of the
-- submission's creation. Locks the row; a uniqueBy value another
-- submission holds is refused (the same advisory lock as a submission's,
-- fs_submission_unique). Keeps the answers before (first edit) and after
-- in submission_versions, bumps the version, and writes a
-- submission.updated event (not for spam) with the submission as the
-- owner sees it. Outcome: ok (and the submission's JSON), gone (no such
-- submission of a published form), stale (the form's version changed),
-- expired, or duplicate.
CREATE OR REPLACE FUNCTION fs_submission_edit(p_id text, p_form text, p_data jsonb, p_uhash text,
                                              p_ending text, p_version integer, p_hours integer,
                                              p_evid text, p_calc jsonb)
    RETURNS TABLE (outcome text, json text)
LANGUAGE plpgsql AS $$
DECLARE
    f record;
    s submissions;
BEGIN
    SELECT fo.id, fo.version INTO f FROM forms fo
     WHERE fo.id = p_form AND fo.status = 'published' AND fo.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    IF f.version <> p_version THEN
        RETURN QUERY SELECT 'stale'::text, NULL::text;
        RETURN;
    END IF;
    SELECT * INTO s FROM submissions x WHERE x.id = p_id AND x.form_id = p_form FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    IF s.created_at + make_interval(hours => p_hours) <= now() THEN
        RETURN QUERY SELECT 'expired'::text, NULL::text;
        RETURN;
    END IF;
    IF p_uhash IS NOT NULL AND p_uhash IS DISTINCT FROM s.uniq_hash
       AND NOT fs_submission_unique(p_form, p_uhash) THEN
        RETURN QUERY SELECT 'duplicate'::text, NULL::text;
        RETURN;
    END IF;
    -- the same answers again (a double click, a second tab): nothing
    -- changes, no version, no event
    IF s.data = p_data THEN
        RETURN QUERY SELECT 'ok'::text, fs_submission_json(s)::text;
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM submission_versions v WHERE v.submission_id = s.id) THEN
        INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version,
                                         data, ending, created_at)
        VALUES (s.id, 1, s.form_id, s.user_id, s.form_version, s.data, s.ending, s.created_at);
    END IF;
    UPDATE submissions x
       SET data = p_data, uniq_hash = CASE WHEN x.spam THEN x.uniq_hash ELSE p_uhash END,
           ending = p_ending, calculated = p_calc, form_version = p_version,
           owner_version = x.owner_version + 1,
           owner_updated_at = clock_timestamp()
     WHERE x.id = s.id
    RETURNING * INTO s;
    INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version, data,
                                     ending, created_at)
    VALUES (s.id, s.owner_version, s.form_id, s.user_id, s.form_version, s.data, s.ending,
            s.owner_updated_at);
    IF NOT s.spam THEN
        INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
        VALUES (p_evid, s.user_id, 'submission.updated', s.form_id, s.id,
                fs_submission_json(s)::jsonb || jsonb_build_object('edited', true));
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_submission_json(s)::text;
END $$;

-- The partitions task's drop (sql/0054, 0061) with one more condition: a
-- month of submission_versions, empty because nobody edited a submission
-- of that month yet, must not go while that month of submissions is kept
-- (an edit up to untilHours after sending would find no partition for its
-- versions). The rest is 0061's function unchanged (its rules and why:
-- 0054). Additive: the same signature; the previous release never calls it.
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
           -- a month of versions (sql/0065) is kept while its month of
           -- submissions is: an edit within untilHours (up to a year) of
           -- a submission in it writes versions there; once the month of
           -- submissions is gone (emptied, so every version cascaded) it goes
           AND NOT (pp.tbl = 'submission_versions'
                    AND to_regclass(quote_ident('submissions' || substr(k.relname, length('submission_versions') + 1))) IS NOT NULL)
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

-- The form as the mail worker reads it (sql/0028) with allowEdits when the
-- form's respondents may edit (not a link-only form): the respondent's
-- copy (settings.confirmation) then carries the private edit link. The
-- previous release's worker ignores the extra member.
CREATE OR REPLACE FUNCTION fs_mail_form_json(f forms) RETURNS jsonb
LANGUAGE sql STABLE AS
$$ SELECT jsonb_build_object('id', f.id, 'title', f.title, 'fields', f.fields,
                             'confirmation', f.settings -> 'confirmation')
          || CASE WHEN f.settings -> 'allowEdits' IS NULL OR f.settings -> 'allowEdits' = 'null'::jsonb
                       OR f.settings -> 'linkRequired' = 'true'::jsonb THEN '{}'::jsonb
                  ELSE jsonb_build_object('allowEdits', f.settings -> 'allowEdits') END $$;
