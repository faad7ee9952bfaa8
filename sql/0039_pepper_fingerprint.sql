-- 0039: the fingerprint of the pepper the stored secrets are hashed with.
--
-- Every stored secret (API keys, client secrets, access tokens, respondent
-- links, verification and recovery links) is an HMAC under the pepper of
-- FormsvcSecretPepperFile; with another pepper none of them matches any
-- more. The database keeps one row: the lower-case hex HMAC-SHA-256 of the
-- fixed text "formsvc pepper fingerprint" under the pepper (never the
-- pepper itself), recorded by the first start of the module (or by
-- formsvc-admin setup-db). A module or formsvc-admin whose pepper gives
-- another fingerprint refuses to serve and says which one the data needs.
CREATE TABLE pepper_fingerprint (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    recorded_at timestamptz NOT NULL DEFAULT now()
);
