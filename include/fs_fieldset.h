/* fs_fieldset: a form's fields as the public side sees them, read from the
 * stored API representation (forms.fields), with every effective limit
 * computed once here, so that the validator (fs_validate), the JSON Schema
 * (fs_schema), the page (fs_html) and the coercion of HTML posts
 * (fs_coerce) can never disagree about a rule.
 *
 * Built-in formats are regular expressions written so that ECMA-262,
 * Python's re and pcre2 read them alike: they end in (?![\s\S]) instead of
 * '$' (which differs before a final newline) and use [0-9], not \d. The
 * server matches with exactly the strings the schema publishes. */
#ifndef FS_FIELDSET_H
#define FS_FIELDSET_H

#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_field.h"
#include "fs_json.h" /* fs_json_equal, fs_json_number */
#include "fs_pattern.h"
#include "fs_regex.h"

/* The field types are the owner model's (fs_field_type, fs_field.h);
 * FS_FT_UNKNOWN marks a type name this build does not know. */
#define FS_FT_UNKNOWN FS_FT_COUNT

/* Numbers a submission may carry are JavaScript's safe integers
 * (FS_SAFE_INTEGER, fs_field.h), so that every value round-trips through
 * any JSON parser. Owner bounds narrow this. */
/* Default longest answers when the owner sets no maxLength. */
#define FS_DEFAULT_MAX_LINE 1000
#define FS_DEFAULT_MAX_TEXTAREA 10000
#define FS_EMAIL_MAX 254
#define FS_URL_MAX 2000
#define FS_RATING_DEFAULT_MAX 5

/* The built-in format patterns (also published in the schema). */
extern const char FS_RE_EMAIL[], FS_RE_URL[], FS_RE_TEL[], FS_RE_DATE[], FS_RE_DATETIME[];
/* The compiled form of one of those (re must be one of the FS_RE_*
 * arrays, compared by address), compiled once per process; NULL for any
 * other string or when pcre2 refused it. */
const fs_pattern *fs_builtin_pattern(const char *re);

typedef struct fs_field {
    const char *key, *label, *description, *placeholder;
    const char *time_zone; /* datetime: the IANA zone of form posts' local times, or NULL (UTC) */
    const char *type_name; /* as stored */
    fs_field_type type;
    int required;
    json_object *options;     /* array of {value, label}, or NULL */
    json_object *visible_if;  /* a condition (fs_logic.h), or NULL */
    json_object *required_if; /* a condition, or NULL */
    int page;                 /* the index of its page (hidden fields: 0) */
    /* effective limits; has_* = 0 when there is none */
    int has_min_len, has_max_len, has_min_items, has_max_items, has_min, has_max;
    long min_len, max_len, min_items, max_items;
    double min, max;
    const char *format_re;  /* built-in pattern for the type, or NULL */
    const char *pattern;    /* owner's pattern, or NULL */
    fs_regex *pattern_code; /* compiled owner pattern, the same engine and
                             * subset that accepted it (NULL when bad) */
    /* file fields: largest file (bytes), most files, accepted types
     * (NULL: any); fs_fieldset_file_ceilings lowers the first two */
    long long max_size;
    long max_files;
    json_object *accept;
    /* date, datetime, daterange, time: minimum and maximum as given (NULL:
     * none; fs_field_more.h) */
    const char *min_text, *max_text;
    json_object *def; /* the stored definition: the members of the types of
                       * fs_field_choice.h are read from it */
} fs_field;

/* One page of the public form: the fields f[first .. first + count - 1],
 * after the page field key (its label the title, its description), or
 * before any page field (key, title and description NULL). */
typedef struct fs_fieldpage {
    const char *key, *title, *description;
    int first, count;
} fs_fieldpage;

/* A page jump of settings.logic: leaving page from, when the condition
 * holds (NULL: always), the next page is to (npages: the end). */
typedef struct fs_jump {
    int from, to;
    json_object *when;
} fs_jump;

typedef struct fs_fieldset {
    int n;
    fs_field *f; /* the questions: page fields are layout and never in f */
    int npages;  /* at least 1; more when the form has page fields (fs_pages.h) */
    fs_fieldpage *pages;
    apr_hash_t *page_keys; /* a page field's key -> the index of the page it
                            * leads to + 1 (npages + 1: none follows) */
    int njumps;            /* settings.logic, in order (fs_fieldset_logic) */
    fs_jump *jumps;
} fs_fieldset;

/* From the stored fields array (trusted but tolerated: entries that are not
 * objects or have no key are skipped; unknown types stay FS_FT_UNKNOWN and
 * accept nothing). Fields are ordered by position, then as stored. Page
 * fields become pages: a page holds the fields after its page field up to
 * the next; a page without a question (not counting hidden fields) is no
 * page (its hidden fields stay with the page before; the first page of a
 * form that starts with a page field is that page field's). */
fs_fieldset *fs_fieldset_from_json(apr_pool_t *p, json_object *fields);

/* Reads the page jumps of settings.logic into fs (a stored, checked list;
 * tolerated: a rule naming no page, or going backwards, is left out). A
 * rule without "from" leaves the page of the last field its condition
 * names. */
void fs_fieldset_logic(apr_pool_t *p, fs_fieldset *fs, json_object *settings);

/* The page a rule of settings.logic leaves when it has no "from": that of
 * the last field its condition names (0 when none). */
int fs_fieldset_when_page(const fs_fieldset *fs, json_object *when);

/* Which pages the answers reach: the path from the first page, each page
 * left by its first jump whose condition holds for the answers of the
 * pages reached so far, else to the page after it. NULL when the form
 * has no jumps (every page is reached); else npages flags in p. */
const char *fs_fieldset_path(apr_pool_t *p, const fs_fieldset *fs, json_object *answers);

/* Does f's question apply to answers: its page reached (path from
 * fs_fieldset_path, NULL: every page) and its visibleIf holding? */
int fs_field_applies(const fs_field *f, json_object *answers, const char *path);
/* Is f required for answers (required, or its requiredIf holds)? */
int fs_field_required_now(const fs_field *f, json_object *answers);

/* Lowers every file field's max_size and max_files to the server's
 * ceilings (directives), before the schema or the validator reads them. */
void fs_fieldset_file_ceilings(fs_fieldset *fs, long long max_size, long max_files);
/* 1 when the form has a file field, or a signature (its drawn image is a
 * file). */
int fs_fieldset_has_files(const fs_fieldset *fs);

/* The most bytes a submission of the form can take with every answer at
 * its longest, in a form post or in JSON (not counting files): a code
 * point is at most 12 bytes either way (%F0%9F%98%80, \ud83d\ude00); a
 * page of a form of several pages also carries the sealed answers of the
 * pages before (at most 8 bytes a code point, FS_PAGESTATE_MAX in all).
 * A question without a
 * length bound counts 4 KB, its options their values. The public post's
 * body limit is the larger of this and FormsvcMaxBodySubmission, so that
 * any answer the page lets a person type can be sent. */
apr_size_t fs_fieldset_body_max(const fs_fieldset *fs);

const fs_field *fs_fieldset_find(const fs_fieldset *fs, const char *key);
/* How a field is named to a person: its label, else its key. */
const char *fs_field_label(const fs_field *f);

/* Does f's visibleIf hold for the answers in body (fs_cond_eval)? Fields
 * without visibleIf always are visible. Whether its page is reached is
 * fs_field_applies'. */
int fs_field_visible(const fs_field *f, json_object *body);

/* The label of option value v of f, or NULL. */
const char *fs_field_option_label(const fs_field *f, json_object *v);

#endif
