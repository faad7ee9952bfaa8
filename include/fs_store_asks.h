/* fs_store_asks: asks, a question put to one person (mod_formsvc/store/
 * asks_store.c, sql/0049). Conventions: fs_store.h. */
#ifndef FS_STORE_ASKS_H
#define FS_STORE_ASKS_H

#include "fs_store.h"

typedef struct fs_new_ask {
    const char *id, *user_id;
    const char *form_id, *title, *fields_json; /* the form made for it */
    const char *link_id, *token_hash, *token_sealed;
    const char *expires_at; /* RFC 3339 */
    const char *message;
    const char *to;            /* e-mail, or NULL */
    const char *metadata_json; /* JSON object, or NULL */
    const char *created_by;    /* the creating credential's key id */
    /* with to: the mail, written into the outbox with the ask */
    const char *recipient_id;   /* nrc_: its unsubscribe link's recipient */
    const char *mailbox;        /* fs_mail_mailbox of to: what the caps count */
    const char *mail_id, *mail; /* the outbox id and the RFC 5322 message */
    int cap, per_address;       /* the account's notifications and the address's
                                   unasked mails, per UTC day */
} fs_new_ask;

/* Creates the form, its single-use link and the ask in one transaction
 * when the account holds fewer than forms forms and fewer than asks
 * pending asks (exact under concurrency: the account's row is locked).
 * *json is the ask's json (without url); NULL when a quota is reached:
 * then *quota is "forms", "asks", "notifications" or "address" and *used
 * how many are in use (the cap for the last two); or when to asked for no
 * more mail of the account's asks: *quota "refused". */
fs_error *fs_store_ask_create(fs_store *st, const fs_new_ask *a, int forms, int asks,
                              const char **json, const char **quota, const char **used);

/* One ask as its owner sees it. */
typedef struct fs_ask_row {
    const char *id;
    const char *json;   /* fs_ask_json: everything but the url */
    const char *status; /* pending, answered, declined, expired */
    const char *sealed; /* the link's token, sealed */
    const char *ref;    /* the form's slug, or its id: the url's path */
} fs_ask_row;

typedef struct fs_ask_page {
    int n;
    fs_ask_row *rows; /* newest first */
    int more;
} fs_ask_page;

/* tree: the calling delegate's key id, NULL for an owner key or the
 * server itself: a row's sealed token is NULL when the ask's link was made
 * outside that tree (the link is a capability, which a delegate sees only
 * for links made in its own tree). */
/* The account's ask ask_id: *out NULL when there is none. */
fs_error *fs_store_ask_get(fs_store *st, const char *user_id, const char *tree, const char *ask_id,
                           fs_ask_row **out);
/* The account's asks, newest first, of one status (NULL: any), after the
 * ask id after (NULL: from the newest). */
fs_error *fs_store_ask_list(fs_store *st, const char *user_id, const char *tree, const char *status,
                            const char *after, int limit, fs_ask_page *out);
/* Declines the pending ask whose link of form form_id has this token
 * hash. *status: declined, or what the ask is instead (answered,
 * expired); NULL when the link is no ask's. */
fs_error *fs_store_ask_decline(fs_store *st, const char *form_id, const char *token_hash,
                               const char **status);
/* *has: 1 when form form_id is an ask's form. */
fs_error *fs_store_ask_form_has(fs_store *st, const char *form_id, int *has);
/* Writes ask.expired for at most limit asks whose expiresAt passed
 * unanswered and not declined, withdrawing their links; *emitted: how
 * many. Once per ask whatever number of sessions run it (sql/0052). */
fs_error *fs_store_asks_expire_emit(fs_store *st, int limit, int *emitted);

#endif
