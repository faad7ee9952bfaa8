/* fs_quota: calendar arithmetic of the quotas. */
#ifndef FS_QUOTA_H
#define FS_QUOTA_H

#include <stdint.h>

/* Epoch seconds of the first instant of the UTC calendar month after the
 * one that contains now. */
int64_t fs_quota_next_month(int64_t now);
/* Seconds from now until then (>= 1): retryAfter of a monthly quota. */
int fs_quota_month_retry_after(int64_t now);
/* 1 when one more use fits: used < limit (limit < 0: unlimited). */
int fs_quota_allows(int64_t limit, int64_t used);

#endif
