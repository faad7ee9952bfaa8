-- submission_files_usage (sql/0040): the bytes an account stores, summed
-- over its file_usage rows, follow its files.
BEGIN;
SELECT plan(5);

INSERT INTO users (id, email, email_norm) VALUES ('usr_f', 'f@example.org', 'f@example.org'),
                                                 ('usr_g', 'g@example.org', 'g@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_f', 'usr_f', 'Files');
INSERT INTO submissions (id, form_id, user_id, form_version, data) VALUES ('sub_00f', 'frm_f', 'usr_f', 1, '{}');

CREATE FUNCTION pg_temp.usage(u text) RETURNS bigint LANGUAGE sql AS
$$ SELECT COALESCE(sum(bytes), 0)::bigint FROM file_usage WHERE user_id = u $$;

INSERT INTO submission_files (id, submission_id, user_id, field_key, name, content_type, size) VALUES
    ('fil_001', 'sub_00f', 'usr_f', 'a', 'a.txt', 'text/plain', 100),
    ('fil_002', 'sub_00f', 'usr_f', 'b', 'b.txt', 'text/plain', 250),
    ('fil_003', 'sub_00f', 'usr_f', 'c', 'c.txt', 'text/plain', 0);
SELECT is(pg_temp.usage('usr_f'), 350::bigint, 'inserted files count their sizes');

UPDATE submission_files SET size = 40 WHERE id = 'fil_003';
SELECT is(pg_temp.usage('usr_f'), 390::bigint, 'a size set later (a spooled upload) counts');

UPDATE submission_files SET size = 50 WHERE id = 'fil_001';
SELECT is(pg_temp.usage('usr_f'), 340::bigint, 'a changed size counts the difference');

DELETE FROM submission_files WHERE id = 'fil_002';
SELECT is(pg_temp.usage('usr_f'), 90::bigint, 'a deleted file is taken off');

SELECT is(pg_temp.usage('usr_g'), 0::bigint, 'another account counts nothing');

SELECT * FROM finish();
ROLLBACK;
