-- 0001: accounts and credentials (API keys, delegated and access tokens).
-- JSON for the API is built here, by fs_*_json functions, so every
-- representation of a resource is written once.

CREATE FUNCTION fs_ts(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

CREATE TABLE users (
    id          text PRIMARY KEY,
    email       text NOT NULL,
    email_norm  text NOT NULL UNIQUE,      -- lower(trimmed email)
    verified    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Every credential that authenticates as Bearer: root keys, delegated
-- tokens (parent_key_id set) and, later, OAuth access tokens (client_id set).
CREATE TABLE keys (
    id             text PRIMARY KEY,
    user_id        text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name           text NOT NULL,
    key_prefix     text NOT NULL,
    secret_hash    text NOT NULL UNIQUE,    -- hex HMAC-SHA-256 under the pepper
    scopes         jsonb,                   -- NULL: full access
    expires_at     timestamptz,
    parent_key_id  text REFERENCES keys(id) ON DELETE CASCADE,
    client_id      text,
    actor          text,
    depth          integer NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_used_at   timestamptz,
    revoked_at     timestamptz
);
CREATE INDEX keys_user_id ON keys (user_id, id DESC);
CREATE INDEX keys_parent ON keys (parent_key_id) WHERE parent_key_id IS NOT NULL;

CREATE FUNCTION fs_user_json(u users) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', u.id, 'email', u.email, 'verified', u.verified,
                            'createdAt', fs_ts(u.created_at)) $$;

CREATE FUNCTION fs_key_json(k keys) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', k.id, 'name', k.name, 'keyPrefix', k.key_prefix,
       'scopes', k.scopes, 'expiresAt', fs_ts(k.expires_at),
       'parentKeyId', k.parent_key_id, 'actor', k.actor,
       'createdAt', fs_ts(k.created_at), 'lastUsedAt', fs_ts(k.last_used_at),
       'revokedAt', fs_ts(k.revoked_at)) $$;

CREATE FUNCTION fs_key_active(k keys) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) $$;

-- The key itself and every credential delegated from it, at any depth.
CREATE FUNCTION fs_key_descendants(root text) RETURNS SETOF text
LANGUAGE sql STABLE AS
$$ WITH RECURSIVE t AS (SELECT root AS id
       UNION SELECT k.id FROM keys k JOIN t ON k.parent_key_id = t.id)
   SELECT id FROM t $$;
