/* fs_mail: building RFC 5322 messages (RFC 2045 quoted-printable, RFC 2047
 * encoded words for the subject). */
#include "fs_mail.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <openssl/rand.h>
#include <string.h>

static int has_crlf(const char *s) {
    return s && strpbrk(s, "\r\n") != NULL;
}

const char *fs_mail_addr(apr_pool_t *p, const char *s) {
    if (!s || has_crlf(s))
        return NULL;
    const char *lt = strrchr(s, '<'), *a = s, *end;
    if (lt) {
        a = lt + 1;
        end = strchr(a, '>');
        if (!end)
            return NULL;
    } else {
        end = s + strlen(s);
    }
    char *addr = apr_pstrndup(p, a, (apr_size_t)(end - a));
    const char *at = strchr(addr, '@');
    if (!at || at == addr || !at[1] || strchr(at + 1, '@'))
        return NULL;
    for (const unsigned char *c = (const unsigned char *)addr; *c; c++)
        if (*c <= ' ' || *c == '<' || *c == '>' || *c == '(' || *c == ')' || *c == ',' ||
            *c == ';' || *c == '"' || *c == '\\' || *c == 127)
            return NULL;
    return addr;
}

const char *fs_mail_mailbox(apr_pool_t *p, const char *s) {
    const char *a = fs_mail_addr(p, s);
    if (!a)
        return NULL;
    char *m = apr_pstrdup(p, a);
    for (char *c = m; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    char *at = strrchr(m, '@'), *plus = strchr(m, '+');
    if (plus && plus > m && plus < at)
        memmove(plus, at, strlen(at) + 1);
    return m;
}

char *fs_mail_qp(apr_pool_t *p, const char *text) {
    static const char hex[] = "0123456789ABCDEF";
    apr_size_t n = strlen(text);
    char *out = apr_palloc(p, n * 3 + n / 25 * 3 + 8), *o = out;
    int col = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '\r' && c[1] == '\n')
            continue;
        if (*c == '\n') {
            /* trailing white space before a line end must be encoded */
            if (o > out && (o[-1] == ' ' || o[-1] == '\t')) {
                char w = o[-1];
                o--;
                *o++ = '=';
                *o++ = hex[(unsigned char)w >> 4];
                *o++ = hex[(unsigned char)w & 15];
            }
            *o++ = '\r';
            *o++ = '\n';
            col = 0;
            continue;
        }
        int literal = (*c >= 33 && *c <= 126 && *c != '=') || *c == ' ' || *c == '\t';
        if (col == 0 && *c == '.')
            literal = 0; /* never a line of one dot, in any transport */
        int w = literal ? 1 : 3;
        if (col + w > 75) { /* soft line break */
            *o++ = '=';
            *o++ = '\r';
            *o++ = '\n';
            col = 0;
            if (*c == '.')
                literal = 0, w = 3;
        }
        if (literal) {
            *o++ = (char)*c;
        } else {
            *o++ = '=';
            *o++ = hex[*c >> 4];
            *o++ = hex[*c & 15];
        }
        col += w;
    }
    if (o > out && (o[-1] == ' ' || o[-1] == '\t')) {
        char w = o[-1];
        o--;
        *o++ = '=';
        *o++ = hex[(unsigned char)w >> 4];
        *o++ = hex[(unsigned char)w & 15];
    }
    *o = '\0';
    return out;
}

char *fs_mail_date(apr_pool_t *p, apr_time_t t) {
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mons[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    apr_time_exp_t e;
    apr_time_exp_gmt(&e, t);
    return apr_psprintf(p, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[e.tm_wday], e.tm_mday,
                        mons[e.tm_mon], e.tm_year + 1900, e.tm_hour, e.tm_min, e.tm_sec);
}

/* RFC 2047 B-encoded words of at most 75 characters, split on UTF-8
 * character boundaries, or the text itself when it is printable ASCII. */
static char *subject_header(apr_pool_t *p, const char *s) {
    int ascii = 1;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 32 || *c > 126)
            ascii = 0;
    if (ascii && strlen(s) <= 900)
        return apr_pstrdup(p, s);
    apr_size_t n = strlen(s), i = 0;
    /* the words joined once at the end: linear in the subject's length */
    apr_array_header_t *parts = apr_array_make(p, (int)(n / 45 + 1) * 4, sizeof(const char *));
    while (i < n) {
        apr_size_t take = n - i > 45 ? 45 : n - i;
        while (i + take < n && ((unsigned char)s[i + take] & 0xC0) == 0x80)
            take--;
        char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)take));
        apr_base64_encode(b, s + i, (int)take);
        if (i)
            APR_ARRAY_PUSH(parts, const char *) = "\r\n ";
        APR_ARRAY_PUSH(parts, const char *) = "=?UTF-8?B?";
        APR_ARRAY_PUSH(parts, const char *) = b;
        APR_ARRAY_PUSH(parts, const char *) = "?=";
        i += take;
    }
    return apr_array_pstrcat(p, parts, 0);
}

/* The List-Unsubscribe lines of url, "" without one, NULL when url holds
 * what a header cannot (space, control characters, angle brackets). */
static const char *unsubscribe_headers(apr_pool_t *p, const char *url) {
    if (!url)
        return "";
    for (const unsigned char *c = (const unsigned char *)url; *c; c++)
        if (*c <= 32 || *c >= 127 || *c == '<' || *c == '>')
            return NULL;
    return apr_pstrcat(p, "List-Unsubscribe: <", url, ">\r\n",
                       "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n", NULL);
}

char *fs_mail_build(apr_pool_t *p, const fs_mail_msg *m) {
    if (!m->from || !m->to || !m->subject || !m->body || has_crlf(m->from) || has_crlf(m->to) ||
        has_crlf(m->subject) || has_crlf(m->message_id))
        return NULL;
    const char *unsub = unsubscribe_headers(p, m->unsubscribe);
    if (!unsub)
        return NULL;
    const char *from_addr = fs_mail_addr(p, m->from), *to_addr = fs_mail_addr(p, m->to);
    if (!from_addr || !to_addr)
        return NULL;
    const char *mid = m->message_id;
    if (!mid) {
        unsigned char rnd[16];
        if (RAND_bytes(rnd, sizeof(rnd)) != 1)
            return NULL;
        char hexs[33];
        for (int i = 0; i < 16; i++)
            apr_snprintf(hexs + 2 * i, 3, "%02x", rnd[i]);
        mid = apr_psprintf(p, "<%s.%" APR_TIME_T_FMT "@%s>", hexs, apr_time_sec(m->date),
                           strchr(from_addr, '@') + 1);
    }
    return apr_pstrcat(p, "From: ", m->from, "\r\n", "To: ", to_addr, "\r\n",
                       "Subject: ", subject_header(p, m->subject), "\r\n",
                       "Date: ", fs_mail_date(p, m->date), "\r\n", "Message-ID: ", mid, "\r\n",
                       "MIME-Version: 1.0\r\n", "Content-Type: text/plain; charset=utf-8\r\n",
                       "Content-Transfer-Encoding: quoted-printable\r\n",
                       "Auto-Submitted: auto-generated\r\n", unsub, "\r\n", fs_mail_qp(p, m->body),
                       "\r\n", NULL);
}
