/* fs_pages: the pages of a public form and the state a page carries. */
#include "fs_pages.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_logic.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

int fs_nav_of(const char *value) {
    if (!value)
        return FS_NAV_NONE;
    if (!strcmp(value, "next"))
        return FS_NAV_NEXT;
    if (!strcmp(value, "back"))
        return FS_NAV_BACK;
    if (!strcmp(value, "submit"))
        return FS_NAV_SUBMIT;
    return FS_NAV_BAD;
}

int fs_pages_of(const fs_fieldset *fs, const fs_field *f) {
    if (f->type == FS_FT_HIDDEN)
        return 0;
    long i = f - fs->f;
    for (int q = 0; q < fs->npages; q++)
        if (i >= fs->pages[q].first && i < fs->pages[q].first + fs->pages[q].count)
            return q;
    return 0;
}

/* Is f (a field of fs) one of page's? */
static int on_page(const fs_fieldset *fs, int page, const fs_field *f) {
    return fs_pages_of(fs, f) == page;
}

typedef struct decided_ctx {
    const fs_fieldset *fs;
    int page, named;
} decided_ctx;

static int before_page(void *vx, const char *key) {
    decided_ctx *x = vx;
    const fs_field *ctl = fs_fieldset_find(x->fs, key);
    x->named = 1;
    return ctl && fs_pages_of(x->fs, ctl) < x->page;
}

/* Does every field c names sit on a page before page? */
static int cond_decided(const fs_fieldset *fs, int page, json_object *c) {
    if (!c || fs->npages <= 1)
        return 0;
    decided_ctx x = {fs, page, 0};
    return fs_cond_each_key(c, before_page, &x) && x.named;
}

int fs_pages_decided(const fs_fieldset *fs, int page, const fs_field *f) {
    return cond_decided(fs, page, f->visible_if);
}

int fs_pages_required_decided(const fs_fieldset *fs, int page, const fs_field *f) {
    return cond_decided(fs, page, f->required_if);
}

int fs_pages_field_shown(const fs_fieldset *fs, int page, const fs_field *f, json_object *answers) {
    if (f->type == FS_FT_HIDDEN || !on_page(fs, page, f))
        return 0;
    /* a condition on this page or a later one: shown, with its sentence */
    return !fs_pages_decided(fs, page, f) || fs_field_visible(f, answers);
}

/* Has page a field shown for answers? */
static int page_shown(const fs_fieldset *fs, int page, json_object *answers) {
    const fs_fieldpage *pg = &fs->pages[page];
    for (int i = pg->first; i < pg->first + pg->count; i++)
        if (fs_pages_field_shown(fs, page, &fs->f[i], answers))
            return 1;
    return 0;
}

/* The pages the answers reach (settings.logic's path): a string of one
 * flag per page in a pool of its own (*pp, for the caller to destroy when
 * not NULL), or NULL for a form without jumps, where every page is on it;
 * *ok 0 when no pool could be made. */
static const char *path_of(const fs_fieldset *fs, json_object *answers, apr_pool_t **pp, int *ok) {
    *pp = NULL;
    *ok = !fs->njumps || apr_pool_create(pp, NULL) == APR_SUCCESS;
    if (!*ok)
        *pp = NULL;
    return *pp ? fs_fieldset_path(*pp, fs, answers) : NULL;
}

/* Is page q one the person sees: on the path, with a question shown? */
static int reached(const fs_fieldset *fs, const char *path, int q, json_object *answers) {
    return (!path || path[q]) && page_shown(fs, q, answers);
}

int fs_pages_step(const fs_fieldset *fs, int page, int dir, json_object *answers) {
    apr_pool_t *p;
    int ok;
    const char *path = path_of(fs, answers, &p, &ok);
    int found = -1;
    for (int q = page + dir; ok && q >= 0 && q < fs->npages && found < 0; q += dir)
        if (reached(fs, path, q, answers))
            found = q;
    if (p)
        apr_pool_destroy(p);
    return found;
}

void fs_pages_progress(const fs_fieldset *fs, int page, json_object *answers, int *n, int *total) {
    apr_pool_t *p;
    int ok;
    const char *path = path_of(fs, answers, &p, &ok);
    *n = page + 1;
    *total = fs->npages;
    if (!ok)
        return;
    *n = *total = 0;
    for (int q = 0; q < fs->npages; q++) {
        if (q != page && !reached(fs, path, q, answers))
            continue;
        (*total)++;
        if (q <= page)
            (*n)++;
    }
    if (p)
        apr_pool_destroy(p);
}

json_object *fs_pages_merge(apr_pool_t *p, const fs_fieldset *fs, int page, json_object *answers,
                            json_object *posted) {
    json_object *out = answers ? fs_json_copy(answers) : json_object_new_object();
    fs_json_own(p, out);
    for (int i = 0; i < fs->n; i++) {
        const fs_field *f = &fs->f[i];
        if (!on_page(fs, page, f))
            continue;
        json_object *v;
        json_object_object_del(out, f->key);
        if (posted && json_object_object_get_ex(posted, f->key, &v))
            json_object_object_add(out, f->key, json_object_get(v));
    }
    /* an unticked optional checkbox is false when its question applies;
     * again while a false makes another one apply */
    for (int pass = 0, changed = 1; changed && pass <= fs->n; pass++) {
        changed = 0;
        for (int i = 0; i < fs->n; i++) {
            const fs_field *f = &fs->f[i];
            if (f->type != FS_FT_BOOLEAN || f->required || !on_page(fs, page, f) ||
                json_object_object_get_ex(out, f->key, NULL))
                continue;
            if (fs_pages_field_shown(fs, page, f, out) && fs_field_visible(f, out)) {
                json_object_object_add(out, f->key, json_object_new_boolean(0));
                changed = 1;
            }
        }
    }
    return out;
}

void fs_pages_drop_inapplicable(const fs_fieldset *fs, int page, json_object *answers) {
    /* a dropped answer may make another question inapplicable: again */
    for (int pass = 0, changed = 1; changed && pass <= fs->n; pass++) {
        changed = 0;
        apr_pool_t *p = NULL; /* only for a form with jumps */
        if (fs->njumps && apr_pool_create(&p, NULL) != APR_SUCCESS)
            return;
        const char *path = p ? fs_fieldset_path(p, fs, answers) : NULL; /* pages a jump skips */
        for (int i = 0; i < fs->n; i++) {
            const fs_field *f = &fs->f[i];
            if (!json_object_object_get_ex(answers, f->key, NULL) ||
                fs_field_applies(f, answers, path))
                continue;
            if (on_page(fs, page, f) && (!path || path[f->page]))
                continue; /* the page sent: reported, as on a page of one */
            json_object_object_del(answers, f->key);
            changed = 1;
        }
        if (p)
            apr_pool_destroy(p);
    }
}

/* The field an error is about (its pointer's first segment), or NULL. */
static const fs_field *field_of_error(const fs_fieldset *fs, const fs_field_error *fe,
                                      apr_pool_t *p) {
    if (!fe->pointer || fe->pointer[0] != '/')
        return NULL;
    const char *k = fe->pointer + 1, *slash = strchr(k, '/');
    return fs_fieldset_find(fs, slash ? apr_pstrmemdup(p, k, (apr_size_t)(slash - k)) : k);
}

fs_error *fs_pages_errors_on(apr_pool_t *p, const fs_fieldset *fs, int page, const fs_error *e) {
    if (!e || !e->errors)
        return NULL;
    fs_error *out = NULL;
    for (int i = 0; i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        const fs_field *f = field_of_error(fs, fe, p);
        if (!f || !on_page(fs, page, f))
            continue;
        if (!out)
            out = fs_error_validation(p);
        if (!out->errors)
            out->errors = apr_array_make(p, 4, sizeof(fs_field_error));
        APR_ARRAY_PUSH(out->errors, fs_field_error) = *fe;
    }
    return out;
}

int fs_pages_first_error(const fs_fieldset *fs, const fs_error *e) {
    int first = -1;
    apr_pool_t *p = e && e->errors ? e->errors->pool : NULL;
    for (int i = 0; p && i < e->errors->nelts; i++) {
        const fs_field *f = field_of_error(fs, &APR_ARRAY_IDX(e->errors, i, fs_field_error), p);
        int q = f ? fs_pages_of(fs, f) : -1;
        if (q >= 0 && (first < 0 || q < first))
            first = q;
    }
    return first;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *fs_pages_answers_text(apr_pool_t *p, json_object *answers) {
    int n = answers ? json_object_object_length(answers) : 0, i = 0;
    const char **keys = apr_palloc(p, sizeof(char *) * (apr_size_t)(n ? n : 1));
    if (n) {
        json_object_object_foreach(answers, k, v) {
            (void)v;
            keys[i++] = k;
        }
    }
    qsort(keys, (size_t)n, sizeof(char *), by_name);
    apr_array_header_t *parts = apr_array_make(p, 4 * n + 2, sizeof(char *));
    APR_ARRAY_PUSH(parts, const char *) = "{";
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(parts, const char *) = i ? "," : "";
        APR_ARRAY_PUSH(parts, const char *) =
            fs_json_str(p, fs_json_own(p, json_object_new_string(keys[i])));
        APR_ARRAY_PUSH(parts, const char *) = ":";
        APR_ARRAY_PUSH(parts, const char *) = fs_json_str(p, fs_json_get(answers, keys[i]));
    }
    APR_ARRAY_PUSH(parts, const char *) = "}";
    return apr_array_pstrcat(p, parts, 0);
}

/* The scope of the key a form's states are sealed under: it names no
 * Idempotency-Key scope (those are form and credential ids). */
static const char *scope_of(apr_pool_t *p, const char *form_id) {
    return apr_pstrcat(p, "page-state ", form_id, NULL);
}

json_object *fs_pages_carried(apr_pool_t *p, const fs_fieldset *fs, int page,
                              json_object *answers) {
    json_object *out = fs_json_own(p, json_object_new_object());
    if (!json_object_is_type(answers, json_type_object))
        return out;
    json_object_object_foreach(answers, k, v) {
        const fs_field *f = fs_fieldset_find(fs, k);
        if (!f || !on_page(fs, page, f))
            json_object_object_add(out, k, json_object_get(v));
    }
    return out;
}

/* The text st is sealed as, in p. */
static const char *plain_of(apr_pool_t *p, const fs_pagestate *st) {
    json_object *o = fs_json_own(p, json_object_new_object());
    json_object_object_add(o, "v", json_object_new_string(st->version ? st->version : ""));
    json_object_object_add(o, "x", json_object_new_int64(st->expires));
    json_object_object_add(o, "p", json_object_new_int(st->page));
    json_object_object_add(o, "s", json_object_new_boolean(st->spam));
    json_object_object_add(o, "a",
                           st->answers ? json_object_get(st->answers) : json_object_new_object());
    if (st->trail && json_object_array_length(st->trail))
        json_object_object_add(o, "t", json_object_get(st->trail));
    return fs_json_str(p, o);
}

apr_size_t fs_pagestate_excess(apr_pool_t *p, const fs_pagestate *st) {
    apr_size_t n = strlen(plain_of(p, st));
    return n > FS_PAGESTATE_PLAIN_MAX ? n - FS_PAGESTATE_PLAIN_MAX : 0;
}

fs_error *fs_pages_carry_error(apr_pool_t *p, const fs_fieldset *fs, int page, json_object *answers,
                               apr_size_t excess) {
    const fs_field *longest = NULL;
    apr_size_t most = 0;
    for (int i = 0; i < fs->n; i++) {
        json_object *v = fs_json_get(answers, fs->f[i].key);
        if (!on_page(fs, page, &fs->f[i]) || !json_object_is_type(v, json_type_string))
            continue;
        apr_size_t len = (apr_size_t)json_object_get_string_len(v);
        if (!longest || len > most) {
            longest = &fs->f[i];
            most = len;
        }
    }
    if (!longest)
        return NULL;
    /* every character takes at least a byte: this many fewer are enough */
    apr_size_t chars = fs_utf8_length(json_object_get_string(fs_json_get(answers, longest->key)));
    const char *n = apr_psprintf(p, "%" APR_SIZE_T_FMT, chars > excess ? chars - excess : 0);
    const char *label = fs_field_label(longest);
    fs_error *e = fs_error_validation(p);
    fs_error_add_msg(p, e, apr_pstrcat(p, "/", longest->key, NULL), "maxLength", "carry", label, n,
                     apr_psprintf(p,
                                  "%s: the answers are too long to carry between the pages. "
                                  "Shorten this one to at most %s characters.",
                                  label, n));
    return e;
}

int fs_pagestate_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *form_id, const char *link, const fs_pagestate *st,
                      const char **out) {
    const char *plain = plain_of(p, st);
    if (strlen(plain) > FS_PAGESTATE_PLAIN_MAX)
        return FS_PAGESTATE_TOO_LARGE;
    *out = fs_idem_seal(p, pepper, pepper_len, scope_of(p, form_id), link ? link : "", plain);
    return *out ? FS_PAGESTATE_OK : FS_PAGESTATE_BAD;
}

int fs_pagestate_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *form_id, const char *link, const char *sealed, apr_int64_t now,
                      fs_pagestate *st) {
    if (!sealed || strlen(sealed) > FS_PAGESTATE_MAX)
        return FS_PAGESTATE_BAD;
    const char *plain =
        fs_idem_open(p, pepper, pepper_len, scope_of(p, form_id), link ? link : "", sealed);
    json_object *o;
    if (!plain || fs_json_parse_object(p, plain, strlen(plain), &o))
        return FS_PAGESTATE_BAD;
    json_object *v = fs_json_get(o, "v"), *x = fs_json_get(o, "x"), *pg = fs_json_get(o, "p"),
                *s = fs_json_get(o, "s"), *a = fs_json_get(o, "a");
    if (!json_object_is_type(v, json_type_string) || !json_object_is_type(x, json_type_int) ||
        !json_object_is_type(pg, json_type_int) || !json_object_is_type(s, json_type_boolean) ||
        !json_object_is_type(a, json_type_object))
        return FS_PAGESTATE_BAD;
    st->version = json_object_get_string(v);
    st->expires = json_object_get_int64(x);
    st->page = json_object_get_int(pg);
    st->spam = json_object_get_boolean(s);
    st->answers = a;
    /* the pages shown before this one, in order (states sealed before
     * jumps have none) */
    json_object *t = fs_json_get(o, "t");
    st->trail = NULL;
    if (t) {
        if (!json_object_is_type(t, json_type_array))
            return FS_PAGESTATE_BAD;
        int last = -1;
        for (size_t i = 0; i < json_object_array_length(t); i++) {
            json_object *e = json_object_array_get_idx(t, i);
            if (!json_object_is_type(e, json_type_int) || json_object_get_int(e) <= last ||
                json_object_get_int(e) >= st->page)
                return FS_PAGESTATE_BAD;
            last = json_object_get_int(e);
        }
        st->trail = t;
    }
    return st->expires < now ? FS_PAGESTATE_EXPIRED : FS_PAGESTATE_OK;
}
