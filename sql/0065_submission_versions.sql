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
                                              p_evid text)
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
    IF NOT EXISTS (SELECT 1 FROM submission_versions v WHERE v.submission_id = s.id) THEN
        INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version,
                                         data, ending, created_at)
        VALUES (s.id, 1, s.form_id, s.user_id, s.form_version, s.data, s.ending, s.created_at);
    END IF;
    UPDATE submissions x
       SET data = p_data, uniq_hash = CASE WHEN x.spam THEN x.uniq_hash ELSE p_uhash END,
           ending = p_ending, form_version = p_version, owner_version = x.owner_version + 1,
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
