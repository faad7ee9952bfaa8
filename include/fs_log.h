/* fs_log: the message numbers of mod_formsvc's log lines.
 *
 * Every line the module writes starts with a stable number of its own,
 * "FS" and five digits ("FS00102: ..."), never httpd's "AH" numbers: those
 * belong to httpd's registry, and ours collided with theirs. FS_LOGNO is
 * the one way to write a number, in the core (whose store hands finished
 * lines to the glue's logger) and in the glue (FORMSVC_LOG and the
 * ap_log_error calls). Each number is used by exactly one log call and is
 * listed, with what to do about it, in docs/log-messages.md; t/09_lognumbers.t
 * keeps both true. Write the number with its leading zeros: it is turned
 * into text, never into an integer literal. */
#ifndef FS_LOG_H
#define FS_LOG_H

#define FS_LOGNO(n) "FS" #n ": "

#endif
