/* submit_batch: the public submissions of one httpd child stored together
 * in one statement.
 *
 * A submission that needs nothing but itself (fs_store_public_batchable)
 * joins the child's queue. When no thread of the child is storing a
 * batch, this one does: it takes everything queued (at most 64), runs one
 * statement for all of them on its own request's connection
 * (fs_store_public_submit_batch: one transaction, one commit), gives each
 * waiting thread its outcome and, when more queued meanwhile, hands the
 * next batch to the oldest of them. Nobody waits on purpose: a batch is
 * what queued while the previous one ran, a single submission when the
 * child is quiet. Every answer still follows its own submission's
 * commit; PostgreSQL does the statement's set-up and the commit once per
 * batch instead of once per submission. A batch the database refuses for
 * another reason than being away is stored again one by one, so that a
 * submission it cannot take fails alone.
 *
 * Memory and threads: a queued item lives in its thread's stack frame; the
 * storing thread writes a waiter's outcome into the waiter's request pool
 * while the waiter sleeps (no other thread uses that pool then). One
 * mutex per child, held only to queue and hand out (never across the
 * statement). */
#ifndef FORMSVC_SUBMIT_BATCH_H
#define FORMSVC_SUBMIT_BATCH_H

#include <httpd.h>

#include "fs_store_public.h"

/* Stores ns (exact: the form has maxSubmissions) in a batch when it may be
 * (fs_store_public_batchable), else alone (fs_store_public_submit);
 * *out and the error as those give them, in r's pool. Gives r's database
 * connection back first (a waiter needs none): never for a submission
 * whose files wait in r's open transaction. */
fs_error *formsvc_submit(request_rec *r, const fs_new_submission *ns, int exact,
                         fs_submit_result *out);

/* The child's queue: made once per child (child_init). */
void formsvc_submit_batch_child_init(apr_pool_t *pchild, server_rec *s);

#endif
