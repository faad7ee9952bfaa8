-- The cache NOTIFYs (sql/0025): which names a change to a form, a key or
-- an account sends on formsvc_cache. A NOTIFY is delivered only at commit
-- and these files roll back, so pg_notify is shadowed for the file by a
-- spy in a schema ahead of pg_catalog on the search_path (the trigger
-- functions call it unqualified) that records what would be sent.
BEGIN;
SELECT plan(6);

CREATE SCHEMA tap_spy;
CREATE TABLE tap_spy.sent (n serial, channel text, payload text);
CREATE FUNCTION tap_spy.pg_notify(channel text, payload text) RETURNS void LANGUAGE sql AS
$$ INSERT INTO tap_spy.sent (channel, payload) VALUES (channel, payload) $$;
SET LOCAL search_path = tap_spy, pg_catalog, public;

INSERT INTO users (id, email, email_norm) VALUES ('usr_c', 'c@example.org', 'c@example.org');
INSERT INTO forms (id, user_id, title, slug) VALUES ('frm_c', 'usr_c', 'C', 'c-slug');
SELECT results_eq($$SELECT channel, payload FROM tap_spy.sent ORDER BY n$$,
                  $$VALUES ('formsvc_cache', 'r:frm_c'), ('formsvc_cache', 'r:c-slug')$$,
                  'a new form names its id and slug');

DELETE FROM tap_spy.sent;
UPDATE forms SET slug = 'c-new' WHERE id = 'frm_c';
SELECT results_eq($$SELECT payload FROM tap_spy.sent ORDER BY n$$,
                  $$VALUES ('r:frm_c'), ('r:c-slug'), ('r:frm_c'), ('r:c-new')$$,
                  'a changed slug names the old one and the new one');

DELETE FROM tap_spy.sent;
UPDATE forms SET title = title WHERE id = 'frm_c';
SELECT is((SELECT count(*)::int FROM tap_spy.sent), 0, 'an update that changes nothing sends nothing');

DELETE FROM tap_spy.sent;
DELETE FROM forms WHERE id = 'frm_c';
SELECT results_eq($$SELECT payload FROM tap_spy.sent ORDER BY n$$,
                  $$VALUES ('r:frm_c'), ('r:c-new')$$, 'a deleted form names its id and slug');

DELETE FROM tap_spy.sent;
UPDATE users SET verified = true WHERE id = 'usr_c';
SELECT is((SELECT count(*)::int FROM tap_spy.sent), 0, 'an account without keys names nothing');

DELETE FROM tap_spy.sent;
UPDATE users SET email = 'c2@example.org' WHERE id = 'usr_c' AND false;
SELECT is((SELECT count(*)::int FROM tap_spy.sent), 0, 'an update of no row sends nothing');

SELECT * FROM finish();
ROLLBACK;
