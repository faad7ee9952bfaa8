-- 0006: accounts: shared rate-limit counters, verification and recovery
-- codes, and the mail outbox.

-- Rate-limit counters for FormsvcRateLimitStore pgsql, shared by every
-- machine. UNLOGGED: fast, and losing them in a crash only resets limits.
-- key is hex SHA-256 of bucket and window (no raw client address).
CREATE UNLOGGED TABLE ratelimit (
    key         text PRIMARY KEY,
    count       integer NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX ratelimit_expires ON ratelimit (expires_at);

-- One live code per account and purpose; a new one replaces the old.
-- Codes and link tokens are stored only as HMAC-SHA-256 under the pepper.
CREATE TABLE account_codes (
    user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose     text NOT NULL CHECK (purpose IN ('verify', 'recover')),
    code_hash   text NOT NULL,
    token_hash  text,                      -- the e-mailed link (verify only)
    attempts    integer NOT NULL DEFAULT 0, -- wrong codes so far; 5 voids it
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    PRIMARY KEY (user_id, purpose)
);
CREATE UNIQUE INDEX account_codes_token ON account_codes (token_hash) WHERE token_hash IS NOT NULL;

-- Mail is written here in the request's statement and delivered by the
-- module's worker (SELECT ... FOR UPDATE SKIP LOCKED, leases, retries).
CREATE TABLE outbox (
    id              text PRIMARY KEY,
    recipient       text NOT NULL,
    message         text NOT NULL,          -- the whole RFC 5322 message, CRLF
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    sent_at         timestamptz,
    failed_at       timestamptz,            -- gave up after the last retry
    last_error      text
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;

-- What an account uses of each count quota, as JSON; tables of other
-- resources are counted when they exist (clients, webhooks).
CREATE FUNCTION fs_account_usage(uid text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
    forms_n bigint := 0; subs_n bigint := 0; keys_n bigint := 0;
    clients_n bigint := 0; hooks_n bigint := 0; fields_max bigint := 0;
BEGIN
    SELECT count(*), COALESCE(max(jsonb_array_length(f.fields)), 0)
      INTO forms_n, fields_max FROM forms f WHERE f.user_id = uid;
    -- the counter the monthly quota gate itself uses (sql/0014)
    SELECT COALESCE(sum(m.received), 0) INTO subs_n FROM submission_months m
     WHERE m.user_id = uid AND m.month = date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    SELECT count(*) INTO keys_n FROM keys k WHERE k.user_id = uid AND fs_key_active(k);
    -- Tables of other migrations, counted when they exist; a shape other
    -- than expected counts 0 rather than failing GET /v1/me.
    BEGIN
        IF to_regclass('clients') IS NOT NULL THEN
            EXECUTE 'SELECT count(*) FROM clients c WHERE c.user_id = $1 AND c.revoked_at IS NULL'
               INTO clients_n USING uid;
        END IF;
    EXCEPTION WHEN undefined_column OR undefined_table THEN clients_n := 0;
    END;
    BEGIN
        IF to_regclass('webhooks') IS NOT NULL THEN
            EXECUTE 'SELECT count(*) FROM webhooks w WHERE w.user_id = $1'
               INTO hooks_n USING uid;
        END IF;
    EXCEPTION WHEN undefined_column OR undefined_table THEN hooks_n := 0;
    END;
    RETURN json_build_object('forms', forms_n, 'fields', fields_max,
        'submissions', subs_n, 'keys', keys_n, 'clients', clients_n, 'webhooks', hooks_n,
        'monthResetsAt', fs_ts((date_trunc('month', now() AT TIME ZONE 'UTC')
                                + interval '1 month') AT TIME ZONE 'UTC'));
END $$;
