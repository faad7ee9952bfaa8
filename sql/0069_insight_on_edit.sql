-- Insights follow an edit (docs/forms.md "Editing after sending",
-- "Insights"): fs_submission_edit (sql/0065) changes a submission's
-- answers with an UPDATE, and the insight tally was kept by INSERT and
-- DELETE triggers only (sql/0050), so the counts kept the answers as first
-- sent, and deleting an edited submission later took away the edited
-- answers, which had never been added. This statement trigger takes away
-- the old answers' items and adds the new ones for every updated row whose
-- answers or spam flag changed (an owner's status, tags or note changes
-- neither, and adds nothing). The form's fields are today's, as for the
-- INSERT and DELETE triggers. Additive: the previous release never updates
-- data. No repair of rows edited before: edits ship in the same release.
CREATE OR REPLACE FUNCTION fs_insight_count_update() RETURNS trigger
LANGUAGE plpgsql AS
$$
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

DROP TRIGGER IF EXISTS submissions_insight_update ON submissions;
CREATE TRIGGER submissions_insight_update AFTER UPDATE ON submissions
    REFERENCING OLD TABLE AS old_subs NEW TABLE AS new_subs
    FOR EACH STATEMENT EXECUTE FUNCTION fs_insight_count_update();
