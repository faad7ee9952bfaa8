/* fs_locale: the languages of the public pages.
 *
 * Every built-in string of a page (buttons, marks, notices, the field error
 * messages shown on a page) lives in one JSON file per language,
 * share/locales/<code>.json, a flat object of message key -> text. en.json
 * is the reference: every other file has exactly its keys, and each text
 * has exactly the placeholders ({label}, {n}, ...) of the English one.
 * The set is loaded once at startup (fs_locales_load) and never changed
 * afterwards, so that request threads read it without locks.
 *
 * Which language a page is in: the form's settings.locale, a BCP 47 tag
 * (resolved by fs_locale_match: language subtag first, zh-* -> zh, which
 * is Simplified Chinese, pt-BR -> pt, anything unsupported -> en) or
 * "auto", which follows the respondent's Accept-Language among the
 * supported languages (fs_locale_negotiate), en when none fits. */
#ifndef FS_LOCALE_H
#define FS_LOCALE_H

#include <apr_hash.h>
#include <apr_pools.h>

/* One language. Read-only once loaded. */
typedef struct fs_locale {
    const char *code; /* the file's name: "de", "zh" */
    const char *lang; /* for <html lang>: "de", "zh-Hans" */
    int rtl;          /* written right to left (ar, he) */
    apr_hash_t *msgs; /* key -> text, both in the set's pool */
} fs_locale;

typedef struct fs_locales fs_locales;

/* The supported codes, in the order of the table, NULL-terminated. */
extern const char *const fs_locale_codes[];

/* Loads <dir>/<code>.json for every supported code into p. NULL on
 * success (*out set); else a sentence saying which file is wrong and why
 * (missing, unreadable, not a flat object of strings, a key missing or
 * extra against en.json, a placeholder changed). */
const char *fs_locales_load(apr_pool_t *p, const char *dir, fs_locales **out);

/* Compares one language's messages with the reference: NULL when they have
 * the same keys and each text the same placeholders; else what differs.
 * Both are flat key -> text hashes. */
const char *fs_locale_compare(apr_pool_t *p, apr_hash_t *en, apr_hash_t *other);

/* The language of code (one of fs_locale_codes); en when code is NULL or
 * unknown. Never NULL once ls is loaded. */
const fs_locale *fs_locales_get(const fs_locales *ls, const char *code);

/* The supported code a BCP 47 tag maps to ("pt-BR" -> "pt", "zh-Hant-TW"
 * -> "zh", "DE" -> "de"), or NULL when its language is not supported. */
const char *fs_locale_match(const char *tag);

/* The supported code an Accept-Language header prefers (RFC 9110 12.5.4:
 * highest q first, the header's order among equals, q=0 excluded, "*"
 * ignored), or NULL when none is supported or the header is absent. */
const char *fs_locale_negotiate(apr_pool_t *p, const char *accept_language);

/* Is tag a well-formed language tag for settings.locale: "auto", or a
 * BCP 47 tag of letters and digits in subtags of 1 to 8 separated by '-',
 * starting with a 2-3 letter language, at most 35 characters. */
int fs_locale_tag_valid(const char *tag);

/* The text of key in l; the key itself when l is NULL or has no such key
 * (a bug the unit test of the files catches). */
const char *fs_tr(const fs_locale *l, const char *key);

/* The text of key with its placeholders filled: the arguments are pairs
 * name, value (value plain text, NULL taken as ""), ending with NULL. A
 * placeholder without a pair is left as it is. The result lives in p. */
char *fs_trf(apr_pool_t *p, const fs_locale *l, const char *key, ...);

#endif
