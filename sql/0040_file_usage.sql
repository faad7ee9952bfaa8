-- 0040: the bytes of uploaded files each account stores, kept as counters
-- by a trigger on submission_files, so that checking the storage quota
-- (in every upload's transaction, store/files_store.c) reads a few rows
-- rather than summing every file the account ever received: with
-- thousands of fresh files that sum was a large part of an upload's cost
-- (docs/performance.md, "Uploads spooled").
--
-- An account has up to 64 rows, one per shard: a session adds its files to
-- the shard of its backend pid, so that concurrent uploads of one account
-- do not all wait for one row lock until their commits. The account's
-- figure is the sum of its rows, which counts the files of the reading
-- transaction and those committed, exactly as the sum over the files did.
-- A file deleted (with its submission, form or account) is taken off at
-- once, from the account's first row.

LOCK TABLE submission_files IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE file_usage (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    shard   smallint NOT NULL,
    bytes   bigint NOT NULL,
    PRIMARY KEY (user_id, shard)
);

INSERT INTO file_usage (user_id, shard, bytes)
SELECT user_id, 0, sum(size) FROM submission_files GROUP BY user_id;

CREATE FUNCTION fs_file_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.size <> 0 THEN
        -- any row of the account will do: only their sum means something
        -- (no row left: the account itself is being deleted)
        UPDATE file_usage SET bytes = bytes - OLD.size
        WHERE (user_id, shard) = (SELECT u.user_id, u.shard FROM file_usage u
                                  WHERE u.user_id = OLD.user_id ORDER BY u.shard LIMIT 1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.size <> 0 THEN
        INSERT INTO file_usage (user_id, shard, bytes)
        VALUES (NEW.user_id, pg_backend_pid() % 64, NEW.size)
        ON CONFLICT (user_id, shard) DO UPDATE SET bytes = file_usage.bytes + EXCLUDED.bytes;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER submission_files_usage
    AFTER INSERT OR DELETE OR UPDATE OF size, user_id ON submission_files
    FOR EACH ROW EXECUTE FUNCTION fs_file_usage_count();
