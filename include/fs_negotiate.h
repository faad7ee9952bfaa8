/* fs_negotiate: media types. Proactive content negotiation on Accept
 * (RFC 9110 12.5.1) between the two representations of a public form (the
 * HTML page and the JSON view), and the checks of a request's
 * Content-Type that every body reader shares. */
#ifndef FS_NEGOTIATE_H
#define FS_NEGOTIATE_H

typedef enum { FS_MEDIA_NONE = 0, FS_MEDIA_HTML, FS_MEDIA_JSON } fs_media;

/* The best of text/html and application/json for accept (NULL or empty: no
 * preference, HTML). Each offer takes the q-value of the most specific
 * media range that matches it (type/subtype, then type/any, then any/any); q=0
 * refuses. The higher q wins; a tie goes to HTML. FS_MEDIA_NONE when
 * neither is acceptable (406). Malformed ranges are skipped. */
fs_media fs_negotiate(const char *accept);

/* 1 when the Content-Type ct (NULL: none) is the media type type, compared
 * without case and ignoring parameters and white space before them
 * ("application/json ; charset=utf-8" is application/json). */
int fs_media_is(const char *ct, const char *type);

/* 1 when ct has no charset parameter or charset=utf-8 (quoted or not, any
 * case): what a UTF-8-only body reader accepts. */
int fs_media_utf8(const char *ct);

#endif
