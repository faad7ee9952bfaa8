/* log: the module's log calls. Each line carries its own number (FS_LOGNO,
 * include/fs_log.h; listed in docs/log-messages.md), and a child writes
 * the same number at most once per FormsvcLogRepeatInterval seconds: the
 * repeats in between are counted and the count is written with the next
 * one that passes (or when the child exits). A database outage under
 * traffic thus costs a few lines per child and interval, not a line per
 * request. The parent process (startup, configuration) is never throttled. */
#ifndef FORMSVC_LOG_H
#define FORMSVC_LOG_H

#include <httpd.h>
#include <http_config.h>
#include <http_log.h>

#include "fs_log.h"

/* A line about request r: FORMSVC_LOG(r, APLOG_ERR, 00101, "format", ...).
 * no is the message number with its leading zeros. */
#define FORMSVC_LOG(r, level, no, ...)                                                             \
    do {                                                                                           \
        if (APLOG_R_IS_LEVEL(r, level) && formsvc_log_pass((r)->server, level, #no))               \
            ap_log_rerror(APLOG_MARK, level, 0, r, FS_LOGNO(no) __VA_ARGS__);                      \
    } while (0)

/* A line about server s (startup, workers), with an APR status (0: none). */
#define FORMSVC_SLOG(s, level, status, no, ...)                                                    \
    do {                                                                                           \
        if (APLOG_IS_LEVEL(s, level) && formsvc_log_pass(s, level, #no))                           \
            ap_log_error(APLOG_MARK, level, status, s, FS_LOGNO(no) __VA_ARGS__);                  \
    } while (0)

/* 1 when the line numbered no (its digits, "00101") may be written now;
 * 0 when it repeats one written less than the interval ago (counted). Lock
 * free: two atomics per number. */
int formsvc_log_pass(const server_rec *s, int level, const char *no);

/* The store's lines arrive as finished text that starts with its number
 * (the core cannot call httpd): written through the same throttle. */
void formsvc_log_store_line(server_rec *s, int level, const char *line);

/* Hook (called by mod_formsvc.c's child_init, first): turns the throttle
 * on in the child (interval: FormsvcLogRepeatInterval,
 * runtime/config_global.h) and writes the counts still pending when it
 * exits. */
void formsvc_log_child_init(apr_pool_t *pchild, server_rec *s);

#endif
