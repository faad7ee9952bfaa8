-- 0020: exact limits under concurrency (docs/security-notes/limits.md).
--
-- In READ COMMITTED a statement's snapshot is taken when it starts: a
-- count read in the statement that inserts (a subquery in the WHERE of an
-- INSERT ... SELECT, a STABLE function) misses rows that concurrent
-- requests commit meanwhile, so every one of them passes the same check.
-- Both functions here first lock one row that every competitor must lock
-- too, and only then count, in statements of their own: a VOLATILE
-- PL/pgSQL function takes a new snapshot for each statement, so the count
-- includes everything committed by the holder of the lock before it.
-- Called in the WHERE (or select list) of the creating statement, the lock
-- is held until that statement's transaction commits.

-- The count quotas of an account (FormsvcQuota ... keys|clients|webhooks):
-- true when one more may be created. Locks the account's users row FOR NO
-- KEY UPDATE, which every creation of a counted resource (and
-- fs_form_create, FOR UPDATE, for the forms quota) takes too, but which
-- does not conflict with the KEY SHARE locks that inserts referencing the
-- user take (public submissions do not wait for it). Counts what the
-- quota-exceeded problems report as used (fs_key_count_active,
-- fs_client_count_active, fs_webhook_count).
CREATE OR REPLACE FUNCTION fs_quota_admit(p_user text, p_kind text, p_limit integer)
RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    used bigint;
BEGIN
    PERFORM 1 FROM users WHERE id = p_user FOR NO KEY UPDATE;
    IF p_kind = 'keys' THEN
        -- active keys and delegated tokens; not the access tokens of clients
        SELECT count(*) INTO used FROM keys a
        WHERE a.user_id = p_user AND a.client_id IS NULL AND fs_key_active(a);
    ELSIF p_kind = 'clients' THEN
        -- a client or webhook whose registering delegate has ended is dead
        -- and does not count (fs_creator_alive, sql/0019)
        SELECT count(*) INTO used FROM clients c
        WHERE c.user_id = p_user AND c.revoked_at IS NULL AND fs_creator_alive(c.created_by);
    ELSIF p_kind = 'webhooks' THEN
        SELECT count(*) INTO used FROM webhooks w
        WHERE w.user_id = p_user AND fs_creator_alive(w.created_by);
    ELSE
        RAISE EXCEPTION 'fs_quota_admit: unknown quota %', p_kind;
    END IF;
    RETURN used < p_limit;
END $$;

-- The closed test of a public submission to a form with
-- settings.maxSubmissions (fs_public_submit_locked): locks the form row
-- FOR NO KEY UPDATE until commit, then evaluates the public status on the
-- row as it is now and with the count as it is now (form_counts, raised in
-- each submission's own statement), so the form takes exactly
-- maxSubmissions non-spam submissions. Forms without maxSubmissions never
-- come here and take no row lock. A repeat of a stored submission (its
-- Idempotency-Key has a record) is let through, to be answered as a
-- replay, also when that submission took the last place.
CREATE OR REPLACE FUNCTION fs_public_closed_locked(p_form text, p_ikey text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    f forms;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN true;
    END IF;
    IF p_ikey IS NOT NULL AND EXISTS (SELECT 1 FROM idempotency i WHERE i.scope = p_form
            AND i.key = p_ikey AND i.created_at > now() - interval '24 hours') THEN
        RETURN false;
    END IF;
    RETURN fs_public_status(f) <> 'published';
END $$;
