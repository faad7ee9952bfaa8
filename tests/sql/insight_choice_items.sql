-- The insight items of matrix and ranking answers (sql/0063): a matrix's
-- cells under <key>.<row>, each value of a row of several; a ranking's
-- places as <place>:<option>; nothing of the kind for other types, and an
-- answer of the wrong shape breaks nothing.
BEGIN;
SELECT plan(5);

SELECT bag_eq(
  $$SELECT key, kind, value FROM fs_insight_items(
      '{"g": {"a": "x", "b": ["x", "y"], "c": 5}}',
      '[{"key": "g", "type": "matrix"}]') WHERE kind = 'opt'$$,
  $$VALUES ('g.a', 'opt', 'x'), ('g.b', 'opt', 'x'), ('g.b', 'opt', 'y')$$,
  'a matrix: one item per value of a row, under <key>.<row>');
SELECT bag_eq(
  $$SELECT key, kind, value FROM fs_insight_items(
      '{"r": ["tea", "coffee", "water"]}',
      '[{"key": "r", "type": "ranking"}]') WHERE kind = 'place'$$,
  $$VALUES ('r', 'place', '1:tea'), ('r', 'place', '2:coffee'), ('r', 'place', '3:water')$$,
  'a ranking: the place of each option');
SELECT is_empty(
  $$SELECT 1 FROM fs_insight_items('{"g": {"a": "x"}, "r": ["tea"]}',
      '[{"key": "g", "type": "text"}, {"key": "r", "type": "multiselect"}]')
     WHERE kind = 'place' OR key LIKE '%.%'$$,
  'other types: no cells, no places');
SELECT is_empty(
  $$SELECT 1 FROM fs_insight_items('{"g": "x", "r": "tea"}',
      '[{"key": "g", "type": "matrix"}, {"key": "r", "type": "ranking"}]')
     WHERE kind = 'place' OR key LIKE '%.%'$$,
  'a matrix or ranking answer of another shape: no items, no error');
SELECT bag_eq(
  $$SELECT key, kind, value FROM fs_insight_items('{"s": "x", "n": 3}',
      '[{"key": "s", "type": "select"}]')$$,
  $$VALUES ('', 'sub', ''), ('s', 'ans', ''), ('n', 'ans', ''), ('s', 'opt', 'x'), ('n', 'num', '3')$$,
  'the items of before, as they were');

SELECT * FROM finish();
ROLLBACK;
