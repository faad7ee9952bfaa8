/* fs_spam: a submission's spamScore (0..100) from cheap signals, each
 * worth points, the sum capped at 100:
 *   - the honeypot filled in: 100;
 *   - time to fill, when the page says when it was shown: under 3 s 50,
 *     under 8 s 25;
 *   - links in the answers (http://, https://, www.): 15 for one, 30 for
 *     two, 50 for three or more;
 *   - repeated answers: the same text (of 2 characters or more) given to
 *     two or more questions 25; a character typed 8 or more times in a
 *     row in an answer 15.
 * Only the answers people type freely are read: those of text and
 * textarea questions (a url question's answer is a link by design, two
 * selects may share an option's value, a file's content is no text).
 * Linear in the size of the answers but for the comparison of text
 * answers, at most FS_SPAM_COMPARED of them. Plain C, no I/O. */
#ifndef FS_SPAM_H
#define FS_SPAM_H

#include <json.h>

#include "fs_fieldset.h"

/* Text answers compared with each other for repeats (the first ones). */
#define FS_SPAM_COMPARED 64

/* The score of answers (a submission's data object; NULL: none) to the
 * questions of fs (NULL: every string answer is read). honeypot: it was
 * filled; fill_seconds: seconds from the page to the submission, or a
 * negative number when not known. */
int fs_spam_score(const fs_fieldset *fs, json_object *answers, int honeypot, long fill_seconds);

/* The number of links (http://, https://, www., case-insensitive) in s. */
int fs_spam_links(const char *s);

#endif
