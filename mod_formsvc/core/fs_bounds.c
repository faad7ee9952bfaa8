/* fs_bounds: bounds of dates and times. */
#include "fs_bounds.h"
#include "fs_json.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <stdio.h>
#include <string.h>

int fs_bound_kind(const char *type_name) {
    if (!type_name)
        return FS_BOUND_NONE;
    if (!strcmp(type_name, "date") || !strcmp(type_name, "daterange"))
        return FS_BOUND_DATE;
    if (!strcmp(type_name, "datetime"))
        return FS_BOUND_DATETIME;
    return !strcmp(type_name, "time") ? FS_BOUND_TIME : FS_BOUND_NONE;
}

static int two(const char *s, int max) { /* 00..max */
    return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' &&
           (s[0] - '0') * 10 + (s[1] - '0') <= max;
}

static int is_date(const char *s, apr_size_t len) {
    if (len != 10 || s[4] != '-' || s[7] != '-' || !two(s, 99) || !two(s + 2, 99) ||
        !two(s + 5, 12) || !two(s + 8, 31) || !memcmp(s, "0000", 4))
        return 0;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    return fs_date_valid(y, (s[5] - '0') * 10 + (s[6] - '0'), (s[8] - '0') * 10 + (s[9] - '0'));
}

static int is_time(const char *s, apr_size_t len) {
    return len == 5 && two(s, 23) && s[2] == ':' && two(s + 3, 59);
}

/* As FS_RE_DATETIME: date T HH:MM:SS, a fraction of 1 digit or more, Z or
 * an offset +HH:MM / -HH:MM. */
static int is_datetime(const char *s, apr_size_t len) {
    if (len < 20 || !is_date(s, 10) || s[10] != 'T' || !two(s + 11, 23) || s[13] != ':' ||
        !two(s + 14, 59) || s[16] != ':' || !two(s + 17, 59))
        return 0;
    apr_size_t i = 19;
    if (s[i] == '.') {
        apr_size_t f = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == f)
            return 0;
    }
    if (i + 1 == len && s[i] == 'Z')
        return 1;
    return i + 6 == len && (s[i] == '+' || s[i] == '-') && two(s + i + 1, 23) && s[i + 3] == ':' &&
           two(s + i + 4, 59);
}

int fs_bound_valid(int kind, const char *s, apr_size_t len) {
    switch (kind) {
    case FS_BOUND_DATE: return is_date(s, len);
    case FS_BOUND_DATETIME: return is_datetime(s, len);
    case FS_BOUND_TIME: return is_time(s, len);
    default: return 0;
    }
}

/* Days from 1970-01-01 of a proleptic Gregorian date. */
static long long days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static int digits(const char *s, int n) {
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* A well-formed RFC 3339 date-time as its instant: seconds since 1970 (UTC)
 * and the digits of its fraction without trailing zeros. */
static long long instant(const char *s, const char **frac, apr_size_t *frac_len) {
    long long days =
        days_from_civil(digits(s, 4), (unsigned)digits(s + 5, 2), (unsigned)digits(s + 8, 2));
    long long secs =
        days * 86400 + digits(s + 11, 2) * 3600 + digits(s + 14, 2) * 60 + digits(s + 17, 2);
    const char *q = s + 19;
    *frac = q;
    *frac_len = 0;
    if (*q == '.') {
        *frac = ++q;
        while (*q >= '0' && *q <= '9')
            q++;
        *frac_len = (apr_size_t)(q - *frac);
        while (*frac_len && (*frac)[*frac_len - 1] == '0')
            (*frac_len)--;
    }
    if (*q == '+' || *q == '-') {
        long long off = digits(q + 1, 2) * 3600 + digits(q + 4, 2) * 60;
        secs -= *q == '+' ? off : -off;
    }
    return secs;
}

int fs_bound_cmp(int kind, const char *a, const char *b) {
    if (kind != FS_BOUND_DATETIME)
        return strcmp(a, b);
    const char *fa, *fb;
    apr_size_t la, lb;
    long long ia = instant(a, &fa, &la), ib = instant(b, &fb, &lb);
    if (ia != ib)
        return ia < ib ? -1 : 1;
    for (apr_size_t i = 0; i < la || i < lb; i++) {
        char ca = i < la ? fa[i] : '0', cb = i < lb ? fb[i] : '0';
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return 0;
}

const char *fs_bound_parse(apr_pool_t *p, int kind, const char *type_name, json_object *v,
                           const char *ptr, const char *name, fs_error *verr) {
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (!s || !fs_bound_valid(kind, s, (apr_size_t)json_object_get_string_len(v))) {
        fs_error_add(p, verr, ptr, "format", "%s of a %s field is %s.", name, type_name,
                     kind == FS_BOUND_TIME ? "a time of day as HH:MM (24 hours)"
                     : kind == FS_BOUND_DATETIME
                         ? "an RFC 3339 date and time with its offset, such as 2026-11-21T14:30:00Z"
                         : "a date as YYYY-MM-DD");
        return NULL;
    }
    return apr_pstrdup(p, s);
}

void fs_bound_read(int kind, json_object *validation, const char **min, const char **max) {
    static const char *const names[] = {"minimum", "maximum"};
    for (int i = 0; i < 2; i++) {
        json_object *v = kind ? fs_json_get(validation, names[i]) : NULL;
        const char *s =
            v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        if (s && !fs_bound_valid(kind, s, strlen(s)))
            s = NULL;
        *(i ? max : min) = s;
    }
}

const char *fs_bound_utc(apr_pool_t *p, const char *s) {
    const char *frac;
    apr_size_t fl;
    if (!s || !fs_bound_valid(FS_BOUND_DATETIME, s, strlen(s)))
        return NULL;
    long long secs = instant(s, &frac, &fl);
    apr_time_exp_t x;
    if (apr_time_exp_gmt(&x, (apr_time_t)secs * APR_USEC_PER_SEC) != APR_SUCCESS)
        return NULL;
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02d", x.tm_year + 1900, x.tm_mon + 1,
                        x.tm_mday, x.tm_hour, x.tm_min, x.tm_sec);
}

const char *fs_bound_pattern(char *buf, apr_size_t n, const char *bound, int at_least) {
    apr_size_t len = strlen(bound), at = 0;
    int w = snprintf(buf, n, "^(?:%s", bound);
    if (w < 0 || (apr_size_t)w >= n)
        return NULL;
    at = (apr_size_t)w;
    for (apr_size_t i = 0; i < len; i++) {
        char c = bound[i];
        if (c < '0' || c > '9' || (at_least ? c == '9' : c == '0'))
            continue;
        char lo = at_least ? (char)(c + 1) : '0', hi = at_least ? '9' : (char)(c - 1);
        apr_size_t rest = len - i - 1;
        w = snprintf(buf + at, n - at, "|%.*s[%c-%c]", (int)i, bound, lo, hi);
        if (w < 0 || (apr_size_t)w >= n - at)
            return NULL;
        at += (apr_size_t)w;
        if (rest) {
            w = snprintf(buf + at, n - at, "[\\s\\S]{%lu}", (unsigned long)rest);
            if (w < 0 || (apr_size_t)w >= n - at)
                return NULL;
            at += (apr_size_t)w;
        }
    }
    if (at + 2 > n)
        return NULL;
    buf[at++] = ')';
    buf[at] = '\0';
    return buf;
}
