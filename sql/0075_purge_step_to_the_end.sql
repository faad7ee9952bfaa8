-- A bulk delete (DELETE /v1/forms/{id}/submissions?before= of more than
-- 1,000 rows, docs/forms.md "Deleting in bulk") ran in batches until one
-- deleted fewer rows than it asked for. A batch picks its rows, then waits
-- for those another session is deleting at the same time (the owner's
-- DELETE of one submission, the retention task, another bulk delete) and
-- skips them once that session commits: it deleted fewer than it asked
-- for although more rows before the time were left, and the bulk delete
-- was finished (its event and audit entry with that count), those rows
-- kept. A batch is now the last only when no row before the time is left,
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
                                    WHERE form_id = j.form_id AND created_at < j.before);
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
