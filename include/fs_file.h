/* fs_file: the pure rules of uploaded files: which files a
 * field accepts, safe file names, media types, whether content looks like
 * its declared type (magic bytes, UTF-8 for text), strict base64 and a
 * streaming SHA-256. No httpd, no database: the glue (http/files.c) feeds
 * bytes through these as they arrive. */
#ifndef FS_FILE_H
#define FS_FILE_H

#include <apr_pools.h>
#include <json.h>

/* Longest file name and media type kept (bytes). */
#define FS_FILE_NAME_MAX 255
#define FS_FILE_TYPE_MAX 255

/* 1 when s is an accept entry: "type/subtype", "type/ *" (without the
 * space) or ".ext" (1 to 20 alphanumerics, '-', '_', '.'). */
int fs_file_accept_entry_valid(const char *s);

/* 1 when a file named name of media type type (normalised, lower case)
 * matches one entry of accept (an array as fs_field stores it); NULL or
 * empty accept takes any file. */
int fs_file_accepted(json_object *accept, const char *name, const char *type);

/* A file name safe to store and to put in a header: the last path
 * component (after '/' or '\'), control characters (C0, DEL and C1),
 * quotes and ';' turned into '_', format characters (fs_file_format_char:
 * bidi controls, zero-width characters, the byte order mark...) dropped,
 * invalid UTF-8 replaced, leading dots removed, at most
 * FS_FILE_NAME_MAX bytes (cut on a character boundary); "file" when
 * nothing is left. In p. */
const char *fs_file_safe_name(apr_pool_t *p, const char *name, apr_size_t len);

/* 1 when the code point cp is a format character (Unicode general
 * category Cf, as of Unicode 15.1). */
int fs_file_format_char(unsigned int cp);

/* The media type of a declared Content-Type (parameters dropped, lower
 * case); "application/octet-stream" when ct is NULL or not type/subtype. */
const char *fs_file_media_type(apr_pool_t *p, const char *ct);

/* Checks content against its declared type as it streams by: png, jpeg,
 * gif, webp, pdf and zip-based types (zip, docx, xlsx, pptx, odt...) by
 * their magic bytes; text/ *, application/json, application/xml and csv by
 * UTF-8 validity without NUL; other types are not checked. */
typedef struct fs_file_check {
    int kind;
    unsigned char head[24];
    apr_size_t nhead;
    int need; /* UTF-8 continuation bytes still expected */
    int bad;
    int png_max_side;       /* fs_file_check_png_bounds; 0: not asked */
    unsigned char tail[12]; /* the last bytes fed, when png_max_side */
    apr_size_t ntail;
} fs_file_check;
void fs_file_check_init(fs_file_check *c, const char *type);
/* After fs_file_check_init of image/png: the PNG must also begin with its
 * IHDR chunk, of a width and a height from 1 to max_side pixels, and end
 * with its IEND chunk (nothing after it). So a decompression bomb (a small
 * file that claims a huge image) or a PNG with something appended is
 * refused; the image data itself is not decoded. */
void fs_file_check_png_bounds(fs_file_check *c, int max_side);
void fs_file_check_feed(fs_file_check *c, const unsigned char *b, apr_size_t n);
/* 1 when the whole content fits its type. */
int fs_file_check_done(fs_file_check *c);

/* 1 when s[0..n) is base64 of RFC 4648 section 4 with padding: groups of
 * four, '=' only at the end (the pattern fs_schema publishes). */
int fs_file_base64_valid(const char *s, apr_size_t n);
/* Characters of base64 for n bytes. */
long long fs_file_base64_len(long long n);
/* The schema pattern of fs_file_base64_valid. */
extern const char FS_RE_BASE64[];

/* Streaming SHA-256 (OpenSSL EVP); the context is freed by a cleanup of
 * p, so an upload that fails half-way leaks nothing. NULL when OpenSSL
 * cannot make a context. */
typedef struct fs_sha256 fs_sha256;
fs_sha256 *fs_sha256_new(apr_pool_t *p);
void fs_sha256_update(fs_sha256 *h, const void *b, apr_size_t n);
/* The 32 bytes of the digest (in p); the context is finished. NULL on
 * failure. */
const unsigned char *fs_sha256_final(fs_sha256 *h, apr_pool_t *p);
/* The digest in lower-case hex (64 characters, in p); the context is
 * finished and cannot be fed again. */
const char *fs_sha256_hex(fs_sha256 *h, apr_pool_t *p);

#endif
