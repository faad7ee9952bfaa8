/* fs_field: form field definitions: parsing, the rules of each type, and
 * normalisation to the API representation
 *   {id, key, type, label, description, required, placeholder, options,
 *    validation, visibleIf, position}.
 *
 * Errors are added to a validation-failed fs_error with RFC 6901 pointers
 * into the request body (a caller passes the pointer prefix of the
 * definition, "" or "/fields/3"), so a definition that contradicts itself
 * is reported member by member, all at once. docs/forms.md describes the
 * rules for users. */
#ifndef FS_FIELD_H
#define FS_FIELD_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

#define FS_FIELD_KEY_MAX 64
#define FS_LABEL_MAX 200 /* characters: labels, option labels/values */
#define FS_FIELD_DESCRIPTION_MAX 2000
#define FS_PLACEHOLDER_MAX 200
#define FS_OPTIONS_MAX 200
#define FS_LENGTH_MAX 100000 /* bound of minLength / maxLength */
#define FS_RATING_MAX_MIN 3
#define FS_RATING_MAX_MAX 10
#define FS_RATING_DEFAULT 5
/* file fields: validation maxSize (bytes), maxFiles, accept */
#define FS_FILE_DEFAULT_MAX_SIZE (10LL * 1024 * 1024)
#define FS_FILE_MAX_SIZE_LIMIT 1000000000LL /* what a definition may say */
#define FS_FILE_MAX_FILES_LIMIT 20
#define FS_FILE_ACCEPT_MAX 50
/* signature fields: the drawn image, one PNG of at most this many bytes */
#define FS_SIGNATURE_IMAGE_MAX (256LL * 1024)
/* ... whose width and height are at most this many pixels (its IHDR) */
#define FS_SIGNATURE_IMAGE_SIDE_MAX 4096
#define FS_SAFE_INTEGER 9007199254740991LL /* 2^53 - 1, as ECMA-262 */

typedef enum {
    FS_FT_TEXT,
    FS_FT_TEXTAREA,
    FS_FT_EMAIL,
    FS_FT_URL,
    FS_FT_TEL,
    FS_FT_NUMBER,
    FS_FT_INTEGER,
    FS_FT_BOOLEAN,
    FS_FT_DATE,
    FS_FT_DATETIME,
    FS_FT_SELECT,
    FS_FT_MULTISELECT,
    FS_FT_RATING,
    FS_FT_HIDDEN,
    FS_FT_FILE,      /* uploads (fs_file.h) */
    FS_FT_PAGE,      /* starts a page of the public form: layout, never an answer (fs_pages.h) */
    FS_FT_ADDRESS,   /* {line1, line2, city, region, postalCode, country} (fs_field_more.h) */
    FS_FT_DATERANGE, /* {start, end}, two dates, start <= end (fs_field_more.h) */
    FS_FT_TIME,      /* HH:MM, 24 hours (fs_field_more.h) */
    FS_FT_SIGNATURE, /* {name}: a typed full name (fs_field_more.h) */
    FS_FT_SCALE,     /* fs_field_choice.h */
    FS_FT_MATRIX,    /* fs_field_choice.h */
    FS_FT_RANKING,   /* fs_field_choice.h */
    FS_FT_CONSENT,   /* fs_field_choice.h */
    FS_FT_COUNT
} fs_field_type;

/* The type's name ("text", ...) and back; -1 for an unknown name. */
const char *fs_field_type_name(fs_field_type t);
int fs_field_type_of(const char *name);

/* 1 when key matches ^[a-z][a-z0-9_]{0,63}$. */
int fs_field_key_valid(const char *key);

/* Parses one definition as a client sends it. Members: key, type, label,
 * description, required, placeholder, options, validation, visibleIf,
 * requiredIf (fs_logic.h; present in the result only when set), and
 * the read-only id and position (accepted and ignored here; the caller
 * uses them). Every broken rule is added to verr under ptr. Returns the
 * normalised field with "id" set to id (JSON null when id is NULL) and
 * "position" 0, or NULL when anything was wrong. The result is owned by
 * the caller (add it to a parent, or fs_json_own it). */
json_object *fs_field_parse(apr_pool_t *p, json_object *def, const char *id, const char *ptr,
                            fs_error *verr);

/* The rules between fields of one list (an array of normalised fields):
 * keys unique; the conditions of visibleIf and requiredIf name other
 * fields of the list (fs_cond_check: earlier ones, but for the one-field
 * visibleIf shorthand, which may name any), with operators and values
 * that fit them; no cycles. ptrs[i] is the pointer prefix of item i in the
 * request, or NULL for a field the request did not send: errors about it
 * go to fallback instead. Renumbers "position" 0..n-1. 1 when fine. */
int fs_fields_check(apr_pool_t *p, json_object *list, const char *const *ptrs, const char *fallback,
                    fs_error *verr);

/* Could v be an answer of the normalised field target (a value of its
 * type; for a select one of its options, for a rating 1..maximum)? 0 for
 * multiselect, file and page fields. */
int fs_field_value_fits(json_object *target, json_object *v);

/* "The visibleIf of field \"x\"" (or requiredIf) when a condition of a
 * field of list names key, else NULL. In p. */
const char *fs_fields_depending_on(apr_pool_t *p, json_object *list, const char *key);

/* A list of field definitions as a client sends it (arr, at pointer ptr
 * of the body): each item through fs_field_parse, then fs_fields_check.
 * An item's "id" keeps that id when it names a field of old (the form's
 * current fields, as PUT .../fields sends them; NULL: every field is new
 * and ids are ignored); an unknown or repeated id is an error. New fields
 * get fresh fld_ ids. Adds every error to verr; returns the normalised,
 * checked list (owned by p) or NULL. */
json_object *fs_fields_parse(apr_pool_t *p, json_object *arr, const char *ptr, json_object *old,
                             fs_error *verr);

/* RFC 7396 JSON merge patch: a new object (owned by the caller) that is
 * target with patch applied. Neither argument is changed. */
json_object *fs_merge_patch(json_object *target, json_object *patch);

/* A deep copy (owned by the caller). */
json_object *fs_json_copy(json_object *v);

#endif
