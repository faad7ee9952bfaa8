-- 0021 (issue 9, items 16 and 17): daily caps on account mail, and no raw
-- client address in the token endpoint's failure counter.

-- token_failures.addr is now fs_rl_address_key (include/fs_ratelimit.h):
-- HMAC-SHA-256 under the pepper of the client's /64 (IPv6) or address (IPv4).
-- Rows written before hold raw addresses: drop them (the counters only live
-- a minute; an UNLOGGED table loses them in a crash anyway).
DELETE FROM token_failures WHERE length(addr) <> 64 OR addr !~ '^[0-9a-f]+$';
COMMENT ON COLUMN token_failures.addr IS
    'fs_rl_address_key: keyed hash of the client /64 (IPv6) or address (IPv4), never the raw address';

-- Account mail (verification and recovery) per account and per address:
-- at most `cap` in any 24 hours and one per `gap` seconds, so nobody can
-- mail-bomb an address they signed up with (docs/accounts.md). One row per
-- key: 'user:<usr_id>', or 'addr:' and the hex SHA-256 of the normalised
-- address (the address itself is not repeated here). sent holds the times
-- of the mails of the last 24 hours, oldest first.
CREATE TABLE IF NOT EXISTS mail_quota (
    key   text PRIMARY KEY,
    sent  timestamptz[] NOT NULL DEFAULT '{}'
);

-- Takes one mail of purpose ('verify' or 'recover') for the account uid
-- with the normalised address email_norm: reason 'ok' (counted under both
-- keys), or 'day' (one of them had cap mails in the last 24 hours) or 'gap'
-- (the account's code of this purpose is younger than gap seconds), with
-- the seconds to wait. Exact under concurrency: both rows are locked (in
-- key order, so two callers cannot deadlock) before anything is read, and
-- every statement of a VOLATILE function reads a new snapshot, so a caller
-- that waited for the lock sees what the holder committed (its count and
-- the code its statement stored).
CREATE OR REPLACE FUNCTION fs_mail_take(uid text, email_norm text, purpose text, cap integer,
                                        gap integer, OUT reason text, OUT wait integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    keys text[] := ARRAY['user:' || uid,
                         'addr:' || encode(sha256(convert_to(email_norm, 'UTF8')), 'hex')];
    t timestamptz;
    q record;
    locked integer := 0;
    day_wait integer := 0;
    gap_wait integer := 0;
BEGIN
    -- (the sweep may delete an old row between the insert and the lock:
    -- then insert again)
    FOR attempt IN 1..3 LOOP
        INSERT INTO mail_quota (key) SELECT k FROM unnest(keys) k ORDER BY k
            ON CONFLICT (key) DO NOTHING;
        SELECT count(*) INTO locked FROM (SELECT 1 FROM mail_quota WHERE key = ANY (keys)
                                          ORDER BY key FOR UPDATE) l;
        EXIT WHEN locked = cardinality(keys);
    END LOOP;
    t := clock_timestamp();
    FOR q IN SELECT ARRAY(SELECT s FROM unnest(m.sent) s WHERE s > t - interval '24 hours'
                          ORDER BY s) AS recent
             FROM mail_quota m WHERE m.key = ANY (keys) LOOP
        IF cardinality(q.recent) >= cap THEN
            day_wait := GREATEST(day_wait, ceil(extract(epoch FROM
                q.recent[cardinality(q.recent) - cap + 1] + interval '24 hours' - t))::integer, 1);
        END IF;
    END LOOP;
    SELECT GREATEST(ceil(extract(epoch FROM c.created_at + make_interval(secs => gap) - t)), 0)
      INTO gap_wait FROM account_codes c WHERE c.user_id = uid AND c.purpose = fs_mail_take.purpose;
    gap_wait := COALESCE(gap_wait, 0);
    IF day_wait > 0 THEN
        reason := 'day'; wait := day_wait; RETURN;
    END IF;
    IF gap_wait > 0 THEN
        reason := 'gap'; wait := gap_wait; RETURN;
    END IF;
    UPDATE mail_quota m SET sent = ARRAY(SELECT s FROM unnest(m.sent) s
                                         WHERE s > t - interval '24 hours' ORDER BY s) || t
    WHERE m.key = ANY (keys);
    reason := 'ok'; wait := 0;
END $$;
