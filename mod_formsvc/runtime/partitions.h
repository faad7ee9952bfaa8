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

/* An empty partition is dropped once its upper bound is at least this
 * many months in the past: nothing writes an id that old (sql/0054). */
#define FORMSVC_PARTITION_KEEP_MONTHS 1

/* A task of the tally worker, ticking every second: makes the missing
 * partitions every FormsvcRetentionInterval seconds (the first soon after
 * the child starts), then drops the old ones retention emptied, one
 * session at a time across every child and machine (an advisory lock in
 * fs_partitions_ahead and fs_partitions_drop; the others skip that run). */
formsvc_task_fn formsvc_partitions_task;

#endif
