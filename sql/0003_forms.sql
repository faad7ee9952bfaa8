-- 0003: forms, their fields, submissions, and idempotency records.
--
-- Fields live inside their form as a JSON array (forms.fields), in the
-- API's own representation ({id, key, type, label, description, required,
-- placeholder, options, validation, visibleIf, position}), so that
-- replacing the list is one atomic UPDATE and a form is read in one row.

CREATE TABLE forms (
    id               text PRIMARY KEY,
    user_id          text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    slug             text UNIQUE,
    title            text NOT NULL,
    description      text,
    status           text NOT NULL DEFAULT 'draft'
                     CHECK (status IN ('draft', 'published', 'closed')),
    version          integer NOT NULL DEFAULT 1,
    fields           jsonb NOT NULL DEFAULT '[]',
    -- closesAt, maxSubmissions, confirmationMessage, redirectUrl, honeypot
    settings         jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    published_at     timestamptz
);
CREATE INDEX forms_user_id ON forms (user_id, id DESC);

CREATE TABLE submissions (
    id           text PRIMARY KEY,
    form_id      text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    form_version integer NOT NULL,
    data         jsonb NOT NULL,
    spam         boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX submissions_form_id ON submissions (form_id, id DESC);
CREATE INDEX submissions_user_month ON submissions (user_id, created_at) WHERE NOT spam;

-- Idempotency-Key records: scope is the caller (user id) or, for public
-- submissions, the form; kept 24 hours.
CREATE TABLE idempotency (
    scope        text NOT NULL,
    key          text NOT NULL,
    request_hash text NOT NULL,     -- hex SHA-256 of method, path and body
    status       integer NOT NULL,
    location     text,
    body         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_created ON idempotency (created_at);
