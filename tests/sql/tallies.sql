-- The submission counts (sql/0024): fs_form_count and fs_month_received
-- add the tally rows not yet rolled up to the counters, so the counts are
-- the same before and after fs_tally_rollup moves them.
BEGIN;
SELECT plan(8);

INSERT INTO users (id, email, email_norm) VALUES ('usr_t', 't@example.org', 't@example.org');
INSERT INTO forms (id, user_id, title) VALUES ('frm_t1', 'usr_t', 'T1'), ('frm_t2', 'usr_t', 'T2');
-- three submissions of frm_t1 this month, one of last month on frm_t2, one deletion of frm_t1
INSERT INTO submission_tally (form_id, user_id, month, n) VALUES
    ('frm_t1', 'usr_t', '2026-11-01', 1), ('frm_t1', 'usr_t', '2026-11-01', 1),
    ('frm_t1', 'usr_t', '2026-11-01', 1), ('frm_t2', 'usr_t', '2026-10-01', 1),
    ('frm_t1', 'usr_t', NULL, -1);

SELECT is(fs_form_count('frm_t1'), 2::bigint, 'form count from the tally: 3 stored, 1 deleted');
SELECT is(fs_month_received('usr_t', '2026-11-01'), 3::bigint, 'the month counts what was received (a deletion does not give it back)');
SELECT is(fs_month_received('usr_t', '2026-10-01'), 1::bigint, 'each month apart');

-- this transaction's rows and any others left over: all of them rolled up
SELECT cmp_ok(fs_tally_rollup(1000000), '>=', 5, 'the rollup moves the tally rows');
SELECT is((SELECT count(*)::int FROM submission_tally WHERE user_id = 'usr_t'), 0, 'no tally row left');
SELECT is(fs_form_count('frm_t1'), 2::bigint, 'the same form count from the counters');
SELECT is(fs_month_received('usr_t', '2026-11-01'), 3::bigint, 'the same month count from the counters');
SELECT is(fs_form_count('frm_t2'), 1::bigint, 'the other form');

SELECT * FROM finish();
ROLLBACK;
