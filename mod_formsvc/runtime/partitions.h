/* partitions: the task that keeps the partitions of submissions,
 * submission_files and events made ahead of time (sql/0046). It is a task
 * of the tally worker (tally.c). */
#ifndef FORMSVC_PARTITIONS_H
#define FORMSVC_PARTITIONS_H

#include "runtime/worker.h"

/* Months ahead of the current one (UTC) whose partitions exist once the
 * task has run: a row's id is refused only if its time is further ahead
 * than that (docs/operations.md, "Partitioned tables"). */
#define FORMSVC_PARTITION_MONTHS 3

/* A task of the tally worker, ticking every second: makes the missing
 * partitions every FormsvcRetentionInterval seconds (the first soon after
 * the child starts), one session at a time across every child and machine
 * (an advisory lock in fs_partitions_ahead; the others skip that run). */
formsvc_task_fn formsvc_partitions_task;

#endif
