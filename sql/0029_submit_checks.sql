-- 0029: the submission statement's checks without summing the tally.
--
-- fs_public_submit (mod_formsvc/store/public_store.c) checked on every
-- submission whether the form had closed (fs_public_autoclosed, which
-- always summed the form's not-yet-rolled-up tally rows, even for a form
-- without maxSubmissions) and whether the account was under its monthly
-- quota (fs_month_received, which sums the account's not-yet-rolled-up
-- tally rows). Under load the tally holds up to a second of submissions,
-- so each submission summed hundreds of rows twice: with these two checks
-- made lazy the statement does about twice the transactions a second at
-- 64 clients (docs/performance.md).

-- Counts only for a form that has maxSubmissions, parses closesAt only for
-- a form that has it.
CREATE OR REPLACE FUNCTION fs_public_autoclosed(f forms) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN f.settings ? 'closesAt'
               THEN COALESCE(fs_public_closes_at(f.settings) <= now(), false) ELSE false END
       OR CASE WHEN f.settings ? 'maxSubmissions'
               THEN COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false)
               ELSE false END $$;

-- Whether account uid may take one more submission in month m under quota.
-- Far from the quota (the rolled-up count alone is more than the margin
-- below it) the tally is not summed: the rows the rollup has not moved yet
-- are a second or two of this account's submissions, far fewer than the
-- margin, so the answer is the same. Within the margin of the quota the
-- tally is summed and the check is as exact as before. The quota can only
-- be passed when more than the margin of one account's submissions wait
-- for the rollup (it stopped for many seconds under full load); the
-- overshoot is then at most what waits beyond the margin.
CREATE OR REPLACE FUNCTION fs_month_under(uid text, m date, quota integer) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    rolled bigint;
BEGIN
    -- plpgsql, not sql: a sql function that is not inlined is parsed and
    -- planned again in every statement that calls it (0.11 ms here); a
    -- plpgsql function keeps its plans for the session (0.04 ms)
    SELECT COALESCE(sum(received), 0) INTO rolled FROM submission_months
     WHERE user_id = uid AND month = m;
    IF rolled + 10000 < quota THEN
        RETURN true;
    END IF;
    RETURN fs_month_received(uid, m) < quota;
END $$;

-- fs_ts was declared IMMUTABLE around a STABLE body (to_char), which keeps
-- PostgreSQL from inlining it: each call was a function call of its own
-- (two per submission). STABLE is what it is, and lets it inline.
ALTER FUNCTION fs_ts(timestamptz) STABLE;
