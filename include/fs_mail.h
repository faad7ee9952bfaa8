/* fs_mail: RFC 5322 plain-text messages and the transports that deliver
 * them (a directory of .eml files, the local sendmail command, SMTP through
 * libcurl). No httpd headers: the glue's worker calls fs_mail_deliver. */
#ifndef FS_MAIL_H
#define FS_MAIL_H

#include <apr_atomic.h>
#include <apr_pools.h>
#include <apr_time.h>

typedef struct fs_mail_msg {
    const char *from;    /* "Name <addr@host>" or "addr@host" */
    const char *to;      /* one address */
    const char *subject; /* UTF-8; encoded as RFC 2047 when not ASCII */
    const char *body;    /* UTF-8 text, '\n' line ends */
    apr_time_t date;
    const char *message_id; /* "<...@host>", or NULL to make one */
    /* An https or http URL: List-Unsubscribe with it and RFC 8058's
     * List-Unsubscribe-Post (one-click); NULL: neither. */
    const char *unsubscribe;
} fs_mail_msg;

/* The whole message with CRLF line ends: headers (From, To, Subject, Date,
 * Message-ID, MIME-Version, Content-Type text/plain; charset=utf-8,
 * Content-Transfer-Encoding quoted-printable), a blank line, the body in
 * quoted-printable (lines <= 76, a leading '.' encoded). NULL when a header
 * value holds CR or LF (header injection), an address is malformed, or the
 * unsubscribe URL holds anything but printable ASCII other than '<' '>'. */
char *fs_mail_build(apr_pool_t *p, const fs_mail_msg *m);

/* The bare address of "Name <addr>" or "addr", NULL when there is none or
 * it holds characters an envelope cannot carry. */
const char *fs_mail_addr(apr_pool_t *p, const char *s);

/* The mailbox an address delivers to, as the per-address cap on unasked
 * mail counts it: the bare address (fs_mail_addr) in lower case (local
 * part too: nearly every provider ignores its case), with a "+tag" of the
 * local part removed: "Ann+promo@Example.COM" is "ann@example.com". Not
 * normalised: dots in the local part (significant for most providers, not
 * for Gmail), other separators ("-" at some providers), a local part that
 * starts with '+', provider aliases (googlemail.com) and IDN forms. NULL
 * when s holds no address (fs_mail_addr refuses quoted local parts). In
 * p. */
const char *fs_mail_mailbox(apr_pool_t *p, const char *s);

/* Quoted-printable (RFC 2045) of UTF-8 text with '\n' or CRLF line ends. */
char *fs_mail_qp(apr_pool_t *p, const char *text);

/* RFC 5322 date: "Sun, 22 Nov 2026 00:03:07 +0000". */
char *fs_mail_date(apr_pool_t *p, apr_time_t t);

typedef enum { FS_MAIL_FILE, FS_MAIL_SENDMAIL, FS_MAIL_SMTP } fs_mail_kind;

typedef struct fs_mail_transport {
    fs_mail_kind kind;
    const char *target;          /* directory, command line, or smtp(s):// URL */
    const char *user, *password; /* SMTP AUTH, may be NULL */
    int timeout;                 /* seconds for one delivery */
    /* NULL, or a flag that ends a delivery early once set (the child
     * stopping): fs_mail_deliver then returns FS_MAIL_CANCELLED */
    volatile apr_uint32_t *cancel;
} fs_mail_transport;

/* What fs_mail_deliver returns for a delivery given up because *cancel
 * was set: the message may or may not have gone; the caller leaves it to
 * be tried again. Compared by address. */
extern const char FS_MAIL_CANCELLED[];

/* Delivers one message (CRLF text) from envelope sender from to rcpt.
 * NULL on success, else a sentence saying why (for the outbox's
 * last_error; never with credentials in it). id names the .eml file. */
const char *fs_mail_deliver(apr_pool_t *p, const fs_mail_transport *t, const char *id,
                            const char *from, const char *rcpt, const char *message);

#endif
