-- Insights of the address question (docs/forms.md "Insights"): the
-- items of a submission (fs_insight_items, sql/0050 and 0063) gain, for a
-- field of type address, its country: key '<field key>.country', kind
-- 'opt', the ISO 3166-1 alpha-2 code given, so the insights can count the
-- answers per country. The rest of the function is 0063's, unchanged.
-- Additive: only address answers (new with this release) produce the new
-- item, so no submission stored before counts differently when deleted;
-- the previous release's module reads insight rows by field key and kind
-- and passes over keys it does not know.
CREATE OR REPLACE FUNCTION fs_insight_items(p_data jsonb, p_fields jsonb)
RETURNS TABLE (key text, kind text, value text) LANGUAGE sql IMMUTABLE AS
$$ SELECT '', 'sub', ''
   UNION ALL
   SELECT d.key, 'ans', '' FROM jsonb_each(p_data) d
    WHERE d.value NOT IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb)
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'boolean'
   UNION ALL
   SELECT d.key, 'num', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'number'
   UNION ALL
   SELECT d.key, 'opt', e #>> '{}' FROM jsonb_each(p_data) d, jsonb_array_elements(d.value) e
    WHERE jsonb_typeof(d.value) = 'array' AND jsonb_typeof(e) = 'string'
   UNION ALL
   SELECT d.key, 'opt', d.value #>> '{}' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'select')
   UNION ALL
   SELECT d.key || '.' || c.key, 'opt', v #>> '{}'
     FROM jsonb_each(p_data) d,
          jsonb_each(CASE WHEN jsonb_typeof(d.value) = 'object' THEN d.value
                          ELSE '{}'::jsonb END) c,
          jsonb_array_elements(CASE WHEN jsonb_typeof(c.value) = 'array' THEN c.value
                                    ELSE jsonb_build_array(c.value) END) v
    WHERE jsonb_typeof(v) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'matrix')
   UNION ALL
   SELECT d.key, 'place', o.n::text || ':' || (o.e #>> '{}')
     FROM jsonb_each(p_data) d,
          jsonb_array_elements(CASE WHEN jsonb_typeof(d.value) = 'array' THEN d.value
                                    ELSE '[]'::jsonb END) WITH ORDINALITY o(e, n)
    WHERE jsonb_typeof(o.e) = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'ranking')
   UNION ALL
   SELECT d.key || '.country', 'opt', d.value ->> 'country' FROM jsonb_each(p_data) d
    WHERE jsonb_typeof(d.value) = 'object' AND jsonb_typeof(d.value -> 'country') = 'string'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(p_fields) f
                   WHERE f ->> 'key' = d.key AND f ->> 'type' = 'address') $$;
