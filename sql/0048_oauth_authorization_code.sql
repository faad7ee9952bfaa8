-- 0048: OAuth 2.1 authorization code with PKCE, refresh tokens and grants
-- (docs/oauth.md, "Authorization code"). Additive only: new tables, a new
-- column of keys (NULL for every credential the 0.2.0 module makes), and
-- fs_quota_admit learning one more kind.

-- Public clients registered by RFC 7591 dynamic registration. They belong
-- to no account until a person authorizes them; one never authorized is
-- swept FormsvcOAuthClientUnusedLifetime after its registration.
CREATE TABLE oauth_apps (
    id text PRIMARY KEY,
    name text NOT NULL,
    redirect_uris jsonb NOT NULL,
    client_uri text,
    reg_addr text NOT NULL,            -- keyed hash of the registering address (/64 for IPv6)
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    authorized_at timestamptz          -- the first approval; NULL: never used
);
CREATE INDEX oauth_apps_unused ON oauth_apps (created_at) WHERE authorized_at IS NULL;

-- A person's approval of an app: what its tokens may do. Revoked by the
-- owner (DELETE /v1/me/grants/{id}), by a reused code or refresh token, by
-- a new approval of the same app, or with the pasting key when that key is
-- a delegate (created_by, as for clients: fs_creator_alive).
CREATE TABLE oauth_grants (
    id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    app_id text NOT NULL REFERENCES oauth_apps (id) ON DELETE CASCADE,
    scopes jsonb NOT NULL,
    created_by text,                   -- the pasted key, NULL: a mailed code
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_used_at timestamptz,
    revoked_at timestamptz
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, id);

-- Authorization codes, by keyed hash only; single use, 60 s.
CREATE TABLE oauth_codes (
    code_hash text PRIMARY KEY,
    grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    redirect_uri text NOT NULL,
    challenge text NOT NULL,           -- PKCE S256 code_challenge
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);

-- Refresh tokens, by keyed hash only. Each is used once: its use makes
-- the next; a second use of the same one revokes the grant.
CREATE TABLE oauth_refresh (
    token_hash text PRIMARY KEY,
    grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX oauth_refresh_grant ON oauth_refresh (grant_id);

-- The authorize page's sessions (the browser's cookie, by keyed hash):
-- which account proved itself there, by a mailed code or a pasted key.
CREATE TABLE oauth_logins (
    session_hash text PRIMARY KEY,
    user_id text REFERENCES users (id) ON DELETE CASCADE,
    code_hash text,                    -- the mailed code (NULL: none asked)
    code_user text REFERENCES users (id) ON DELETE CASCADE, -- the account the code was mailed for
    attempts integer NOT NULL DEFAULT 0,
    proven_by text,                    -- the pasted key's id, NULL: the mailed code
    proven_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at timestamptz NOT NULL
);

-- The access tokens of a grant are keys rows with grant_id set (never
-- owner keys: their scopes are always listed), listed and counted like
-- the access tokens of clients, i.e. not as keys.
ALTER TABLE keys ADD COLUMN grant_id text;
CREATE INDEX keys_grant ON keys (grant_id) WHERE grant_id IS NOT NULL;

CREATE OR REPLACE FUNCTION fs_quota_admit(p_user text, p_kind text, p_limit integer)
    RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    used bigint;
BEGIN
    PERFORM 1 FROM users WHERE id = p_user FOR NO KEY UPDATE;
    IF p_kind = 'keys' THEN
        -- active keys and delegated tokens; not the access tokens of
        -- clients or of grants
        SELECT count(*) INTO used FROM keys a
        WHERE a.user_id = p_user AND a.client_id IS NULL AND a.grant_id IS NULL
          AND fs_key_active(a);
    ELSIF p_kind = 'clients' THEN
        -- a client or webhook whose registering delegate has ended is dead
        -- and does not count (fs_creator_alive, sql/0019)
        SELECT count(*) INTO used FROM clients c
        WHERE c.user_id = p_user AND c.revoked_at IS NULL AND fs_creator_alive(c.created_by);
    ELSIF p_kind = 'webhooks' THEN
        SELECT count(*) INTO used FROM webhooks w
        WHERE w.user_id = p_user AND fs_creator_alive(w.created_by);
    ELSIF p_kind = 'grants' THEN
        SELECT count(*) INTO used FROM oauth_grants g
        WHERE g.user_id = p_user AND g.revoked_at IS NULL AND fs_creator_alive(g.created_by);
    ELSE
        RAISE EXCEPTION 'fs_quota_admit: unknown quota %', p_kind;
    END IF;
    RETURN used < p_limit;
END $$;

CREATE FUNCTION fs_grant_json(g oauth_grants, a oauth_apps) RETURNS jsonb
    LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', g.id, 'clientId', g.app_id, 'clientName', a.name,
        'redirectUris', a.redirect_uris, 'scopes', g.scopes,
        'createdAt', fs_ts(g.created_at), 'lastUsedAt', fs_ts(g.last_used_at),
        'revokedAt', fs_ts(COALESCE(g.revoked_at,
            CASE WHEN NOT fs_creator_alive(g.created_by) THEN fs_creator_end(g.created_by) END))) $$;

-- A delegate's revocation tree also holds the access tokens of the grants
-- it approved (a key pasted on the authorize page): they go with it.
CREATE OR REPLACE FUNCTION fs_key_tree(root text) RETURNS SETOF text
    LANGUAGE sql STABLE AS $$ WITH RECURSIVE t(id) AS (
       SELECT root
       UNION
       SELECT x.id FROM t JOIN keys p ON p.id = t.id
         CROSS JOIN LATERAL (
           SELECT k.id FROM keys k WHERE k.parent_key_id = t.id
           UNION ALL
           SELECT k.id FROM clients c JOIN keys k ON k.client_id = c.id
           WHERE c.created_by = t.id AND NOT fs_key_is_owner(p)
           UNION ALL
           SELECT k.id FROM oauth_grants g JOIN keys k ON k.grant_id = g.id
           WHERE g.created_by = t.id AND NOT fs_key_is_owner(p)) x)
   SELECT id FROM t $$;

-- GET /v1/me's usage adds the account's active grants.
CREATE OR REPLACE FUNCTION fs_account_usage(uid text) RETURNS json
    LANGUAGE plpgsql STABLE AS $_$
DECLARE
    forms_n bigint := 0; subs_n bigint := 0; keys_n bigint := 0;
    clients_n bigint := 0; hooks_n bigint := 0; fields_max bigint := 0; grants_n bigint := 0;
BEGIN
    SELECT count(*), COALESCE(max(jsonb_array_length(f.fields)), 0)
      INTO forms_n, fields_max FROM forms f WHERE f.user_id = uid;
    subs_n := fs_month_received(uid, date_trunc('month', now() AT TIME ZONE 'UTC')::date);
    SELECT count(*) INTO keys_n FROM keys k WHERE k.user_id = uid AND fs_key_active(k);
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
    SELECT count(*) INTO grants_n FROM oauth_grants g
     WHERE g.user_id = uid AND g.revoked_at IS NULL AND fs_creator_alive(g.created_by);
    RETURN json_build_object('forms', forms_n, 'fields', fields_max,
        'submissions', subs_n, 'keys', keys_n, 'clients', clients_n, 'webhooks', hooks_n,
        'grants', grants_n,
        'monthResetsAt', fs_ts((date_trunc('month', now() AT TIME ZONE 'UTC')
                                + interval '1 month') AT TIME ZONE 'UTC'));
END $_$;
