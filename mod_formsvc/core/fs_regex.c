/* fs_regex: the ECMA-262-compatible subset, translated to PCRE2, and
 * bounded matching.
 *
 * The scanner walks the pattern once. It refuses what PCRE2 and ECMA-262
 * read differently (or what only one of them has), and rewrites the two
 * constructs whose meaning differs but that people need: "." (ECMA-262:
 * anything but \n, \r, U+2028, U+2029) and \s / \S (ECMA-262: the Unicode
 * white space and line terminators). Everything else is passed through. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "fs_regex.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <pcre2.h>
#include <string.h>

#define MATCH_LIMIT 1000000u /* internal match() calls per match */
#define DEPTH_LIMIT 10000u   /* backtracking depth */
#define HEAP_LIMIT 8192u     /* KiB of backtracking memory */
#define PROBE_LIMIT 100000u  /* per probe: a sound pattern needs far less on 30 characters */
#define PROBE_CHARS 20       /* distinct characters tried, which bounds the probe's cost */

struct fs_regex {
    pcre2_code *code;
    pcre2_match_context *mctx;
    const char *source;     /* the pattern as given */
    const char *translated; /* what PCRE2 compiled */
    apr_size_t tlen;
};

#define COMPILE_OPTIONS                                                                            \
    (PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX | PCRE2_NEVER_BACKSLASH_C | PCRE2_NEVER_UCP)

static apr_status_t regex_cleanup(void *data) {
    fs_regex *re = data;
    pcre2_code_free(re->code);
    pcre2_match_context_free(re->mctx);
    return APR_SUCCESS;
}

/* ECMA-262 WhiteSpace and LineTerminator, as the inside of a class. */
static const char ECMA_WS[] = "\\t\\n\\x0B\\f\\r \xC2\xA0\xE1\x9A\x80\xE2\x80\x80-\xE2\x80\x8A"
                              "\xE2\x80\xA8\xE2\x80\xA9\xE2\x80\xAF\xE2\x81\x9F\xE3\x80\x80"
                              "\xEF\xBB\xBF";
/* ECMA-262 LineTerminator: what "." does not match. */
static const char ECMA_LT[] = "\\n\\r\xE2\x80\xA8\xE2\x80\xA9";

static int is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_syntax(char c) {
    return c && strchr("^$\\.*+?()[]{}|/", c) != NULL;
}

typedef struct {
    apr_pool_t *p;
    const char *s;
    apr_size_t i;
    apr_array_header_t *out;
    const char *err;
} scanner;

static void emit(scanner *sc, const char *t, apr_size_t n) {
    for (apr_size_t k = 0; k < n; k++)
        APR_ARRAY_PUSH(sc->out, char) = t[k];
}

static int refuse(scanner *sc, const char *why) {
    if (!sc->err)
        sc->err = apr_psprintf(sc->p, "%s (at character %" APR_SIZE_T_FMT ").", why, sc->i + 1);
    return 0;
}

/* ECMA-262's white space (what \s means there, which PCRE2's \s is not)
 * between open and close: "" and "" inside [...], "[" and "]" or "[^"
 * and "]" outside. */
static void emit_ws(scanner *sc, const char *open, const char *close) {
    emit(sc, open, strlen(open));
    emit(sc, ECMA_WS, sizeof(ECMA_WS) - 1);
    emit(sc, close, strlen(close));
}

/* One escape at sc->s[sc->i] == '\\'. in_class: inside [...]. */
static int escape(scanner *sc, int in_class) {
    const char *s = sc->s + sc->i;
    char c = s[1];
    if (!c)
        return refuse(sc, "The pattern ends with a lone backslash");
    switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 't':
    case 'n':
    case 'r':
    case 'f':
        emit(sc, s, 2);
        sc->i += 2;
        return 1;
    case 'b':
    case 'B':
        if (in_class) /* [\b] is backspace in ECMA-262, an error in PCRE2 */
            return refuse(sc, "\\b inside a character class is not supported");
        emit(sc, s, 2);
        sc->i += 2;
        return 1;
    case 's':
        emit_ws(sc, in_class ? "" : "[", in_class ? "" : "]");
        sc->i += 2;
        return 1;
    case 'S':
        if (in_class)
            return refuse(sc, "\\S inside a character class is not supported");
        emit_ws(sc, "[^", "]");
        sc->i += 2;
        return 1;
    case '0':
        if (s[2] >= '0' && s[2] <= '9')
            return refuse(sc, "Octal escapes are not supported");
        emit(sc, "\\x00", 4);
        sc->i += 2;
        return 1;
    case 'x':
        if (!is_hex(s[2]) || !is_hex(s[3]))
            return refuse(sc, "\\x takes exactly two hexadecimal digits");
        emit(sc, s, 4);
        sc->i += 4;
        return 1;
    case 'u':
        if (!is_hex(s[2]) || !is_hex(s[3]) || !is_hex(s[4]) || !is_hex(s[5]))
            return refuse(sc, "\\u takes exactly four hexadecimal digits");
        emit(sc, s, 6);
        sc->i += 6;
        return 1;
    case 'c':
        if (!((s[2] >= 'a' && s[2] <= 'z') || (s[2] >= 'A' && s[2] <= 'Z')))
            return refuse(sc, "\\c takes a letter");
        emit(sc, s, 3);
        sc->i += 3;
        return 1;
    case '-':
        if (!in_class)
            return refuse(sc, "\\- is only allowed inside a character class");
        emit(sc, s, 2);
        sc->i += 2;
        return 1;
    default: break;
    }
    if (c >= '1' && c <= '9') {
        if (in_class)
            return refuse(sc, "Back references inside a character class are not supported");
        if (s[2] >= '0' && s[2] <= '9')
            return refuse(sc, "Back references above \\9 are not supported");
        emit(sc, s, 2);
        sc->i += 2;
        return 1;
    }
    if (is_syntax(c)) {
        emit(sc, s, 2);
        sc->i += 2;
        return 1;
    }
    return refuse(sc, apr_psprintf(sc->p,
                                   "The escape \\%c is not part of the supported "
                                   "ECMA-262 subset",
                                   c));
}

/* A character class; sc->s[sc->i] == '['. \S inside a class (as in the
 * common [\s\S]) cannot be put inside a PCRE2 class with ECMA-262's
 * meaning, so such a class becomes (?:[rest]|(?![rest])[^whitespace]). */
static int klass(scanner *sc) {
    int start = sc->out->nelts, negated = 0, not_space = 0, members = 0;
    emit(sc, "[", 1);
    sc->i++;
    if (sc->s[sc->i] == '^') {
        emit(sc, "^", 1);
        sc->i++;
        negated = 1;
    }
    if (sc->s[sc->i] == ']')
        return refuse(sc, "Empty character classes ([] and [^]) are not supported");
    while (sc->s[sc->i]) {
        char c = sc->s[sc->i];
        if (c == ']') {
            sc->i++;
            if (!not_space) {
                emit(sc, "]", 1);
                return 1;
            }
            /* rebuild as an alternation */
            apr_array_header_t *inner = apr_array_copy(sc->p, sc->out);
            sc->out->nelts = start;
            emit(sc, "(?:", 3);
            if (members) { /* disjoint branches: no backtracking blow-up */
                emit(sc, inner->elts + start, (apr_size_t)(inner->nelts - start));
                emit(sc, "]|(?!", 5);
                emit(sc, inner->elts + start, (apr_size_t)(inner->nelts - start));
                emit(sc, "])", 2);
            }
            emit_ws(sc, "[^", "])");
            return 1;
        }
        if (c == '\\' && sc->s[sc->i + 1] == 'S') {
            if (negated)
                return refuse(sc, "\\S inside a negated character class is not supported");
            not_space = 1;
            sc->i += 2;
            continue;
        }
        members = 1;
        if (c == '\\') {
            if (!escape(sc, 1))
                return 0;
            continue;
        }
        if (c == '[') {
            if (sc->s[sc->i + 1] == ':' || sc->s[sc->i + 1] == '.' || sc->s[sc->i + 1] == '=')
                return refuse(sc, "POSIX classes such as [:alpha:] are not supported");
            emit(sc, "\\[", 2); /* a literal [ in both */
            sc->i++;
            continue;
        }
        emit(sc, &c, 1);
        sc->i++;
    }
    return refuse(sc, "The character class is not closed");
}

/* After an atom: an optional quantifier; refuses possessive ones. */
static int quantifier(scanner *sc) {
    char c = sc->s[sc->i];
    if (c == '*' || c == '+' || c == '?') {
        emit(sc, &c, 1);
        sc->i++;
    } else if (c == '{') {
        apr_size_t j = sc->i + 1;
        int digits = 0;
        while (sc->s[j] >= '0' && sc->s[j] <= '9') {
            j++;
            digits++;
        }
        if (!digits)
            return refuse(sc, "A lone { must be escaped as \\{");
        if (sc->s[j] == ',') {
            j++;
            while (sc->s[j] >= '0' && sc->s[j] <= '9')
                j++;
        }
        if (sc->s[j] != '}')
            return refuse(sc, "A lone { must be escaped as \\{");
        j++;
        emit(sc, sc->s + sc->i, j - sc->i);
        sc->i = j;
    } else {
        return 1;
    }
    if (sc->s[sc->i] == '?') {
        emit(sc, "?", 1);
        sc->i++;
    }
    c = sc->s[sc->i];
    if (c == '+')
        return refuse(sc, "Possessive quantifiers are not supported");
    if (c == '*' || c == '?' || c == '{')
        return refuse(sc, "Nothing to repeat");
    return 1;
}

static int translate(scanner *sc) {
    while (sc->s[sc->i]) {
        char c = sc->s[sc->i];
        int atom = 1;
        switch (c) {
        case '\\':
            if (!escape(sc, 0))
                return 0;
            break;
        case '[':
            if (!klass(sc))
                return 0;
            break;
        case '.':
            emit(sc, "[^", 2);
            emit(sc, ECMA_LT, sizeof(ECMA_LT) - 1);
            emit(sc, "]", 1);
            sc->i++;
            break;
        case '(':
            if (sc->s[sc->i + 1] == '?') {
                const char *q = sc->s + sc->i + 2;
                apr_size_t n = 0;
                if (*q == ':' || *q == '=' || *q == '!')
                    n = 3;
                else if (q[0] == '<' && (q[1] == '=' || q[1] == '!'))
                    n = 4;
                else
                    return refuse(sc, "Only (?:...), (?=...), (?!...), (?<=...) and (?<!...) "
                                      "groups are supported (no named groups, inline flags "
                                      "or other PCRE extensions)");
                emit(sc, sc->s + sc->i, n);
                sc->i += n;
            } else {
                emit(sc, "(", 1);
                sc->i++;
            }
            atom = 0;
            break;
        case ')':
        case '|':
        case '^':
        case '$':
            emit(sc, &c, 1);
            sc->i++;
            atom = c == ')';
            break;
        case ']':
        case '{':
        case '}': return refuse(sc, apr_psprintf(sc->p, "A lone %c must be escaped as \\%c", c, c));
        case '*':
        case '+':
        case '?': return refuse(sc, "Nothing to repeat");
        default:
            emit(sc, &c, 1);
            sc->i++;
            break;
        }
        if (atom && !quantifier(sc))
            return 0;
    }
    return 1;
}

fs_regex *fs_regex_compile(apr_pool_t *p, const char *pattern, const char **err) {
    *err = NULL;
    apr_size_t len = strlen(pattern);
    if (len > FS_REGEX_MAX_PATTERN) {
        *err = apr_psprintf(p, "The pattern is longer than %d bytes.", FS_REGEX_MAX_PATTERN);
        return NULL;
    }
    if (!fs_utf8_valid(pattern, len)) {
        *err = "The pattern is not valid UTF-8.";
        return NULL;
    }
    scanner sc = {p, pattern, 0, apr_array_make(p, (int)len * 2 + 16, 1), NULL};
    if (!translate(&sc)) {
        *err = sc.err;
        return NULL;
    }
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)sc.out->elts, (PCRE2_SIZE)sc.out->nelts,
                                     COMPILE_OPTIONS, &ec, &eo, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof(msg));
        *err = apr_psprintf(p, "The pattern does not compile: %s.", (char *)msg);
        return NULL;
    }
    fs_regex *re = apr_pcalloc(p, sizeof(*re));
    re->code = code;
    re->mctx = pcre2_match_context_create(NULL);
    re->source = apr_pstrdup(p, pattern);
    re->translated = apr_pstrmemdup(p, sc.out->elts, (apr_size_t)sc.out->nelts);
    re->tlen = (apr_size_t)sc.out->nelts;
    if (!re->mctx) {
        pcre2_code_free(code);
        *err = "Out of memory.";
        return NULL;
    }
    pcre2_set_match_limit(re->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(re->mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(re->mctx, HEAP_LIMIT);
    apr_pool_cleanup_register(p, re, regex_cleanup, apr_pool_cleanup_null);
    return re;
}

static int match_code(pcre2_code *code, pcre2_match_context *mctx, const char *subject) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    if (!md)
        return -1;
    int rc = pcre2_match(code, (PCRE2_SPTR)subject, strlen(subject), 0, 0, md, mctx);
    pcre2_match_data_free(md);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return -1; /* limits, bad UTF-8, anything else */
}

int fs_regex_match(const fs_regex *re, const char *subject) {
    return match_code(re->code, re->mctx, subject);
}

int fs_regex_pathological(const fs_regex *re) {
    /* Runs of one character then a character that breaks the match are the
     * classic trigger of exponential backtracking ((a+)+$, (a|a)*b,
     * (\w+\s?)*$ ...). Besides a few usual characters, every ASCII letter,
     * digit and punctuation mark the pattern names is tried. The probe runs
     * on a copy compiled without PCRE2's start-of-match optimisations
     * (which skip hopeless subjects here but which other engines, such as
     * a browser's, do not have), and the subjects end with every literal of
     * the pattern too. */
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)re->translated, re->tlen,
                                     COMPILE_OPTIONS | PCRE2_NO_START_OPTIMIZE, &ec, &eo, NULL);
    pcre2_match_context *mctx = code ? pcre2_match_context_create(NULL) : NULL;
    if (!mctx) {
        pcre2_code_free(code);
        return 0;
    }
    pcre2_set_match_limit(mctx, PROBE_LIMIT);
    pcre2_set_depth_limit(mctx, DEPTH_LIMIT);
    pcre2_set_heap_limit(mctx, HEAP_LIMIT);
    char chars[PROBE_CHARS + 1] = "a0 A.-_@x";
    apr_size_t nc = strlen(chars);
    for (const char *q = re->source; *q && nc < sizeof(chars) - 1; q++) {
        unsigned char c = (unsigned char)*q;
        if (c > 0x20 && c < 0x7f && c != '\\' && !strchr(chars, c))
            chars[nc++] = (char)c;
    }
    chars[nc] = '\0';
    char lits[PROBE_CHARS + 2] = "!";
    strcat(lits, chars);
    const char *tails[] = {"!", "\n!", "\xE2\x80\xA8", lits};
    char subject[160];
    int bad = 0;
    for (apr_size_t k = 0; k < nc && !bad; k++) {
        for (unsigned t = 0; t < sizeof(tails) / sizeof(tails[0]) && !bad; t++) {
            memset(subject, chars[k], 28);
            strcpy(subject + 28, tails[t]);
            bad = match_code(code, mctx, subject) < 0;
        }
        /* alternating with a space: (\w+\s?)+ and friends */
        for (int i = 0; i < 28; i++)
            subject[i] = (i % 3 == 2) ? ' ' : chars[k];
        strcpy(subject + 28, "!");
        bad = bad || match_code(code, mctx, subject) < 0;
    }
    pcre2_match_context_free(mctx);
    pcre2_code_free(code);
    return bad;
}
