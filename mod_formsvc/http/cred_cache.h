/* cred_cache: verified bearer credentials from memory, per httpd child.
 *
 * Keyed by the secret's keyed hash (HMAC-SHA-256 under the pepper, the
 * value stored in keys.secret_hash), never by the secret; an entry holds
 * the principal of that one credential and nothing of any other. It is
 * invalidated as cache.h describes: the triggers notify "k:<hash>" for
 * every change of the key row (revocation, roll, expiry, scopes; the
 * cascades of sql/0001 and sql/0019 write every descendant's row) and of
 * its account (verification), and a request that revokes does not answer
 * before every child of its machine has dropped the entry. It never
 * outlives FormsvcCredentialCacheTTL, nor expiresAt (less a second: the
 * stored expiry is rounded to whole seconds).
 *
 * lastUsedAt: a miss runs the authentication query, which says whether
 * the key's lastUsedAt is more than a minute old, and auth.c refreshes it
 * then as before; a hit never writes: once a minute per key and child it
 * queues the key for the listener thread, which refreshes the queued keys
 * in one statement about once a second. */
#ifndef FORMSVC_CRED_CACHE_H
#define FORMSVC_CRED_CACHE_H

#include <httpd.h>

#include "fs_lru.h"
#include "http/auth.h"

/* What a miss remembers for the fill. */
typedef struct formsvc_cred_ticket {
    int on;
    const char *key;
    fs_lru_stamp stamp; /* read before the credential was */
} formsvc_cred_ticket;

/* 1 with *who set (in r->pool) when hash's principal is cached; 0 with *t
 * ready for formsvc_cred_cache_put otherwise. */
int formsvc_cred_cache_get(request_rec *r, const char *hash, formsvc_principal **who,
                           formsvc_cred_ticket *t);
/* Keeps who, just verified by the database, for its hash. */
void formsvc_cred_cache_put(request_rec *r, const formsvc_cred_ticket *t,
                            const formsvc_principal *who);

#endif
