-- 0044: list pages whose cost does not grow with the table.
--
-- An id (fs_id_new in C, fs_new_id here) starts with the millisecond it
-- was made, in ten Crockford base32 digits, so ids sort in time order.
-- A list filtered by since/until (GET /v1/forms/{id}/submissions, the CSV
-- export) is read newest first through submissions_form_id (form_id, id
-- DESC); with only created_at to go by, a page of a window months back
-- read every newer submission of the form first (60 ms at 20,000 rows,
-- growing with them: docs/performance.md, "Ten million submissions").
-- These functions turn the window into an id range the index can seek to.
--
-- The id is made before the row is written (by as long as a multipart
-- upload takes, since the files are stored under it) and possibly on
-- another machine than PostgreSQL's clock: so the range is wider than the
-- window, by a day before since and an hour after until, and created_at
-- is still compared exactly. A row whose id is a day older than its
-- created_at (an upload of more than a day) or an hour newer (a clock an
-- hour ahead) would be missed by a window that cuts between the two.
--
-- The bounds are plain values of the parameters (no "$n IS NULL OR ..."),
-- so that the plan a pooled session keeps for the statement (the generic
-- plan, after five executions) still seeks the index.

-- The ten time digits of an id made at t.
CREATE FUNCTION fs_id_time(t timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
            ((floor(extract(epoch FROM t) * 1000)::bigint >> (45 - 5 * i)) & 31)::integer + 1, 1),
            '' ORDER BY i)
          FROM generate_series(0, 9) i $$;

-- Lower bound (inclusive) for the ids of rows created at or after since
-- (NULL: none, every id of the prefix).
CREATE FUNCTION fs_id_since(prefix text, since timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN since IS NULL OR extract(epoch FROM since) < 86400 THEN prefix
                      ELSE prefix || fs_id_time(since - interval '1 day') END $$;

-- Upper bound (exclusive) for the ids of rows created before until (NULL:
-- none) and after a cursor's id (NULL: none): the smaller of the two; with
-- neither, a bound above every id of the prefix (26 'Z' digits and one
-- more: also above in a linguistic collation, where '_' or '~' would not
-- count).
CREATE FUNCTION fs_id_before(prefix text, until timestamptz, after text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT LEAST(COALESCE(after, prefix || repeat('Z', 27)),
                       CASE WHEN until IS NULL OR extract(epoch FROM until) > 253370764800 THEN prefix || repeat('Z', 27)
                            ELSE prefix || fs_id_time(until + interval '1 hour') END) $$;

-- The first page of a small form's submissions took 100 ms at ten million
-- rows with the plan made for its arguments (the first five executions in
-- a pooled session): the planner multiplied the selectivities of form_id
-- and user_id as if independent, expected 8 rows of 10,000, and read all
-- of them to sort. A form has one owner: with that dependency known it
-- walks submissions_form_id for 21 rows (0.3 ms). ANALYZE samples a fixed
-- number of rows (under a second at ten million) and takes no lock that
-- blocks reads or writes.
CREATE STATISTICS submissions_form_user (dependencies) ON form_id, user_id FROM submissions;
ANALYZE submissions;
