/* fs_scope: parsing, printing and comparing scope sets. */
#include "fs_scope.h"
#include "fs_json.h"
#include "fs_secret.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

static const char *const NAMES[] = {
    "forms:read",    "forms:write",    "submissions:read", "submissions:write",
    "keys:read",     "keys:write",     "clients:read",     "clients:write",
    "webhooks:read", "webhooks:write", "account:read",     "account:write",
};
#define N_NAMES 12

unsigned fs_scope_bit(const char *token) {
    for (int i = 0; i < N_NAMES; i++)
        if (strcmp(NAMES[i], token) == 0)
            return 1u << i;
    return 0;
}

const char *fs_scope_name(unsigned bit) {
    for (int i = 0; i < N_NAMES; i++)
        if (bit == 1u << i)
            return NAMES[i];
    return NULL;
}

/* write bits are the odd positions; each implies the read bit below it */
static unsigned implied(unsigned named) {
    unsigned bits = named;
    for (int i = 1; i < N_NAMES; i += 2)
        if (named & (1u << i))
            bits |= 1u << (i - 1);
    return bits;
}

fs_scopes *fs_scopes_full(apr_pool_t *p) {
    fs_scopes *sc = apr_pcalloc(p, sizeof(*sc));
    sc->full = 1;
    sc->bits = sc->named = FS_SC_ALL;
    sc->forms = apr_array_make(p, 1, sizeof(const char *));
    return sc;
}

static fs_scopes *empty(apr_pool_t *p) {
    fs_scopes *sc = apr_pcalloc(p, sizeof(*sc));
    sc->forms = apr_array_make(p, 2, sizeof(const char *));
    return sc;
}

static int has_form(const fs_scopes *sc, const char *id) {
    for (int i = 0; i < sc->forms->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(sc->forms, i, const char *), id) == 0)
            return 1;
    return 0;
}

/* Adds one token; returns 0 when it is neither a scope nor form:<id>. */
static int add_token(apr_pool_t *p, fs_scopes *sc, const char *t) {
    unsigned b = fs_scope_bit(t);
    if (b) {
        sc->named |= b;
        sc->bits = implied(sc->named);
        return 1;
    }
    if (strncmp(t, "form:", 5) == 0 && fs_id_valid(t + 5, "frm_")) {
        if (!has_form(sc, t + 5))
            APR_ARRAY_PUSH(sc->forms, const char *) = apr_pstrdup(p, t + 5);
        return 1;
    }
    return 0;
}

fs_scopes *fs_scopes_from_json(apr_pool_t *p, json_object *v, const char *pointer, int min_items,
                               fs_error *verr) {
    if (!v || json_object_is_type(v, json_type_null))
        return fs_scopes_full(p);
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, pointer, "type", "scopes must be an array of strings or null.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if ((int)n < min_items) {
        fs_error_add(p, verr, pointer, "minItems", "scopes needs at least %d item.", min_items);
        return NULL;
    }
    if (n > 64) {
        fs_error_add(p, verr, pointer, "maxItems", "scopes takes at most 64 items.");
        return NULL;
    }
    fs_scopes *sc = empty(p);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ptr = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, pointer, (apr_size_t)i);
        if (!json_object_is_type(it, json_type_string)) {
            fs_error_add(p, verr, ptr, "type", "Each scope must be a string.");
            ok = 0;
        } else if (!add_token(p, sc, json_object_get_string(it))) {
            fs_error_add(p, verr, ptr, "enum",
                         "Unknown scope token; see the list of scopes in the API documentation.");
            ok = 0;
        }
    }
    return ok ? sc : NULL;
}

fs_scopes *fs_scopes_from_string(apr_pool_t *p, const char *s, const char **bad) {
    fs_scopes *sc = empty(p);
    char *copy = apr_pstrdup(p, s ? s : ""), *last = NULL;
    for (char *t = apr_strtok(copy, " ", &last); t; t = apr_strtok(NULL, " ", &last)) {
        if (!add_token(p, sc, t)) {
            *bad = t;
            return NULL;
        }
    }
    return sc;
}

json_object *fs_scopes_to_json(const fs_scopes *sc) {
    if (sc->full)
        return NULL; /* json null */
    json_object *a = json_object_new_array();
    for (int i = 0; i < N_NAMES; i++)
        if (sc->named & (1u << i))
            json_object_array_add(a, json_object_new_string(NAMES[i]));
    for (int i = 0; i < sc->forms->nelts; i++) {
        char buf[64];
        snprintf(buf, sizeof(buf), "form:%s", APR_ARRAY_IDX(sc->forms, i, const char *));
        json_object_array_add(a, json_object_new_string(buf));
    }
    return a;
}

char *fs_scopes_to_string(apr_pool_t *p, const fs_scopes *sc) {
    char *out = "";
    for (int i = 0; i < N_NAMES; i++)
        if (sc->named & (1u << i))
            out = *out ? apr_pstrcat(p, out, " ", NAMES[i], NULL) : apr_pstrdup(p, NAMES[i]);
    for (int i = 0; i < sc->forms->nelts; i++)
        out = apr_pstrcat(p, out, *out ? " " : "",
                          "form:", APR_ARRAY_IDX(sc->forms, i, const char *), NULL);
    return out;
}

int fs_scopes_has(const fs_scopes *sc, unsigned bit) {
    return sc->full || (sc->bits & bit) == bit;
}

int fs_scopes_allows_form(const fs_scopes *sc, const char *form_id) {
    return sc->full || sc->forms->nelts == 0 || has_form(sc, form_id);
}

int fs_scopes_subset(apr_pool_t *p, const fs_scopes *child, const fs_scopes *parent,
                     const char **missing) {
    *missing = NULL;
    if (parent->full)
        return 1;
    if (child->full) {
        *missing = "full access (scopes: null)";
        return 0;
    }
    unsigned extra = child->bits & ~parent->bits;
    if (extra) {
        for (int i = 0; i < N_NAMES; i++)
            if (extra & (1u << i)) {
                *missing = NAMES[i];
                break;
            }
        return 0;
    }
    if (parent->forms->nelts > 0) {
        if (child->forms->nelts == 0) {
            *missing = apr_pstrcat(p, "form:", APR_ARRAY_IDX(parent->forms, 0, const char *), NULL);
            return 0;
        }
        for (int i = 0; i < child->forms->nelts; i++) {
            const char *f = APR_ARRAY_IDX(child->forms, i, const char *);
            if (!has_form(parent, f)) {
                *missing = apr_pstrcat(p, "form:", f, NULL);
                return 0;
            }
        }
    }
    return 1;
}
