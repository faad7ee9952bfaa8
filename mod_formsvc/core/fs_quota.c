/* fs_quota: calendar arithmetic of the quotas (no time zone but UTC). */
#include "fs_quota.h"

/* Days from 1970-01-01 to y-m-01 (proleptic Gregorian), after H. Hinnant. */
static int64_t days_from_civil(int64_t y, int m) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5; /* day 1 of the month */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int64_t fs_quota_next_month(int64_t now) {
    int64_t z = (now >= 0 ? now : now - 86399) / 86400 + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    y += m <= 2;
    int nm = m == 12 ? 1 : m + 1;
    int64_t ny = m == 12 ? y + 1 : y;
    return days_from_civil(ny, nm) * 86400;
}

int fs_quota_month_retry_after(int64_t now) {
    int64_t d = fs_quota_next_month(now) - now;
    return d < 1 ? 1 : (int)d;
}

int fs_quota_allows(int64_t limit, int64_t used) {
    return limit < 0 || used < limit;
}
