/* fs_tz: TZif files and POSIX TZ rules (see fs_tz.h). */
#include "fs_tz.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TZIF (256 * 1024) /* the largest zone file is under 4 KiB */

/* A POSIX TZ rule date: Jn (1..365, no Feb 29), n (0..365), Mm.w.d. */
typedef struct rule_date {
    char kind; /* 'J', 'N', 'M' */
    int a, b, c;
    long time; /* seconds after local midnight; may be negative or > 24 h */
} rule_date;

typedef struct posix_tz {
    int ok, has_dst;
    long std_off, dst_off; /* seconds east */
    rule_date start, end;
} posix_tz;

struct fs_tz {
    long long *trans;   /* transition instants, ascending */
    unsigned char *idx; /* type of each transition */
    long *utoff;        /* offset of each type */
    int timecnt, typecnt;
    posix_tz footer;
};

int fs_tz_name_valid(const char *name) {
    if (!name)
        return 0;
    apr_size_t n = strlen(name);
    if (n < 1 || n > 64 || !strncmp(name, "posix/", 6) || !strncmp(name, "right/", 6))
        return 0;
    int seg = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '/') {
            if (!seg)
                return 0;
            seg = 0;
            continue;
        }
        if (!seg && (*c == '.' || *c == '-'))
            return 0;
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '-' || *c == '+'))
            return 0;
        seg++;
    }
    return seg > 0;
}

/* ---- POSIX TZ strings -------------------------------------------------- */

static const char *num(const char *s, long *v, long lo, long hi) {
    if (*s < '0' || *s > '9')
        return NULL;
    long x = 0;
    while (*s >= '0' && *s <= '9') {
        x = x * 10 + (*s++ - '0');
        if (x > hi)
            return NULL;
    }
    if (x < lo)
        return NULL;
    *v = x;
    return s;
}

/* [+-]hh[:mm[:ss]] as seconds; hours up to max_h. */
static const char *hms(const char *s, long *out, long max_h) {
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    long h, m = 0, sec = 0;
    if (!(s = num(s, &h, 0, max_h)))
        return NULL;
    if (*s == ':' && !(s = num(s + 1, &m, 0, 59)))
        return NULL;
    if (*s == ':' && !(s = num(s + 1, &sec, 0, 59)))
        return NULL;
    *out = (neg ? -1 : 1) * (h * 3600 + m * 60 + sec);
    return s;
}

/* A zone abbreviation: letters, or <...> with letters, digits, + and -. */
static const char *abbr(const char *s) {
    const char *b = s;
    if (*s == '<') {
        for (s++; *s && *s != '>'; s++)
            if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
                  (*s >= '0' && *s <= '9') || *s == '+' || *s == '-'))
                return NULL;
        return *s == '>' && s - b >= 4 ? s + 1 : NULL;
    }
    while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
        s++;
    return s - b >= 3 ? s : NULL;
}

static const char *rdate(const char *s, rule_date *d) {
    long a, b, c;
    if (*s == 'J') {
        if (!(s = num(s + 1, &a, 1, 365)))
            return NULL;
        d->kind = 'J';
        d->a = (int)a;
    } else if (*s == 'M') {
        if (!(s = num(s + 1, &a, 1, 12)) || *s != '.' || !(s = num(s + 1, &b, 1, 5)) || *s != '.' ||
            !(s = num(s + 1, &c, 0, 6)))
            return NULL;
        d->kind = 'M';
        d->a = (int)a;
        d->b = (int)b;
        d->c = (int)c;
    } else {
        if (!(s = num(s, &a, 0, 365)))
            return NULL;
        d->kind = 'N';
        d->a = (int)a;
    }
    d->time = 7200; /* 02:00 by default */
    if (*s == '/' && !(s = hms(s + 1, &d->time, 167)))
        return NULL;
    return s;
}

static posix_tz parse_posix(const char *s) {
    posix_tz z;
    memset(&z, 0, sizeof(z));
    long off;
    if (!s || !*s || !(s = abbr(s)) || !(s = hms(s, &off, 24)))
        return z;
    z.std_off = -off; /* POSIX counts west */
    if (!*s) {
        z.ok = 1;
        return z;
    }
    if (!(s = abbr(s)))
        return z;
    z.dst_off = z.std_off + 3600;
    if (*s && *s != ',') {
        if (!(s = hms(s, &off, 24)))
            return z;
        z.dst_off = -off;
    }
    if (*s != ',' || !(s = rdate(s + 1, &z.start)) || *s != ',' || !(s = rdate(s + 1, &z.end)) ||
        *s)
        return z;
    z.has_dst = z.ok = 1;
    return z;
}

/* ---- calendar ------------------------------------------------------------ */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static long long days_from_civil(long long y, int m, int d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(long long z, long long *y, int *m, int *d) {
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int leap(long long y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static long long floor_div(long long a, long long b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/* The local midnight (as days since the epoch) a rule date names in year y. */
static long long rule_day(const rule_date *r, long long y) {
    long long jan1 = days_from_civil(y, 1, 1);
    if (r->kind == 'J')
        return jan1 + r->a - 1 + (leap(y) && r->a >= 60);
    if (r->kind == 'N')
        return jan1 + r->a;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    long long first = days_from_civil(y, r->a, 1);
    int wd = (int)((first % 7 + 7 + 4) % 7); /* 1970-01-01 was a Thursday (4) */
    int day = 1 + (r->c - wd + 7) % 7 + (r->b - 1) * 7;
    int dim = mdays[r->a - 1] + (r->a == 2 && leap(y));
    while (day > dim)
        day -= 7;
    return first + day - 1;
}

static long posix_offset_at(const posix_tz *z, long long t) {
    if (!z->has_dst)
        return z->std_off;
    long long y;
    int m, d;
    civil_from_days(floor_div(t + z->std_off, 86400), &y, &m, &d);
    /* start is given in standard time, end in daylight time */
    long long start = rule_day(&z->start, y) * 86400 + z->start.time - z->std_off;
    long long end = rule_day(&z->end, y) * 86400 + z->end.time - z->dst_off;
    int dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? z->dst_off : z->std_off;
}

/* ---- TZif ---------------------------------------------------------------- */

static long long be(const unsigned char *b, int n) {
    unsigned long long v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | b[i];
    if (n == 4)
        return (long long)(int32_t)(uint32_t)v;
    return (long long)v;
}

fs_tz *fs_tz_load(apr_pool_t *p, const char *dir, const char *name) {
    if (!fs_tz_name_valid(name))
        return NULL;
    const char *path = apr_pstrcat(p, dir ? dir : FS_ZONEINFO_DIR, "/", name, NULL);
    apr_file_t *f;
    apr_finfo_t fi;
    if (apr_file_open(&f, path, APR_FOPEN_READ, 0, p) != APR_SUCCESS)
        return NULL;
    if (apr_file_info_get(&fi, APR_FINFO_SIZE | APR_FINFO_TYPE, f) != APR_SUCCESS ||
        fi.filetype != APR_REG || fi.size < 44 || fi.size > MAX_TZIF) {
        apr_file_close(f);
        return NULL;
    }
    apr_size_t len = (apr_size_t)fi.size;
    unsigned char *b = apr_palloc(p, len + 1);
    apr_status_t rv = apr_file_read_full(f, b, len, NULL);
    apr_file_close(f);
    if (rv != APR_SUCCESS)
        return NULL;
    b[len] = 0;
    /* version 1 block, skipped */
    if (memcmp(b, "TZif", 4) || b[4] < '2')
        return NULL;
    long long c[6];
    for (int i = 0; i < 6; i++)
        c[i] = be(b + 20 + 4 * i, 4);
    for (int i = 0; i < 6; i++)
        if (c[i] < 0 || c[i] > 100000)
            return NULL;
    apr_size_t pos = 44 + (apr_size_t)(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (pos + 44 > len || memcmp(b + pos, "TZif", 4))
        return NULL;
    for (int i = 0; i < 6; i++)
        c[i] = be(b + pos + 20 + 4 * i, 4);
    for (int i = 0; i < 6; i++)
        if (c[i] < 0 || c[i] > 100000)
            return NULL;
    long long isut = c[0], isstd = c[1], leapcnt = c[2], timecnt = c[3], typecnt = c[4],
              charcnt = c[5];
    pos += 44;
    apr_size_t need =
        (apr_size_t)(timecnt * 9 + typecnt * 6 + charcnt + leapcnt * 12 + isstd + isut);
    if (typecnt < 1 || pos + need > len)
        return NULL;
    fs_tz *z = apr_pcalloc(p, sizeof(*z));
    z->timecnt = (int)timecnt;
    z->typecnt = (int)typecnt;
    z->trans = apr_palloc(p, sizeof(long long) * (apr_size_t)(timecnt + 1));
    z->idx = apr_palloc(p, (apr_size_t)timecnt + 1);
    z->utoff = apr_palloc(p, sizeof(long) * (apr_size_t)typecnt);
    for (long long i = 0; i < timecnt; i++)
        z->trans[i] = be(b + pos + 8 * i, 8);
    pos += (apr_size_t)timecnt * 8;
    for (long long i = 0; i < timecnt; i++)
        if ((z->idx[i] = b[pos + i]) >= typecnt)
            return NULL;
    pos += (apr_size_t)timecnt;
    for (long long i = 0; i < typecnt; i++)
        z->utoff[i] = (long)be(b + pos + 6 * i, 4);
    pos += need - (apr_size_t)(timecnt * 9);
    /* footer: \n<POSIX TZ>\n */
    if (pos < len && b[pos] == '\n') {
        char *end = memchr(b + pos + 1, '\n', len - pos - 1);
        if (end) {
            *end = 0;
            z->footer = parse_posix((const char *)b + pos + 1);
        }
    }
    return z;
}

long fs_tz_offset_at(const fs_tz *z, long long t) {
    if (z->timecnt == 0 || t < z->trans[0]) {
        if (z->timecnt == 0 && z->footer.ok)
            return posix_offset_at(&z->footer, t);
        return z->utoff[0];
    }
    if (t >= z->trans[z->timecnt - 1] && z->footer.ok)
        return posix_offset_at(&z->footer, t);
    int lo = 0, hi = z->timecnt - 1; /* the last transition at or before t */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (z->trans[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return z->utoff[z->idx[lo]];
}

long long fs_tz_from_local(const fs_tz *z, long long wall, long *offset) {
    /* offsets change by less than a day at a time: the one a day before and
     * the one a day after are the candidates */
    long before = fs_tz_offset_at(z, wall - 86400), after = fs_tz_offset_at(z, wall + 86400);
    int ok_b = fs_tz_offset_at(z, wall - before) == before;
    int ok_a = fs_tz_offset_at(z, wall - after) == after;
    if (ok_b && ok_a) {
        long o = before > after ? before : after; /* both: the earlier instant */
        *offset = o;
        return wall - o;
    }
    if (ok_b || ok_a) {
        *offset = ok_b ? before : after;
        return wall - *offset;
    }
    /* in a gap: the instant the wall time names under the old offset */
    long long t = wall - before;
    *offset = fs_tz_offset_at(z, t);
    return t;
}

static int digits(const char *s, int n, int *v) {
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        *v = *v * 10 + (s[i] - '0');
    }
    return 1;
}

const char *fs_tz_local_to_rfc3339(apr_pool_t *p, const fs_tz *z, const char *s) {
    if (!s)
        return NULL;
    apr_size_t n = strlen(s);
    int y, mo, d, h, mi, sec = 0;
    if ((n != 16 && n != 19) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        (n == 19 && s[16] != ':') || !digits(s, 4, &y) || !digits(s + 5, 2, &mo) ||
        !digits(s + 8, 2, &d) || !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
        (n == 19 && !digits(s + 17, 2, &sec)))
        return NULL;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 ||
        mi > 59 || sec > 59)
        return NULL;
    long long wall = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    long off;
    long long t = fs_tz_from_local(z, wall, &off);
    if (off % 60)
        return NULL;
    long long lw = t + off, days = floor_div(lw, 86400), rem = lw - days * 86400;
    long long yy;
    int mm, dd;
    civil_from_days(days, &yy, &mm, &dd);
    int ao = (int)(off < 0 ? -off : off), sod = (int)rem;
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", (int)yy, mm, dd, sod / 3600,
                        sod / 60 % 60, sod % 60, off < 0 ? '-' : '+', ao / 3600, ao / 60 % 60);
}
