-- fs_mcp_stream_open and fs_mcp_subscribe (sql/0051): an account's open
-- streams and a session's subscriptions are bounded; a lease that ran out
-- frees its place; another account's session is no session.
BEGIN;
SELECT plan(11);

INSERT INTO users (id, email, email_norm) VALUES ('usr_m', 'm@example.org', 'm@example.org'),
                                                 ('usr_n', 'n@example.org', 'n@example.org');
INSERT INTO mcp_sessions (id, user_id) VALUES ('mcs_m', 'usr_m'), ('mcs_n', 'usr_n');

SELECT is(fs_mcp_stream_open('mst_1', 'usr_m', 'mcs_m', 2, 30), 'ok', 'a first stream');
SELECT is(fs_mcp_stream_open('mst_2', 'usr_m', 'mcs_m', 2, 30), 'ok', 'a second');
SELECT is(fs_mcp_stream_open('mst_3', 'usr_m', 'mcs_m', 2, 30), 'full', 'a third is beyond 2');
SELECT is(fs_mcp_stream_open('mst_4', 'usr_n', 'mcs_n', 2, 30), 'ok', 'another account counts apart');
SELECT is(fs_mcp_stream_open('mst_5', 'usr_n', 'mcs_m', 2, 30), 'nosession',
          'another account''s session is no session');
UPDATE mcp_streams SET lease_until = now() - interval '1 second' WHERE id = 'mst_1';
SELECT is(fs_mcp_stream_open('mst_6', 'usr_m', 'mcs_m', 2, 30), 'ok', 'a lease that ran out frees its place');
SELECT is((SELECT count(*) FROM mcp_streams WHERE id = 'mst_1'), 0::bigint, 'and is deleted');

SELECT is(fs_mcp_subscribe('mcs_m', 'usr_m', 'formsvc://forms/frm_a', 'frm_a', 2), 'ok', 'a subscription');
SELECT is(fs_mcp_subscribe('mcs_m', 'usr_m', 'formsvc://forms/frm_a', 'frm_a', 2), 'ok', 'again: fine, one row');
SELECT is(fs_mcp_subscribe('mcs_m', 'usr_m', 'formsvc://forms/frm_b', 'frm_b', 1), 'full', 'beyond the bound');
SELECT is(fs_mcp_subscribe('mcs_m', 'usr_n', 'formsvc://forms/frm_b', 'frm_b', 5), 'nosession',
          'not through another account');

SELECT * FROM finish();
ROLLBACK;
