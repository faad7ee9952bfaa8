-- 0032: uploaded files of submissions (issue 14).
--
-- A file is one submission_files row and its content in chunks of about
-- 256 KB (submission_file_chunks), inserted as the upload arrives, in the
-- transaction that stores the submission: the submission row comes last,
-- so the reference to it is checked at commit (DEFERRABLE INITIALLY
-- DEFERRED); a submission that fails rolls its files back with it.
-- Deleting a submission (or its form, or the account) deletes its files
-- (ON DELETE CASCADE), which frees the owner's storage at once: the
-- figure is a sum over submission_files.user_id, never a counter.

CREATE TABLE submission_files (
    id            text PRIMARY KEY,
    submission_id text NOT NULL REFERENCES submissions(id) ON DELETE CASCADE
                  DEFERRABLE INITIALLY DEFERRED,
    user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    field_key     text NOT NULL,
    name          text NOT NULL,
    content_type  text NOT NULL,
    size          bigint NOT NULL DEFAULT 0,
    sha256        text,
    chunks        integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submission_files_submission ON submission_files (submission_id);
CREATE INDEX submission_files_user ON submission_files (user_id) INCLUDE (size);

CREATE TABLE submission_file_chunks (
    file_id text NOT NULL REFERENCES submission_files(id) ON DELETE CASCADE,
    seq     integer NOT NULL,
    data    bytea NOT NULL,
    PRIMARY KEY (file_id, seq)
);
-- uploads are mostly compressed already (images, pdf, zip): no pglz
ALTER TABLE submission_file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
