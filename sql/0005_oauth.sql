-- 0005: OAuth clients, the audit trail, and the token endpoint's
-- brute-force counter.
--
-- Access tokens (client_credentials) and delegated tokens (token exchange)
-- are rows of `keys` (0001), so bearer authentication is the same for all
-- of them. An access token has keys.client_id set; deleting its client
-- revokes it (and whatever was delegated from it) in the same statement,
-- so authentication never has to look at the clients table.

CREATE TABLE clients (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name          text,
    secret_prefix text NOT NULL,
    secret_hash   text NOT NULL UNIQUE,    -- hex HMAC-SHA-256 under the pepper
    scopes        jsonb,                   -- NULL: full access
    created_by    text,                    -- key id that registered it
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);
CREATE INDEX clients_user_id ON clients (user_id, id DESC);
CREATE INDEX keys_client ON keys (client_id) WHERE client_id IS NOT NULL;

CREATE FUNCTION fs_client_json(c clients) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', c.id, 'name', c.name, 'scopes', c.scopes,
       'createdAt', fs_ts(c.created_at), 'lastUsedAt', fs_ts(c.last_used_at),
       'revokedAt', fs_ts(c.revoked_at)) $$;

-- Key metadata gains clientId: set on access tokens minted for a client.
CREATE OR REPLACE FUNCTION fs_key_json(k keys) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', k.id, 'name', k.name, 'keyPrefix', k.key_prefix,
       'scopes', k.scopes, 'expiresAt', fs_ts(k.expires_at),
       'parentKeyId', k.parent_key_id, 'actor', k.actor, 'clientId', k.client_id,
       'createdAt', fs_ts(k.created_at), 'lastUsedAt', fs_ts(k.last_used_at),
       'revokedAt', fs_ts(k.revoked_at)) $$;

-- The audit trail: which credential (and which actor label) did what to
-- which resource. credential_id is the key (or access token) that acted;
-- client_id is set when that credential is a client's access token, or
-- when the client itself acted (client_credentials).
CREATE TABLE audit (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    credential_id text,
    client_id     text,
    actor         text,
    action        text NOT NULL,           -- e.g. key.created, form.published
    target_id     text,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX audit_user_id ON audit (user_id, id DESC);
CREATE INDEX audit_user_actor ON audit (user_id, actor, id DESC) WHERE actor IS NOT NULL;
CREATE INDEX audit_user_credential ON audit (user_id, credential_id, id DESC);

CREATE FUNCTION fs_audit_json(a audit) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', a.id, 'action', a.action, 'targetId', a.target_id,
       'credentialId', a.credential_id, 'clientId', a.client_id, 'actor', a.actor,
       'createdAt', fs_ts(a.created_at)) $$;

-- One audit record; callable from any statement (for example inside a CTE
-- of the write it records, so both commit together). Returns the id.
CREATE FUNCTION fs_audit(id text, user_id text, credential_id text, client_id text,
                         actor text, action text, target_id text) RETURNS text
LANGUAGE sql VOLATILE AS
$$ INSERT INTO audit (id, user_id, credential_id, client_id, actor, action, target_id)
   VALUES (id, user_id, credential_id, client_id, actor, action, target_id)
   RETURNING id $$;

-- Failed client authentications at the token endpoint, per client address
-- and fixed window. UNLOGGED: a crash forgets the counts, which is fine for
-- a brute-force brake and keeps the writes cheap.
CREATE UNLOGGED TABLE token_failures (
    addr       text PRIMARY KEY,
    win        bigint NOT NULL,            -- window number (epoch / length)
    n          integer NOT NULL
);
