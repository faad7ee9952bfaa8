-- A submission to a form with settings.captcha that was stored although
-- its bot check could not be made (the provider did not answer in time or
-- failed, with FormsvcCaptchaFailOpen On): true, so that the owner can
-- tell it from the checked ones (docs/forms.md "Bot checks"); NULL for
-- every other submission. Before this, only the error log (FS00423) said
-- so. Additive: a nullable column, no default; the previous release
-- neither writes nor reads it, and the owner's representation below adds
-- "captchaUnchecked": true only when it is set (0066's otherwise).
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS captcha_unchecked boolean;

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
           || CASE WHEN s.spam_score IS NULL THEN '{}'::jsonb
                   ELSE jsonb_build_object('spamScore', s.spam_score) END
           || CASE WHEN s.captcha_unchecked IS NOT TRUE THEN '{}'::jsonb
                   ELSE jsonb_build_object('captchaUnchecked', true) END
          )::json $$;
