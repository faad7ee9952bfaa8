/* fs_store_mail: the mail of submissions (sql/0028): the jobs the mail
 * worker claims and completes, the recipients of settings.notify and their
 * confirmation and unsubscription, and the daily counts
 * (mod_formsvc/store/mail_store.c). Conventions: fs_store.h. */
#ifndef FS_STORE_MAIL_H
#define FS_STORE_MAIL_H

#include "fs_store.h"

/* One message to write: the jobs it completes (a JSON array of ids), the
 * kind ("address", "each", "digest", "confirmation"), the account and what
 * the message needs (JSON; its shape per kind is fs_mail_claim's, in
 * sql/0028). Strings in the store's pool. */
typedef struct fs_mail_job {
    const char *jobs, *kind, *user_id, *payload;
} fs_mail_job;
typedef struct fs_mail_jobs {
    int n;
    fs_mail_job *job;
} fs_mail_jobs;
/* Claims due jobs for lease seconds: up to batch single ones and the
 * digests of up to batch forms. */
fs_error *fs_store_mail_claim(fs_store *st, int lease, int batch, fs_mail_jobs *out);

/* The daily limits fs_store_mail_done counts against. */
typedef struct fs_mail_caps {
    int unverified, verified; /* notifications per account per UTC day, by tier */
    int per_address;          /* unasked mails (copies, requests) per address per UTC day */
} fs_mail_caps;
/* Deletes the jobs of j and queues msgs (a JSON array of {id, to, message,
 * kind, recipientId, tokenHash}) within the caps, in one transaction;
 * nothing is queued when another worker completed the jobs already. */
fs_error *fs_store_mail_done(fs_store *st, const fs_mail_job *j, const char *msgs,
                             const fs_mail_caps *caps, int *queued, int *dropped);

/* The confirmation link: a pending, listed recipient with this token (not
 * expired) becomes confirmed. *email and *title (of the form) NULL when
 * the token is unknown, used, expired or replaced. */
fs_error *fs_store_notify_confirm(fs_store *st, const char *token_hash, const char **email,
                                  const char **title);
/* One-click unsubscribe of recipient id (again is fine): *email and
 * *title NULL when there is no such recipient; *ask 1 when the recipient
 * was mailed an ask (sql/0049: then no more asks of that account). */
fs_error *fs_store_notify_unsubscribe(fs_store *st, const char *id, const char **email,
                                      const char **title, int *ask);
/* The recipients of a form of the account (listed or not) as a JSON
 * array, and the notifications the account sent today. */
fs_error *fs_store_notify_recipients(fs_store *st, const char *form_id, const char *user_id,
                                     const char **json);
fs_error *fs_store_mail_sent_today(fs_store *st, const char *user_id, int *sent);
/* Forgets the daily counts of days before yesterday. */
fs_error *fs_store_mail_sweep(fs_store *st);

#endif
