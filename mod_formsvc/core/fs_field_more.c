/* fs_field_more: address, daterange, time, signature and the bounds of
 * dates and times. Every rule of the validator here mirrors one keyword
 * of the schema built here (see the comments). */
#include "fs_field_more.h"
#include "fs_bounds.h"
#include "fs_file.h"
#include "fs_json.h"
#include "fs_pattern.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <stdio.h>
#include <string.h>

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

const char *const fs_country_codes[] = {
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW", NULL};

int fs_country_valid(const char *c) {
    if (!c || strlen(c) != 2)
        return 0;
    int lo = 0, hi = (int)(sizeof(fs_country_codes) / sizeof(*fs_country_codes)) - 2;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, d = strcmp(fs_country_codes[mid], c);
        if (!d)
            return 1;
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static const char *const ADDRESS_PARTS[] = {"line1",      "line2",   "city", "region",
                                            "postalCode", "country", NULL};
static const char *const DATERANGE_PARTS[] = {"start", "end", NULL};
static const char *const SIGNATURE_PARTS[] = {"name", "image", NULL};

const char *const *fs_field_parts(int t) {
    switch (t) {
    case FS_FT_ADDRESS: return ADDRESS_PARTS;
    case FS_FT_DATERANGE: return DATERANGE_PARTS;
    case FS_FT_SIGNATURE: return SIGNATURE_PARTS;
    default: return NULL;
    }
}

int fs_field_part_required(int t, const char *part) {
    if (t == FS_FT_ADDRESS)
        return !strcmp(part, "line1") || !strcmp(part, "city") || !strcmp(part, "country");
    return t == FS_FT_DATERANGE || (t == FS_FT_SIGNATURE && !strcmp(part, "name"));
}

/* The longest text of a part (characters). */
static long part_max(int t, const char *part) {
    if (t == FS_FT_SIGNATURE)
        return FS_SIGNATURE_NAME_MAX;
    if (!strcmp(part, "line1") || !strcmp(part, "line2"))
        return FS_ADDRESS_LINE_MAX;
    if (!strcmp(part, "city"))
        return FS_ADDRESS_CITY_MAX;
    if (!strcmp(part, "region"))
        return FS_ADDRESS_REGION_MAX;
    return FS_ADDRESS_POSTAL_MAX;
}

/* HH:MM of 24 hours (fs_bound_valid checks it) */
static const char RE_TIME[] = "^(?:[01][0-9]|2[0-3]):[0-5][0-9](?![\\s\\S])";

/* The answers' formats: the schema's own patterns. */
static int is_date(const char *s, apr_size_t len) {
    return fs_pattern_search(fs_builtin_pattern(FS_RE_DATE), s, len) == 1;
}

static int is_datetime(const char *s, apr_size_t len) {
    return fs_pattern_search(fs_builtin_pattern(FS_RE_DATETIME), s, len) == 1;
}

/* The kind of bounds of f's type (fs_bounds.h). */
static int kind_of(const fs_field *f) {
    return fs_bound_kind(fs_field_type_name(f->type));
}

/* ---- the validator ------------------------------------------------- */

#define COUNTRY_ENGLISH "choose a country from the list (an ISO 3166-1 alpha-2 code such as DE)."

static void add(apr_pool_t *p, fs_error *e, const char *ptr, const char *code, const char *msg,
                const fs_field *f, const char *n, const char *detail) {
    fs_error_add_msg(p, e, ptr, code, msg, fs_field_label(f), n, detail);
}

/* minimum / maximum of a well-formed value s: the allOf patterns (dates,
 * times) or the description (date-times, which the server compares as
 * instants). */
static void check_bounds(apr_pool_t *p, const fs_field *f, const char *s, const char *ptr,
                         fs_error *e) {
    if (f->min_text && fs_bound_cmp(kind_of(f), s, f->min_text) < 0)
        add(p, e, ptr, "minimum", "minimum.date", f, f->min_text,
            apr_psprintf(p, "%s must be on or after %s.", fs_field_label(f), f->min_text));
    if (f->max_text && fs_bound_cmp(kind_of(f), s, f->max_text) > 0)
        add(p, e, ptr, "maximum", "maximum.date", f, f->max_text,
            apr_psprintf(p, "%s must be on or before %s.", fs_field_label(f), f->max_text));
}

/* One date of a daterange: type string, format date (pattern), bounds. */
static int check_date_part(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                           fs_error *e) {
    if (!json_object_is_type(v, json_type_string)) {
        add(p, e, ptr, "type", "type.text", f, NULL,
            apr_psprintf(p, "%s must be text.", fs_field_label(f)));
        return 0;
    }
    const char *s = json_object_get_string(v);
    if (!is_date(s, (apr_size_t)json_object_get_string_len(v))) {
        add(p, e, ptr, "format", "format.date", f, NULL,
            apr_psprintf(p, "%s must be a real calendar date as YYYY-MM-DD.", fs_field_label(f)));
        return 0;
    }
    int before = e->errors ? e->errors->nelts : 0;
    check_bounds(p, f, s, ptr, e);
    return (e->errors ? e->errors->nelts : 0) == before;
}

/* The message key of a required part missing, and its English sentence
 * (en.json's) after "<label>: ". */
static const char *part_missing_msg(int t, const char *part, const char **english) {
    if (t == FS_FT_SIGNATURE) {
        *english = "type your full name to sign.";
        return "signature.name";
    }
    if (t == FS_FT_DATERANGE) {
        int start = !strcmp(part, "start");
        *english = start ? "the start date is required." : "the end date is required.";
        return start ? "daterange.start" : "daterange.end";
    }
    if (!strcmp(part, "line1")) {
        *english = "the first address line is required.";
        return "address.line1";
    }
    if (!strcmp(part, "city")) {
        *english = "the city or town is required.";
        return "address.city";
    }
    *english = COUNTRY_ENGLISH;
    return "address.country";
}

static void part_missing(apr_pool_t *p, fs_error *e, const char *ptr, const fs_field *f,
                         const char *part) {
    const char *english;
    const char *msg = part_missing_msg(f->type, part, &english);
    add(p, e, ptr, "required", msg, f, NULL, apr_psprintf(p, "%s: %s", fs_field_label(f), english));
}

/* "<label> (<part>)": the label of an error of one part that has no
 * message of its own */
static const char *part_label(apr_pool_t *p, const fs_field *f, const char *part) {
    return apr_psprintf(p, "%s (%s)", fs_field_label(f), part);
}

/* The drawn image of a signature in a JSON body: {name, type: "image/png",
 * data (base64)}, as a file field's file (image_schema's keywords). The
 * upload checks its content (files.h) as a file field's. API clients only:
 * English details, no message of the pages. */
static void check_image(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                        fs_error *e) {
    if (!json_object_is_type(v, json_type_object)) { /* type: object */
        fs_error_add(p, e, ptr, "type", "%s: the image is {name, type, data (base64)}.",
                     fs_field_label(f));
        return;
    }
    static const char *const members[] = {"name", "type", "data"};
    for (int i = 0; i < 3; i++) {
        json_object *m;
        const char *mp = apr_pstrcat(p, ptr, "/", members[i], NULL);
        if (!json_object_object_get_ex(v, members[i], &m)) { /* required */
            fs_error_add(p, e, mp, "required", "%s: the image needs %s.", fs_field_label(f),
                         members[i]);
            continue;
        }
        if (!json_object_is_type(m, json_type_string)) { /* type: string */
            fs_error_add(p, e, mp, "type", "%s: %s must be text.", fs_field_label(f), members[i]);
            continue;
        }
        const char *s = json_object_get_string(m);
        apr_size_t bl = (apr_size_t)json_object_get_string_len(m), len = fs_utf8_length(s);
        if (i == 0 && (len < 1 || len > FS_FILE_NAME_MAX)) /* minLength 1, maxLength */
            fs_error_add(p, e, mp, len < 1 ? "minLength" : "maxLength",
                         "%s: name is 1 to %d characters.", fs_field_label(f), FS_FILE_NAME_MAX);
        if (i == 1 && strcmp(s, "image/png")) /* const */
            fs_error_add(p, e, mp, "const", "%s: the image is a PNG (image/png).",
                         fs_field_label(f));
        if (i == 2) {
            if ((long long)len > fs_file_base64_len(FS_SIGNATURE_IMAGE_MAX)) /* maxLength */
                fs_error_add(p, e, mp, "maxLength", "%s: the image is larger than %lld bytes.",
                             fs_field_label(f), (long long)FS_SIGNATURE_IMAGE_MAX);
            if (!fs_file_base64_valid(s, bl)) /* pattern */
                fs_error_add(p, e, mp, "pattern",
                             "%s: data is not base64 (RFC 4648, with padding).", fs_field_label(f));
        }
    }
    json_object_object_foreach(v, k, mv) { /* additionalProperties */
        (void)mv;
        if (strcmp(k, "name") && strcmp(k, "type") && strcmp(k, "data"))
            fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown",
                         "%s: the image has name, type and data only.", fs_field_label(f));
    }
}

/* An answer with parts: type object, properties, required,
 * additionalProperties: false. */
static void check_parts(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                        fs_error *e) {
    if (!json_object_is_type(v, json_type_object)) { /* type: object */
        add(p, e, ptr, "type", "type.parts", f, NULL,
            apr_psprintf(p, "%s must be given in its parts.", fs_field_label(f)));
        return;
    }
    const char *const *parts = fs_field_parts(f->type);
    int dates_ok = 1;
    for (const char *const *pt = parts; *pt; pt++) {
        json_object *m;
        const char *mp = apr_pstrcat(p, ptr, "/", *pt, NULL);
        if (!json_object_object_get_ex(v, *pt, &m)) { /* required */
            if (fs_field_part_required(f->type, *pt)) {
                part_missing(p, e, mp, f, *pt);
                dates_ok = 0;
            }
            continue;
        }
        if (f->type == FS_FT_DATERANGE) {
            dates_ok &= check_date_part(p, f, m, mp, e);
            continue;
        }
        if (f->type == FS_FT_SIGNATURE && !strcmp(*pt, "image")) { /* image_schema */
            check_image(p, f, m, mp, e);
            continue;
        }
        if (f->type == FS_FT_ADDRESS && !strcmp(*pt, "country")) { /* enum */
            if (!json_object_is_type(m, json_type_string) ||
                !fs_country_valid(json_object_get_string(m)))
                add(p, e, mp, "enum", "address.country", f, NULL,
                    apr_psprintf(p, "%s: %s", fs_field_label(f), COUNTRY_ENGLISH));
            continue;
        }
        if (!json_object_is_type(m, json_type_string)) { /* type: string */
            const char *pl = part_label(p, f, *pt);
            fs_error_add_msg(p, e, mp, "type", "type.text", pl, NULL,
                             apr_psprintf(p, "%s must be text.", pl));
            continue;
        }
        apr_size_t len = fs_utf8_length(json_object_get_string(m));
        long max = part_max(f->type, *pt);
        if (len == 0 && fs_field_part_required(f->type, *pt)) /* minLength: 1 */
            part_missing(p, e, mp, f, *pt);
        if ((long)len > max) { /* maxLength */
            const char *pl = part_label(p, f, *pt);
            fs_error_add_msg(p, e, mp, "maxLength", "maxLength", pl, apr_ltoa(p, max),
                             apr_psprintf(p, "%s takes at most %ld characters.", pl, max));
        }
    }
    json_object_object_foreach(v, k, mv) { /* additionalProperties: false */
        (void)mv;
        int known = 0;
        for (const char *const *pt = parts; *pt && !known; pt++)
            known = !strcmp(*pt, k);
        if (!known)
            /* API clients only: no message of the pages */
            fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown", "%s has no part %s.",
                         fs_field_label(f), k);
    }
    /* start <= end: beyond the schema (said in its description) */
    if (f->type == FS_FT_DATERANGE && dates_ok &&
        strcmp(json_object_get_string(fs_json_get(v, "start")),
               json_object_get_string(fs_json_get(v, "end"))) > 0)
        add(p, e, apr_pstrcat(p, ptr, "/end", NULL), "minimum", "daterange.order", f, NULL,
            apr_psprintf(p, "%s: the end must not be before the start.", fs_field_label(f)));
}

void fs_validate_more(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                      fs_error *e) {
    switch (f->type) {
    case FS_FT_ADDRESS:
    case FS_FT_DATERANGE:
    case FS_FT_SIGNATURE: check_parts(p, f, v, ptr, e); break;
    case FS_FT_TIME: { /* type: string, pattern, allOf: bounds */
        if (!json_object_is_type(v, json_type_string)) {
            add(p, e, ptr, "type", "type.text", f, NULL,
                apr_psprintf(p, "%s must be text.", fs_field_label(f)));
            break;
        }
        const char *s = json_object_get_string(v);
        if (!fs_bound_valid(FS_BOUND_TIME, s, (apr_size_t)json_object_get_string_len(v)))
            add(p, e, ptr, "format", "format.time", f, NULL,
                apr_psprintf(p, "%s must be a time of day as HH:MM (24 hours).",
                             fs_field_label(f)));
        else
            check_bounds(p, f, s, ptr, e);
        break;
    }
    case FS_FT_DATE:
    case FS_FT_DATETIME: /* the format is fs_validate's; the bounds of a well-formed value */
        if (json_object_is_type(v, json_type_string) &&
            (f->type == FS_FT_DATE ? is_date : is_datetime)(
                json_object_get_string(v), (apr_size_t)json_object_get_string_len(v)))
            check_bounds(p, f, json_object_get_string(v), ptr, e);
        break;
    default: break;
    }
}

/* ---- the schema ----------------------------------------------------- */

static json_object *text_schema(long min, long max) {
    json_object *o = json_object_new_object();
    ADD(o, "type", json_object_new_string("string"));
    if (min > 0)
        ADD(o, "minLength", json_object_new_int64(min));
    ADD(o, "maxLength", json_object_new_int64(max));
    return o;
}

/* The allOf of patterns of f's bounds (dates and times), or NULL. */
static json_object *bound_patterns(const fs_field *f) {
    if (f->type == FS_FT_DATETIME || (!f->min_text && !f->max_text))
        return NULL;
    json_object *all = json_object_new_array();
    const char *b[2] = {f->min_text, f->max_text};
    for (int i = 0; i < 2; i++) {
        char buf[1024];
        if (!b[i])
            continue;
        const char *re = fs_bound_pattern(buf, sizeof(buf), b[i], i == 0);
        json_object *o = json_object_new_object();
        ADD(o, "pattern", json_object_new_string(re ? re : "(?!)"));
        json_object_array_add(all, o);
    }
    return all;
}

/* The bounds in words, appended to the owner's description. */
static void describe(json_object *s, const fs_field *f, const char *extra) {
    char buf[FS_FIELD_DESCRIPTION_MAX + 512];
    const char *what_ = f->type == FS_FT_DATETIME ? "instants"
                        : f->type == FS_FT_TIME   ? "times"
                                                  : "dates";
    int n = snprintf(buf, sizeof(buf), "%s%s", f->description ? f->description : "",
                     f->description ? " " : "");
    if (f->min_text && f->max_text)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "Only %s from %s to %s.", what_,
                      f->min_text, f->max_text);
    else if (f->min_text)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "Only %s on or after %s.", what_,
                      f->min_text);
    else if (f->max_text)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, "Only %s on or before %s.", what_,
                      f->max_text);
    if (extra)
        snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s", n ? " " : "", extra);
    if (buf[0])
        ADD(s, "description", json_object_new_string(buf));
}

void fs_schema_more_bounds(json_object *s, const fs_field *f) {
    if (!f->min_text && !f->max_text)
        return;
    json_object *all = bound_patterns(f);
    if (all)
        ADD(s, "allOf", all);
    describe(s, f,
             f->type == FS_FT_DATETIME
                 ? "The server compares the instants; JSON Schema cannot say it."
                 : NULL);
}

/* A signature's drawn image in a JSON body (check_image's twin). */
static json_object *image_schema(void) {
    json_object *o = json_object_new_object(), *props = json_object_new_object();
    ADD(o, "type", json_object_new_string("object"));
    json_object *req = json_object_new_array();
    json_object_array_add(req, json_object_new_string("name"));
    json_object_array_add(req, json_object_new_string("type"));
    json_object_array_add(req, json_object_new_string("data"));
    ADD(o, "required", req);
    json_object *name = json_object_new_object();
    ADD(name, "type", json_object_new_string("string"));
    ADD(name, "minLength", json_object_new_int(1));
    ADD(name, "maxLength", json_object_new_int(FS_FILE_NAME_MAX));
    ADD(props, "name", name);
    json_object *type = json_object_new_object();
    ADD(type, "const", json_object_new_string("image/png"));
    ADD(props, "type", type);
    json_object *data = json_object_new_object();
    ADD(data, "type", json_object_new_string("string"));
    ADD(data, "contentEncoding", json_object_new_string("base64"));
    ADD(data, "contentMediaType", json_object_new_string("image/png"));
    ADD(data, "maxLength", json_object_new_int64(fs_file_base64_len(FS_SIGNATURE_IMAGE_MAX)));
    ADD(data, "pattern", json_object_new_string(FS_RE_BASE64));
    ADD(props, "data", data);
    ADD(o, "properties", props);
    ADD(o, "additionalProperties", json_object_new_boolean(0));
    return o;
}

static json_object *date_part(const fs_field *f) {
    json_object *o = json_object_new_object();
    ADD(o, "type", json_object_new_string("string"));
    ADD(o, "format", json_object_new_string("date"));
    ADD(o, "pattern", json_object_new_string(FS_RE_DATE));
    json_object *all = bound_patterns(f);
    if (all)
        ADD(o, "allOf", all);
    return o;
}

json_object *fs_schema_more(const fs_field *f) {
    const char *const *parts = fs_field_parts(f->type);
    json_object *s = json_object_new_object();
    if (f->label)
        ADD(s, "title", json_object_new_string(f->label));
    if (f->type == FS_FT_TIME) {
        ADD(s, "type", json_object_new_string("string"));
        ADD(s, "pattern", json_object_new_string(RE_TIME));
        json_object *all = bound_patterns(f);
        if (all)
            ADD(s, "allOf", all);
        describe(s, f, NULL);
        return s;
    }
    if (!parts) {
        json_object_put(s);
        return NULL;
    }
    ADD(s, "type", json_object_new_string("object"));
    json_object *props = json_object_new_object(), *req = json_object_new_array();
    for (const char *const *pt = parts; *pt; pt++) {
        json_object *ps;
        if (f->type == FS_FT_DATERANGE) {
            ps = date_part(f);
        } else if (f->type == FS_FT_SIGNATURE && !strcmp(*pt, "image")) {
            ps = image_schema();
        } else if (f->type == FS_FT_ADDRESS && !strcmp(*pt, "country")) {
            ps = json_object_new_object();
            json_object *codes = json_object_new_array();
            for (const char *const *c = fs_country_codes; *c; c++)
                json_object_array_add(codes, json_object_new_string(*c));
            ADD(ps, "enum", codes);
        } else {
            ps = text_schema(fs_field_part_required(f->type, *pt) ? 1 : 0, part_max(f->type, *pt));
        }
        ADD(props, *pt, ps);
        if (fs_field_part_required(f->type, *pt))
            json_object_array_add(req, json_object_new_string(*pt));
    }
    ADD(s, "properties", props);
    ADD(s, "required", req);
    ADD(s, "additionalProperties", json_object_new_boolean(0));
    describe(s, f,
             f->type == FS_FT_DATERANGE
                 ? "The end is on or after the start (the server checks it; JSON Schema cannot "
                   "compare two members)."
                 : NULL);
    return s;
}

/* ---- HTML posts ----------------------------------------------------- */

int fs_coerce_part(apr_pool_t *p, const fs_fieldset *fs, json_object *o, const char *name,
                   const char *value) {
    const char *dot = strchr(name, '.');
    if (!dot)
        return 0;
    const char *key = apr_pstrndup(p, name, (apr_size_t)(dot - name));
    const fs_field *f = fs_fieldset_find(fs, key);
    if (!f || !fs_field_parts(f->type))
        return 0;
    if (!*value)
        return 1; /* an empty input is no answer */
    json_object *ans;
    if (!json_object_object_get_ex(o, key, &ans) || !json_object_is_type(ans, json_type_object)) {
        ans = json_object_new_object();
        json_object_object_add(o, key, ans);
    }
    json_object *cur, *v = json_object_new_string(value);
    if (json_object_object_get_ex(ans, dot + 1, &cur)) {
        if (!json_object_is_type(cur, json_type_array)) {
            json_object *arr = json_object_new_array();
            json_object_array_add(arr, json_object_get(cur));
            json_object_object_add(ans, dot + 1, arr);
            cur = arr;
        }
        json_object_array_add(cur, v);
    } else {
        json_object_object_add(ans, dot + 1, v);
    }
    return 1;
}

int fs_field_more_message(const char *key) {
    static const char *const keys[] = {
        "error.format.time",     "error.minimum.date",    "error.maximum.date",
        "error.type.parts",      "error.address.line1",   "error.address.city",
        "error.address.country", "error.daterange.start", "error.daterange.end",
        "error.daterange.order", "error.signature.name",  NULL};
    for (const char *const *k = keys; key && *k; k++)
        if (!strcmp(*k, key))
            return 1;
    return 0;
}

json_object *fs_field_column_value(json_object *answers, const char *column) {
    const char *dot = strchr(column, '.');
    if (!dot)
        return fs_json_get(answers, column);
    char key[FS_FIELD_KEY_MAX + 1];
    apr_size_t n = (apr_size_t)(dot - column);
    if (n > FS_FIELD_KEY_MAX)
        return NULL;
    memcpy(key, column, n);
    key[n] = '\0';
    json_object *v = fs_json_get(answers, key);
    v = v && json_object_is_type(v, json_type_object) ? fs_json_get(v, dot + 1) : NULL;
    /* a signature's stored image: its URL, as a file field's cell */
    return v && json_object_is_type(v, json_type_object) && fs_json_get(v, "url")
               ? fs_json_get(v, "url")
               : v;
}
