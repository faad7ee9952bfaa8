-- 0019: the delegation tree (docs/api.md, "Delegation rules").
--
-- An *owner key* (no parent, no client, full access: the signup key, a
-- recovered key, a full-access key made by an owner key, and their rolls)
-- acts for the account. Every other credential is a delegate: it manages
-- only itself and its descendants, and what it creates lives inside its
-- revocation tree. Here:
--   keys.rolled_to     a key is rolled at most once (set atomically by the roll)
--   webhooks.created_by the key that registered a webhook (clients have it
--                       since 0005)
--   audit.form_id      the form an audit record is about, so that a
--                      form-scoped credential reads only its forms' trail
-- and the functions that decide liveness and the revocation tree.

ALTER TABLE keys ADD COLUMN IF NOT EXISTS rolled_to text;
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS created_by text;
ALTER TABLE audit ADD COLUMN IF NOT EXISTS form_id text;
UPDATE audit SET form_id = target_id WHERE form_id IS NULL AND target_id LIKE 'frm\_%';
CREATE INDEX IF NOT EXISTS audit_user_form ON audit (user_id, form_id, id DESC)
    WHERE form_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS clients_created_by ON clients (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhooks_created_by ON webhooks (created_by) WHERE created_by IS NOT NULL;

-- An owner key acts for the account; what it creates belongs to the account.
CREATE OR REPLACE FUNCTION fs_key_is_owner(k keys) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT k.parent_key_id IS NULL AND k.client_id IS NULL AND k.scopes IS NULL $$;

-- Whether a client or webhook registered by key kid may still act: always
-- when an owner key (or nothing known) registered it; otherwise only while
-- that delegate is active (not revoked, not expired), so it dies with the
-- credential that created it (a roll moves created_by to the new key).
CREATE OR REPLACE FUNCTION fs_creator_alive(kid text) RETURNS boolean
LANGUAGE sql STABLE AS
$$ SELECT kid IS NULL OR NOT EXISTS (SELECT 1 FROM keys k WHERE k.id = kid)
       OR EXISTS (SELECT 1 FROM keys k WHERE k.id = kid
                  AND (fs_key_is_owner(k) OR fs_key_active(k))) $$;

-- When a thing created by key kid stopped (or stops) being alive because of
-- its creator: NULL for an owner's, else the creator's revocation or expiry.
CREATE OR REPLACE FUNCTION fs_creator_end(kid text) RETURNS timestamptz
LANGUAGE sql STABLE AS
$$ SELECT CASE WHEN fs_key_is_owner(k) THEN NULL
               ELSE LEAST(k.revoked_at, k.expires_at) END
   FROM keys k WHERE k.id = kid $$;

-- The revocation tree of a key: the key, every credential delegated from it
-- at any depth, and the access tokens of the clients that a delegate in the
-- tree registered (and what was delegated from those). An owner key's
-- clients belong to the account and are not part of its tree.
CREATE OR REPLACE FUNCTION fs_key_tree(root text) RETURNS SETOF text
LANGUAGE sql STABLE AS
$$ WITH RECURSIVE t(id) AS (
       SELECT root
       UNION
       SELECT x.id FROM t JOIN keys p ON p.id = t.id
         CROSS JOIN LATERAL (
           SELECT k.id FROM keys k WHERE k.parent_key_id = t.id
           UNION ALL
           SELECT k.id FROM clients c JOIN keys k ON k.client_id = c.id
           WHERE c.created_by = t.id AND NOT fs_key_is_owner(p)) x)
   SELECT id FROM t $$;

-- Clients: revokedAt also shows when the delegate that registered it ended.
CREATE OR REPLACE FUNCTION fs_client_json(c clients) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', c.id, 'name', c.name, 'scopes', c.scopes,
       'createdAt', fs_ts(c.created_at), 'lastUsedAt', fs_ts(c.last_used_at),
       'revokedAt', fs_ts(COALESCE(c.revoked_at,
           CASE WHEN NOT fs_creator_alive(c.created_by) THEN fs_creator_end(c.created_by) END))) $$;

-- Audit records name the form they concern (NULL: none).
CREATE OR REPLACE FUNCTION fs_audit(id text, user_id text, credential_id text, client_id text,
                                    actor text, action text, target_id text, form_id text)
RETURNS text
LANGUAGE sql VOLATILE AS
$$ INSERT INTO audit (id, user_id, credential_id, client_id, actor, action, target_id, form_id)
   VALUES (id, user_id, credential_id, client_id, actor, action, target_id, form_id)
   RETURNING id $$;

-- Deliveries are queued only for webhooks whose creator is still alive.
CREATE OR REPLACE FUNCTION fs_event_fanout() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO deliveries (id, webhook_id, event_id)
    SELECT fs_new_id('dlv_'), w.id, NEW.id FROM webhooks w
    WHERE w.user_id = NEW.user_id AND NEW.type = ANY (w.events)
      AND (w.form_id IS NULL OR w.form_id = NEW.form_id)
      AND fs_creator_alive(w.created_by);
    RETURN NULL;
END $$;
