-- 0031: form analytics (issue 15, item 7): views of the public page per
-- hour, and an index to count a form's submissions by time.
--
-- A view (an HTML GET of /f/{ref} of a published form) is never written by
-- the request that serves it: each httpd child counts in its own memory
-- and a worker task adds its counts every few seconds with one statement
-- (INSERT ... ON CONFLICT DO UPDATE adding to the row of that form and
-- hour). Rows are per form and UTC hour; GET /v1/forms/{id}/stats sums
-- them per hour or day.
CREATE TABLE form_views (
    form_id text NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    hour    timestamptz NOT NULL, -- the start of the UTC hour
    views   bigint NOT NULL,
    PRIMARY KEY (form_id, hour)
);

-- Submissions and spam per interval read a form's rows in a time range.
CREATE INDEX submissions_form_created ON submissions (form_id, created_at);
