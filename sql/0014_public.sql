-- 0014: the public side of forms: automatic closing and the one statement that stores a public
-- submission (see mod_formsvc/store/stmts_public.c).

-- Settings are validated by the owner API; these readers still never fail
-- on a bad value (a wrong type reads as "not set").
CREATE FUNCTION fs_public_closes_at(s jsonb) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF jsonb_typeof(s->'closesAt') = 'string' THEN
        RETURN (s->>'closesAt')::timestamptz;
    END IF;
    RETURN NULL;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;

CREATE FUNCTION fs_public_max_submissions(s jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN jsonb_typeof(s->'maxSubmissions') = 'number'
               THEN (s->>'maxSubmissions')::numeric END $$;

-- A published form closes by itself at settings.closesAt or once it holds
-- settings.maxSubmissions (non-spam) submissions.
CREATE FUNCTION fs_public_autoclosed(f forms) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT COALESCE(fs_public_closes_at(f.settings) <= now(), false)
       OR COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false) $$;

-- The status a respondent sees: published, or closed (by the owner or by
-- itself). Drafts are never public.
CREATE FUNCTION fs_public_status(f forms) RETURNS text
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN f.status = 'published' AND fs_public_autoclosed(f) THEN 'closed'
               ELSE f.status END $$;


-- Non-spam public submissions received per account per calendar month
-- (UTC), the counter behind the monthly submission quota: one row per
-- account and month, raised in the statement that stores a submission, so
-- that the check costs the same with the hundred-thousandth submission as
-- with the first. Deleting a submission does not give its place back.
-- Sharded like form_counts, so one account's concurrent submissions do
-- not queue on one row.
CREATE TABLE submission_months (
    user_id  text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    month    date NOT NULL,
    shard    smallint NOT NULL DEFAULT 0,
    received integer NOT NULL,
    PRIMARY KEY (user_id, month, shard)
);
