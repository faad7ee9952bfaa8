/* fs_pages: a public form of several pages (fields of type page, see
 * fs_fieldset's pages), answered one page at a time by a browser without
 * script. Each step is a form post: the answers of the page shown, the
 * button pressed (FS_NAV_NAME: next, back or submit) and the answers of
 * the other pages in a sealed state (FS_STATE_NAME): AES-256-GCM under a
 * key derived from the server's pepper, the form's id and the respondent
 * link's token, holding the form's version, an expiry, the page and the
 * answers so far. docs/public-forms.md, "Forms of several pages", says
 * why and what it protects.
 *
 * Which page a field is on: its page's, except hidden fields, which go
 * with the first page (prefill arrives with the first page). A field is
 * shown on its page unless its visibleIf names a field of an earlier page
 * and does not hold for the answers so far; a page is shown when one of
 * its fields is. Agents post every answer at once: none of this changes
 * what a submission is (the schema has no page property). */
#ifndef FS_PAGES_H
#define FS_PAGES_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

/* The hidden input of the sealed state and the name of the buttons
 * (never field keys: keys start with a letter). */
#define FS_STATE_NAME "_state"
#define FS_NAV_NAME "_nav"
/* What a button of a page posts as FS_NAV_NAME. */
enum { FS_NAV_NONE, FS_NAV_NEXT, FS_NAV_BACK, FS_NAV_SUBMIT, FS_NAV_BAD };
int fs_nav_of(const char *value); /* FS_NAV_*; NULL is FS_NAV_NONE */

/* A state lives this long after the step that made it. */
#define FS_PAGESTATE_TTL_SECONDS (24 * 3600)
/* A state expired less than this long ago still gives its answers back
 * (a page left open overnight or over a weekend): its page is shown
 * again with them and a notice, never a step; older ones are refused. */
#define FS_PAGESTATE_RESTORE_SECONDS (7 * 24 * 3600)
/* The longest sealed state opened (characters), and the longest answers
 * sealed (bytes of JSON): a bounded amount of work and memory per step,
 * yet room for every answer of a form of long texts (768 KiB of JSON is a
 * quarter of a million Japanese characters; 64 KiB, the bound before,
 * broke the step after two pages of 10,000 emoji, answers lost). A form's
 * body limit counts the state (fs_fieldset_body_max). */
#define FS_PAGESTATE_MAX (1024 * 1024 + 4096)
#define FS_PAGESTATE_PLAIN_MAX (768 * 1024)

/* The index of the page f is on (hidden fields: 0). */
int fs_pages_of(const fs_fieldset *fs, const fs_field *f);
/* Does f's visibleIf name a field of an earlier page than page (so that
 * the answers so far decide it, and the page need not say when f
 * applies)? */
int fs_pages_decided(const fs_fieldset *fs, int page, const fs_field *f);
/* The same for f's requiredIf: when decided, the page says plainly
 * whether f is required. */
int fs_pages_required_decided(const fs_fieldset *fs, int page, const fs_field *f);
/* Is f shown on page for the answers so far? */
int fs_pages_field_shown(const fs_fieldset *fs, int page, const fs_field *f, json_object *answers);
/* The next page shown after page (dir 1) or before it (dir -1) among
 * those the answers reach (fs_fieldset_path: the jumps of settings.logic);
 * -1 when there is none. Back goes along the pages actually shown, which
 * the state keeps (fs_pagestate.trail); this is its fallback. */
int fs_pages_step(const fs_fieldset *fs, int page, int dir, json_object *answers);
/* Where page stands among the pages the answers so far reach (the same
 * path and pages shown as fs_pages_step): *n its place (1-based), *total
 * how many there are. A jump to the end from page makes it the last
 * (page 1 of 1), a page skipped is not counted. A page off that path (a
 * stale step) counts as on it. */
void fs_pages_progress(const fs_fieldset *fs, int page, json_object *answers, int *n, int *total);

/* The answers so far with page's answers replaced by those posted (the
 * coerced object of the step's post): a field of page without a posted
 * value has none; an optional checkbox of page left unticked is false
 * when its question applies. Members of posted that are no field of page
 * are ignored. A new object owned by p. */
json_object *fs_pages_merge(apr_pool_t *p, const fs_fieldset *fs, int page, json_object *answers,
                            json_object *posted);
/* answers without the answers of fields whose question does not apply
 * (any more): of other pages than page, or of pages a jump now skips
 * (page's own included): they were typed before an answer that now makes
 * them inapplicable. Changes answers. */
void fs_pages_drop_inapplicable(const fs_fieldset *fs, int page, json_object *answers);
/* The errors of e about fields of page (a new validation-failed problem
 * in p), NULL when none are. */
fs_error *fs_pages_errors_on(apr_pool_t *p, const fs_fieldset *fs, int page, const fs_error *e);
/* The first page an error of e is about; -1 when none is about a field. */
int fs_pages_first_error(const fs_fieldset *fs, const fs_error *e);

/* The answers as JSON text with their members in byte order of their
 * names (values as fs_json_str writes them): the same answers give the
 * same text whatever order the steps put them in. In p. */
char *fs_pages_answers_text(apr_pool_t *p, json_object *answers);

/* answers without those of page's fields: what the state of page
 * carries, since its own answers are in its inputs and a post of the page
 * replaces them (fs_pages_merge). A new object in p (values shared). */
json_object *fs_pages_carried(apr_pool_t *p, const fs_fieldset *fs, int page, json_object *answers);

/* The state a page carries. */
typedef struct fs_pagestate {
    const char *version;  /* the form's version it was made for */
    apr_int64_t expires;  /* seconds since the epoch */
    int page;             /* the page it was sent with */
    int spam;             /* an earlier step filled the honeypot */
    json_object *answers; /* the answers so far (an object) */
    json_object *trail;   /* the pages shown before page, ascending (an array of
                           * ints), or NULL: Back goes to its last */
} fs_pagestate;

enum { FS_PAGESTATE_OK, FS_PAGESTATE_BAD, FS_PAGESTATE_EXPIRED, FS_PAGESTATE_TOO_LARGE };

/* Seals st for form_id through link (the respondent link's token as the
 * request carries it, "" without one) under a key derived from pepper
 * (pepper_len 0: a fixed key, so the state is only obscured): *out in p.
 * FS_PAGESTATE_TOO_LARGE when the answers pass FS_PAGESTATE_PLAIN_MAX,
 * FS_PAGESTATE_BAD when no random bytes could be had. */
int fs_pagestate_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *form_id, const char *link, const fs_pagestate *st,
                      const char **out);
/* The bytes by which st's answers pass FS_PAGESTATE_PLAIN_MAX (0: st
 * can be sealed): a step checks it before going to a page, so that a
 * person is asked to shorten an answer rather than sent on with answers
 * no state can carry. Linear in the answers; scratch in p. */
apr_size_t fs_pagestate_excess(apr_pool_t *p, const fs_pagestate *st);
/* The 422 asking to shorten the longest text answer of page (among
 * answers) by excess characters, so that the answers so far fit a state
 * (a person stays on page, everything typed kept, rather than going on
 * with answers no later step could read); NULL when page has no text
 * answer. In p. */
fs_error *fs_pages_carry_error(apr_pool_t *p, const fs_fieldset *fs, int page, json_object *answers,
                               apr_size_t excess);
/* Opens a state: FS_PAGESTATE_BAD when it was not sealed for this form
 * through this link with this pepper (changed, cut, made up, too long),
 * FS_PAGESTATE_EXPIRED when its expiry is before now (seconds). *st is
 * filled on FS_PAGESTATE_OK (answers owned by p). */
int fs_pagestate_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                      const char *form_id, const char *link, const char *sealed, apr_int64_t now,
                      fs_pagestate *st);

#endif
