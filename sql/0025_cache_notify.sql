-- 0025: change notifications for the in-memory caches of each httpd child
-- (mod_formsvc/http/cache.h): public forms by id or slug, and verified
-- credentials by the hash of their secret.
--
-- Every change that can alter what a cache holds sends, on the channel
-- formsvc_cache, the key the cached entries depend on:
--   r:<form id>, r:<slug>   any change of a form row (publish, close,
--                           update, fields, settings, slug, delete), old
--                           and new slug alike
--   k:<secret_hash>         any change of a key row but a lastUsedAt
--                           refresh (revocation, roll, expiry, scopes,
--                           deletion; the cascades write each descendant's
--                           row, so each is notified), and, for each active
--                           key of an account, any change of the account
--                           (verification moves it to another tier)
-- Each listening child makes the entries of that key stale. PostgreSQL
-- sends notifications when the transaction commits, folds duplicates within
-- one transaction, and delivers them in commit order. The payload '*'
-- (NOTIFY formsvc_cache, '*') flushes every cache of every machine, for an
-- operator who changed something by hand.
--
-- Not notified: submissions (they never write the form row, sql/0024); a
-- form with maxSubmissions is therefore kept at most 0.5 s, and a form is
-- never kept past its closesAt. Nothing on the public page depends on the
-- owner's account, so account changes notify credentials only.

CREATE FUNCTION fs_cache_notify_form() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('formsvc_cache', 'r:' || OLD.id);
        IF OLD.slug IS NOT NULL THEN
            PERFORM pg_notify('formsvc_cache', 'r:' || OLD.slug);
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('formsvc_cache', 'r:' || NEW.id);
        IF NEW.slug IS NOT NULL THEN
            PERFORM pg_notify('formsvc_cache', 'r:' || NEW.slug);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER forms_cache_notify AFTER INSERT OR DELETE ON forms
    FOR EACH ROW EXECUTE FUNCTION fs_cache_notify_form();
CREATE TRIGGER forms_cache_notify_update AFTER UPDATE ON forms
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION fs_cache_notify_form();

CREATE FUNCTION fs_cache_notify_key() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('formsvc_cache', 'k:' || OLD.secret_hash);
    IF TG_OP = 'UPDATE' AND NEW.secret_hash <> OLD.secret_hash THEN
        PERFORM pg_notify('formsvc_cache', 'k:' || NEW.secret_hash);
    END IF;
    RETURN NULL;
END $$;

-- A lastUsedAt refresh (the only write the request path causes on keys)
-- changes nothing a cache holds; lastUsedAt set back or cleared by hand
-- does notify, so that the next use writes it again at once.
CREATE TRIGGER keys_cache_notify_update AFTER UPDATE ON keys
    FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM
                       (to_jsonb(NEW) - 'last_used_at')
                       OR (OLD.last_used_at IS NOT NULL AND NEW.last_used_at IS NULL)
                       OR NEW.last_used_at < OLD.last_used_at)
    EXECUTE FUNCTION fs_cache_notify_key();
CREATE TRIGGER keys_cache_notify_delete AFTER DELETE ON keys
    FOR EACH ROW EXECUTE FUNCTION fs_cache_notify_key();

CREATE FUNCTION fs_cache_notify_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('formsvc_cache', 'k:' || k.secret_hash)
       FROM keys k
      WHERE k.user_id = NEW.id AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > now());
    RETURN NULL;
END $$;

CREATE TRIGGER users_cache_notify AFTER UPDATE ON users
    FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION fs_cache_notify_user();
