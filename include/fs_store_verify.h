/* fs_store_verify: address verification, account recovery and the mail
 * outbox (mod_formsvc/store/verify_store.c). Codes and link tokens arrive
 * hashed (HMAC under the pepper); the plain code exists only in the
 * outbox message. Conventions: fs_store.h. */
#ifndef FS_STORE_VERIFY_H
#define FS_STORE_VERIFY_H

#include "fs_store.h"

/* The account's address and whether it is verified; *email NULL when
 * there is no such account. */
fs_error *fs_store_user_contact(fs_store *st, const char *user_id, const char **email,
                                int *verified);

/* How often mail may go to one account or address (FormsvcAccountMail). */
typedef struct fs_mail_limits {
    int per_day;         /* verification and recovery mails per 24 hours */
    int resend_interval; /* seconds between two verification mails */
} fs_mail_limits;

/* A message to queue in the outbox with a code. */
typedef struct fs_queued_mail {
    const char *outbox_id, *message; /* message: the whole RFC 5322 text */
} fs_queued_mail;

/* What fs_store_verify_send did. */
typedef struct fs_verify_sent {
    const char *state;      /* "sent", "verified" (nothing to do), "day" or
                               "gap" (refused by the mail limits) */
    int wait;               /* seconds until a mail may go again */
    const char *expires_at; /* the code's expiry (RFC 3339), when sent */
    const char *email;
} fs_verify_sent;
/* Stores a new verification code (replacing the old one) and queues its
 * mail, unless the account is verified or the limits refuse (fs_mail_take,
 * sql/0021). *out NULL when there is no such account. */
fs_error *fs_store_verify_send(fs_store *st, const char *user_id, const fs_mail_limits *lim,
                               const char *code_hash, const char *token_hash,
                               const fs_queued_mail *mail, fs_verify_sent **out);

typedef struct fs_verify_result {
    int already;           /* the account was verified before */
    const char *result;    /* "ok", "wrong", or "none" (no live code) */
    int tries_left;        /* after a wrong code */
    const char *user_json; /* the verified user, for "ok" */
} fs_verify_result;
/* Tries a code: a wrong one counts a try, the fifth voids the code. *out
 * NULL when there is no such account. */
fs_error *fs_store_verify_confirm(fs_store *st, const char *user_id, const char *code_hash,
                                  fs_verify_result **out);
/* Verifies through the e-mailed link: *email is the address verified, or
 * NULL when the token is unknown, used, expired or replaced. */
fs_error *fs_store_verify_token(fs_store *st, const char *token_hash, const char **email);

/* Stores a recovery code and queues its mail, for a verified account of
 * email only and only when the mail limits allow; says nothing about
 * which happened. */
fs_error *fs_store_recover_send(fs_store *st, const char *email, const fs_mail_limits *lim,
                                const char *code_hash, const fs_queued_mail *mail);

typedef struct fs_recovered {
    const char *result;    /* "ok", "wrong" or "none" */
    const char *user_json; /* the account (NULL when unknown or unverified) */
    const char *key_json;  /* the new key, for "ok" */
    int revoked;           /* keys revoked with it */
} fs_recovered;
/* Tries a recovery code for email; for "ok" a new owner key is made, and
 * with revoke every key and access token, every OAuth client and every
 * webhook of the account goes. */
fs_error *fs_store_recover_confirm(fs_store *st, const char *email, const char *code_hash,
                                   const fs_new_secret *key, int revoke, fs_recovered *out);
/* Run after a recovery with revocation has committed, before the new
 * secret is handed out: revokes what was minted or issued while that
 * statement ran. Only keep_key_id (the recovered key) is spared. */
fs_error *fs_store_recover_sweep(fs_store *st, const char *user_id, const char *keep_key_id);

/* ---- The outbox (the mail worker) ---- */

typedef struct fs_outbox_msg {
    const char *id, *recipient, *message;
    int attempts; /* including this one */
} fs_outbox_msg;
typedef struct fs_outbox_batch {
    int n;
    fs_outbox_msg *msgs;
} fs_outbox_batch;
/* Claims up to batch due messages: each counts an attempt and is hidden
 * from other workers for lease seconds. */
fs_error *fs_store_outbox_claim(fs_store *st, int lease, int batch, fs_outbox_batch *out);
fs_error *fs_store_outbox_sent(fs_store *st, const char *id);
/* A failed attempt: tried again in retry_in seconds, given up after
 * max_attempts. */
fs_error *fs_store_outbox_failed(fs_store *st, const char *id, const char *error, int retry_in,
                                 int max_attempts);

typedef struct fs_outbox_status {
    apr_int64_t pending;        /* messages waiting */
    apr_int64_t oldest_seconds; /* age of the oldest waiting one */
    apr_int64_t failed_day;     /* given up in the last day */
} fs_outbox_status;
fs_error *fs_store_outbox_status(fs_store *st, fs_outbox_status *out);
/* Keeps the outbox small (sent and failed mail older than a week) and the
 * mail limits' table (keys without a mail for 25 hours). */
fs_error *fs_store_outbox_sweep(fs_store *st);

#endif
