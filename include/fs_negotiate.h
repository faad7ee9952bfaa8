/* fs_negotiate: proactive content negotiation on Accept (RFC 9110 12.5.1)
 * between the two representations of a public form: the HTML page and the
 * JSON view. */
#ifndef FS_NEGOTIATE_H
#define FS_NEGOTIATE_H

typedef enum { FS_MEDIA_NONE = 0, FS_MEDIA_HTML, FS_MEDIA_JSON } fs_media;

/* The best of text/html and application/json for accept (NULL or empty: no
 * preference, HTML). Each offer takes the q-value of the most specific
 * media range that matches it (type/subtype, then type/any, then any/any); q=0
 * refuses. The higher q wins; a tie goes to HTML. FS_MEDIA_NONE when
 * neither is acceptable (406). Malformed ranges are skipped. */
fs_media fs_negotiate(const char *accept);

#endif
