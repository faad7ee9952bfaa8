/* fs_fieldset: the stored fields array read into effective rules. */
#include "fs_fieldset.h"
#include "fs_bounds.h"
#include "fs_json.h"
#include "fs_logic.h"
#include "fs_pages.h"

#include <apr_strings.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A date with its calendar: months of 31 and 30 days, February 29 only in
 * leap years, no year 0000. */
#define DATE_BODY                                                                                  \
    "(?:(?!0000)[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"                         \
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"                          \
    "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"           \
    "-02-29)"
#define END "(?![\\s\\S])"
#define LABEL "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
#define PCHAR "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"

/* HTML's own rule for type=email (WHATWG), with at least one dot in the
 * domain and a local part of dot-separated atoms (no leading, trailing or
 * doubled dot, as RFC 5321 and JSON Schema validators' "email" format say:
 * WHATWG's "a..b@c.de" is refused by ajv-formats, so the schema would
 * refuse what the server took). */
#define ATEXT "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const char FS_RE_EMAIL[] = "^" ATEXT "(?:\\." ATEXT ")*@" LABEL "(?:\\." LABEL ")+" END;
/* Absolute http(s) URLs with a DNS name or IPv4 host, optional port, and a
 * path, query and fragment of RFC 3986 characters. */
const char FS_RE_URL[] = "^https?://" LABEL "(?:\\." LABEL ")*(?::[0-9]{1,5})?(?:/" PCHAR
                         "*)*(?:\\?(?:" PCHAR "|[/?])*)?(?:#(?:" PCHAR "|[/?])*)?" END;
/* 3 to 30 characters of digits, spaces, ( ) . - with an optional leading +,
 * ending in a digit. */
const char FS_RE_TEL[] = "^\\+?[0-9(][0-9 ().-]{1,28}[0-9]" END;
const char FS_RE_DATE[] = "^" DATE_BODY END;
/* RFC 3339 date-time with seconds and a zone, upper-case T and Z. */
const char FS_RE_DATETIME[] = "^" DATE_BODY "T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                              "(?:\\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])" END;

static fs_field_type type_of(const char *name) {
    int t = fs_field_type_of(name);
    return t < 0 ? FS_FT_UNKNOWN : (fs_field_type)t;
}

static const char *str_of(json_object *o, const char *k) {
    json_object *v = fs_json_get(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int num_of(json_object *o, const char *k, double *out) {
    return fs_json_number(fs_json_get(o, k), out);
}

/* Non-negative integer limit k of o. */
static int count_of(json_object *o, const char *k, long *out) {
    double d;
    if (!num_of(o, k, &d) || d < 0 || d > 1e9 || d != floor(d))
        return 0;
    *out = (long)d;
    return 1;
}

/* The default longest answer when the owner set no maxLength; an owner's
 * maxLength is honoured as given (up to FS_LENGTH_MAX), except above a
 * format's own ceiling (ceiling > 0: e-mail addresses, URLs), which a
 * definition cannot pass any more (fs_field.c) and an older one is held
 * to. */
static void set_max_len(fs_field *f, long dflt, long ceiling) {
    if (!f->has_max_len || (ceiling > 0 && f->max_len > ceiling)) {
        f->has_max_len = 1;
        f->max_len = ceiling > 0 ? ceiling : dflt;
    }
}

/* Compiled built-in patterns, made once per process. */
static fs_pattern *builtin[5];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static const char *const builtin_re[5] = {FS_RE_EMAIL, FS_RE_URL, FS_RE_TEL, FS_RE_DATE,
                                          FS_RE_DATETIME};

static void builtin_init(void) {
    for (int i = 0; i < 5; i++)
        builtin[i] = fs_pattern_compile_forever(builtin_re[i]);
}

const fs_pattern *fs_builtin_pattern(const char *re) {
    pthread_once(&builtin_once, builtin_init);
    for (int i = 0; i < 5; i++)
        if (builtin_re[i] == re)
            return builtin[i];
    return NULL;
}

/* The page fields of fs (sorted) taken out of f into pages. */
static void split_pages(apr_pool_t *p, fs_fieldset *fs) {
    int na = fs->n, questions = 0;
    fs_field *all = fs->f;
    fs->f = apr_pcalloc(p, sizeof(fs_field) * (na ? na : 1));
    fs->pages = apr_pcalloc(p, sizeof(fs_fieldpage) * (apr_size_t)(na + 1));
    fs->n = fs->npages = 0;
    fs->page_keys = apr_hash_make(p);
    fs_fieldpage cur = {NULL, NULL, NULL, 0, 0};
    for (int i = 0; i < na; i++) {
        if (all[i].type == FS_FT_PAGE) {
            if (questions) { /* the page so far is one */
                cur.count = fs->n - cur.first;
                fs->pages[fs->npages++] = cur;
                cur.first = fs->n;
                questions = 0;
            }
            cur.key = all[i].key;
            cur.title = all[i].label;
            cur.description = all[i].description;
            apr_hash_set(fs->page_keys, all[i].key, APR_HASH_KEY_STRING,
                         (void *)(apr_uintptr_t)(fs->npages + 1));
            continue;
        }
        all[i].page = all[i].type == FS_FT_HIDDEN ? 0 : fs->npages;
        fs->f[fs->n++] = all[i];
        questions += all[i].type != FS_FT_HIDDEN;
    }
    if (questions || !fs->npages) {
        cur.count = fs->n - cur.first;
        fs->pages[fs->npages++] = cur;
    } else { /* trailing hidden fields: with the last page */
        fs->pages[fs->npages - 1].count = fs->n - fs->pages[fs->npages - 1].first;
    }
}

fs_fieldset *fs_fieldset_from_json(apr_pool_t *p, json_object *fields) {
    fs_fieldset *fs = apr_pcalloc(p, sizeof(*fs));
    int n = fields && json_object_is_type(fields, json_type_array)
                ? (int)json_object_array_length(fields)
                : 0;
    fs->f = apr_pcalloc(p, sizeof(fs_field) * (n ? n : 1));
    double *pos = apr_pcalloc(p, sizeof(double) * (n ? n : 1));
    for (int i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(fields, i);
        const char *key = str_of(o, "key");
        if (!key || !*key)
            continue;
        fs_field *f = &fs->f[fs->n];
        f->key = key;
        f->def = o;
        f->label = str_of(o, "label");
        if (!f->label)
            f->label = key;
        f->description = str_of(o, "description");
        f->placeholder = str_of(o, "placeholder");
        f->time_zone = str_of(o, "timeZone");
        f->type_name = str_of(o, "type");
        f->type = type_of(f->type_name);
        json_object *rq = fs_json_get(o, "required");
        f->required =
            rq && json_object_is_type(rq, json_type_boolean) && json_object_get_boolean(rq);
        json_object *opts = fs_json_get(o, "options"); /* also a ranking's */
        f->options = opts && json_object_is_type(opts, json_type_array) ? opts : NULL;
        json_object *vi = fs_json_get(o, "visibleIf");
        f->visible_if = vi && json_object_is_type(vi, json_type_object) ? vi : NULL;
        vi = fs_json_get(o, "requiredIf");
        f->required_if =
            vi && json_object_is_type(vi, json_type_object) && !f->required ? vi : NULL;
        json_object *va = fs_json_get(o, "validation");
        if (va && !json_object_is_type(va, json_type_object))
            va = NULL;
        switch (f->type) {
        case FS_FT_TEXT:
        case FS_FT_TEXTAREA:
        case FS_FT_EMAIL:
        case FS_FT_URL:
        case FS_FT_TEL:
        case FS_FT_HIDDEN:
            f->has_min_len = count_of(va, "minLength", &f->min_len);
            f->has_max_len = count_of(va, "maxLength", &f->max_len);
            f->pattern = str_of(va, "pattern");
            if (f->pattern) {
                const char *err;
                f->pattern_code = fs_regex_compile(p, f->pattern, &err);
            }
            set_max_len(f,
                        f->type == FS_FT_TEXTAREA ? FS_DEFAULT_MAX_TEXTAREA : FS_DEFAULT_MAX_LINE,
                        f->type == FS_FT_EMAIL ? FS_EMAIL_MAX
                        : f->type == FS_FT_URL ? FS_URL_MAX
                                               : 0);
            f->format_re = f->type == FS_FT_EMAIL ? FS_RE_EMAIL
                           : f->type == FS_FT_URL ? FS_RE_URL
                           : f->type == FS_FT_TEL ? FS_RE_TEL
                                                  : NULL;
            if (f->required && (!f->has_min_len || f->min_len < 1)) {
                f->has_min_len = 1;
                f->min_len = 1;
            }
            break;
        case FS_FT_DATE: f->format_re = FS_RE_DATE; break;
        case FS_FT_DATETIME: f->format_re = FS_RE_DATETIME; break;
        case FS_FT_NUMBER:
        case FS_FT_INTEGER:
            f->has_min = f->has_max = 1;
            f->min = -(double)FS_SAFE_INTEGER;
            f->max = (double)FS_SAFE_INTEGER;
            {
                double d;
                if (num_of(va, "minimum", &d) && d > f->min)
                    f->min = d;
                if (num_of(va, "maximum", &d) && d < f->max)
                    f->max = d;
            }
            break;
        case FS_FT_RATING:
            f->has_min = f->has_max = 1;
            f->min = 1;
            {
                long m;
                f->max = count_of(va, "maximum", &m) && m >= 1 ? (double)m : FS_RATING_DEFAULT_MAX;
            }
            break;
        case FS_FT_FILE: {
            long v;
            f->max_size = count_of(va, "maxSize", &v) && v >= 1 ? v : FS_FILE_DEFAULT_MAX_SIZE;
            f->max_files = count_of(va, "maxFiles", &v) && v >= 1 ? v : 1;
            json_object *acc = fs_json_get(va, "accept");
            f->accept = acc && json_object_is_type(acc, json_type_array) ? acc : NULL;
            break;
        }
        case FS_FT_SIGNATURE: /* its drawn image: one PNG (fs_field_more.h) */
            f->max_size = FS_SIGNATURE_IMAGE_MAX;
            f->max_files = 1;
            f->accept = fs_json_own(p, json_tokener_parse("[\"image/png\"]"));
            break;
        case FS_FT_MULTISELECT:
            f->has_min_items = count_of(va, "minItems", &f->min_items);
            f->has_max_items = count_of(va, "maxItems", &f->max_items);
            if (f->required && (!f->has_min_items || f->min_items < 1)) {
                f->has_min_items = 1;
                f->min_items = 1;
            }
            break;
        default: break;
        }
        fs_bound_read(fs_bound_kind(f->type_name), va, &f->min_text, &f->max_text);
        double pv;
        pos[fs->n] = num_of(o, "position", &pv) ? pv : 1e18;
        fs->n++;
    }
    /* stable insertion sort by position (stored order breaks ties) */
    for (int i = 1; i < fs->n; i++) {
        fs_field t = fs->f[i];
        double tp = pos[i];
        int j = i - 1;
        while (j >= 0 && pos[j] > tp) {
            fs->f[j + 1] = fs->f[j];
            pos[j + 1] = pos[j];
            j--;
        }
        fs->f[j + 1] = t;
        pos[j + 1] = tp;
    }
    split_pages(p, fs);
    return fs;
}

void fs_fieldset_file_ceilings(fs_fieldset *fs, long long max_size, long max_files) {
    for (int i = 0; i < fs->n; i++) {
        fs_field *f = &fs->f[i];
        if (f->type != FS_FT_FILE)
            continue;
        if (max_size > 0 && f->max_size > max_size)
            f->max_size = max_size;
        if (max_files > 0 && f->max_files > max_files)
            f->max_files = max_files;
    }
}

int fs_fieldset_has_files(const fs_fieldset *fs) {
    for (int i = 0; i < fs->n; i++)
        if (fs->f[i].type == FS_FT_FILE || fs->f[i].type == FS_FT_SIGNATURE) /* its image */
            return 1;
    return 0;
}

/* the values of a JSON array of {value} or strings, at 12 bytes a byte
 * (a bound: a code point takes 1 to 4 bytes, and at most 12 encoded) */
static apr_size_t values_max(json_object *list, const char *member) {
    apr_size_t n = 0;
    for (size_t i = 0;
         json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
        json_object *it = json_object_array_get_idx(list, i);
        json_object *v = json_object_is_type(it, json_type_object) ? fs_json_get(it, member) : it;
        n += (json_object_get_string_len(v) + 4) * 12;
    }
    return n;
}

apr_size_t fs_fieldset_body_max(const fs_fieldset *fs) {
    apr_size_t all = 0, sealed = 0;
    for (int i = 0; i < fs->n; i++) {
        const fs_field *f = &fs->f[i];
        apr_size_t one = (strlen(f->key) + 16) * 3; /* its name(s), = and & */
        if (f->has_max_len && f->max_len > 0) {
            one += (apr_size_t)f->max_len * 12;
            sealed += (apr_size_t)f->max_len * 8;
        } else {
            one += 4096;
        }
        one += values_max(f->options, "value");
        /* a matrix: a name and a value per cell; an other answer's text */
        json_object *rows = fs_json_get(f->def, "rows");
        apr_size_t nrows =
            json_object_is_type(rows, json_type_array) ? json_object_array_length(rows) : 0;
        one += nrows * (values_max(fs_json_get(f->def, "columns"), "value") +
                        (strlen(f->key) + FS_FIELD_KEY_MAX + 8) * 3);
        if (json_object_get_boolean(fs_json_get(f->def, "allowOther")))
            one += 200 * 12;
        all += one;
    }
    /* the sealed answers are at most FS_PAGESTATE_MAX characters (base64url:
     * nothing to escape) */
    if (sealed > FS_PAGESTATE_MAX)
        sealed = FS_PAGESTATE_MAX;
    return all + (fs->npages > 1 ? sealed + 4096 : 0);
}

const char *fs_field_label(const fs_field *f) {
    return f->label && *f->label ? f->label : f->key;
}

const fs_field *fs_fieldset_find(const fs_fieldset *fs, const char *key) {
    for (int i = 0; i < fs->n; i++)
        if (!strcmp(fs->f[i].key, key))
            return &fs->f[i];
    return NULL;
}

int fs_field_visible(const fs_field *f, json_object *body) {
    return !f->visible_if || fs_cond_eval(f->visible_if, body);
}

int fs_field_applies(const fs_field *f, json_object *answers, const char *path) {
    return (!path || path[f->page]) && fs_field_visible(f, answers);
}

int fs_field_required_now(const fs_field *f, json_object *answers) {
    return f->required || (f->required_if && fs_cond_eval(f->required_if, answers));
}

typedef struct last_page_ctx {
    const fs_fieldset *fs;
    int page;
} last_page_ctx;

static int last_page(void *vx, const char *key) {
    last_page_ctx *x = vx;
    const fs_field *f = fs_fieldset_find(x->fs, key);
    if (f && f->page > x->page)
        x->page = f->page;
    return 1;
}

int fs_fieldset_when_page(const fs_fieldset *fs, json_object *when) {
    last_page_ctx x = {fs, 0};
    fs_cond_each_key(when, last_page, &x);
    return x.page;
}

/* The page index a page key leads to (npages: the end), or -1. */
static int page_of_key(const fs_fieldset *fs, json_object *k) {
    if (!k || !json_object_is_type(k, json_type_string))
        return -1;
    apr_uintptr_t v =
        (apr_uintptr_t)apr_hash_get(fs->page_keys, json_object_get_string(k), APR_HASH_KEY_STRING);
    return v ? (int)v - 1 : -1;
}

void fs_fieldset_logic(apr_pool_t *p, fs_fieldset *fs, json_object *settings) {
    json_object *rules = fs_json_get(settings, "logic");
    fs->njumps = 0;
    if (!rules || !json_object_is_type(rules, json_type_array))
        return;
    size_t n = json_object_array_length(rules);
    fs->jumps = apr_pcalloc(p, sizeof(fs_jump) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rules, i);
        json_object *when = fs_json_get(r, "when"),
                    *go = fs_json_get(fs_json_get(r, "then"), "goTo");
        if (when && !json_object_is_type(when, json_type_object))
            continue;
        int from = fs_json_get(r, "from") ? page_of_key(fs, fs_json_get(r, "from"))
                                          : fs_fieldset_when_page(fs, when);
        int to =
            json_object_is_type(go, json_type_string) && !strcmp(json_object_get_string(go), "end")
                ? fs->npages
                : page_of_key(fs, go);
        if (from < 0 || from >= fs->npages || to <= from)
            continue; /* tolerated: only forwards */
        fs->jumps[fs->njumps++] = (fs_jump){from, to, when};
    }
}

const char *fs_fieldset_path(apr_pool_t *p, const fs_fieldset *fs, json_object *answers) {
    if (!fs->njumps)
        return NULL;
    char *path = apr_pcalloc(p, (apr_size_t)fs->npages + 1);
    /* the answers of the pages reached so far: those of pages skipped
     * are taken out as the path passes them */
    json_object *seen = fs_json_own(p, answers ? fs_json_copy(answers) : json_object_new_object());
    for (int q = 0; q < fs->npages;) {
        path[q] = 1;
        int next = q + 1;
        for (int j = 0; j < fs->njumps; j++)
            if (fs->jumps[j].from == q &&
                (!fs->jumps[j].when || fs_cond_eval(fs->jumps[j].when, seen))) {
                next = fs->jumps[j].to;
                break;
            }
        for (int i = 0; i < fs->n; i++)
            if (fs->f[i].page > q && fs->f[i].page < next)
                json_object_object_del(seen, fs->f[i].key);
        q = next;
    }
    return path;
}

const char *fs_field_option_label(const fs_field *f, json_object *v) {
    if (!f->options)
        return NULL;
    for (size_t i = 0; i < json_object_array_length(f->options); i++) {
        json_object *o = json_object_array_get_idx(f->options, i);
        if (fs_json_equal(fs_json_get(o, "value"), v)) {
            const char *l = str_of(o, "label");
            return l ? l : json_object_get_string(fs_json_get(o, "value"));
        }
    }
    return NULL;
}
