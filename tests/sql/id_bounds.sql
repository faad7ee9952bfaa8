-- The id bounds of a time window (sql/0044): fs_id_time writes the time
-- digits fs_new_id writes; fs_id_since / fs_id_before give a range that
-- holds every id made in the window (with the day / hour of slack) and
-- sits inside the prefix's ids either way.
BEGIN;
SELECT plan(9);

-- the clock read before and after the id is made (a millisecond may pass)
WITH a AS MATERIALIZED (SELECT fs_id_time(clock_timestamp()) AS t),
     i AS MATERIALIZED (SELECT fs_new_id('sub_') AS id FROM a),
     b AS MATERIALIZED (SELECT fs_id_time(clock_timestamp()) AS t FROM i)
SELECT ok(substr(i.id, 5, 10) BETWEEN a.t AND b.t,
          'fs_id_time gives the time digits of an id made now')
  FROM a, i, b;
SELECT is(fs_id_time('1970-01-01T00:00:00Z'), '0000000000', 'the epoch is all zeros');
SELECT is(fs_id_time('2026-01-01T00:00:00.001Z') > fs_id_time('2026-01-01T00:00:00Z'), true,
          'a millisecond later sorts after');
SELECT is(fs_id_since('sub_', NULL), 'sub_', 'no since: below every id');
SELECT is(fs_id_before('sub_', NULL, NULL) > 'sub_' || repeat('Z', 26), true,
          'no until and no cursor: above every id');
SELECT is(fs_id_before('sub_', NULL, 'sub_01ABC'), 'sub_01ABC', 'a cursor bounds alone');
SELECT is(fs_id_before('sub_', '2026-01-01T00:00:00Z', 'sub_ZZ'),
          'sub_' || fs_id_time('2026-01-01T01:00:00Z'), 'until, an hour late, under the cursor');
SELECT is('sub_' || fs_id_time('2026-01-01T00:00:00Z') || repeat('0', 16)
            >= fs_id_since('sub_', '2026-01-01T00:00:00Z'), true,
          'an id made at since is inside the range');
SELECT is('sub_' || fs_id_time('2025-12-31T23:59:59.999Z') || repeat('Z', 16)
            < fs_id_before('sub_', '2026-01-01T00:00:00Z', NULL), true,
          'an id made just before until is inside the range');

SELECT * FROM finish();
ROLLBACK;
