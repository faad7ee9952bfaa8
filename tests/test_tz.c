/* fs_tz: the TZif reader against the C library's localtime_r (this test is
 * single-threaded, so setting TZ here is fine), and local times in gaps and
 * overlaps. */
#define _DEFAULT_SOURCE /* tm_gmtoff, setenv, tzset */
#include "fs_coerce.h"
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_json.h"
#include "fs_test.h"
#include "fs_tz.h"
#include "fs_urlencoded.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <time.h>

static void names(void **state) {
    (void)state;
    static const char *const good[] = {
        "UTC",       "Europe/Berlin",          "America/Argentina/Buenos_Aires",
        "Etc/GMT+5", "America/Port-au-Prince", NULL};
    for (int i = 0; good[i]; i++)
        if (!fs_tz_name_valid(good[i]))
            fail_msg("refused: %s", good[i]);
    static const char *const bad[] = {"",
                                      "/etc/passwd",
                                      "../../etc/passwd",
                                      "Europe/",
                                      "/UTC",
                                      "Europe//Berlin",
                                      "Europe/.hidden",
                                      "-x",
                                      "a b",
                                      "posix/Europe/Berlin",
                                      "right/UTC",
                                      "Europe\\Berlin",
                                      "Europe/Berlin\n",
                                      NULL};
    for (int i = 0; bad[i]; i++)
        if (fs_tz_name_valid(bad[i]))
            fail_msg("accepted: %s", bad[i]);
    assert_false(fs_tz_name_valid(NULL));
}

static void loading(void **state) {
    apr_pool_t *p = *state;
    assert_non_null(fs_tz_load(p, NULL, "Europe/Berlin"));
    assert_non_null(fs_tz_load(p, NULL, "UTC"));
    assert_null(fs_tz_load(p, NULL, "Mars/Olympus_Mons"));
    assert_null(fs_tz_load(p, NULL, "../../etc/passwd"));
    assert_null(fs_tz_load(p, NULL, "Europe"));   /* a directory */
    assert_null(fs_tz_load(p, NULL, "zone.tab")); /* not TZif */
}

/* Every zone below, at instants every 5 days and 7 hours from 1901 to
 * 2100, has the offset localtime_r gives. */
static void against_libc(void **state) {
    apr_pool_t *p = *state;
    static const char *const zones[] = {"Europe/Berlin",
                                        "America/New_York",
                                        "Australia/Sydney",
                                        "Europe/Dublin",
                                        "America/Sao_Paulo",
                                        "Asia/Kolkata",
                                        "Pacific/Chatham",
                                        "America/St_Johns",
                                        "Asia/Tehran",
                                        "Africa/Casablanca",
                                        "Antarctica/Troll",
                                        "Australia/Lord_Howe",
                                        "America/Santiago",
                                        "Pacific/Apia",
                                        "UTC",
                                        "Etc/GMT-14",
                                        NULL};
    long checked = 0;
    for (int i = 0; zones[i]; i++) {
        fs_tz *z = fs_tz_load(p, NULL, zones[i]);
        assert_non_null(z);
        setenv("TZ", zones[i], 1);
        tzset();
        for (long long t = -2145916800LL; t < 4102444800LL; t += 5 * 86400 + 7 * 3600) {
            time_t tt = (time_t)t;
            struct tm tm;
            localtime_r(&tt, &tm);
            long got = fs_tz_offset_at(z, t);
            if (got != tm.tm_gmtoff)
                fail_msg("%s at %lld: %ld, libc %ld", zones[i], t, got, (long)tm.tm_gmtoff);
            checked++;
        }
    }
    assert_true(checked > 100000);
}

static void local_times(void **state) {
    apr_pool_t *p = *state;
    fs_tz *ber = fs_tz_load(p, NULL, "Europe/Berlin"),
          *ny = fs_tz_load(p, NULL, "America/New_York");
    fs_tz *syd = fs_tz_load(p, NULL, "Australia/Sydney"), *utc = fs_tz_load(p, NULL, "UTC");
    fs_tz *kol = fs_tz_load(p, NULL, "Asia/Kolkata"), *cha = fs_tz_load(p, NULL, "Pacific/Chatham");
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2026-07-01T14:30"),
                        "2026-07-01T14:30:00+02:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2026-11-21T14:30:05"),
                        "2026-11-21T14:30:05+01:00");
    /* the gap of 29 March 2026: 02:30 does not exist, it becomes 03:30 */
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2026-03-29T02:30"),
                        "2026-03-29T03:30:00+02:00");
    /* the overlap of 25 October 2026: 02:30 happens twice, the first */
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2026-10-25T02:30"),
                        "2026-10-25T02:30:00+02:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2026-10-25T03:00"),
                        "2026-10-25T03:00:00+01:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, ny, "2026-11-01T01:30"),
                        "2026-11-01T01:30:00-04:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, ny, "2026-03-08T02:15"),
                        "2026-03-08T03:15:00-04:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, syd, "2027-01-15T10:00"),
                        "2027-01-15T10:00:00+11:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, syd, "2027-07-15T10:00"),
                        "2027-07-15T10:00:00+10:00");
    /* far beyond the table: the footer's rule */
    assert_string_equal(fs_tz_local_to_rfc3339(p, ber, "2090-07-01T12:00"),
                        "2090-07-01T12:00:00+02:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, utc, "2026-02-28T23:59:59"),
                        "2026-02-28T23:59:59+00:00");
    assert_string_equal(fs_tz_local_to_rfc3339(p, kol, "2026-02-28T23:59"),
                        "2026-02-28T23:59:00+05:30");
    assert_string_equal(fs_tz_local_to_rfc3339(p, cha, "2026-01-01T00:00"),
                        "2026-01-01T00:00:00+13:45");
    /* not a datetime-local value */
    static const char *const bad[] = {"2026-02-29T10:00",
                                      "2026-13-01T10:00",
                                      "2026-01-01T24:00",
                                      "2026-01-01 10:00",
                                      "2026-01-01T10:00Z",
                                      "2026-01-01T10",
                                      "2026-01-01T10:00:60",
                                      "x",
                                      "",
                                      NULL};
    for (int i = 0; bad[i]; i++)
        if (fs_tz_local_to_rfc3339(p, ber, bad[i]))
            fail_msg("accepted: %s", bad[i]);
    /* local mean time is not whole minutes: refused rather than rounded */
    assert_null(fs_tz_local_to_rfc3339(p, ber, "1850-01-01T12:00"));
}

static const char *code_at(const fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "(none)";
}

/* a datetime field's timeZone, and a form post read in it */
static void field_zone(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *f = fs_json_own(
        p,
        fs_field_parse(p,
                       fs_json_parse_trusted(p, "{\"key\":\"at\",\"type\":\"datetime\","
                                                "\"label\":\"At\",\"timeZone\":\"Europe/Berlin\"}"),
                       NULL, "/fields/0", e));
    assert_null(e->errors);
    assert_string_equal(json_object_get_string(fs_json_get(f, "timeZone")), "Europe/Berlin");
    f = fs_json_own(p, fs_field_parse(p,
                                      fs_json_parse_trusted(p, "{\"key\":\"at\",\"type\":"
                                                               "\"datetime\",\"label\":\"At\"}"),
                                      NULL, "/fields/0", e));
    assert_false(json_object_object_get_ex(f, "timeZone", NULL)); /* absent when unset */
    static const char *const bad[] = {
        "\"Mars/Base\"", "\"../../etc/passwd\"", "\"posix/UTC\"", "1", "\"\"", NULL};
    for (int i = 0; bad[i]; i++) {
        e = fs_error_validation(p);
        assert_null(fs_field_parse(
            p,
            fs_json_parse_trusted(p, apr_pstrcat(p,
                                                 "{\"key\":\"at\",\"type\":\"datetime\","
                                                 "\"label\":\"At\",\"timeZone\":",
                                                 bad[i], "}", NULL)),
            NULL, "/fields/0", e));
        assert_string_not_equal(code_at(e, "/fields/0/timeZone"), "(none)");
    }
    e = fs_error_validation(p);
    assert_null(fs_field_parse(p,
                               fs_json_parse_trusted(p, "{\"key\":\"d\",\"type\":\"date\","
                                                        "\"label\":\"D\",\"timeZone\":\"UTC\"}"),
                               NULL, "/fields/0", e));
    assert_string_equal(code_at(e, "/fields/0/timeZone"), "unknown");

    const fs_fieldset *fs = fs_fieldset_from_json(
        p, fs_json_parse_trusted(p, "[{\"key\":\"at\",\"type\":\"datetime\",\"label\":\"At\","
                                    "\"timeZone\":\"America/New_York\"},{\"key\":\"u\",\"type\":"
                                    "\"datetime\",\"label\":\"U\"}]"));
    const char *body = "at=2026-07-01T14%3A30&u=2026-07-01T14%3A30";
    apr_array_header_t *pairs;
    assert_null(fs_urlencoded_parse(p, body, strlen(body), &pairs));
    json_object *o;
    int hp;
    assert_null(fs_coerce(p, fs, pairs, 0, &o, &hp));
    assert_string_equal(json_object_get_string(fs_json_get(o, "at")), "2026-07-01T14:30:00-04:00");
    assert_string_equal(json_object_get_string(fs_json_get(o, "u")), "2026-07-01T14:30:00Z");
}

static const struct CMUnitTest tests[] = {FS_TEST(names), FS_TEST(loading), FS_TEST(against_libc),
                                          FS_TEST(local_times), FS_TEST(field_zone)};
FS_TEST_MAIN(tests)
