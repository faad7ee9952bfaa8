-- 0035: what a new event sets off (webhook deliveries, sql/0026; mail
-- jobs, sql/0028) decided once per statement over all the events it wrote,
-- rather than once per event.
--
-- The row triggers ran a plpgsql function per event, each with its own
-- statements (the form's settings, the webhooks of the account): on the
-- public submission path, whose batch statement writes up to 64 events
-- (store/public_store.c), they were a fifth of PostgreSQL's time per
-- submission (docs/performance.md, "Sixth round"). A statement trigger
-- sees the events through a transition table and joins them with the
-- webhooks and the forms in one statement each: the same rows as before,
-- for any statement that writes events.

DROP TRIGGER events_fanout ON events;
DROP TRIGGER events_mail ON events;
DROP FUNCTION fs_event_fanout();
DROP FUNCTION fs_mail_on_submission();

-- A delivery for each enabled webhook of the event's account that
-- subscribes to its type and form, unless the key that made the webhook
-- is gone (fs_creator_alive, sql/0019).
CREATE FUNCTION fs_events_fanout() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO deliveries (id, webhook_id, event_id)
    SELECT fs_new_id('dlv_'), w.id, e.id
      FROM new_events e JOIN webhooks w ON w.user_id = e.user_id
     WHERE e.type = ANY (w.events)
       AND (w.form_id IS NULL OR w.form_id = e.form_id)
       AND w.enabled
       AND fs_creator_alive(w.created_by);
    RETURN NULL;
END $$;
CREATE TRIGGER events_fanout AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION fs_events_fanout();

-- A stored submission's event owes mail when its form asks for it: a job
-- for the confirmed recipients (each or digest), and one for the
-- respondent's copy.
CREATE FUNCTION fs_events_mail() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mail_jobs (kind, form_id, submission_id)
    SELECT j.kind, j.form_id, j.submission_id
      FROM new_events e JOIN forms f ON f.id = e.form_id,
           LATERAL (
             SELECT CASE WHEN f.settings -> 'notify' ->> 'mode' = 'hourly' THEN 'digest'
                         ELSE 'each' END AS kind, e.form_id, e.submission_id
              WHERE f.settings -> 'notify' IS NOT NULL
                AND f.settings -> 'notify' <> 'null'::jsonb
                AND EXISTS (SELECT 1 FROM notify_recipients n WHERE n.form_id = e.form_id
                            AND n.listed AND n.status = 'confirmed')
             UNION ALL
             SELECT 'confirmation', e.form_id, e.submission_id
              WHERE f.settings -> 'confirmation' IS NOT NULL
                AND f.settings -> 'confirmation' <> 'null'::jsonb) j
     WHERE e.type = 'submission.created' AND e.submission_id IS NOT NULL
     ORDER BY e.id, j.kind = 'confirmation';
    RETURN NULL;
END $$;
CREATE TRIGGER events_mail AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION fs_events_mail();
