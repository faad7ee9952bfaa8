-- A bulk delete (DELETE /v1/forms/{id}/submissions?before= of more than
-- 1,000 rows, docs/forms.md "Deleting in bulk") ran in batches until one
-- deleted fewer rows than it asked for. A batch picks its rows, then waits
-- for those another session is deleting at the same time (the owner's
-- DELETE of one submission, the retention task, another bulk delete) and
-- skips them once that session commits: it deleted fewer than it asked
-- for although more rows before the time were left, and the bulk delete
-- was finished (its event and audit entry with that count), those rows
-- kept. A batch is now the last only when no row before the time (or,
-- for a time still to come, before the bulk delete was asked for) is left,
-- read by a statement after the batch's (a new snapshot in READ
-- COMMITTED, so it sees what the other session committed). Additive: the
-- same function, signature and results; the previous release's module
-- calls it as before.
CREATE OR REPLACE FUNCTION fs_purge_step(p_id text, lim integer)
RETURNS TABLE (deleted integer, done boolean) LANGUAGE plpgsql AS $$
DECLARE
    j submission_purges;
    n integer;
    fin boolean;
BEGIN
    SELECT * INTO j FROM submission_purges WHERE id = p_id AND finished_at IS NULL
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 0, true;
        RETURN;
    END IF;
    n := fs_submissions_delete_batch(j.form_id, j.before, lim);
    fin := n < lim AND NOT EXISTS (SELECT 1 FROM submissions
                                    WHERE form_id = j.form_id
                                      AND created_at < LEAST(j.before, j.created_at));
    UPDATE submission_purges SET deleted = submission_purges.deleted + n,
           finished_at = CASE WHEN fin THEN clock_timestamp() END
     WHERE id = p_id;
    IF fin THEN
        INSERT INTO events (id, user_id, type, form_id, payload)
        VALUES (fs_new_id('evt_'), j.user_id, 'submissions.deleted', j.form_id,
                jsonb_build_object('formId', j.form_id, 'before', fs_ts(j.before),
                                   'count', j.deleted + n, 'purgeId', j.id));
        PERFORM fs_audit_count(j.user_id, 'submissions.deleted', j.form_id, j.deleted + n);
    END IF;
    RETURN QUERY SELECT n, fin;
END $$;

-- A step's save of partial answers (Next, "save and continue later", the
-- page's autosave; docs/forms.md "Partial answers") racing the Submit of
-- the same filling-in: the save looked for the submission before the
-- Submit committed, then waited for the partial row the Submit was
-- deleting, and made it again once it was gone. A completed filling-in
-- kept a partial row (listed with completed=false, expired only days
-- later) and a new submission.partial event with the answers. After its
-- write the save now looks again (a later statement, so it sees the
-- Submit's commit): when the submission is there, the row goes (its
-- events keep no answer, fs_partial_forget) and the save answers done, as
-- a save after the Submit does. Additive: the same function, signature
-- and results.
CREATE OR REPLACE FUNCTION fs_partial_save(p_id text, p_named boolean, p_form text, p_hash text,
                                           p_data jsonb, p_page integer, p_version integer,
                                           p_link text, p_days integer, p_evid text)
    RETURNS TABLE (outcome text, id text, expires_at text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    f record;
    p submission_partials;
BEGIN
    SELECT fo.id, fo.user_id, fo.version INTO f FROM forms fo
     WHERE fo.id = p_form AND fo.status = 'published' AND fo.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p_named THEN
        IF EXISTS (SELECT 1 FROM submissions s WHERE s.id = p_id) THEN
            RETURN QUERY SELECT 'done'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM submission_partials x WHERE x.id = p_id
                    AND (x.resume_hash <> p_hash OR x.form_id <> p_form)) THEN
            RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
    END IF;
    INSERT INTO submission_partials AS x (id, form_id, user_id, form_version, data, page,
                                          resume_hash, link_id, expires_at)
    VALUES (p_id, p_form, f.user_id, COALESCE(p_version, f.version), p_data, p_page, p_hash,
            p_link, now() + make_interval(days => p_days))
    ON CONFLICT (resume_hash) DO UPDATE
       SET data = EXCLUDED.data, page = EXCLUDED.page, form_version = EXCLUDED.form_version,
           updated_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
     WHERE x.form_id = EXCLUDED.form_id AND (NOT p_named OR x.id = EXCLUDED.id)
    RETURNING * INTO p;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    -- a Submit of this filling-in committed while the save waited: the
    -- row it deleted was made again; it goes, as after the Submit
    IF EXISTS (SELECT 1 FROM submissions s WHERE s.id = p.id) THEN
        DELETE FROM submission_partials x WHERE x.id = p.id;
        RETURN QUERY SELECT 'done'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p.event_at IS NULL OR p.event_at < now() - interval '10 minutes' THEN
        UPDATE submission_partials SET event_at = now() WHERE id = p.id;
        INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
        VALUES (p_evid, p.user_id, 'submission.partial', p.form_id, p.id, fs_partial_json(p));
    END IF;
    RETURN QUERY SELECT 'ok'::text, p.id, fs_ts(p.expires_at);
END $$;

-- A respondent's erasure (POST /v1/erasures) racing the Submit of a
-- partial that answers the address: the erasure's statement, its
-- snapshot taken before the Submit committed, waited for the partial row
-- the Submit deleted, then skipped it, and never saw the submission made
-- from it: the answers stayed. The erasure now takes the account's
-- erasure lock in its transaction before its statement, and a Submit
-- that completes a partial takes it shared (this function) before it
-- stores: an erasure waits for completions in flight and then sees their
-- submissions; a completion that comes after an erasure is a submission
-- sent after it. Additive: a new function, called only by this release.
CREATE OR REPLACE FUNCTION fs_erasure_gate(p_user text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('fs_erasure:' || p_user, 0));
    RETURN true;
END $$;
