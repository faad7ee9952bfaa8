/* retention: the task that deletes what is kept too long (sql/0043):
 * submissions older than their form's effective retention, queued bulk
 * deletes (DELETE /v1/forms/{id}/submissions?before=), events and audit
 * entries past FormsvcEventRetentionDays / FormsvcAuditRetentionDays. It
 * is a task of the tally worker (tally.c). */
#ifndef FORMSVC_RETENTION_H
#define FORMSVC_RETENTION_H

#include "runtime/worker.h"

/* Rows one statement deletes at most: each batch is its own short
 * transaction. Also the most a bulk delete removes in its request. */
#define FORMSVC_RETENTION_BATCH 1000

/* A task of the tally worker, ticking every second: runs the retention
 * pass every FormsvcRetentionInterval seconds (the first soon after the
 * child starts), one session at a time across every child and machine
 * (an advisory lock; the others skip that run). */
formsvc_task_fn formsvc_retention_task;

#endif
