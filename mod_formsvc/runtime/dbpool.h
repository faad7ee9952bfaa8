/* dbpool: bounds on waiting for the database. FormsvcDBTimeout (global,
 * runtime/config_global.h) is the longest a request waits for a pooled connection when every one
 * is in use, and the longest a store statement waits for the answer to one
 * statement; past it the request gets a 503 problem with Retry-After.
 *
 * mod_dbd's pool (an apr_reslist) waits for a free connection without a
 * limit and offers no setting for one, so a gate of our own sits in front
 * of it: each child counts the connections its requests and workers hold,
 * up to DBDMax (read from the configuration), and makes the next one wait
 * on a condition variable with a time limit. */
#ifndef FORMSVC_DBPOOL_H
#define FORMSVC_DBPOOL_H

#include <httpd.h>
#include <apr_dbd.h>
#include <http_config.h>
#include <mod_dbd.h>

/* child_init: makes the gate and hands the statement limit to the store
 * (DBDMax, DBDPersist and DBDParams as runtime/config_global.h read them). */
void formsvc_dbpool_child_init(apr_pool_t *pchild, server_rec *s);

/* Takes a place for one connection. While the database is suspected down
 * (the last attempt to reach it failed), one thread at a time goes on to
 * find out (*probe set); the others wait at most a second for its verdict
 * (its first answered statement) and are then answered DOWN: nobody queues
 * behind connection attempts that time out one after the other (apr-util
 * 1.6 opens pooled connections while holding the pool's lock), and a
 * database that is back is not refused for the time a probe's request
 * takes. Every
 * place taken (FORMSVC_DBPOOL_OK) is given back with formsvc_dbpool_leave. */
enum { FORMSVC_DBPOOL_OK, FORMSVC_DBPOOL_BUSY, FORMSVC_DBPOOL_DOWN };
int formsvc_dbpool_enter(int *probe);
void formsvc_dbpool_leave(int probe);
/* Notes a connection mod_dbd gave (held until formsvc_gauge_add(
 * FORMSVC_G_DB_HELD, -1) when it is given back; counted open until mod_dbd
 * closes it), for the gauges of /metrics. */
void formsvc_dbpool_note_open(ap_dbd_t *d);
/* Notes that a connection could not be had (mod_dbd gave none). */
void formsvc_dbpool_unreachable(void);

/* The connection of request r (its initial request's, as ap_dbd_acquire
 * gives it), taken through the gate and given back with r's pool or by
 * formsvc_dbpool_release; NULL when none could be had within the limit or
 * the database is down. */
ap_dbd_t *formsvc_dbpool_acquire(request_rec *r);
/* Gives r's connection and its place in the gate back now (a long poll
 * between two looks, a response before it is written). No operation when
 * none is held (1), nor when the connection is inside a transaction (0:
 * it stays with r). */
int formsvc_dbpool_release(request_rec *r);

#endif
