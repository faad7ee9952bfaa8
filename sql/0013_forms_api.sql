-- 0013: the owner API of forms, fields and submissions: JSON
-- representations, the effective status, and the writes that must be
-- atomic (quota + insert, optimistic concurrency, state transitions).
--
-- Writes are PL/pgSQL functions so that a unique-slug conflict becomes an
-- outcome instead of an error, and so that each statement inside sees the
-- rows committed before it (READ COMMITTED), which makes the count quota
-- exact under concurrency: the user's row is locked first.

-- Non-spam submissions of a form, counted in 16 shards: each submission
-- raises a random shard, so concurrent submissions to one form do not queue
-- on one row lock until commit (with one counter row, POST throughput to a
-- form was bounded near 500 a second by commit latency).
CREATE TABLE form_counts (
    form_id text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    shard   smallint NOT NULL,
    n       integer NOT NULL,
    PRIMARY KEY (form_id, shard)
);

CREATE FUNCTION fs_form_count(fid text) RETURNS bigint
LANGUAGE sql STABLE AS
$$ SELECT COALESCE(sum(n), 0) FROM form_counts WHERE form_id = fid $$;

-- The status a form really has now: a published form whose closesAt has
-- passed, or which holds maxSubmissions submissions, is closed by itself.
-- Nothing is written when that happens; every reader (the owner API, the
-- public pages) evaluates this function.
CREATE FUNCTION fs_form_status(f forms) RETURNS text
LANGUAGE sql STABLE AS
$$ SELECT CASE
       WHEN f.status = 'published' AND (
            (jsonb_typeof(f.settings->'closesAt') = 'string'
             AND (f.settings->>'closesAt')::timestamptz <= now())
         OR (jsonb_typeof(f.settings->'maxSubmissions') = 'number'
             AND fs_form_count(f.id) >= (f.settings->>'maxSubmissions')::numeric))
       THEN 'closed' ELSE f.status END $$;

-- settings with every member present (defaults for the missing ones).
CREATE FUNCTION fs_form_settings(s jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS
$$ SELECT jsonb_build_object('closesAt', NULL, 'maxSubmissions', NULL,
                             'confirmationMessage', NULL, 'redirectUrl', NULL,
                             'honeypot', true) || COALESCE(s, '{}') $$;

-- base: FormsvcBaseURL (no trailing slash), for publicUrl.
CREATE FUNCTION fs_form_json(f forms, base text) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object(
       'id', f.id, 'slug', f.slug, 'title', f.title, 'description', f.description,
       'status', fs_form_status(f), 'version', f.version, 'fields', f.fields,
       'settings', fs_form_settings(f.settings), 'submissionCount', fs_form_count(f.id),
       'publicUrl', base || '/f/' || COALESCE(f.slug, f.id),
       'createdAt', fs_ts(f.created_at), 'updatedAt', fs_ts(f.updated_at),
       'publishedAt', fs_ts(f.published_at)) $$;

CREATE FUNCTION fs_submission_json(s submissions) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT json_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
                            'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at)) $$;

-- Creates a draft. Outcomes: ok (body: form json), quota (body: forms in
-- use), slug-taken.
CREATE FUNCTION fs_form_create(p_id text, p_user text, p_slug text, p_title text,
                               p_description text, p_fields jsonb, p_settings jsonb,
                               p_limit integer, p_base text)
RETURNS TABLE (outcome text, body text)
LANGUAGE plpgsql AS
$$
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

-- Saves a form's editable state (slug, title, description, fields,
-- settings) when its version is still p_version; raises the version when
-- anything changed. Outcomes: ok (body: form json), missing, stale (body:
-- the current version), slug-taken.
CREATE FUNCTION fs_form_save(p_user text, p_id text, p_version integer, p_slug text,
                             p_title text, p_description text, p_fields jsonb,
                             p_settings jsonb, p_base text)
RETURNS TABLE (outcome text, body text)
LANGUAGE plpgsql AS
$$
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

-- publish (draft or closed -> published) and close (published -> closed).
-- p_version NULL: no If-Match. Outcomes: ok (body: form json), missing,
-- stale (body: current version), invalid-state (body: why).
CREATE FUNCTION fs_form_transition(p_user text, p_id text, p_action text,
                                   p_version integer, p_base text)
RETURNS TABLE (outcome text, body text)
LANGUAGE plpgsql AS
$$
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
