-- Scores and calculations (settings.variables, options' score, a field's
-- correct; docs/forms.md "Scores and calculations"): what the server
-- worked out from a submission's answers when it stored them,
-- {score, max, variables}, NULL when its form has neither a quiz nor
-- variables. Additive: the previous release neither writes nor reads the
-- column, and the owner's representation below adds "calculated" only
-- when it is set (as 0058 wrote it otherwise).
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS calculated jsonb;

CREATE OR REPLACE FUNCTION fs_submission_json(s submissions) RETURNS json
LANGUAGE sql STABLE AS
$$ SELECT (jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version,
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
          )::json $$;
