--
-- PostgreSQL database dump
--

--
-- Name: fs_account_purge(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_account_purge(batch integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    u users;
    n integer;
BEGIN
    SELECT * INTO u FROM users WHERE deleted_at IS NOT NULL ORDER BY deleted_at LIMIT 1;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    -- Idempotency records are scoped by key id (API) or form id (public):
    -- first, while both are still there.
    DELETE FROM idempotency i WHERE (i.scope, i.key) IN (
        SELECT x.scope, x.key FROM idempotency x
         WHERE x.scope IN (SELECT k.id FROM keys k WHERE k.user_id = u.id
                           UNION ALL SELECT f.id FROM forms f WHERE f.user_id = u.id)
         LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM deliveries d WHERE d.id IN (
        SELECT x.id FROM webhooks w JOIN deliveries x ON x.webhook_id = w.id
         WHERE w.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM mail_jobs m WHERE m.id IN (
        SELECT x.id FROM forms f JOIN mail_jobs x ON x.form_id = f.id
         WHERE f.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- files go with their submissions (a chunk is at most a few hundred
    -- kilobytes: a tenth of the batch of files at a time)
    DELETE FROM submission_files sf WHERE sf.id IN (
        SELECT x.id FROM submission_files x WHERE x.user_id = u.id
         LIMIT greatest(batch / 10, 1));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM submissions s WHERE s.id IN (
        SELECT x.id FROM forms f JOIN submissions x ON x.form_id = f.id
         WHERE f.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM events e WHERE e.id IN (
        SELECT x.id FROM events x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    DELETE FROM audit a WHERE a.id IN (
        SELECT x.id FROM audit x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- links, notification recipients and per-form counters go with their form
    DELETE FROM forms f WHERE f.id IN (
        SELECT x.id FROM forms x WHERE x.user_id = u.id LIMIT greatest(batch / 10, 1));
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- keys delete their delegates (parent_key_id cascades)
    DELETE FROM keys k WHERE k.id IN (
        SELECT x.id FROM keys x WHERE x.user_id = u.id LIMIT batch);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN RETURN n; END IF;
    -- Mail to the account's own address (verification, recovery), and the
    -- account-mail counters keyed by its id or by the hash of its address
    -- (0021), unless another account now has that address.
    DELETE FROM outbox o WHERE lower(o.recipient) = lower(u.email);
    IF NOT EXISTS (SELECT 1 FROM users x WHERE x.email_norm = lower(u.email)) THEN
        DELETE FROM mail_quota q
         WHERE q.key = 'addr:' || encode(sha256(convert_to(lower(u.email), 'UTF8')), 'hex');
    END IF;
    DELETE FROM mail_quota q WHERE q.key = 'user:' || u.id;
    DELETE FROM mail_daily d WHERE d.key = 'notify:' || u.id;
    -- what is left (clients, webhooks, account codes, counters) cascades
    DELETE FROM users x WHERE x.id = u.id;
    RETURN 1;
END $$;

--
-- Name: fs_account_usage(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_account_usage(uid text) RETURNS json
    LANGUAGE plpgsql STABLE
    AS $_$
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

--
-- Name: fs_ask_create(text, text, text, text, jsonb, text, text, text, timestamp with time zone, text, text, jsonb, text, integer, integer, text, text, text, text, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ask_create(p_id text, p_user text, p_form text, p_title text, p_fields jsonb, p_link text, p_hash text, p_sealed text, p_expires timestamp with time zone, p_message text, p_to text, p_metadata jsonb, p_created_by text, p_forms integer, p_asks integer, p_rcpt text, p_mailbox text, p_msg text, p_mail text, p_cap integer, p_per_address integer) RETURNS TABLE(outcome text, body text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    used bigint;
    a asks;
    addr_key text;
BEGIN
    PERFORM 1 FROM users WHERE id = p_user FOR UPDATE;
    SELECT count(*) INTO used FROM forms WHERE user_id = p_user;
    IF used >= p_forms THEN
        RETURN QUERY SELECT 'quota-forms'::text, used::text;
        RETURN;
    END IF;
    SELECT count(*) INTO used FROM asks k
     WHERE k.user_id = p_user AND fs_ask_status(k) = 'pending';
    IF used >= p_asks THEN
        RETURN QUERY SELECT 'quota-asks'::text, used::text;
        RETURN;
    END IF;
    IF p_to IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM asks k JOIN notify_recipients n ON n.form_id = k.form_id
                    WHERE k.user_id = p_user AND n.email_norm = p_mailbox
                      AND n.status = 'unsubscribed') THEN
            RETURN QUERY SELECT 'refused'::text, NULL::text;
            RETURN;
        END IF;
        addr_key := 'resp:' || encode(sha256(convert_to(p_mailbox, 'UTF8')), 'hex');
        IF NOT fs_mail_day_take(addr_key, p_per_address) THEN
            RETURN QUERY SELECT 'quota-address'::text, p_per_address::text;
            RETURN;
        END IF;
        IF NOT fs_mail_day_take('notify:' || p_user, p_cap) THEN
            PERFORM fs_mail_day_give(addr_key);
            RETURN QUERY SELECT 'quota-notifications'::text, p_cap::text;
            RETURN;
        END IF;
    END IF;
    INSERT INTO forms (id, user_id, title, description, fields, status, published_at)
    VALUES (p_form, p_user, p_title, p_message, p_fields, 'published', clock_timestamp());
    INSERT INTO links (id, form_id, user_id, token_hash, token_sealed, metadata, expires_at,
                       max_uses, created_by)
    VALUES (p_link, p_form, p_user, p_hash, p_sealed,
            COALESCE(p_metadata, '{}'::jsonb) || jsonb_build_object('askId', p_id),
            p_expires, 1, p_created_by);
    INSERT INTO asks (id, user_id, form_id, link_id, message, recipient, metadata, expires_at,
                      created_by)
    VALUES (p_id, p_user, p_form, p_link, p_message, p_to, p_metadata, p_expires, p_created_by)
    RETURNING * INTO a;
    IF p_to IS NOT NULL THEN
        INSERT INTO notify_recipients (id, form_id, email, email_norm, status, listed, confirmed_at)
        VALUES (p_rcpt, p_form, p_to, p_mailbox, 'confirmed', false, now());
        INSERT INTO outbox (id, recipient, message, user_id, form_id)
        VALUES (p_msg, p_to, p_mail, p_user, p_form);
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_ask_json(a)::text;
END $$;

--
-- Name: fs_ask_decline(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ask_decline(p_form text, p_hash text) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    l links;
    a asks;
BEGIN
    SELECT * INTO l FROM links WHERE form_id = p_form AND token_hash = p_hash FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO a FROM asks WHERE link_id = l.id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF fs_ask_status(a) <> 'pending' OR fs_link_state(l) <> 'active' THEN
        RETURN CASE WHEN fs_ask_status(a) = 'pending' THEN 'expired' ELSE fs_ask_status(a) END;
    END IF;
    UPDATE asks SET declined_at = clock_timestamp() WHERE id = a.id RETURNING * INTO a;
    -- withdrawn, not merely expired: expires_at is compared with now(), the
    -- start of a transaction, and a submission's transaction may have
    -- started before this one and wait for the link's row lock
    UPDATE links SET deleted_at = a.declined_at WHERE id = l.id;
    INSERT INTO events (id, user_id, type, form_id, payload)
    VALUES (fs_new_id('evt_'), a.user_id, 'ask.declined', a.form_id,
            jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                               'metadata', a.metadata, 'declinedAt', fs_ts(a.declined_at)));
    RETURN 'declined';
END $$;

--
-- Name: fs_ask_form_link_required(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ask_form_link_required() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE forms SET settings = settings || '{"linkRequired": true}'::jsonb
     WHERE id = NEW.form_id AND NOT (settings @> '{"linkRequired": true}'::jsonb);
    RETURN NULL;
END $$;

--
-- Name: asks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.asks (
    id text NOT NULL,
    user_id text NOT NULL,
    form_id text NOT NULL,
    link_id text NOT NULL,
    message text NOT NULL,
    recipient text,
    metadata jsonb,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    created_by text,
    answered_at timestamp with time zone,
    submission_id text,
    declined_at timestamp with time zone,
    expired_at timestamp with time zone
);

--
-- Name: fs_ask_json(public.asks); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ask_json(a public.asks) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT (jsonb_build_object('id', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                              'status', fs_ask_status(a), 'message', a.message,
                              'to', a.recipient, 'metadata', a.metadata,
                              'expiresAt', fs_ts(a.expires_at), 'createdAt', fs_ts(a.created_at))
           || CASE WHEN a.answered_at IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('answeredAt', fs_ts(a.answered_at),
                          'submissionId', a.submission_id,
                          'answer', (SELECT s.data FROM submissions s
                                     WHERE s.id = a.submission_id)) END
           || CASE WHEN a.declined_at IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('declinedAt', fs_ts(a.declined_at)) END)::json $$;

--
-- Name: fs_ask_status(public.asks); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ask_status(a public.asks) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN a.answered_at IS NOT NULL THEN 'answered'
               WHEN a.declined_at IS NOT NULL THEN 'declined'
               WHEN a.expires_at <= now() THEN 'expired'
               ELSE 'pending' END $$;

--
-- Name: fs_asks_answer(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_asks_answer() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- a statement-level trigger runs for an insert of no rows too: the
    -- insert below would call it again, without end
    IF NOT EXISTS (SELECT 1 FROM new_events n WHERE n.type = 'submission.created') THEN
        RETURN NULL;
    END IF;
    WITH a AS (
        UPDATE asks k SET answered_at = n.created_at, submission_id = n.submission_id
          FROM new_events n
         WHERE n.type = 'submission.created' AND n.submission_id IS NOT NULL
           AND n.payload ? 'linkId' AND k.link_id = n.payload->>'linkId'
           AND k.answered_at IS NULL AND k.declined_at IS NULL
        RETURNING k.*, n.payload->'data' AS data)
    INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
    SELECT fs_new_id('evt_'), a.user_id, 'ask.answered', a.form_id, a.submission_id,
           jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                              'metadata', a.metadata, 'submissionId', a.submission_id,
                              'answer', a.data, 'answeredAt', fs_ts(a.answered_at))
      FROM a;
    RETURN NULL;
END $$;

--
-- Name: fs_asks_expire_emit(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_asks_expire_emit(lim integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM asks k
         WHERE k.expires_at <= now() AND k.expires_at > now() - interval '7 days'
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL)
    THEN
        RETURN 0;
    END IF;
    WITH due AS (
        SELECT k.id, k.link_id FROM asks k
         WHERE k.expires_at <= now() AND k.expires_at > now() - interval '7 days'
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL
         ORDER BY k.expires_at LIMIT lim
           FOR NO KEY UPDATE SKIP LOCKED),
    free AS (
        SELECT due.id, l.id AS link_id FROM due JOIN links l ON l.id = due.link_id
           FOR NO KEY UPDATE OF l SKIP LOCKED),
    a AS (
        UPDATE asks k SET expired_at = clock_timestamp()
          FROM free
         WHERE k.id = free.id
           AND k.answered_at IS NULL AND k.declined_at IS NULL AND k.expired_at IS NULL
        RETURNING k.*),
    -- (a data-modifying WITH runs whether or not it is read)
    l AS (
        UPDATE links SET deleted_at = a.expired_at FROM a
         WHERE links.id = a.link_id AND links.deleted_at IS NULL),
    ev AS (
        INSERT INTO events (id, user_id, type, form_id, payload)
        SELECT fs_new_id('evt_'), a.user_id, 'ask.expired', a.form_id,
               jsonb_build_object('askId', a.id, 'formId', a.form_id, 'linkId', a.link_id,
                                  'metadata', a.metadata, 'expiresAt', fs_ts(a.expires_at),
                                  'expiredAt', fs_ts(a.expired_at))
          FROM a
        RETURNING 1)
    SELECT count(*)::integer INTO n FROM ev;
    RETURN n;
END $$;

--
-- Name: fs_audit(text, text, text, text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_audit(id text, user_id text, credential_id text, client_id text, actor text, action text, target_id text) RETURNS text
    LANGUAGE sql
    AS $$ INSERT INTO audit (id, user_id, credential_id, client_id, actor, action, target_id)
   VALUES (id, user_id, credential_id, client_id, actor, action, target_id)
   RETURNING id $$;

--
-- Name: fs_audit(text, text, text, text, text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_audit(id text, user_id text, credential_id text, client_id text, actor text, action text, target_id text, form_id text) RETURNS text
    LANGUAGE sql
    AS $$ INSERT INTO audit (id, user_id, credential_id, client_id, actor, action, target_id, form_id)
   VALUES (id, user_id, credential_id, client_id, actor, action, target_id, form_id)
   RETURNING id $$;

--
-- Name: fs_audit_count(text, text, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_audit_count(p_user text, p_action text, p_form text, p_count bigint) RETURNS text
    LANGUAGE sql
    AS $$ INSERT INTO audit (id, user_id, actor, action, target_id, form_id, count)
   VALUES (fs_new_id('aud_'), p_user, 'formsvc', p_action, p_form, p_form, p_count)
   RETURNING id $$;

--
-- Name: audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit (
    id text NOT NULL,
    user_id text NOT NULL,
    credential_id text,
    client_id text,
    actor text,
    action text NOT NULL,
    target_id text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    form_id text,
    count bigint
);

--
-- Name: fs_audit_json(public.audit); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_audit_json(a public.audit) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN a.count IS NULL THEN json_build_object(
       'id', a.id, 'action', a.action, 'targetId', a.target_id,
       'credentialId', a.credential_id, 'clientId', a.client_id, 'actor', a.actor,
       'createdAt', fs_ts(a.created_at))
     ELSE json_build_object(
       'id', a.id, 'action', a.action, 'targetId', a.target_id,
       'credentialId', a.credential_id, 'clientId', a.client_id, 'actor', a.actor,
       'createdAt', fs_ts(a.created_at), 'count', a.count) END $$;

--
-- Name: fs_cache_notify_form(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_cache_notify_form() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: fs_cache_notify_key(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_cache_notify_key() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('formsvc_cache', 'k:' || OLD.secret_hash);
    IF TG_OP = 'UPDATE' AND NEW.secret_hash <> OLD.secret_hash THEN
        PERFORM pg_notify('formsvc_cache', 'k:' || NEW.secret_hash);
    END IF;
    RETURN NULL;
END $$;

--
-- Name: fs_cache_notify_user(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_cache_notify_user() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('formsvc_cache', 'k:' || k.secret_hash)
       FROM keys k
      WHERE k.user_id = NEW.id AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > now());
    RETURN NULL;
END $$;

--
-- Name: clients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.clients (
    id text NOT NULL,
    user_id text NOT NULL,
    name text,
    secret_prefix text NOT NULL,
    secret_hash text NOT NULL,
    scopes jsonb,
    created_by text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

--
-- Name: fs_client_json(public.clients); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_client_json(c public.clients) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object(
       'id', c.id, 'name', c.name, 'scopes', c.scopes,
       'createdAt', fs_ts(c.created_at), 'lastUsedAt', fs_ts(c.last_used_at),
       'revokedAt', fs_ts(COALESCE(c.revoked_at,
           CASE WHEN NOT fs_creator_alive(c.created_by) THEN fs_creator_end(c.created_by) END))) $$;

--
-- Name: fs_creator_alive(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_creator_alive(kid text) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT kid IS NULL OR NOT EXISTS (SELECT 1 FROM keys k WHERE k.id = kid)
       OR EXISTS (SELECT 1 FROM keys k WHERE k.id = kid
                  AND (fs_key_is_owner(k) OR fs_key_active(k))) $$;

--
-- Name: fs_creator_end(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_creator_end(kid text) RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN fs_key_is_owner(k) THEN NULL
               ELSE LEAST(k.revoked_at, k.expires_at) END
   FROM keys k WHERE k.id = kid $$;

--
-- Name: deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deliveries (
    id text NOT NULL,
    webhook_id text NOT NULL,
    event_id text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    attempts_log jsonb DEFAULT '[]'::jsonb NOT NULL,
    next_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    done_at timestamp with time zone,
    leased_until timestamp with time zone,
    CONSTRAINT deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text])))
);

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id text NOT NULL,
    user_id text NOT NULL,
    type text NOT NULL,
    form_id text,
    submission_id text,
    payload jsonb NOT NULL,
    xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
)
PARTITION BY RANGE (id);

--
-- Name: fs_delivery_json(public.deliveries, public.events); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_delivery_json(d public.deliveries, e public.events) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object('id', d.id, 'webhookId', d.webhook_id, 'eventId', d.event_id,
       'eventType', e.type, 'status', d.status, 'attempts', d.attempts,
       'nextAttemptAt', CASE WHEN d.status = 'pending' THEN fs_ts(d.next_at) END,
       'attemptLog', d.attempts_log, 'createdAt', fs_ts(d.created_at),
       'completedAt', fs_ts(d.done_at)) $$;

--
-- Name: fs_erasure_gate(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_erasure_gate(p_user text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('fs_erasure:' || p_user, 0));
    RETURN true;
END $$;

--
-- Name: fs_event_json(public.events); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_event_json(e public.events) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object('id', e.id, 'type', e.type, 'formId', e.form_id,
                            'createdAt', fs_ts(e.created_at), 'data', e.payload) $$;

--
-- Name: fs_events_fanout(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_events_fanout() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO deliveries (id, webhook_id, event_id)
    SELECT fs_new_id('dlv_'), w.id, e.id
      FROM new_events e JOIN webhooks w ON w.user_id = e.user_id
     WHERE e.type = ANY (w.events)
       AND (w.form_id IS NULL OR w.form_id = e.form_id)
       AND w.enabled
       AND fs_creator_alive(w.created_by);
    RETURN NULL;
END $$;

--
-- Name: fs_events_mail(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_events_mail() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO mail_jobs (kind, form_id, submission_id)
    SELECT j.kind, j.form_id, j.submission_id
      FROM new_events e JOIN forms f ON f.id = e.form_id,
           LATERAL (
             SELECT CASE WHEN f.settings -> 'notify' ->> 'mode' = 'hourly' THEN 'digest'
                         ELSE 'each' END AS kind, e.form_id, e.submission_id
              WHERE f.settings -> 'notify' IS NOT NULL
                AND f.settings -> 'notify' <> 'null'::jsonb
                AND EXISTS (SELECT 1 FROM notify_recipients n WHERE n.form_id = e.form_id
                            AND n.listed AND n.status = 'confirmed')
             UNION ALL
             SELECT 'confirmation', e.form_id, e.submission_id
              WHERE f.settings -> 'confirmation' IS NOT NULL
                AND f.settings -> 'confirmation' <> 'null'::jsonb) j
     WHERE e.type = 'submission.created' AND e.submission_id IS NOT NULL
     ORDER BY e.id, j.kind = 'confirmation';
    RETURN NULL;
END $$;

--
-- Name: fs_file_usage_count(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_file_usage_count() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: forms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.forms (
    id text NOT NULL,
    user_id text NOT NULL,
    slug text,
    title text NOT NULL,
    description text,
    status text DEFAULT 'draft'::text NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    fields jsonb DEFAULT '[]'::jsonb NOT NULL,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    published_at timestamp with time zone,
    deleted_at timestamp with time zone,
    CONSTRAINT forms_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text, 'closed'::text])))
);

--
-- Name: fs_form_closed_json(public.forms, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_closed_json(f public.forms, p_reason text, p_count bigint) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$ SELECT jsonb_build_object('id', f.id, 'title', f.title, 'status', 'closed',
       'reason', p_reason, 'closesAt', f.settings -> 'closesAt',
       'maxSubmissions', f.settings -> 'maxSubmissions', 'submissionCount', p_count,
       'closedAt', fs_ts(CASE WHEN p_reason = 'closesAt' THEN fs_public_closes_at(f.settings)
                              ELSE clock_timestamp() END)) $$;

--
-- Name: fs_form_closings_emit(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_closings_emit(lim integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM forms f
         WHERE f.status = 'published' AND f.deleted_at IS NULL
           AND fs_public_closes_at(f.settings) <= now()
           AND fs_public_closes_at(f.settings) > now() - interval '7 days'
           AND NOT EXISTS (SELECT 1 FROM form_closings c
                            WHERE c.form_id = f.id AND c.closes_at = fs_public_closes_at(f.settings)))
    THEN
        RETURN 0;
    END IF;
    WITH due AS (
           SELECT f.id, f.user_id, fs_public_closes_at(f.settings) AS at,
                  COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false) AS is_full
             FROM forms f
            WHERE f.status = 'published' AND f.deleted_at IS NULL
              AND fs_public_closes_at(f.settings) <= now()
              AND fs_public_closes_at(f.settings) > now() - interval '7 days'
              AND NOT EXISTS (SELECT 1 FROM form_closings c
                               WHERE c.form_id = f.id AND c.closes_at = fs_public_closes_at(f.settings))
            ORDER BY 3 LIMIT lim),
       ins AS (INSERT INTO form_closings (form_id, closes_at, event_id)
               SELECT id, at, CASE WHEN NOT is_full THEN fs_new_id('evt_') END FROM due
               ON CONFLICT DO NOTHING RETURNING form_id, event_id),
       ev AS (INSERT INTO events (id, user_id, type, form_id, payload)
              SELECT ins.event_id, f.user_id, 'form.closed', f.id,
                     fs_form_closed_json(f, 'closesAt', fs_form_count(f.id))
                FROM ins JOIN forms f ON f.id = ins.form_id
               WHERE ins.event_id IS NOT NULL RETURNING 1)
    SELECT count(*)::integer INTO n FROM ev;
    RETURN n;
END $$;

--
-- Name: fs_form_closings_next(double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_closings_next(ahead double precision) RETURNS double precision
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
    RETURN (SELECT extract(epoch FROM min(fs_public_closes_at(f.settings)) - now())::double precision
              FROM forms f
             WHERE f.status = 'published' AND f.deleted_at IS NULL
               AND fs_public_closes_at(f.settings) > now()
               AND fs_public_closes_at(f.settings) <= now() + make_interval(secs => ahead));
END $$;

--
-- Name: fs_form_count(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_count(fid text) RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT COALESCE((SELECT sum(n) FROM form_counts WHERE form_id = fid), 0)
        + COALESCE((SELECT sum(n) FROM submission_tally WHERE form_id = fid), 0) $$;

--
-- Name: fs_form_create(text, text, text, text, text, jsonb, jsonb, integer, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_create(p_id text, p_user text, p_slug text, p_title text, p_description text, p_fields jsonb, p_settings jsonb, p_limit integer, p_base text) RETURNS TABLE(outcome text, body text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    used bigint;
    f forms;
BEGIN
    PERFORM 1 FROM users WHERE id = p_user FOR UPDATE;
    SELECT count(*) INTO used FROM forms WHERE user_id = p_user;
    IF used >= p_limit THEN
        RETURN QUERY SELECT 'quota'::text, used::text;
        RETURN;
    END IF;
    BEGIN
        INSERT INTO forms (id, user_id, slug, title, description, fields, settings)
        VALUES (p_id, p_user, p_slug, p_title, p_description, p_fields, p_settings)
        RETURNING * INTO f;
    EXCEPTION WHEN unique_violation THEN
        RETURN QUERY SELECT 'slug-taken'::text, NULL::text;
        RETURN;
    END;
    RETURN QUERY SELECT 'ok'::text, fs_form_json(f, p_base)::text;
END
$$;

--
-- Name: fs_form_forget(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_forget() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'deleted', true)
    WHERE user_id = OLD.user_id AND form_id = OLD.id AND submission_id IS NULL;
    RETURN NULL;
END $$;

--
-- Name: fs_form_json(public.forms, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_json(f public.forms, base text) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object(
       'id', f.id, 'slug', f.slug, 'title', f.title, 'description', f.description,
       'status', fs_form_status(f), 'version', f.version, 'fields', f.fields,
       'settings', fs_form_settings(f.settings), 'submissionCount', fs_form_count(f.id),
       'publicUrl', base || '/f/' || COALESCE(f.slug, f.id),
       'createdAt', fs_ts(f.created_at), 'updatedAt', fs_ts(f.updated_at),
       'publishedAt', fs_ts(f.published_at)) $$;

--
-- Name: fs_form_save(text, text, integer, text, text, text, jsonb, jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_save(p_user text, p_id text, p_version integer, p_slug text, p_title text, p_description text, p_fields jsonb, p_settings jsonb, p_base text) RETURNS TABLE(outcome text, body text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    f forms;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_id AND user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'missing'::text, NULL::text;
        RETURN;
    END IF;
    IF f.version <> p_version THEN
        RETURN QUERY SELECT 'stale'::text, f.version::text;
        RETURN;
    END IF;
    IF ROW(f.slug, f.title, f.description, f.fields, f.settings) IS NOT DISTINCT FROM
       ROW(p_slug, p_title, p_description, p_fields, p_settings) THEN
        RETURN QUERY SELECT 'ok'::text, fs_form_json(f, p_base)::text;
        RETURN;
    END IF;
    BEGIN
        UPDATE forms SET slug = p_slug, title = p_title, description = p_description,
                         fields = p_fields, settings = p_settings,
                         version = forms.version + 1, updated_at = clock_timestamp()
        WHERE id = p_id RETURNING * INTO f;
    EXCEPTION WHEN unique_violation THEN
        RETURN QUERY SELECT 'slug-taken'::text, NULL::text;
        RETURN;
    END;
    RETURN QUERY SELECT 'ok'::text, fs_form_json(f, p_base)::text;
END
$$;

--
-- Name: fs_form_settings(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_settings(s jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT jsonb_build_object('closesAt', NULL, 'maxSubmissions', NULL,
                             'confirmationMessage', NULL, 'redirectUrl', NULL,
                             'honeypot', true) || COALESCE(s, '{}') $$;

--
-- Name: fs_form_status(public.forms); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_status(f public.forms) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT CASE
       WHEN f.status = 'published' AND (
            (jsonb_typeof(f.settings->'closesAt') = 'string'
             AND (f.settings->>'closesAt')::timestamptz <= now())
         OR (jsonb_typeof(f.settings->'maxSubmissions') = 'number'
             AND fs_form_count(f.id) >= (f.settings->>'maxSubmissions')::numeric))
       THEN 'closed' ELSE f.status END $$;

--
-- Name: fs_form_transition(text, text, text, integer, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_transition(p_user text, p_id text, p_action text, p_version integer, p_base text) RETURNS TABLE(outcome text, body text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    f forms;
    eff text;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_id AND user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'missing'::text, NULL::text;
        RETURN;
    END IF;
    IF p_version IS NOT NULL AND f.version <> p_version THEN
        RETURN QUERY SELECT 'stale'::text, f.version::text;
        RETURN;
    END IF;
    eff := fs_form_status(f);
    IF p_action = 'publish' THEN
        IF eff = 'published' THEN
            RETURN QUERY SELECT 'invalid-state'::text, 'The form is already published.'::text;
            RETURN;
        END IF;
        IF jsonb_array_length(f.fields) = 0 THEN
            RETURN QUERY SELECT 'invalid-state'::text,
                'A form without fields cannot be published; add fields first.'::text;
            RETURN;
        END IF;
        f.status := 'published';
        IF fs_form_status(f) = 'closed' THEN
            RETURN QUERY SELECT 'invalid-state'::text,
                'The form would close at once: its closesAt has passed or it holds '
                'maxSubmissions submissions; change settings first.'::text;
            RETURN;
        END IF;
        UPDATE forms SET status = 'published', published_at = clock_timestamp(),
                         version = forms.version + 1, updated_at = clock_timestamp()
        WHERE id = p_id RETURNING * INTO f;
    ELSE
        IF f.status <> 'published' THEN
            RETURN QUERY SELECT 'invalid-state'::text,
                format('Only a published form can be closed; this one is %s.', eff);
            RETURN;
        END IF;
        UPDATE forms SET status = 'closed',
                         version = forms.version + 1, updated_at = clock_timestamp()
        WHERE id = p_id RETURNING * INTO f;
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_form_json(f, p_base)::text;
END
$$;

--
-- Name: fs_form_view_days_add(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_form_view_days_add() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), sum(views) FROM new_views GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), sum(v) FROM (
            SELECT form_id, hour, views AS v FROM new_views
            UNION ALL SELECT form_id, hour, -views FROM old_views) d
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    ELSE
        INSERT INTO form_view_days AS y (form_id, day, views)
        SELECT form_id, fs_utc_day(hour), -sum(views) FROM old_views o
         WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = o.form_id)
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE SET views = y.views + EXCLUDED.views;
    END IF;
    RETURN NULL;
END $$;

--
-- Name: oauth_apps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_apps (
    id text NOT NULL,
    name text NOT NULL,
    redirect_uris jsonb NOT NULL,
    client_uri text,
    reg_addr text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    authorized_at timestamp with time zone
);

--
-- Name: oauth_grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_grants (
    id text NOT NULL,
    user_id text NOT NULL,
    app_id text NOT NULL,
    scopes jsonb NOT NULL,
    created_by text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

--
-- Name: fs_grant_json(public.oauth_grants, public.oauth_apps); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_grant_json(g public.oauth_grants, a public.oauth_apps) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT jsonb_build_object('id', g.id, 'clientId', g.app_id, 'clientName', a.name,
        'redirectUris', a.redirect_uris, 'scopes', g.scopes,
        'createdAt', fs_ts(g.created_at), 'lastUsedAt', fs_ts(g.last_used_at),
        'revokedAt', fs_ts(COALESCE(g.revoked_at,
            CASE WHEN NOT fs_creator_alive(g.created_by) THEN fs_creator_end(g.created_by) END))) $$;

--
-- Name: fs_id_at(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_id_at(id text) RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                    substr(id, strpos(id, '_') + 1 + i, 1)) - 1)::bigint << (45 - 5 * i)) / 1000.0)
          FROM generate_series(0, 9) i $$;

--
-- Name: fs_id_before(text, timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_id_before(prefix text, until timestamp with time zone, after text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT LEAST(COALESCE(after, prefix || repeat('Z', 27)),
                       CASE WHEN until IS NULL OR extract(epoch FROM until) > 253370764800 THEN prefix || repeat('Z', 27)
                            ELSE prefix || fs_id_time(until + interval '1 hour') END) $$;

--
-- Name: fs_id_since(text, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_id_since(prefix text, since timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN since IS NULL OR extract(epoch FROM since) < 86400 THEN prefix
                      ELSE prefix || fs_id_time(since - interval '1 day') END $$;

--
-- Name: fs_id_time(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_id_time(t timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
            ((floor(extract(epoch FROM t) * 1000)::bigint >> (45 - 5 * i)) & 31)::integer + 1, 1),
            '' ORDER BY i)
          FROM generate_series(0, 9) i $$;

--
-- Name: fs_insight_count(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_insight_count() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO insight_tally (form_id, day, key, kind, value, n)
        SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value,
               count(*)
          FROM new_subs s JOIN forms f ON f.id = s.form_id,
               LATERAL fs_insight_items(s.data, f.fields) x
         WHERE NOT s.spam
         GROUP BY 1, 2, 3, 4, 5;
    ELSE
        INSERT INTO insight_tally (form_id, day, key, kind, value, n)
        SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value,
               -count(*)
          FROM old_subs s LEFT JOIN forms f ON f.id = s.form_id,
               LATERAL fs_insight_items(s.data, COALESCE(f.fields, '[]'::jsonb)) x
         WHERE NOT s.spam
         GROUP BY 1, 2, 3, 4, 5;
    END IF;
    RETURN NULL;
END $$;

--
-- Name: fs_insight_count_update(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_insight_count_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO insight_tally (form_id, day, key, kind, value, n)
    SELECT c.form_id, c.day, c.key, c.kind, c.value, sum(c.n)
      FROM (SELECT o.form_id, (o.created_at AT TIME ZONE 'UTC')::date AS day,
                   x.key, x.kind, x.value, -1 AS n
              FROM old_subs o JOIN new_subs s ON s.id = o.id
                   LEFT JOIN forms f ON f.id = o.form_id,
                   LATERAL fs_insight_items(o.data, COALESCE(f.fields, '[]'::jsonb)) x
             WHERE NOT o.spam AND (o.data IS DISTINCT FROM s.data OR o.spam <> s.spam)
            UNION ALL
            SELECT s.form_id, (s.created_at AT TIME ZONE 'UTC')::date, x.key, x.kind, x.value, 1
              FROM new_subs s JOIN old_subs o ON o.id = s.id
                   JOIN forms f ON f.id = s.form_id,
                   LATERAL fs_insight_items(s.data, f.fields) x
             WHERE NOT s.spam AND (o.data IS DISTINCT FROM s.data OR o.spam <> s.spam)) c
     GROUP BY 1, 2, 3, 4, 5
    HAVING sum(c.n) <> 0;
    RETURN NULL;
END $$;

--
-- Name: fs_insight_items(jsonb, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_insight_items(p_data jsonb, p_fields jsonb) RETURNS TABLE(key text, kind text, value text)
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT '', 'sub', ''
   UNION ALL
   SELECT d.key, 'ans', '' FROM jsonb_each(p_data) d
    WHERE d.value NOT IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb)
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'boolean'
   UNION ALL
   SELECT d.key, 'num', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'number'
   UNION ALL
   SELECT d.key, 'opt', e #>> '{}' FROM jsonb_each(p_data) d, jsonb_array_elements(d.value) e
    WHERE jsonb_typeof(d.value) = 'array' AND jsonb_typeof(e) = 'string'
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'select')
   UNION ALL
   SELECT d.key || '.' || c.key, 'opt', v #>> '{}'
     FROM jsonb_each(p_data) d,
          jsonb_each(CASE WHEN jsonb_typeof(d.value) = 'object' THEN d.value
                          ELSE '{}'::jsonb END) c,
          jsonb_array_elements(CASE WHEN jsonb_typeof(c.value) = 'array' THEN c.value
                                    ELSE jsonb_build_array(c.value) END) v
    WHERE jsonb_typeof(v) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'matrix')
   UNION ALL
   SELECT d.key, 'place', o.n::text || ':' || (o.e #>> '{}')
     FROM jsonb_each(p_data) d,
          jsonb_array_elements(CASE WHEN jsonb_typeof(d.value) = 'array' THEN d.value
                                    ELSE '[]'::jsonb END) WITH ORDINALITY o(e, n)
    WHERE jsonb_typeof(o.e) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'ranking')
   UNION ALL
   SELECT d.key || '.country', 'opt', d.value ->> 'country' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'object' AND jsonb_typeof(d.value -> 'country') = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'address') $$;

--
-- Name: fs_insight_rollup(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_insight_rollup(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.fs_insight_rollup')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM insight_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM insight_tally LIMIT p_limit))
        RETURNING form_id, day, key, kind, value, n),
    g AS (SELECT d.form_id, d.day, d.key, d.kind, d.value, sum(d.n) AS n FROM d
           WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = d.form_id)
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.n) <> 0),
    u AS (INSERT INTO insight_counts AS c (form_id, day, key, kind, value, n)
          SELECT * FROM g
          ON CONFLICT (form_id, day, key, kind, value) DO UPDATE SET n = c.n + EXCLUDED.n
          RETURNING 1)
    SELECT count(*) INTO moved FROM d;
    DELETE FROM insight_counts WHERE n = 0;
    RETURN moved;
EXCEPTION WHEN lock_not_available OR foreign_key_violation THEN
    RETURN -1;
END $$;

--
-- Name: fs_insights(text, date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_insights(p_form text, p_since date, p_until date) RETURNS TABLE(key text, kind text, value text, n bigint)
    LANGUAGE sql STABLE
    AS $$ SELECT t.key, t.kind, t.value, sum(t.n)::bigint
     FROM (SELECT c.key, c.kind, c.value, c.n FROM insight_counts c
            WHERE c.form_id = p_form AND c.day >= p_since AND c.day < p_until
           UNION ALL
           SELECT i.key, i.kind, i.value, i.n FROM insight_tally i
            WHERE i.form_id = p_form AND i.day >= p_since AND i.day < p_until) t
    GROUP BY t.key, t.kind, t.value
   HAVING sum(t.n) <> 0
    ORDER BY t.key, t.kind, CASE WHEN t.kind = 'num' THEN t.value::numeric END, t.value $$;

--
-- Name: keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.keys (
    id text NOT NULL,
    user_id text NOT NULL,
    name text NOT NULL,
    key_prefix text NOT NULL,
    secret_hash text NOT NULL,
    scopes jsonb,
    expires_at timestamp with time zone,
    parent_key_id text,
    client_id text,
    actor text,
    depth integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    rolled_to text,
    grant_id text
);

--
-- Name: fs_key_active(public.keys); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_active(k public.keys) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) $$;

--
-- Name: fs_key_descendants(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_descendants(root text) RETURNS SETOF text
    LANGUAGE sql STABLE
    AS $$ WITH RECURSIVE t AS (SELECT root AS id
       UNION SELECT k.id FROM keys k JOIN t ON k.parent_key_id = t.id)
   SELECT id FROM t $$;

--
-- Name: fs_key_ended_delegate(public.keys); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_ended_delegate(k public.keys) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT NOT (fs_key_is_owner(k) OR fs_key_active(k)) $$;

--
-- Name: fs_key_is_owner(public.keys); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_is_owner(k public.keys) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT k.parent_key_id IS NULL AND k.client_id IS NULL AND k.scopes IS NULL $$;

--
-- Name: fs_key_json(public.keys); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_json(k public.keys) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object(
       'id', k.id, 'name', k.name, 'keyPrefix', k.key_prefix,
       'scopes', k.scopes, 'expiresAt', fs_ts(k.expires_at),
       'parentKeyId', k.parent_key_id, 'actor', k.actor, 'clientId', k.client_id,
       'createdAt', fs_ts(k.created_at), 'lastUsedAt', fs_ts(k.last_used_at),
       'revokedAt', fs_ts(k.revoked_at)) $$;

--
-- Name: fs_key_tree(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_key_tree(root text) RETURNS SETOF text
    LANGUAGE sql STABLE
    AS $$ WITH RECURSIVE t(id) AS (
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

--
-- Name: fs_link_admit_locked(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_link_admit_locked(p_link text, p_form text, p_ikey text) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    l links;
BEGIN
    SELECT * INTO l FROM links WHERE id = p_link AND form_id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN 'expired';
    END IF;
    IF p_ikey IS NOT NULL AND EXISTS (SELECT 1 FROM idempotency i WHERE i.scope = p_form
            AND i.key = p_ikey AND i.created_at > now() - interval '24 hours') THEN
        RETURN 'ok';
    END IF;
    IF l.created_by IS NOT NULL AND EXISTS (SELECT 1 FROM keys k WHERE k.id = l.created_by
            AND fs_key_ended_delegate(k)) THEN
        RETURN 'expired';
    END IF;
    RETURN CASE fs_link_state(l) WHEN 'active' THEN 'ok' ELSE fs_link_state(l) END;
END $$;

--
-- Name: fs_link_create(text, text, text, text, text, jsonb, jsonb, timestamp with time zone, integer, integer, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_link_create(p_id text, p_form text, p_user text, p_hash text, p_sealed text, p_prefill jsonb, p_metadata jsonb, p_expires timestamp with time zone, p_max integer, p_limit integer, p_created_by text) RETURNS TABLE(outcome text, body text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    used bigint;
    l links;
BEGIN
    PERFORM 1 FROM forms WHERE id = p_form AND user_id = p_user FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    SELECT count(*) INTO used FROM links x
    WHERE x.form_id = p_form AND x.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM keys k WHERE k.id = x.created_by AND fs_key_ended_delegate(k));
    IF used >= p_limit THEN
        RETURN QUERY SELECT 'quota'::text, used::text;
        RETURN;
    END IF;
    INSERT INTO links (id, form_id, user_id, token_hash, token_sealed, prefill, metadata,
                       expires_at, max_uses, created_by)
    VALUES (p_id, p_form, p_user, p_hash, p_sealed, p_prefill, p_metadata, p_expires, p_max,
            p_created_by)
    RETURNING * INTO l;
    RETURN QUERY SELECT 'ok'::text, fs_link_json(l)::text;
END $$;

--
-- Name: links; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.links (
    id text NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    token_hash text NOT NULL,
    token_sealed text NOT NULL,
    prefill jsonb DEFAULT '{}'::jsonb NOT NULL,
    metadata jsonb,
    expires_at timestamp with time zone,
    max_uses integer,
    uses integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    deleted_at timestamp with time zone,
    created_by text
);

--
-- Name: fs_link_json(public.links); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_link_json(l public.links) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object('id', l.id, 'formId', l.form_id, 'prefill', l.prefill,
                            'metadata', l.metadata, 'expiresAt', fs_ts(l.expires_at),
                            'maxUses', l.max_uses, 'uses', l.uses, 'status', fs_link_state(l),
                            'createdAt', fs_ts(l.created_at)) $$;

--
-- Name: fs_link_state(public.links); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_link_state(l public.links) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN l.deleted_at IS NOT NULL OR (l.expires_at IS NOT NULL AND l.expires_at <= now())
               THEN 'expired'
               WHEN l.max_uses IS NOT NULL AND l.uses >= l.max_uses THEN 'used'
               ELSE 'active' END $$;

--
-- Name: fs_mail_claim(integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_claim(lease integer, batch integer) RETURNS TABLE(jobs text, kind text, user_id text, payload text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    j mail_jobs;
    d record;
    hour timestamptz := date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    ids bigint[];
    f forms;
BEGIN
    FOR j IN UPDATE mail_jobs m SET leased_until = now() + make_interval(secs => lease)
              WHERE m.id IN (SELECT x.id FROM mail_jobs x WHERE x.leased_until < now()
                               AND x.kind <> 'digest' ORDER BY x.id LIMIT batch
                               FOR UPDATE SKIP LOCKED)
              RETURNING m.* LOOP
        SELECT * INTO f FROM forms WHERE id = j.form_id;
        jobs := jsonb_build_array(j.id)::text;
        kind := j.kind;
        user_id := f.user_id;
        payload := CASE j.kind
            WHEN 'address' THEN (SELECT jsonb_build_object('form', fs_mail_form_json(f),
                    'recipient', jsonb_build_object('id', n.id, 'email', n.email,
                                                    'pending', n.status = 'pending' AND n.listed))
                 FROM notify_recipients n WHERE n.id = j.recipient_id)
            ELSE (SELECT jsonb_build_object('form', fs_mail_form_json(f),
                    'submission', fs_mail_submission_json(s),
                    'recipients', CASE WHEN j.kind = 'each'
                                       THEN fs_mail_recipients_json(f.id) ELSE '[]' END)
                 FROM submissions s WHERE s.id = j.submission_id) END::text;
        RETURN NEXT;
    END LOOP;
    FOR d IN SELECT DISTINCT x.form_id FROM mail_jobs x
              WHERE x.kind = 'digest' AND x.leased_until < now() AND x.created_at < hour
              LIMIT batch LOOP
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtextextended('fs_digest:' || d.form_id, 0));
        WITH u AS (UPDATE mail_jobs m SET leased_until = now() + make_interval(secs => lease)
                    WHERE m.kind = 'digest' AND m.form_id = d.form_id AND m.leased_until < now()
                      AND m.created_at < hour RETURNING m.id)
        SELECT array_agg(u.id) INTO ids FROM u;
        CONTINUE WHEN ids IS NULL;
        SELECT * INTO f FROM forms WHERE id = d.form_id;
        jobs := to_jsonb(ids)::text;
        kind := 'digest';
        user_id := f.user_id;
        payload := jsonb_build_object('form', fs_mail_form_json(f),
            'recipients', fs_mail_recipients_json(f.id),
            'total', (SELECT count(*) FROM mail_jobs m JOIN submissions s ON s.id = m.submission_id
                       WHERE m.id = ANY (ids)),
            'submissions', COALESCE((SELECT jsonb_agg(fs_mail_submission_json(s) ORDER BY s.created_at, s.id)
                FROM (SELECT s.* FROM mail_jobs m JOIN submissions s ON s.id = m.submission_id
                       WHERE m.id = ANY (ids) ORDER BY s.created_at, s.id LIMIT 50) s), '[]'))::text;
        RETURN NEXT;
    END LOOP;
END $$;

--
-- Name: fs_mail_day_give(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_day_give(k text) RETURNS void
    LANGUAGE sql
    AS $$ UPDATE mail_daily SET sent = sent - 1 WHERE key = k AND day = fs_utc_day() AND sent > 0 $$;

--
-- Name: fs_mail_day_take(text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_day_take(k text, cap integer) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE n integer;
BEGIN
    IF cap <= 0 THEN RETURN false; END IF;
    INSERT INTO mail_daily AS m (key, day, sent) VALUES (k, fs_utc_day(), 1)
        ON CONFLICT (key, day) DO UPDATE SET sent = m.sent + 1 WHERE m.sent < cap
        RETURNING m.sent INTO n;
    RETURN n IS NOT NULL;
END $$;

--
-- Name: fs_mail_done(text, text, text, integer, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_done(jobs text, uid text, msgs text, cap_unverified integer, cap_verified integer, per_address integer, OUT queued integer, OUT dropped integer) RETURNS record
    LANGUAGE plpgsql
    AS $$
DECLARE
    m jsonb;
    gone integer;
    cap integer;
    addr_key text;
    subs text[];
    frms text[];
    job_ids bigint[];
    got bigint[];
BEGIN
    queued := 0; dropped := 0;
    SELECT array_agg(x::bigint) INTO job_ids FROM jsonb_array_elements_text(jobs::jsonb) x;
    -- A digest (its messages name the submissions they list): every one
    -- of its jobs must still be there, or the text was written with the
    -- answers of a submission deleted since (its job goes with it, ON
    -- DELETE CASCADE) or being deleted now (its job locked by that
    -- deletion): then nothing is queued and the jobs left are claimed
    -- again, to be written without it. The jobs are locked here, not
    -- waited for (SKIP LOCKED): a deletion that reaches one of them
    -- later waits for this transaction, and its trigger then finds the
    -- message (fs_submission_forget). A message about one submission needs
    -- none of this: its one job is deleted below, waiting for a deletion
    -- under way, and a job found gone queues nothing.
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(msgs::jsonb) e (msg)
                WHERE e.msg ? 'submissionIds') THEN
        SELECT array_agg(j.id) INTO got
          FROM (SELECT x.id FROM mail_jobs x WHERE x.id = ANY (job_ids)
                   FOR UPDATE SKIP LOCKED) j;
        IF got IS NULL THEN RETURN; END IF;
        IF cardinality(got) < cardinality(job_ids) THEN
            UPDATE mail_jobs SET leased_until = '-infinity' WHERE id = ANY (got);
            RETURN;
        END IF;
    END IF;
    WITH d AS (DELETE FROM mail_jobs WHERE id = ANY (job_ids)
               RETURNING submission_id, form_id)
    SELECT count(*), array_agg(DISTINCT d.submission_id) FILTER (WHERE d.submission_id IS NOT NULL),
           array_agg(DISTINCT d.form_id)
      INTO gone, subs, frms FROM d;
    IF gone = 0 THEN RETURN; END IF;
    SELECT CASE WHEN u.verified THEN cap_verified ELSE cap_unverified END INTO cap
      FROM users u WHERE u.id = uid;
    FOR m IN SELECT x FROM jsonb_array_elements(msgs::jsonb) x LOOP
        addr_key := NULL;
        IF m ->> 'kind' = 'address' THEN
            -- still pending and listed: else the confirmation is not needed any more
            PERFORM 1 FROM notify_recipients n WHERE n.id = m ->> 'recipientId'
                AND n.status = 'pending' AND n.listed FOR UPDATE;
            CONTINUE WHEN NOT FOUND;
        END IF;
        -- mail to an address that has agreed to nothing (a respondent's
        -- copy, a request to confirm notifications): capped per address
        IF m ->> 'kind' IN ('confirmation', 'address') THEN
            -- the mailbox the module names (fs_mail_mailbox: lower case,
            -- without a +tag), the address itself from an older module
            addr_key := 'resp:' || encode(sha256(convert_to(
                COALESCE(m ->> 'mailbox', lower(btrim(m ->> 'to'))), 'UTF8')), 'hex');
            IF NOT fs_mail_day_take(addr_key, per_address) THEN
                dropped := dropped + 1; CONTINUE;
            END IF;
        END IF;
        IF NOT fs_mail_day_take('notify:' || uid, COALESCE(cap, 0)) THEN
            IF addr_key IS NOT NULL THEN PERFORM fs_mail_day_give(addr_key); END IF;
            dropped := dropped + 1; CONTINUE;
        END IF;
        IF m ->> 'kind' = 'address' THEN
            UPDATE notify_recipients SET token_hash = m ->> 'tokenHash',
                   token_expires_at = now() + interval '7 days'
             WHERE id = m ->> 'recipientId';
        END IF;
        INSERT INTO outbox (id, recipient, message, user_id, submission_id, form_id,
                            submission_ids)
        VALUES (m ->> 'id', m ->> 'to', m ->> 'message', uid,
                CASE WHEN cardinality(subs) = 1 THEN subs[1] END,
                CASE WHEN cardinality(frms) = 1 THEN frms[1] END,
                CASE WHEN m ? 'submissionIds' THEN
                     ARRAY(SELECT jsonb_array_elements_text(m -> 'submissionIds')) END);
        queued := queued + 1;
    END LOOP;
END $$;

--
-- Name: fs_mail_form_json(public.forms); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_form_json(f public.forms) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$ SELECT jsonb_build_object('id', f.id, 'title', f.title, 'fields', f.fields,
                             'confirmation', f.settings -> 'confirmation')
          || CASE WHEN f.settings -> 'allowEdits' IS NULL OR f.settings -> 'allowEdits' = 'null'::jsonb
                       OR f.settings -> 'linkRequired' = 'true'::jsonb THEN '{}'::jsonb
                  ELSE jsonb_build_object('allowEdits', f.settings -> 'allowEdits') END $$;

--
-- Name: fs_mail_recipients_json(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_recipients_json(fid text) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$ SELECT COALESCE(jsonb_agg(jsonb_build_object('id', n.id, 'email', n.email) ORDER BY n.id),
                   '[]'::jsonb)
     FROM notify_recipients n WHERE n.form_id = fid AND n.listed AND n.status = 'confirmed' $$;

--
-- Name: submissions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submissions (
    id text NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    form_version integer NOT NULL,
    data jsonb NOT NULL,
    spam boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    uniq_hash text,
    link_id text,
    link_metadata jsonb,
    owner_status text DEFAULT 'new'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    note text,
    owner_version integer DEFAULT 1 NOT NULL,
    owner_updated_at timestamp with time zone,
    ending text,
    calculated jsonb,
    spam_score smallint,
    captcha_unchecked boolean
)
PARTITION BY RANGE (id);

--
-- Name: fs_mail_submission_json(public.submissions); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_submission_json(s public.submissions) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$ SELECT jsonb_build_object('id', s.id, 'data', s.data, 'createdAt', fs_ts(s.created_at)) $$;

--
-- Name: fs_mail_take(text, text, text, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mail_take(uid text, email_norm text, purpose text, cap integer, gap integer, OUT reason text, OUT wait integer) RETURNS record
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: fs_mcp_stream_open(text, text, text, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mcp_stream_open(p_id text, p_user text, p_session text, p_max integer, p_lease integer) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    UPDATE mcp_sessions SET seen_at = now() WHERE id = p_session AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN 'nosession';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('formsvc:mcp_streams:' || p_user, 0));
    DELETE FROM mcp_streams WHERE user_id = p_user AND lease_until < now();
    SELECT count(*) INTO n FROM mcp_streams WHERE user_id = p_user;
    IF n >= p_max THEN
        RETURN 'full';
    END IF;
    INSERT INTO mcp_streams (id, user_id, session_id, lease_until)
    VALUES (p_id, p_user, p_session, now() + make_interval(secs => p_lease));
    RETURN 'ok';
END $$;

--
-- Name: fs_mcp_subscribe(text, text, text, text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_mcp_subscribe(p_session text, p_user text, p_uri text, p_form text, p_max integer) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM mcp_sessions WHERE id = p_session AND user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'nosession';
    END IF;
    UPDATE mcp_sessions SET seen_at = now() WHERE id = p_session;
    IF EXISTS (SELECT 1 FROM mcp_subscriptions WHERE session_id = p_session AND uri = p_uri) THEN
        RETURN 'ok';
    END IF;
    SELECT count(*) INTO n FROM mcp_subscriptions WHERE session_id = p_session;
    IF n >= p_max THEN
        RETURN 'full';
    END IF;
    INSERT INTO mcp_subscriptions (session_id, uri, form_id) VALUES (p_session, p_uri, p_form);
    RETURN 'ok';
END $$;

--
-- Name: fs_month_received(text, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_month_received(uid text, m date) RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT COALESCE((SELECT sum(received) FROM submission_months
                     WHERE user_id = uid AND month = m), 0)
        + COALESCE((SELECT sum(n) FROM submission_tally
                     WHERE user_id = uid AND month = m), 0) $$;

--
-- Name: fs_month_under(text, date, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_month_under(uid text, m date, quota integer) RETURNS boolean
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    rolled bigint;
BEGIN
    -- plpgsql, not sql: a sql function that is not inlined is parsed and
    -- planned again in every statement that calls it (0.11 ms here); a
    -- plpgsql function keeps its plans for the session (0.04 ms)
    SELECT COALESCE(sum(received), 0) INTO rolled FROM submission_months
     WHERE user_id = uid AND month = m;
    IF rolled + 10000 < quota THEN
        RETURN true;
    END IF;
    RETURN fs_month_received(uid, m) < quota;
END $$;

--
-- Name: fs_new_id(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_new_id(prefix text) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    a constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    u bytea := uuid_send(gen_random_uuid());
    rb bit(80) := ('x' || encode(substring(u FROM 11 FOR 6) || substring(u FROM 1 FOR 4), 'hex'))::bit(80);
    tb bit(50) := ms::bit(50);
    s text := prefix;
BEGIN
    FOR i IN 0..9 LOOP
        s := s || substr(a, substring(tb FROM 5 * i + 1 FOR 5)::integer + 1, 1);
    END LOOP;
    FOR i IN 0..15 LOOP
        s := s || substr(a, substring(rb FROM 5 * i + 1 FOR 5)::integer + 1, 1);
    END LOOP;
    RETURN s;
END $$;

--
-- Name: fs_notify_sync(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_notify_sync() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    list jsonb := CASE WHEN jsonb_typeof(NEW.settings -> 'notify' -> 'emails') = 'array'
                       THEN NEW.settings -> 'notify' -> 'emails' ELSE '[]'::jsonb END;
    own text;
    e text;
    r notify_recipients;
BEGIN
    SELECT u.email_norm INTO own FROM users u WHERE u.id = NEW.user_id AND u.verified;
    UPDATE notify_recipients n SET listed = false
     WHERE n.form_id = NEW.id AND n.listed
       AND NOT n.email_norm IN (SELECT lower(btrim(x)) FROM jsonb_array_elements_text(list) x);
    FOR e IN SELECT x FROM jsonb_array_elements_text(list) x LOOP
        SELECT * INTO r FROM notify_recipients n
         WHERE n.form_id = NEW.id AND n.email_norm = lower(btrim(e)) FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO notify_recipients AS n (id, form_id, email, email_norm, status,
                                                confirmed_at)
            VALUES (fs_new_id('nrc_'), NEW.id, btrim(e), lower(btrim(e)),
                    CASE WHEN lower(btrim(e)) = own THEN 'confirmed' ELSE 'pending' END,
                    CASE WHEN lower(btrim(e)) = own THEN clock_timestamp() END)
            RETURNING * INTO r;
        ELSIF r.listed THEN
            CONTINUE;
        ELSE
            UPDATE notify_recipients n SET listed = true,
                   status = CASE WHEN n.status = 'confirmed' OR n.email_norm = own
                                 THEN 'confirmed' ELSE 'pending' END,
                   token_hash = NULL, token_expires_at = NULL
             WHERE n.id = r.id RETURNING * INTO r;
        END IF;
        IF r.status = 'pending' THEN
            INSERT INTO mail_jobs (kind, form_id, recipient_id) VALUES ('address', NEW.id, r.id);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

--
-- Name: fs_partial_forget(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partial_forget() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE events e
       SET payload = jsonb_build_object('id', o.id, 'formId', o.form_id,
                                        CASE WHEN EXISTS (SELECT 1 FROM submissions s WHERE s.id = o.id)
                                             THEN 'completed' ELSE 'deleted' END, true)
      FROM old_partials o
     WHERE e.submission_id = o.id AND e.type = 'submission.partial';
    RETURN NULL;
END $$;

--
-- Name: submission_partials; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_partials (
    id text NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    form_version integer NOT NULL,
    data jsonb NOT NULL,
    page integer NOT NULL,
    resume_hash text NOT NULL,
    link_id text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    event_at timestamp with time zone
);

--
-- Name: fs_partial_json(public.submission_partials); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partial_json(p public.submission_partials) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT jsonb_build_object('id', p.id, 'formId', p.form_id, 'formVersion', p.form_version,
                              'data', p.data, 'completed', false, 'page', p.page + 1,
                              'createdAt', fs_ts(p.created_at), 'updatedAt', fs_ts(p.updated_at),
                              'expiresAt', fs_ts(p.expires_at))
        || CASE WHEN p.link_id IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('linkId', p.link_id) END $$;

--
-- Name: fs_partial_mail(text, text, text, text, text, integer, integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partial_mail(p_form text, p_to text, p_mailbox text, p_id text, p_message text, cap_unverified integer, cap_verified integer, p_per_address integer) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    uid text;
    cap integer;
    addr_key text;
BEGIN
    SELECT f.user_id, CASE WHEN u.verified THEN cap_verified ELSE cap_unverified END
      INTO uid, cap
      FROM forms f JOIN users u ON u.id = f.user_id
     WHERE f.id = p_form AND f.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN 'gone';
    END IF;
    addr_key := 'resp:' || encode(sha256(convert_to(p_mailbox, 'UTF8')), 'hex');
    IF NOT fs_mail_day_take(addr_key, p_per_address) THEN
        RETURN 'limited';
    END IF;
    IF NOT fs_mail_day_take('notify:' || uid, COALESCE(cap, 0)) THEN
        PERFORM fs_mail_day_give(addr_key);
        RETURN 'limited';
    END IF;
    INSERT INTO outbox (id, recipient, message, user_id, form_id)
    VALUES (p_id, p_to, p_message, uid, p_form);
    RETURN 'queued';
END $$;

--
-- Name: fs_partial_save(text, boolean, text, text, jsonb, integer, integer, text, integer, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partial_save(p_id text, p_named boolean, p_form text, p_hash text, p_data jsonb, p_page integer, p_version integer, p_link text, p_days integer, p_evid text) RETURNS TABLE(outcome text, id text, expires_at text)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    f record;
    p submission_partials;
BEGIN
    SELECT fo.id, fo.user_id, fo.version INTO f FROM forms fo
     WHERE fo.id = p_form AND fo.status = 'published' AND fo.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p_named THEN
        IF EXISTS (SELECT 1 FROM submissions s WHERE s.id = p_id) THEN
            RETURN QUERY SELECT 'done'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM submission_partials x WHERE x.id = p_id
                    AND (x.resume_hash <> p_hash OR x.form_id <> p_form)) THEN
            RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
            RETURN;
        END IF;
    END IF;
    INSERT INTO submission_partials AS x (id, form_id, user_id, form_version, data, page,
                                          resume_hash, link_id, expires_at)
    VALUES (p_id, p_form, f.user_id, COALESCE(p_version, f.version), p_data, p_page, p_hash,
            p_link, now() + make_interval(days => p_days))
    ON CONFLICT (resume_hash) DO UPDATE
       SET data = EXCLUDED.data, page = EXCLUDED.page, form_version = EXCLUDED.form_version,
           updated_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
     WHERE x.form_id = EXCLUDED.form_id AND (NOT p_named OR x.id = EXCLUDED.id)
    RETURNING * INTO p;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'forbidden'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    -- a Submit of this filling-in committed while the save waited: the
    -- row it deleted was made again; it goes, as after the Submit
    IF EXISTS (SELECT 1 FROM submissions s WHERE s.id = p.id) THEN
        DELETE FROM submission_partials x WHERE x.id = p.id;
        RETURN QUERY SELECT 'done'::text, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF p.event_at IS NULL OR p.event_at < now() - interval '10 minutes' THEN
        UPDATE submission_partials SET event_at = now() WHERE id = p.id;
        INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
        VALUES (p_evid, p.user_id, 'submission.partial', p.form_id, p.id, fs_partial_json(p));
    END IF;
    RETURN QUERY SELECT 'ok'::text, p.id, fs_ts(p.expires_at);
END $$;

--
-- Name: fs_partials_expire(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partials_expire(lim integer) RETURNS integer
    LANGUAGE sql
    AS $$
    WITH d AS (DELETE FROM submission_partials
                WHERE id IN (SELECT id FROM submission_partials
                              WHERE expires_at < now() ORDER BY expires_at LIMIT lim)
               RETURNING 1)
    SELECT count(*)::integer FROM d $$;

--
-- Name: fs_partitions_ahead(integer, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partitions_ahead(months integer, at timestamp with time zone DEFAULT now()) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    p record;
    m timestamp;
    lo text; hi text; name text;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.partitions')) THEN
        RETURN -1;
    END IF;
    -- below deadlock_timeout: this gives way to a request it would
    -- deadlock with, never the request
    SET LOCAL lock_timeout = '200ms';
    FOR p IN SELECT * FROM partition_plan ORDER BY tbl LOOP
        FOR i IN 0..months LOOP
            m := date_trunc('month', at AT TIME ZONE 'UTC') + make_interval(months => i);
            lo := p.prefix || fs_id_time(m AT TIME ZONE 'UTC');
            hi := p.prefix || fs_id_time((m + interval '1 month') AT TIME ZONE 'UTC');
            CONTINUE WHEN hi <= p.bound;
            name := p.tbl || '_' || to_char(m, 'YYYY_MM');
            CONTINUE WHEN to_regclass(name) IS NOT NULL;
            EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)',
                           name, p.tbl);
            EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                           p.tbl, name, GREATEST(lo, p.bound), hi);
            IF p.tbl = 'submissions' THEN
                -- a form has one owner (sql/0044): the planner estimates a
                -- partition's rows with the partition's own statistics
                EXECUTE format('CREATE STATISTICS %I (dependencies) ON form_id, user_id FROM %I',
                               name || '_form_user', name);
            END IF;
            RETURN 1;
        END LOOP;
    END LOOP;
    RETURN 0;
END $$;

--
-- Name: fs_partitions_drop(integer, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_partitions_drop(keep_months integer, at timestamp with time zone DEFAULT now()) RETURNS text
    LANGUAGE plpgsql
    AS $_$
DECLARE
    c record;
    r record;
    limit_ts timestamptz := at - make_interval(months => GREATEST(keep_months, 1));
    found_row boolean;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'fs_partitions_drop checks emptiness after its locks: it needs READ COMMITTED, not %',
            current_setting('transaction_isolation');
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.partitions')) THEN
        RETURN NULL;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    FOR c IN
        SELECT pp.tbl, k.relname AS part
          FROM partition_plan pp
          JOIN pg_inherits i ON i.inhparent = pp.tbl::regclass
          JOIN pg_class k ON k.oid = i.inhrelid
         WHERE CASE WHEN k.relname = pp.tbl || '_before' THEN fs_id_at(pp.bound) <= limit_ts
                    WHEN k.relname ~ ('^' || pp.tbl || '_\d{4}_(0[1-9]|1[0-2])$') THEN
                        (to_date(right(k.relname, 7), 'YYYY_MM') + interval '1 month')
                            AT TIME ZONE 'UTC' <= limit_ts
                    ELSE false END
           -- a month of submissions is kept while a partial answer has an
           -- id in it or before it: completing the partial stores the
           -- submission under that id, so in that month's partition
           AND NOT (pp.tbl = 'submissions' AND EXISTS (
                   SELECT 1 FROM submission_partials sp
                    WHERE fs_id_at(sp.id) < CASE WHEN k.relname = pp.tbl || '_before' THEN fs_id_at(pp.bound)
                                                 ELSE (to_date(right(k.relname, 7), 'YYYY_MM') + interval '1 month')
                                                          AT TIME ZONE 'UTC' END))
           -- a month of versions (sql/0065) is kept while its month of
           -- submissions is: an edit within untilHours (up to a year) of
           -- a submission in it writes versions there; once the month of
           -- submissions is gone (emptied, so every version cascaded) it goes
           AND NOT (pp.tbl = 'submission_versions'
                    AND to_regclass(quote_ident('submissions' || substr(k.relname, length('submission_versions') + 1))) IS NOT NULL)
         ORDER BY array_position(ARRAY['submission_file_chunks', 'submission_files', 'events', 'submissions'],
                                 pp.tbl::text),
                  k.relname = pp.tbl || '_before' DESC, k.relname
    LOOP
        -- a table of more than 1 MB is passed over: emptied by retention
        -- but not vacuumed yet, its dead rows would make the look under
        -- the locks below a long scan while requests wait; autovacuum
        -- truncates an emptied table to nothing, and a later run drops it
        CONTINUE WHEN pg_relation_size(c.part::regclass) > 1048576;
        -- a look without the locks first: a month still holding rows is
        -- passed over (ACCESS SHARE, which only a DETACH or DROP waits for)
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM ONLY %I)', c.part) INTO found_row;
        CONTINUE WHEN found_row;
        BEGIN
            EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', c.tbl);
            -- the tables whose foreign keys reference the parent: DETACH
            -- takes ACCESS EXCLUSIVE on them too (their constraint's clone for
            -- the partition goes); asked for here, in one order
            FOR r IN SELECT DISTINCT conrelid::regclass::text AS t FROM pg_constraint
                      WHERE contype = 'f' AND confrelid = c.tbl::regclass AND conparentid = 0 ORDER BY 1 LOOP
                EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', r.t);
            END LOOP;
            EXECUTE format('LOCK TABLE ONLY %I IN ACCESS EXCLUSIVE MODE', c.part);
            -- under the locks, in a statement of its own: what committed
            -- before they were granted
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM ONLY %I)', c.part) INTO found_row;
            IF found_row THEN
                -- written since the first look: kept; the locks go with this
                -- transaction, the next run looks again
                RETURN '';
            END IF;
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', c.tbl, c.part);
            EXECUTE format('DROP TABLE %I', c.part);
            RETURN c.part;
        EXCEPTION WHEN lock_not_available THEN
            -- a lock not granted within 200 ms (a request holds a table):
            -- this block's locks go with it; the next run tries again
            RETURN '-';
        END;
    END LOOP;
    RETURN '';
END $_$;

--
-- Name: fs_public_autoclosed(public.forms); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_autoclosed(f public.forms) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN f.settings ? 'closesAt'
               THEN COALESCE(fs_public_closes_at(f.settings) <= now(), false) ELSE false END
       OR CASE WHEN f.settings ? 'maxSubmissions'
               THEN COALESCE(fs_form_count(f.id) >= fs_public_max_submissions(f.settings), false)
               ELSE false END $$;

--
-- Name: fs_public_closed_locked(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_closed_locked(p_form text, p_ikey text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
    f forms;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN true;
    END IF;
    IF p_ikey IS NOT NULL AND EXISTS (SELECT 1 FROM idempotency i WHERE i.scope = p_form
            AND i.key = p_ikey AND i.created_at > now() - interval '24 hours') THEN
        RETURN false;
    END IF;
    RETURN fs_public_status(f) <> 'published';
END $$;

--
-- Name: fs_public_closes_at(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_closes_at(s jsonb) RETURNS timestamp with time zone
    LANGUAGE plpgsql IMMUTABLE
    AS $$
BEGIN
    IF jsonb_typeof(s->'closesAt') = 'string' THEN
        RETURN (s->>'closesAt')::timestamptz;
    END IF;
    RETURN NULL;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;

--
-- Name: fs_public_left_locked(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_left_locked(p_form text) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    f forms;
BEGIN
    SELECT * INTO f FROM forms WHERE id = p_form FOR NO KEY UPDATE;
    IF NOT FOUND OR fs_public_max_submissions(f.settings) IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (fs_public_max_submissions(f.settings) - fs_form_count(p_form))::bigint;
END $$;

--
-- Name: fs_public_max_submissions(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_max_submissions(s jsonb) RETURNS numeric
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN jsonb_typeof(s->'maxSubmissions') = 'number'
               THEN (s->>'maxSubmissions')::numeric END $$;

--
-- Name: fs_public_status(public.forms); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_public_status(f public.forms) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN f.status = 'published' AND fs_public_autoclosed(f) THEN 'closed'
               ELSE f.status END $$;

--
-- Name: fs_purge_step(text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_purge_step(p_id text, lim integer) RETURNS TABLE(deleted integer, done boolean)
    LANGUAGE plpgsql
    AS $$
DECLARE
    j submission_purges;
    n integer;
    fin boolean;
BEGIN
    SELECT * INTO j FROM submission_purges WHERE id = p_id AND finished_at IS NULL
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 0, true;
        RETURN;
    END IF;
    n := fs_submissions_delete_batch(j.form_id, j.before, lim);
    fin := n < lim AND NOT EXISTS (SELECT 1 FROM submissions
                                    WHERE form_id = j.form_id
                                      AND created_at < LEAST(j.before, j.created_at));
    UPDATE submission_purges SET deleted = submission_purges.deleted + n,
           finished_at = CASE WHEN fin THEN clock_timestamp() END
     WHERE id = p_id;
    IF fin THEN
        INSERT INTO events (id, user_id, type, form_id, payload)
        VALUES (fs_new_id('evt_'), j.user_id, 'submissions.deleted', j.form_id,
                jsonb_build_object('formId', j.form_id, 'before', fs_ts(j.before),
                                   'count', j.deleted + n, 'purgeId', j.id));
        PERFORM fs_audit_count(j.user_id, 'submissions.deleted', j.form_id, j.deleted + n);
    END IF;
    RETURN QUERY SELECT n, fin;
END $$;

--
-- Name: fs_quota_admit(text, text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_quota_admit(p_user text, p_kind text, p_limit integer) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: fs_submission_edit(text, text, jsonb, text, text, integer, integer, text, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_edit(p_id text, p_form text, p_data jsonb, p_uhash text, p_ending text, p_version integer, p_hours integer, p_evid text, p_calc jsonb) RETURNS TABLE(outcome text, json text)
    LANGUAGE plpgsql
    AS $$
DECLARE
    f record;
    s submissions;
BEGIN
    SELECT fo.id, fo.version INTO f FROM forms fo
     WHERE fo.id = p_form AND fo.status = 'published' AND fo.deleted_at IS NULL;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    IF f.version <> p_version THEN
        RETURN QUERY SELECT 'stale'::text, NULL::text;
        RETURN;
    END IF;
    SELECT * INTO s FROM submissions x WHERE x.id = p_id AND x.form_id = p_form FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::text;
        RETURN;
    END IF;
    IF s.created_at + make_interval(hours => p_hours) <= now() THEN
        RETURN QUERY SELECT 'expired'::text, NULL::text;
        RETURN;
    END IF;
    IF p_uhash IS NOT NULL AND p_uhash IS DISTINCT FROM s.uniq_hash
       AND NOT fs_submission_unique(p_form, p_uhash) THEN
        RETURN QUERY SELECT 'duplicate'::text, NULL::text;
        RETURN;
    END IF;
    -- the same answers again (a double click, a second tab): nothing
    -- changes, no version, no event
    IF s.data = p_data THEN
        RETURN QUERY SELECT 'ok'::text, fs_submission_json(s)::text;
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM submission_versions v WHERE v.submission_id = s.id) THEN
        INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version,
                                         data, ending, created_at)
        VALUES (s.id, 1, s.form_id, s.user_id, s.form_version, s.data, s.ending, s.created_at);
    END IF;
    UPDATE submissions x
       SET data = p_data, uniq_hash = CASE WHEN x.spam THEN x.uniq_hash ELSE p_uhash END,
           ending = p_ending, calculated = p_calc, form_version = p_version,
           owner_version = x.owner_version + 1,
           owner_updated_at = clock_timestamp()
     WHERE x.id = s.id
    RETURNING * INTO s;
    INSERT INTO submission_versions (submission_id, version, form_id, user_id, form_version, data,
                                     ending, created_at)
    VALUES (s.id, s.owner_version, s.form_id, s.user_id, s.form_version, s.data, s.ending,
            s.owner_updated_at);
    IF NOT s.spam THEN
        INSERT INTO events (id, user_id, type, form_id, submission_id, payload)
        VALUES (p_evid, s.user_id, 'submission.updated', s.form_id, s.id,
                fs_submission_json(s)::jsonb || jsonb_build_object('edited', true));
    END IF;
    RETURN QUERY SELECT 'ok'::text, fs_submission_json(s)::text;
END $$;

--
-- Name: fs_submission_forget(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_forget() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE events SET payload = jsonb_build_object('id', OLD.id, 'formId', OLD.form_id,
                                                   'deleted', true)
    WHERE submission_id = OLD.id;
    DELETE FROM outbox WHERE submission_id = OLD.id;
    -- a digest being queued now (fs_mail_done holds its jobs) is waited
    -- for, so that the delete below sees its messages, whichever of this
    -- trigger and the jobs' ON DELETE CASCADE runs first
    PERFORM 1 FROM mail_jobs WHERE submission_id = OLD.id FOR UPDATE;
    WITH d AS (DELETE FROM outbox o WHERE o.submission_ids @> ARRAY[OLD.id]
               RETURNING o.form_id, o.submission_ids, o.sent_at, o.failed_at)
    INSERT INTO mail_jobs (kind, form_id, submission_id)
    SELECT DISTINCT 'digest', d.form_id, x FROM d, unnest(d.submission_ids) x
     WHERE d.sent_at IS NULL AND d.failed_at IS NULL AND d.form_id IS NOT NULL
       AND x <> OLD.id AND EXISTS (SELECT 1 FROM submissions s WHERE s.id = x);
    RETURN NULL;
END $$;

--
-- Name: fs_submission_hours_added(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_hours_added() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO submission_hour_tally (form_id, hour, submissions, spam)
    SELECT s.form_id, fs_utc_hour(s.created_at),
           count(*) FILTER (WHERE NOT s.spam), count(*) FILTER (WHERE s.spam)
      FROM added_submissions s
     GROUP BY 1, 2;
    RETURN NULL;
END $$;

--
-- Name: fs_submission_hours_next(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_hours_next() RETURNS text
    LANGUAGE sql
    AS $$
    UPDATE submission_hours_backlog SET tried_at = now()
     WHERE form_id = (SELECT form_id FROM submission_hours_backlog
                       ORDER BY tried_at NULLS FIRST, form_id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING form_id
$$;

--
-- Name: fs_submission_hours_recount(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_hours_recount(p_form text) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.submission_hours')) THEN
        RETURN -1;
    END IF;
    -- a form being deleted meanwhile holds its rows: give way (a deadlock
    -- would be detected only after a second, and might cancel the delete)
    SET LOCAL lock_timeout = '200ms';
    WITH c AS (
        SELECT fs_utc_hour(created_at) AS hour,
               count(*) FILTER (WHERE NOT spam) AS n, count(*) FILTER (WHERE spam) AS sp
          FROM submissions WHERE form_id = p_form GROUP BY 1),
    cd AS (SELECT fs_utc_day(c.hour) AS day, sum(c.n) AS dn, sum(c.sp) AS dsp FROM c GROUP BY 1),
    dt AS (DELETE FROM submission_hour_tally WHERE form_id = p_form),
    db AS (DELETE FROM submission_hours_backlog WHERE form_id = p_form),
    dh AS (DELETE FROM submission_hours h WHERE h.form_id = p_form
            AND NOT EXISTS (SELECT 1 FROM c WHERE c.hour = h.hour)),
    dd AS (DELETE FROM submission_days y WHERE y.form_id = p_form
            AND NOT EXISTS (SELECT 1 FROM cd WHERE cd.day = y.day)),
    iy AS (
        INSERT INTO submission_days AS y (form_id, day, submissions, spam)
        SELECT p_form, cd.day, cd.dn, cd.dsp FROM cd
         WHERE EXISTS (SELECT 1 FROM forms WHERE id = p_form)
        ON CONFLICT (form_id, day) DO UPDATE
           SET submissions = EXCLUDED.submissions, spam = EXCLUDED.spam),
    i AS (
        INSERT INTO submission_hours AS h (form_id, hour, submissions, spam)
        SELECT p_form, c.hour, c.n, c.sp FROM c
         WHERE EXISTS (SELECT 1 FROM forms WHERE id = p_form)
        ON CONFLICT (form_id, hour) DO UPDATE
           SET submissions = EXCLUDED.submissions, spam = EXCLUDED.spam
        RETURNING 1)
    SELECT count(*) INTO n FROM i;
    RETURN n;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

--
-- Name: fs_submission_hours_removed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_hours_removed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO submission_hour_tally (form_id, hour, submissions, spam)
    SELECT s.form_id, fs_utc_hour(s.created_at),
           -count(*) FILTER (WHERE NOT s.spam), -count(*) FILTER (WHERE s.spam)
      FROM removed_submissions s
     WHERE EXISTS (SELECT 1 FROM forms f WHERE f.id = s.form_id)
     GROUP BY 1, 2;
    RETURN NULL;
END $$;

--
-- Name: fs_submission_hours_rollup(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_hours_rollup(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.submission_hours')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM submission_hour_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM submission_hour_tally LIMIT p_limit))
        RETURNING form_id, hour, submissions, spam),
    h AS (
        INSERT INTO submission_hours AS c (form_id, hour, submissions, spam)
        SELECT form_id, hour, sum(submissions), sum(spam) FROM d
         GROUP BY form_id, hour ORDER BY form_id, hour
        ON CONFLICT (form_id, hour) DO UPDATE
           SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam),
    y AS (
        INSERT INTO submission_days AS c (form_id, day, submissions, spam)
        SELECT form_id, fs_utc_day(hour), sum(submissions), sum(spam) FROM d
         GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (form_id, day) DO UPDATE
           SET submissions = c.submissions + EXCLUDED.submissions, spam = c.spam + EXCLUDED.spam)
    SELECT count(*) INTO moved FROM d;
    RETURN moved;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

--
-- Name: fs_submission_json(public.submissions); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_json(s public.submissions) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                              'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at),
                              'status', s.owner_status, 'tags', to_jsonb(s.tags), 'note', s.note,
                              'version', s.owner_version, 'updatedAt', fs_ts(s.owner_updated_at))
           || CASE WHEN s.link_id IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata)
                        || COALESCE((SELECT jsonb_build_object('askId', a.id) FROM asks a
                                      WHERE a.link_id = s.link_id), '{}'::jsonb) END
           || CASE WHEN s.ending IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('ending', s.ending) END
           || CASE WHEN s.calculated IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('calculated', s.calculated) END
           || CASE WHEN s.spam_score IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('spamScore', s.spam_score) END
           || CASE WHEN s.captcha_unchecked IS NOT TRUE THEN '{}'::jsonb
                   ELSE jsonb_build_object('captchaUnchecked', true) END
          )::json $$;

--
-- Name: fs_submission_unique(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submission_unique(p_form text, p_hash text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('fs_uniq:' || p_form || ':' || p_hash, 0));
    RETURN NOT EXISTS (SELECT 1 FROM submissions WHERE form_id = p_form AND uniq_hash = p_hash);
END $$;

--
-- Name: fs_submissions_delete_batch(text, timestamp with time zone, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submissions_delete_batch(p_form text, p_before timestamp with time zone, lim integer) RETURNS integer
    LANGUAGE sql
    AS $$ WITH d AS (
       DELETE FROM submissions
        WHERE id IN (SELECT id FROM submissions
                      WHERE form_id = p_form AND created_at < p_before LIMIT lim)
       RETURNING form_id, user_id, spam),
   u AS (INSERT INTO submission_tally (form_id, user_id, month, n)
         SELECT form_id, user_id, NULL, -count(*)::integer FROM d WHERE NOT spam
          GROUP BY form_id, user_id
         RETURNING 1)
   SELECT count(*)::integer FROM d $$;

--
-- Name: fs_submissions_purge(text, text, text, timestamp with time zone, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_submissions_purge(p_id text, p_user text, p_form text, p_before timestamp with time zone, lim integer) RETURNS TABLE(outcome text, deleted integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM forms WHERE id = p_form AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, 0;
        RETURN;
    END IF;
    SELECT count(*) INTO n FROM (SELECT 1 FROM submissions
                                  WHERE form_id = p_form AND created_at < p_before
                                  LIMIT lim + 1) s;
    IF n > lim THEN
        INSERT INTO submission_purges (id, user_id, form_id, before)
        VALUES (p_id, p_user, p_form, p_before);
        RETURN QUERY SELECT 'queued'::text, 0;
        RETURN;
    END IF;
    n := fs_submissions_delete_batch(p_form, p_before, lim);
    INSERT INTO events (id, user_id, type, form_id, payload)
    VALUES (fs_new_id('evt_'), p_user, 'submissions.deleted', p_form,
            jsonb_build_object('formId', p_form, 'before', fs_ts(p_before), 'count', n,
                               'purgeId', NULL));
    RETURN QUERY SELECT 'deleted'::text, n;
END $$;

--
-- Name: fs_tally_rollup(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_tally_rollup(p_limit integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    moved integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('formsvc.fs_tally_rollup')) THEN
        RETURN -1;
    END IF;
    SET LOCAL lock_timeout = '200ms';
    WITH d AS (
        DELETE FROM submission_tally
         WHERE ctid = ANY (ARRAY(SELECT ctid FROM submission_tally LIMIT p_limit))
        RETURNING form_id, user_id, month, n),
    fc AS (
        INSERT INTO form_counts AS c (form_id, shard, n)
        SELECT form_id, 0, sum(n) FROM d GROUP BY form_id
        ON CONFLICT (form_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n),
    sm AS (
        INSERT INTO submission_months AS m (user_id, month, shard, received)
        SELECT user_id, month, 0, sum(n) FROM d WHERE month IS NOT NULL
         GROUP BY user_id, month
        ON CONFLICT (user_id, month, shard) DO UPDATE SET received = m.received + EXCLUDED.received)
    SELECT count(*) INTO moved FROM d;
    RETURN moved;
EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
END $$;

--
-- Name: fs_ts(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_ts(t timestamp with time zone) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id text NOT NULL,
    email text NOT NULL,
    email_norm text NOT NULL,
    verified boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone
);

--
-- Name: fs_user_json(public.users); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_user_json(u public.users) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object('id', u.id, 'email', u.email, 'verified', u.verified,
                            'createdAt', fs_ts(u.created_at)) $$;

--
-- Name: fs_utc_day(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_utc_day() RETURNS date
    LANGUAGE sql STABLE
    AS $$ SELECT (now() AT TIME ZONE 'UTC')::date $$;

--
-- Name: fs_utc_day(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_utc_day(t timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT date_trunc('day', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

--
-- Name: fs_utc_hour(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_utc_hour(t timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT date_trunc('hour', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

--
-- Name: webhooks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhooks (
    id text NOT NULL,
    user_id text NOT NULL,
    url text NOT NULL,
    events text[] NOT NULL,
    form_id text,
    secret text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    created_by text,
    enabled boolean DEFAULT true NOT NULL,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    failing_since timestamp with time zone,
    paused_at timestamp with time zone,
    pause_reason text
);

--
-- Name: fs_webhook_json(public.webhooks); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fs_webhook_json(w public.webhooks) RETURNS json
    LANGUAGE sql STABLE
    AS $$ SELECT json_build_object('id', w.id, 'url', w.url, 'events', to_json(w.events),
                            'formId', w.form_id, 'enabled', w.enabled,
                            'status', CASE WHEN w.paused_at IS NULL THEN 'active' ELSE 'paused' END,
                            'pausedAt', fs_ts(w.paused_at), 'pauseReason', w.pause_reason,
                            'consecutiveFailures', w.consecutive_failures,
                            'createdAt', fs_ts(w.created_at)) $$;

--
-- Name: account_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.account_codes (
    user_id text NOT NULL,
    purpose text NOT NULL,
    code_hash text NOT NULL,
    token_hash text,
    attempts integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT account_codes_purpose_check CHECK ((purpose = ANY (ARRAY['verify'::text, 'recover'::text])))
);

--
-- Name: events_before; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_before (
    id text NOT NULL,
    user_id text NOT NULL,
    type text NOT NULL,
    form_id text,
    submission_id text,
    payload jsonb NOT NULL,
    xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT events_before_partitions CHECK ((id < 'evt_<bound>'::text))
);

--
-- Name: file_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.file_usage (
    user_id text NOT NULL,
    shard smallint NOT NULL,
    bytes bigint NOT NULL
);

--
-- Name: form_closings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.form_closings (
    form_id text NOT NULL,
    closes_at timestamp with time zone NOT NULL,
    event_id text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);

--
-- Name: form_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.form_counts (
    form_id text NOT NULL,
    shard smallint NOT NULL,
    n integer NOT NULL
);

--
-- Name: form_view_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.form_view_days (
    form_id text NOT NULL,
    day timestamp with time zone NOT NULL,
    views bigint NOT NULL
);

--
-- Name: form_views; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.form_views (
    form_id text NOT NULL,
    hour timestamp with time zone NOT NULL,
    views bigint NOT NULL
);

--
-- Name: idempotency; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    status integer NOT NULL,
    location text,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: insight_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.insight_counts (
    form_id text NOT NULL,
    day date NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    n bigint NOT NULL
);

--
-- Name: insight_tally; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.insight_tally (
    form_id text NOT NULL,
    day date NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    n integer NOT NULL
);

--
-- Name: mail_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mail_daily (
    key text NOT NULL,
    day date NOT NULL,
    sent integer NOT NULL
);

--
-- Name: mail_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mail_jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    form_id text NOT NULL,
    submission_id text,
    recipient_id text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    leased_until timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    CONSTRAINT mail_jobs_kind_check CHECK ((kind = ANY (ARRAY['address'::text, 'each'::text, 'digest'::text, 'confirmation'::text])))
);

--
-- Name: mail_jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.mail_jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: mail_jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.mail_jobs_id_seq OWNED BY public.mail_jobs.id;

--
-- Name: mail_quota; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mail_quota (
    key text NOT NULL,
    sent timestamp with time zone[] DEFAULT '{}'::timestamp with time zone[] NOT NULL
);

--
-- Name: mcp_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_requests (
    id text NOT NULL,
    session_id text NOT NULL,
    user_id text NOT NULL,
    ask_id text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    answered_at timestamp with time zone,
    CONSTRAINT mcp_requests_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'answering'::text, 'accept'::text, 'decline'::text, 'cancel'::text, 'invalid'::text, 'ended'::text])))
);

--
-- Name: mcp_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_sessions (
    id text NOT NULL,
    user_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    seen_at timestamp with time zone DEFAULT now() NOT NULL,
    start_event text,
    elicitation boolean DEFAULT false NOT NULL
);

--
-- Name: mcp_streams; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_streams (
    id text NOT NULL,
    user_id text NOT NULL,
    session_id text NOT NULL,
    lease_until timestamp with time zone NOT NULL
);

--
-- Name: mcp_subscriptions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_subscriptions (
    session_id text NOT NULL,
    uri text NOT NULL,
    form_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: notify_recipients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notify_recipients (
    id text NOT NULL,
    form_id text NOT NULL,
    email text NOT NULL,
    email_norm text NOT NULL,
    status text NOT NULL,
    listed boolean DEFAULT true NOT NULL,
    token_hash text,
    token_expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    confirmed_at timestamp with time zone,
    unsubscribed_at timestamp with time zone,
    CONSTRAINT notify_recipients_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'confirmed'::text, 'unsubscribed'::text])))
);

--
-- Name: oauth_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_codes (
    code_hash text NOT NULL,
    grant_id text NOT NULL,
    redirect_uri text NOT NULL,
    challenge text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);

--
-- Name: oauth_logins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_logins (
    session_hash text NOT NULL,
    user_id text,
    code_hash text,
    code_user text,
    attempts integer DEFAULT 0 NOT NULL,
    proven_by text,
    proven_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

--
-- Name: oauth_refresh; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_refresh (
    token_hash text NOT NULL,
    grant_id text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);

--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    id text NOT NULL,
    recipient text NOT NULL,
    message text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    sent_at timestamp with time zone,
    failed_at timestamp with time zone,
    last_error text,
    user_id text,
    submission_id text,
    form_id text,
    submission_ids text[]
);

--
-- Name: partition_plan; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.partition_plan (
    tbl text NOT NULL,
    prefix text NOT NULL,
    bound text NOT NULL
);

--
-- Name: pepper_fingerprint; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pepper_fingerprint (
    one boolean DEFAULT true NOT NULL,
    fingerprint text NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pepper_fingerprint_fingerprint_check CHECK ((fingerprint ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT pepper_fingerprint_one_check CHECK (one)
);

--
-- Name: ratelimit; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.ratelimit (
    key text NOT NULL,
    count integer NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: submission_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_days (
    form_id text NOT NULL,
    day timestamp with time zone NOT NULL,
    submissions bigint NOT NULL,
    spam bigint NOT NULL
);

--
-- Name: submission_file_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_file_chunks (
    file_id text NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL
)
PARTITION BY RANGE (file_id);
ALTER TABLE ONLY public.submission_file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

--
-- Name: submission_file_chunks_before; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_file_chunks_before (
    file_id text NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL,
    CONSTRAINT submission_file_chunks_before_partitions CHECK ((file_id < 'fil_<bound>'::text))
);
ALTER TABLE ONLY public.submission_file_chunks_before ALTER COLUMN data SET STORAGE EXTERNAL;

--
-- Name: submission_files; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_files (
    id text NOT NULL,
    submission_id text NOT NULL,
    user_id text NOT NULL,
    field_key text NOT NULL,
    name text NOT NULL,
    content_type text NOT NULL,
    size bigint DEFAULT 0 NOT NULL,
    sha256 text,
    chunks integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
)
PARTITION BY RANGE (id);

--
-- Name: submission_files_before; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_files_before (
    id text NOT NULL,
    submission_id text NOT NULL,
    user_id text NOT NULL,
    field_key text NOT NULL,
    name text NOT NULL,
    content_type text NOT NULL,
    size bigint DEFAULT 0 NOT NULL,
    sha256 text,
    chunks integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT submission_files_before_partitions CHECK ((id < 'fil_<bound>'::text))
);

--
-- Name: submission_hour_tally; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_hour_tally (
    form_id text NOT NULL,
    hour timestamp with time zone NOT NULL,
    submissions integer NOT NULL,
    spam integer NOT NULL
);

--
-- Name: submission_hours; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_hours (
    form_id text NOT NULL,
    hour timestamp with time zone NOT NULL,
    submissions bigint NOT NULL,
    spam bigint NOT NULL
);

--
-- Name: submission_hours_backlog; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_hours_backlog (
    form_id text NOT NULL,
    tried_at timestamp with time zone
);

--
-- Name: submission_months; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_months (
    user_id text NOT NULL,
    month date NOT NULL,
    shard smallint DEFAULT 0 NOT NULL,
    received integer NOT NULL
);

--
-- Name: submission_purges; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_purges (
    id text NOT NULL,
    user_id text NOT NULL,
    form_id text NOT NULL,
    before timestamp with time zone NOT NULL,
    deleted bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    finished_at timestamp with time zone
);

--
-- Name: submission_state_forms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_state_forms (
    form_id text NOT NULL
);

--
-- Name: submission_tally; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_tally (
    form_id text NOT NULL,
    user_id text NOT NULL,
    month date,
    n integer NOT NULL
);

--
-- Name: submission_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_versions (
    submission_id text NOT NULL,
    version integer NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    form_version integer NOT NULL,
    data jsonb NOT NULL,
    ending text,
    created_at timestamp with time zone NOT NULL
)
PARTITION BY RANGE (submission_id);

--
-- Name: submission_versions_before; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submission_versions_before (
    submission_id text NOT NULL,
    version integer NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    form_version integer NOT NULL,
    data jsonb NOT NULL,
    ending text,
    created_at timestamp with time zone NOT NULL
);

--
-- Name: submissions_before; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submissions_before (
    id text NOT NULL,
    form_id text NOT NULL,
    user_id text NOT NULL,
    form_version integer NOT NULL,
    data jsonb NOT NULL,
    spam boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    uniq_hash text,
    link_id text,
    link_metadata jsonb,
    owner_status text DEFAULT 'new'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    note text,
    owner_version integer DEFAULT 1 NOT NULL,
    owner_updated_at timestamp with time zone,
    ending text,
    calculated jsonb,
    spam_score smallint,
    captcha_unchecked boolean,
    CONSTRAINT submissions_before_partitions CHECK ((id < 'sub_<bound>'::text))
);

--
-- Name: token_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.token_failures (
    addr text NOT NULL,
    win bigint NOT NULL,
    n integer NOT NULL
);

--
-- Name: COLUMN token_failures.addr; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.token_failures.addr IS 'fs_rl_address_key: keyed hash of the client /64 (IPv6) or address (IPv4), never the raw address';

--
-- Name: events_before; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_before FOR VALUES FROM (MINVALUE) TO ('evt_<bound>');

--
-- Name: submission_file_chunks_before; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_file_chunks ATTACH PARTITION public.submission_file_chunks_before FOR VALUES FROM (MINVALUE) TO ('fil_<bound>');

--
-- Name: submission_files_before; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_files ATTACH PARTITION public.submission_files_before FOR VALUES FROM (MINVALUE) TO ('fil_<bound>');

--
-- Name: submission_versions_before; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_versions ATTACH PARTITION public.submission_versions_before FOR VALUES FROM (MINVALUE) TO ('sub_<bound>');

--
-- Name: submissions_before; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submissions ATTACH PARTITION public.submissions_before FOR VALUES FROM (MINVALUE) TO ('sub_<bound>');

--
-- Name: mail_jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_jobs ALTER COLUMN id SET DEFAULT nextval('public.mail_jobs_id_seq'::regclass);

--
-- Name: account_codes account_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_codes
    ADD CONSTRAINT account_codes_pkey PRIMARY KEY (user_id, purpose);

--
-- Name: asks asks_link_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.asks
    ADD CONSTRAINT asks_link_id_key UNIQUE (link_id);

--
-- Name: asks asks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.asks
    ADD CONSTRAINT asks_pkey PRIMARY KEY (id);

--
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (id);

--
-- Name: clients clients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clients
    ADD CONSTRAINT clients_pkey PRIMARY KEY (id);

--
-- Name: clients clients_secret_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clients
    ADD CONSTRAINT clients_secret_hash_key UNIQUE (secret_hash);

--
-- Name: deliveries deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id);

--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

--
-- Name: events_before events_before_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_before
    ADD CONSTRAINT events_before_pkey PRIMARY KEY (id);

--
-- Name: events events_type_check; Type: CHECK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.events
    ADD CONSTRAINT events_type_check CHECK ((type = ANY ('{ask.answered,ask.declined,ask.expired,form.closed,form.published,submission.created,submission.updated,submissions.deleted,submissions.erased,webhook.paused,webhook.test,submission.partial,submission.completed}'::text[]))) NOT VALID;

--
-- Name: file_usage file_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.file_usage
    ADD CONSTRAINT file_usage_pkey PRIMARY KEY (user_id, shard);

--
-- Name: form_closings form_closings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_closings
    ADD CONSTRAINT form_closings_pkey PRIMARY KEY (form_id, closes_at);

--
-- Name: form_counts form_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_counts
    ADD CONSTRAINT form_counts_pkey PRIMARY KEY (form_id, shard);

--
-- Name: form_view_days form_view_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_view_days
    ADD CONSTRAINT form_view_days_pkey PRIMARY KEY (form_id, day);

--
-- Name: form_views form_views_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_views
    ADD CONSTRAINT form_views_pkey PRIMARY KEY (form_id, hour);

--
-- Name: forms forms_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_pkey PRIMARY KEY (id);

--
-- Name: forms forms_slug_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_slug_key UNIQUE (slug);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (scope, key);

--
-- Name: insight_counts insight_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.insight_counts
    ADD CONSTRAINT insight_counts_pkey PRIMARY KEY (form_id, day, key, kind, value);

--
-- Name: keys keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_pkey PRIMARY KEY (id);

--
-- Name: keys keys_secret_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_secret_hash_key UNIQUE (secret_hash);

--
-- Name: links links_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.links
    ADD CONSTRAINT links_pkey PRIMARY KEY (id);

--
-- Name: links links_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.links
    ADD CONSTRAINT links_token_hash_key UNIQUE (token_hash);

--
-- Name: mail_daily mail_daily_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_daily
    ADD CONSTRAINT mail_daily_pkey PRIMARY KEY (key, day);

--
-- Name: mail_jobs mail_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_pkey PRIMARY KEY (id);

--
-- Name: mail_quota mail_quota_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_quota
    ADD CONSTRAINT mail_quota_pkey PRIMARY KEY (key);

--
-- Name: mcp_requests mcp_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_requests
    ADD CONSTRAINT mcp_requests_pkey PRIMARY KEY (id);

--
-- Name: mcp_sessions mcp_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_sessions
    ADD CONSTRAINT mcp_sessions_pkey PRIMARY KEY (id);

--
-- Name: mcp_streams mcp_streams_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_streams
    ADD CONSTRAINT mcp_streams_pkey PRIMARY KEY (id);

--
-- Name: mcp_subscriptions mcp_subscriptions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_subscriptions
    ADD CONSTRAINT mcp_subscriptions_pkey PRIMARY KEY (session_id, uri);

--
-- Name: notify_recipients notify_recipients_form_id_email_norm_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notify_recipients
    ADD CONSTRAINT notify_recipients_form_id_email_norm_key UNIQUE (form_id, email_norm);

--
-- Name: notify_recipients notify_recipients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notify_recipients
    ADD CONSTRAINT notify_recipients_pkey PRIMARY KEY (id);

--
-- Name: oauth_apps oauth_apps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_apps
    ADD CONSTRAINT oauth_apps_pkey PRIMARY KEY (id);

--
-- Name: oauth_codes oauth_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_pkey PRIMARY KEY (code_hash);

--
-- Name: oauth_grants oauth_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_pkey PRIMARY KEY (id);

--
-- Name: oauth_logins oauth_logins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_logins
    ADD CONSTRAINT oauth_logins_pkey PRIMARY KEY (session_hash);

--
-- Name: oauth_refresh oauth_refresh_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh
    ADD CONSTRAINT oauth_refresh_pkey PRIMARY KEY (token_hash);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: partition_plan partition_plan_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.partition_plan
    ADD CONSTRAINT partition_plan_pkey PRIMARY KEY (tbl);

--
-- Name: pepper_fingerprint pepper_fingerprint_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pepper_fingerprint
    ADD CONSTRAINT pepper_fingerprint_pkey PRIMARY KEY (one);

--
-- Name: ratelimit ratelimit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ratelimit
    ADD CONSTRAINT ratelimit_pkey PRIMARY KEY (key);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

--
-- Name: submission_days submission_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_days
    ADD CONSTRAINT submission_days_pkey PRIMARY KEY (form_id, day);

--
-- Name: submission_file_chunks submission_file_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_file_chunks
    ADD CONSTRAINT submission_file_chunks_pkey PRIMARY KEY (file_id, seq);

--
-- Name: submission_file_chunks_before submission_file_chunks_before_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_file_chunks_before
    ADD CONSTRAINT submission_file_chunks_before_pkey PRIMARY KEY (file_id, seq);

--
-- Name: submission_files submission_files_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_files
    ADD CONSTRAINT submission_files_pkey PRIMARY KEY (id);

--
-- Name: submission_files_before submission_files_before_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_files_before
    ADD CONSTRAINT submission_files_before_pkey PRIMARY KEY (id);

--
-- Name: submission_hours_backlog submission_hours_backlog_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_hours_backlog
    ADD CONSTRAINT submission_hours_backlog_pkey PRIMARY KEY (form_id);

--
-- Name: submission_hours submission_hours_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_hours
    ADD CONSTRAINT submission_hours_pkey PRIMARY KEY (form_id, hour);

--
-- Name: submission_months submission_months_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_months
    ADD CONSTRAINT submission_months_pkey PRIMARY KEY (user_id, month, shard);

--
-- Name: submission_partials submission_partials_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_partials
    ADD CONSTRAINT submission_partials_pkey PRIMARY KEY (id);

--
-- Name: submission_purges submission_purges_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_purges
    ADD CONSTRAINT submission_purges_pkey PRIMARY KEY (id);

--
-- Name: submission_state_forms submission_state_forms_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_state_forms
    ADD CONSTRAINT submission_state_forms_pkey PRIMARY KEY (form_id);

--
-- Name: submission_versions submission_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_versions
    ADD CONSTRAINT submission_versions_pkey PRIMARY KEY (submission_id, version);

--
-- Name: submission_versions_before submission_versions_before_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_versions_before
    ADD CONSTRAINT submission_versions_before_pkey PRIMARY KEY (submission_id, version);

--
-- Name: submissions submissions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submissions
    ADD CONSTRAINT submissions_pkey PRIMARY KEY (id);

--
-- Name: submissions_before submissions_before_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submissions_before
    ADD CONSTRAINT submissions_before_pkey PRIMARY KEY (id);

--
-- Name: token_failures token_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_failures
    ADD CONSTRAINT token_failures_pkey PRIMARY KEY (addr);

--
-- Name: users users_email_norm_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_norm_key UNIQUE (email_norm);

--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

--
-- Name: webhooks webhooks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

--
-- Name: account_codes_token; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX account_codes_token ON public.account_codes USING btree (token_hash) WHERE (token_hash IS NOT NULL);

--
-- Name: asks_expiring; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX asks_expiring ON public.asks USING btree (expires_at) WHERE ((answered_at IS NULL) AND (declined_at IS NULL) AND (expired_at IS NULL));

--
-- Name: asks_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX asks_form ON public.asks USING btree (form_id);

--
-- Name: asks_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX asks_user ON public.asks USING btree (user_id, id DESC);

--
-- Name: audit_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_created ON public.audit USING btree (created_at);

--
-- Name: audit_user_actor; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_user_actor ON public.audit USING btree (user_id, actor, id DESC) WHERE (actor IS NOT NULL);

--
-- Name: audit_user_credential; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_user_credential ON public.audit USING btree (user_id, credential_id, id DESC);

--
-- Name: audit_user_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_user_form ON public.audit USING btree (user_id, form_id, id DESC) WHERE (form_id IS NOT NULL);

--
-- Name: audit_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_user_id ON public.audit USING btree (user_id, id DESC);

--
-- Name: clients_created_by; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX clients_created_by ON public.clients USING btree (created_by) WHERE (created_by IS NOT NULL);

--
-- Name: clients_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX clients_user_id ON public.clients USING btree (user_id, id DESC);

--
-- Name: deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_due ON public.deliveries USING btree (next_at) WHERE (status = 'pending'::text);

--
-- Name: deliveries_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_event ON public.deliveries USING btree (event_id);

--
-- Name: deliveries_leased; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_leased ON public.deliveries USING btree (webhook_id) WHERE (leased_until IS NOT NULL);

--
-- Name: deliveries_pending_webhook; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_pending_webhook ON public.deliveries USING btree (webhook_id, next_at) WHERE (status = 'pending'::text);

--
-- Name: deliveries_webhook; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deliveries_webhook ON public.deliveries USING btree (webhook_id, id DESC);

--
-- Name: events_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_created ON ONLY public.events USING btree (created_at);

--
-- Name: events_before_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_before_created ON public.events_before USING btree (created_at);

--
-- Name: events_feed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_feed ON ONLY public.events USING btree (user_id, xid, id);

--
-- Name: events_before_feed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_before_feed ON public.events_before USING btree (user_id, xid, id);

--
-- Name: events_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_submission ON ONLY public.events USING btree (submission_id) WHERE (submission_id IS NOT NULL);

--
-- Name: events_before_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_before_submission ON public.events_before USING btree (submission_id) WHERE (submission_id IS NOT NULL);

--
-- Name: forms_closes_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX forms_closes_at ON public.forms USING btree (public.fs_public_closes_at(settings)) WHERE ((status = 'published'::text) AND (deleted_at IS NULL));

--
-- Name: forms_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX forms_user_id ON public.forms USING btree (user_id, id DESC);

--
-- Name: idempotency_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_created ON public.idempotency USING btree (created_at);

--
-- Name: insight_counts_zero; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX insight_counts_zero ON public.insight_counts USING btree (form_id) WHERE (n = 0);

--
-- Name: insight_tally_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX insight_tally_form ON public.insight_tally USING btree (form_id, day);

--
-- Name: keys_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX keys_client ON public.keys USING btree (client_id) WHERE (client_id IS NOT NULL);

--
-- Name: keys_grant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX keys_grant ON public.keys USING btree (grant_id) WHERE (grant_id IS NOT NULL);

--
-- Name: keys_parent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX keys_parent ON public.keys USING btree (parent_key_id) WHERE (parent_key_id IS NOT NULL);

--
-- Name: keys_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX keys_user_id ON public.keys USING btree (user_id, id DESC);

--
-- Name: links_created_by; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX links_created_by ON public.links USING btree (created_by) WHERE (created_by IS NOT NULL);

--
-- Name: links_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX links_form ON public.links USING btree (form_id, id DESC) WHERE (deleted_at IS NULL);

--
-- Name: mail_jobs_digest; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mail_jobs_digest ON public.mail_jobs USING btree (form_id, created_at) WHERE (kind = 'digest'::text);

--
-- Name: mail_jobs_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mail_jobs_due ON public.mail_jobs USING btree (leased_until, id);

--
-- Name: mail_jobs_recipient; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mail_jobs_recipient ON public.mail_jobs USING btree (recipient_id) WHERE (recipient_id IS NOT NULL);

--
-- Name: mail_jobs_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mail_jobs_submission ON public.mail_jobs USING btree (submission_id) WHERE (submission_id IS NOT NULL);

--
-- Name: mcp_requests_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_requests_created ON public.mcp_requests USING btree (created_at);

--
-- Name: mcp_requests_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_requests_session ON public.mcp_requests USING btree (session_id);

--
-- Name: mcp_sessions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_sessions_user ON public.mcp_sessions USING btree (user_id, seen_at);

--
-- Name: mcp_streams_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_streams_user ON public.mcp_streams USING btree (user_id);

--
-- Name: notify_recipients_token; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX notify_recipients_token ON public.notify_recipients USING btree (token_hash) WHERE (token_hash IS NOT NULL);

--
-- Name: oauth_apps_unused; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_apps_unused ON public.oauth_apps USING btree (created_at) WHERE (authorized_at IS NULL);

--
-- Name: oauth_grants_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_grants_user ON public.oauth_grants USING btree (user_id, id);

--
-- Name: oauth_refresh_grant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_refresh_grant ON public.oauth_refresh USING btree (grant_id);

--
-- Name: outbox_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_due ON public.outbox USING btree (next_attempt_at) WHERE ((sent_at IS NULL) AND (failed_at IS NULL));

--
-- Name: outbox_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_form ON public.outbox USING btree (form_id) WHERE (form_id IS NOT NULL);

--
-- Name: outbox_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_submission ON public.outbox USING btree (submission_id) WHERE (submission_id IS NOT NULL);

--
-- Name: outbox_submission_ids; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_submission_ids ON public.outbox USING gin (submission_ids) WHERE (submission_ids IS NOT NULL);

--
-- Name: outbox_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX outbox_user ON public.outbox USING btree (user_id) WHERE (user_id IS NOT NULL);

--
-- Name: ratelimit_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ratelimit_expires ON public.ratelimit USING btree (expires_at);

--
-- Name: submission_files_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_files_submission ON ONLY public.submission_files USING btree (submission_id);

--
-- Name: submission_files_before_submission; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_files_before_submission ON public.submission_files_before USING btree (submission_id);

--
-- Name: submission_files_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_files_user ON ONLY public.submission_files USING btree (user_id) INCLUDE (size);

--
-- Name: submission_files_before_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_files_before_user ON public.submission_files_before USING btree (user_id) INCLUDE (size);

--
-- Name: submission_hour_tally_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_hour_tally_form ON public.submission_hour_tally USING btree (form_id, hour);

--
-- Name: submission_partials_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_partials_expires ON public.submission_partials USING btree (expires_at);

--
-- Name: submission_partials_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_partials_form ON public.submission_partials USING btree (form_id, id);

--
-- Name: submission_partials_resume; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX submission_partials_resume ON public.submission_partials USING btree (resume_hash);

--
-- Name: submission_purges_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_purges_pending ON public.submission_purges USING btree (created_at) WHERE (finished_at IS NULL);

--
-- Name: submission_tally_form; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_tally_form ON public.submission_tally USING btree (form_id);

--
-- Name: submission_tally_month; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_tally_month ON public.submission_tally USING btree (user_id, month) WHERE (month IS NOT NULL);

--
-- Name: submission_versions_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_versions_user ON ONLY public.submission_versions USING btree (user_id, submission_id, version);

--
-- Name: submission_versions_before_user_id_submission_id_version_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submission_versions_before_user_id_submission_id_version_idx ON public.submission_versions_before USING btree (user_id, submission_id, version);

--
-- Name: submissions_form_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_form_created ON ONLY public.submissions USING btree (form_id, created_at);

--
-- Name: submissions_before_form_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_before_form_created ON public.submissions_before USING btree (form_id, created_at);

--
-- Name: submissions_form_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_form_id ON ONLY public.submissions USING btree (form_id, id DESC);

--
-- Name: submissions_before_form_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_before_form_id ON public.submissions_before USING btree (form_id, id DESC);

--
-- Name: submissions_link; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_link ON ONLY public.submissions USING btree (link_id) WHERE (link_id IS NOT NULL);

--
-- Name: submissions_before_link; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_before_link ON public.submissions_before USING btree (link_id) WHERE (link_id IS NOT NULL);

--
-- Name: submissions_before_uniq; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX submissions_before_uniq ON public.submissions_before USING btree (form_id, uniq_hash) WHERE (uniq_hash IS NOT NULL);

--
-- Name: submissions_uniq_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_uniq_hash ON ONLY public.submissions USING btree (form_id, uniq_hash) WHERE (uniq_hash IS NOT NULL);

--
-- Name: submissions_before_uniq_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_before_uniq_hash ON public.submissions_before USING btree (form_id, uniq_hash) WHERE (uniq_hash IS NOT NULL);

--
-- Name: submissions_user_month; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_user_month ON ONLY public.submissions USING btree (user_id, created_at) WHERE (NOT spam);

--
-- Name: submissions_before_user_month; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX submissions_before_user_month ON public.submissions_before USING btree (user_id, created_at) WHERE (NOT spam);

--
-- Name: users_deleted; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_deleted ON public.users USING btree (deleted_at) WHERE (deleted_at IS NOT NULL);

--
-- Name: webhooks_created_by; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhooks_created_by ON public.webhooks USING btree (created_by) WHERE (created_by IS NOT NULL);

--
-- Name: webhooks_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhooks_user ON public.webhooks USING btree (user_id, id DESC);

--
-- Name: events_before_created; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_created ATTACH PARTITION public.events_before_created;

--
-- Name: events_before_feed; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_feed ATTACH PARTITION public.events_before_feed;

--
-- Name: events_before_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_before_pkey;

--
-- Name: events_before_submission; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_submission ATTACH PARTITION public.events_before_submission;

--
-- Name: submission_file_chunks_before_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_file_chunks_pkey ATTACH PARTITION public.submission_file_chunks_before_pkey;

--
-- Name: submission_files_before_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_files_pkey ATTACH PARTITION public.submission_files_before_pkey;

--
-- Name: submission_files_before_submission; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_files_submission ATTACH PARTITION public.submission_files_before_submission;

--
-- Name: submission_files_before_user; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_files_user ATTACH PARTITION public.submission_files_before_user;

--
-- Name: submission_versions_before_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_versions_pkey ATTACH PARTITION public.submission_versions_before_pkey;

--
-- Name: submission_versions_before_user_id_submission_id_version_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submission_versions_user ATTACH PARTITION public.submission_versions_before_user_id_submission_id_version_idx;

--
-- Name: submissions_before_form_created; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_form_created ATTACH PARTITION public.submissions_before_form_created;

--
-- Name: submissions_before_form_id; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_form_id ATTACH PARTITION public.submissions_before_form_id;

--
-- Name: submissions_before_link; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_link ATTACH PARTITION public.submissions_before_link;

--
-- Name: submissions_before_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_pkey ATTACH PARTITION public.submissions_before_pkey;

--
-- Name: submissions_before_uniq_hash; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_uniq_hash ATTACH PARTITION public.submissions_before_uniq_hash;

--
-- Name: submissions_before_user_month; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.submissions_user_month ATTACH PARTITION public.submissions_before_user_month;

--
-- Name: submissions_before_form_user; Type: STATISTICS; Schema: public; Owner: -
--

CREATE STATISTICS public.submissions_before_form_user (dependencies) ON form_id, user_id FROM public.submissions_before;

--
-- Name: submissions_form_user; Type: STATISTICS; Schema: public; Owner: -
--

CREATE STATISTICS public.submissions_form_user (dependencies) ON form_id, user_id FROM public.submissions;

--
-- Name: asks asks_link_required; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER asks_link_required AFTER INSERT ON public.asks FOR EACH ROW EXECUTE FUNCTION public.fs_ask_form_link_required();

--
-- Name: events events_asks; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_asks AFTER INSERT ON public.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION public.fs_asks_answer();

--
-- Name: events events_fanout; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_fanout AFTER INSERT ON public.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION public.fs_events_fanout();

--
-- Name: events events_mail; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_mail AFTER INSERT ON public.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION public.fs_events_mail();

--
-- Name: form_views form_views_days_added; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER form_views_days_added AFTER INSERT ON public.form_views REFERENCING NEW TABLE AS new_views FOR EACH STATEMENT EXECUTE FUNCTION public.fs_form_view_days_add();

--
-- Name: form_views form_views_days_removed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER form_views_days_removed AFTER DELETE ON public.form_views REFERENCING OLD TABLE AS old_views FOR EACH STATEMENT EXECUTE FUNCTION public.fs_form_view_days_add();

--
-- Name: form_views form_views_days_updated; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER form_views_days_updated AFTER UPDATE ON public.form_views REFERENCING OLD TABLE AS old_views NEW TABLE AS new_views FOR EACH STATEMENT EXECUTE FUNCTION public.fs_form_view_days_add();

--
-- Name: forms forms_cache_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER forms_cache_notify AFTER INSERT OR DELETE ON public.forms FOR EACH ROW EXECUTE FUNCTION public.fs_cache_notify_form();

--
-- Name: forms forms_cache_notify_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER forms_cache_notify_update AFTER UPDATE ON public.forms FOR EACH ROW WHEN ((old.* IS DISTINCT FROM new.*)) EXECUTE FUNCTION public.fs_cache_notify_form();

--
-- Name: forms forms_forget; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER forms_forget AFTER DELETE ON public.forms FOR EACH ROW EXECUTE FUNCTION public.fs_form_forget();

--
-- Name: forms forms_notify_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER forms_notify_insert AFTER INSERT ON public.forms FOR EACH ROW WHEN ((((new.settings -> 'notify'::text) IS NOT NULL) AND ((new.settings -> 'notify'::text) <> 'null'::jsonb))) EXECUTE FUNCTION public.fs_notify_sync();

--
-- Name: forms forms_notify_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER forms_notify_update AFTER UPDATE OF settings ON public.forms FOR EACH ROW WHEN (((old.settings -> 'notify'::text) IS DISTINCT FROM (new.settings -> 'notify'::text))) EXECUTE FUNCTION public.fs_notify_sync();

--
-- Name: keys keys_cache_notify_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER keys_cache_notify_delete AFTER DELETE ON public.keys FOR EACH ROW EXECUTE FUNCTION public.fs_cache_notify_key();

--
-- Name: keys keys_cache_notify_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER keys_cache_notify_update AFTER UPDATE ON public.keys FOR EACH ROW WHEN ((((to_jsonb(old.*) - 'last_used_at'::text) IS DISTINCT FROM (to_jsonb(new.*) - 'last_used_at'::text)) OR ((old.last_used_at IS NOT NULL) AND (new.last_used_at IS NULL)) OR (new.last_used_at < old.last_used_at))) EXECUTE FUNCTION public.fs_cache_notify_key();

--
-- Name: submission_files submission_files_usage; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submission_files_usage AFTER INSERT OR DELETE OR UPDATE OF size, user_id ON public.submission_files FOR EACH ROW EXECUTE FUNCTION public.fs_file_usage_count();

--
-- Name: submission_partials submission_partials_forget; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submission_partials_forget AFTER DELETE ON public.submission_partials REFERENCING OLD TABLE AS old_partials FOR EACH STATEMENT EXECUTE FUNCTION public.fs_partial_forget();

--
-- Name: submissions submissions_forget; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_forget AFTER DELETE ON public.submissions FOR EACH ROW EXECUTE FUNCTION public.fs_submission_forget();

--
-- Name: submissions submissions_hours_added; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_hours_added AFTER INSERT ON public.submissions REFERENCING NEW TABLE AS added_submissions FOR EACH STATEMENT EXECUTE FUNCTION public.fs_submission_hours_added();

--
-- Name: submissions submissions_hours_removed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_hours_removed AFTER DELETE ON public.submissions REFERENCING OLD TABLE AS removed_submissions FOR EACH STATEMENT EXECUTE FUNCTION public.fs_submission_hours_removed();

--
-- Name: submissions submissions_insight_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_insight_delete AFTER DELETE ON public.submissions REFERENCING OLD TABLE AS old_subs FOR EACH STATEMENT EXECUTE FUNCTION public.fs_insight_count();

--
-- Name: submissions submissions_insight_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_insight_insert AFTER INSERT ON public.submissions REFERENCING NEW TABLE AS new_subs FOR EACH STATEMENT EXECUTE FUNCTION public.fs_insight_count();

--
-- Name: submissions submissions_insight_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER submissions_insight_update AFTER UPDATE ON public.submissions REFERENCING OLD TABLE AS old_subs NEW TABLE AS new_subs FOR EACH STATEMENT EXECUTE FUNCTION public.fs_insight_count_update();

--
-- Name: users users_cache_notify; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_cache_notify AFTER UPDATE ON public.users FOR EACH ROW WHEN ((old.* IS DISTINCT FROM new.*)) EXECUTE FUNCTION public.fs_cache_notify_user();

--
-- Name: account_codes account_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_codes
    ADD CONSTRAINT account_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: asks asks_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.asks
    ADD CONSTRAINT asks_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: asks asks_link_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.asks
    ADD CONSTRAINT asks_link_id_fkey FOREIGN KEY (link_id) REFERENCES public.links(id) ON DELETE CASCADE;

--
-- Name: asks asks_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.asks
    ADD CONSTRAINT asks_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: audit audit_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: clients clients_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clients
    ADD CONSTRAINT clients_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: deliveries deliveries_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deliveries
    ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;

--
-- Name: deliveries deliveries_webhook_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deliveries
    ADD CONSTRAINT deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;

--
-- Name: events events_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.events
    ADD CONSTRAINT events_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: file_usage file_usage_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.file_usage
    ADD CONSTRAINT file_usage_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: form_closings form_closings_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_closings
    ADD CONSTRAINT form_closings_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: form_counts form_counts_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_counts
    ADD CONSTRAINT form_counts_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: form_view_days form_view_days_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_view_days
    ADD CONSTRAINT form_view_days_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: form_views form_views_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.form_views
    ADD CONSTRAINT form_views_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: forms forms_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forms
    ADD CONSTRAINT forms_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: insight_counts insight_counts_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.insight_counts
    ADD CONSTRAINT insight_counts_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: keys keys_parent_key_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_parent_key_id_fkey FOREIGN KEY (parent_key_id) REFERENCES public.keys(id) ON DELETE CASCADE;

--
-- Name: keys keys_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.keys
    ADD CONSTRAINT keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: links links_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.links
    ADD CONSTRAINT links_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: links links_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.links
    ADD CONSTRAINT links_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: mail_jobs mail_jobs_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: mail_jobs mail_jobs_recipient_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_recipient_id_fkey FOREIGN KEY (recipient_id) REFERENCES public.notify_recipients(id) ON DELETE CASCADE;

--
-- Name: mail_jobs mail_jobs_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submissions(id) ON DELETE CASCADE;

--
-- Name: mcp_requests mcp_requests_ask_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_requests
    ADD CONSTRAINT mcp_requests_ask_id_fkey FOREIGN KEY (ask_id) REFERENCES public.asks(id) ON DELETE CASCADE;

--
-- Name: mcp_requests mcp_requests_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_requests
    ADD CONSTRAINT mcp_requests_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.mcp_sessions(id) ON DELETE CASCADE;

--
-- Name: mcp_requests mcp_requests_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_requests
    ADD CONSTRAINT mcp_requests_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: mcp_sessions mcp_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_sessions
    ADD CONSTRAINT mcp_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: mcp_streams mcp_streams_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_streams
    ADD CONSTRAINT mcp_streams_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: mcp_subscriptions mcp_subscriptions_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_subscriptions
    ADD CONSTRAINT mcp_subscriptions_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.mcp_sessions(id) ON DELETE CASCADE;

--
-- Name: notify_recipients notify_recipients_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notify_recipients
    ADD CONSTRAINT notify_recipients_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: oauth_codes oauth_codes_grant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_codes
    ADD CONSTRAINT oauth_codes_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES public.oauth_grants(id) ON DELETE CASCADE;

--
-- Name: oauth_grants oauth_grants_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.oauth_apps(id) ON DELETE CASCADE;

--
-- Name: oauth_grants oauth_grants_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_logins oauth_logins_code_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_logins
    ADD CONSTRAINT oauth_logins_code_user_fkey FOREIGN KEY (code_user) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_logins oauth_logins_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_logins
    ADD CONSTRAINT oauth_logins_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: oauth_refresh oauth_refresh_grant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh
    ADD CONSTRAINT oauth_refresh_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES public.oauth_grants(id) ON DELETE CASCADE;

--
-- Name: submission_days submission_days_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_days
    ADD CONSTRAINT submission_days_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_file_chunks submission_file_chunks_file_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submission_file_chunks
    ADD CONSTRAINT submission_file_chunks_file_id_fkey FOREIGN KEY (file_id) REFERENCES public.submission_files(id) ON DELETE CASCADE;

--
-- Name: submission_files submission_files_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submission_files
    ADD CONSTRAINT submission_files_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submissions(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED;

--
-- Name: submission_files submission_files_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submission_files
    ADD CONSTRAINT submission_files_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: submission_hour_tally submission_hour_tally_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_hour_tally
    ADD CONSTRAINT submission_hour_tally_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_hours_backlog submission_hours_backlog_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_hours_backlog
    ADD CONSTRAINT submission_hours_backlog_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_hours submission_hours_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_hours
    ADD CONSTRAINT submission_hours_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_months submission_months_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_months
    ADD CONSTRAINT submission_months_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: submission_partials submission_partials_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_partials
    ADD CONSTRAINT submission_partials_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_partials submission_partials_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_partials
    ADD CONSTRAINT submission_partials_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: submission_purges submission_purges_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_purges
    ADD CONSTRAINT submission_purges_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_purges submission_purges_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_purges
    ADD CONSTRAINT submission_purges_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: submission_state_forms submission_state_forms_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_state_forms
    ADD CONSTRAINT submission_state_forms_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_tally submission_tally_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_tally
    ADD CONSTRAINT submission_tally_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submission_tally submission_tally_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submission_tally
    ADD CONSTRAINT submission_tally_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: submission_versions submission_versions_submission_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submission_versions
    ADD CONSTRAINT submission_versions_submission_id_fkey FOREIGN KEY (submission_id) REFERENCES public.submissions(id) ON DELETE CASCADE;

--
-- Name: submissions submissions_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submissions
    ADD CONSTRAINT submissions_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: submissions submissions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.submissions
    ADD CONSTRAINT submissions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: webhooks webhooks_form_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_form_id_fkey FOREIGN KEY (form_id) REFERENCES public.forms(id) ON DELETE CASCADE;

--
-- Name: webhooks webhooks_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--

