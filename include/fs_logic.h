/* fs_logic: conditions over a submission's answers, used by a field's
 * visibleIf and requiredIf and by the form's page jumps (settings.logic).
 *
 * One grammar (docs/forms.md, "Logic"):
 *   {"all": [c, ...]}   every one holds (1..FS_COND_ITEMS_MAX items)
 *   {"any": [c, ...]}   at least one holds
 *   {"not": c}          c does not hold
 *   {"field": k, "op": o, "value": v}   a leaf, o one of
 *       equals, notEquals, in (v an array), gt, lt, contains, answered (no v)
 *   {"field": k, "equals": v} and {"field": k, "in": [...]}: the older
 *       shorthand of one-field visibleIf, still accepted and stored as sent.
 * A leaf reads the member k of the answers as sent: equals and in hold when
 * it is present and equal (JSON equality, as const and enum), notEquals is
 * "not equals" (so it holds when k is not answered), gt and lt hold for a
 * number above or below v, contains for a multiselect that has v among its
 * choices or a text with v in it (byte for byte), answered when k is
 * present at all.
 *
 * Bounds: a condition is at most FS_COND_DEPTH_MAX combinators deep and
 * has at most FS_COND_NODES_MAX nodes (combinators and leaves), so that
 * parsing, checking, evaluating and the schema of one are bounded work. */
#ifndef FS_LOGIC_H
#define FS_LOGIC_H

#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"

#define FS_COND_DEPTH_MAX 4
#define FS_COND_NODES_MAX 50
#define FS_COND_ITEMS_MAX 20  /* items of one all or any */
#define FS_COND_TEXT_MAX 200  /* characters of a contains value */
#define FS_LOGIC_RULES_MAX 50 /* items of settings.logic */
#define FS_COND_IN_MAX 200    /* values of in (as many as a field has options) */

/* Parses a condition as a client sends it (shape, operators and value
 * kinds; what the fields named are is fs_cond_check's). Errors go to
 * verr under ptr. Returns the normalised condition (owned by the caller)
 * or NULL. */
json_object *fs_cond_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);

/* 1 when c is the one-field shorthand {field, equals} or {field, in}. */
int fs_cond_is_shorthand(json_object *c);

/* What a condition may name, for fs_cond_check. */
typedef struct fs_cond_scope {
    json_object *fields; /* the normalised field list */
    apr_hash_t *index;   /* key -> position in fields + 1 */
    int before;          /* fields named must be at a position below this (-1: anywhere) */
    const char *self;    /* the key of the field that owns the condition, or NULL */
    const char *what;    /* its name in messages: "visibleIf", "requiredIf", "when" */
    const char *who;     /* appended to messages when errors go to the fallback */
    /* could v be an answer of the normalised field f (fs_field_value_fits)? */
    int (*fits)(json_object *f, json_object *v);
} fs_cond_scope;

/* The rules between a parsed condition and the fields: each field named
 * exists, is not the owner, is before sc->before, takes the operator
 * (gt and lt: number, integer, rating; contains: multiselect, or a text
 * field; equals, notEquals, in: not multiselect or file; nothing names a
 * page field) and values it can hold (an option of a select...). Errors
 * at ptr's members, or at fallback when ptr is NULL. 1 when fine. */
int fs_cond_check(apr_pool_t *p, json_object *c, const fs_cond_scope *sc, const char *ptr,
                  const char *fallback, fs_error *verr);

/* Adds the key of every field c names to keys (const char *, owned by
 * c). */
void fs_cond_keys(json_object *c, apr_array_header_t *keys);
/* Calls fn for each field key c names, in order, until fn returns 0:
 * returns 0 then, else 1 (also for a condition that names none). */
int fs_cond_each_key(json_object *c, int (*fn)(void *ctx, const char *key), void *ctx);

/* Does c hold for answers (an object; NULL: no answers)? A stored
 * condition is trusted but tolerated: anything malformed does not hold. */
int fs_cond_eval(json_object *c, json_object *answers);

/* The JSON Schema 2020-12 subschema of the answers object that holds
 * exactly when fs_cond_eval does, for every answers object whose members
 * are of their fields' types. multiselect(key) says whether key is a
 * multiselect field (contains: the array form; else the text form).
 * Owned by the caller (strings made on the way in p). */
json_object *fs_cond_schema(apr_pool_t *p, json_object *c,
                            int (*multiselect)(const void *ctx, const char *key), const void *ctx);

/* The regular expression that finds s as it is in a text: s with the
 * syntax characters of ECMA-262, Python's re and pcre2 escaped. In p. */
const char *fs_cond_literal_re(apr_pool_t *p, const char *s);

/* settings.logic as a client sends it: an array of at most
 * FS_LOGIC_RULES_MAX rules {from, when, then: {goTo, calculate}} (from: a
 * page field's key, optional with when, only with goTo; when: a
 * condition, optional; goTo: a page field's key or "end"; calculate: the
 * actions of fs_calc_parse, fs_scores.h; then has goTo, calculate or
 * both). The normalised copy (owned by the caller), or NULL with errors
 * under ptr. */
json_object *fs_logic_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);

#endif
