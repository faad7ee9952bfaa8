-- 0038: the per-address cap on unasked mail (FormsvcConfirmationMailsPerAddress,
-- sql/0028) counts per mailbox, not per exact address: x+0@example.org ...
-- x+5@example.org are one mailbox and get 3 mails a day together, not 3
-- each. The module writes each message's mailbox (include/fs_mail.h
-- fs_mail_mailbox: lower case, a +tag of the local part removed; dots and
-- other separators kept); fs_mail_done keys the cap on it. An address
-- without a tag keys as before (lower case, trimmed), so the counts of the
-- day carry over.

CREATE OR REPLACE FUNCTION fs_mail_done(jobs text, uid text, msgs text, cap_unverified integer,
                             cap_verified integer, per_address integer,
                             OUT queued integer, OUT dropped integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    m jsonb;
    gone integer;
    cap integer;
    addr_key text;
BEGIN
    queued := 0; dropped := 0;
    DELETE FROM mail_jobs WHERE id IN (SELECT x::bigint FROM jsonb_array_elements_text(jobs::jsonb) x);
    GET DIAGNOSTICS gone = ROW_COUNT;
    IF gone = 0 THEN RETURN; END IF;
    SELECT CASE WHEN u.verified THEN cap_verified ELSE cap_unverified END INTO cap
      FROM users u WHERE u.id = uid;
    FOR m IN SELECT x FROM jsonb_array_elements(msgs::jsonb) x LOOP
        addr_key := NULL;
        IF m ->> 'kind' = 'address' THEN
            -- still pending and listed: else the confirmation is not needed any more
            PERFORM 1 FROM notify_recipients n WHERE n.id = m ->> 'recipientId'
                AND n.status = 'pending' AND n.listed FOR UPDATE;
            CONTINUE WHEN NOT FOUND;
        END IF;
        -- mail to an address that has agreed to nothing (a respondent's
        -- copy, a request to confirm notifications): capped per address
        IF m ->> 'kind' IN ('confirmation', 'address') THEN
            -- the mailbox the module names (fs_mail_mailbox: lower case,
            -- without a +tag), the address itself from an older module
            addr_key := 'resp:' || encode(sha256(convert_to(
                COALESCE(m ->> 'mailbox', lower(btrim(m ->> 'to'))), 'UTF8')), 'hex');
            IF NOT fs_mail_day_take(addr_key, per_address) THEN
                dropped := dropped + 1; CONTINUE;
            END IF;
        END IF;
        IF NOT fs_mail_day_take('notify:' || uid, COALESCE(cap, 0)) THEN
            IF addr_key IS NOT NULL THEN PERFORM fs_mail_day_give(addr_key); END IF;
            dropped := dropped + 1; CONTINUE;
        END IF;
        IF m ->> 'kind' = 'address' THEN
            UPDATE notify_recipients SET token_hash = m ->> 'tokenHash',
                   token_expires_at = now() + interval '7 days'
             WHERE id = m ->> 'recipientId';
        END IF;
        INSERT INTO outbox (id, recipient, message) VALUES (m ->> 'id', m ->> 'to', m ->> 'message');
        queued := queued + 1;
    END LOOP;
END $$;
