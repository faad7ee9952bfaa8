/* fs_spam: the spamScore of a submission (fs_spam.h). Nothing allocated:
 * the answers are only read. */
#include "fs_spam.h"

#include <string.h>
#include <strings.h>

int fs_spam_links(const char *s) {
    int n = 0;
    for (const char *c = s; *c; c++) {
        if (!strncasecmp(c, "http://", 7)) {
            n++;
            c += 6;
        } else if (!strncasecmp(c, "https://", 8)) {
            n++;
            c += 7;
        } else if (!strncasecmp(c, "www.", 4) && (c == s || c[-1] != '/')) {
            n++;
            c += 3;
        }
    }
    return n;
}

/* 1 when a character comes 8 or more times in a row in s. */
static int run_of_eight(const char *s) {
    int run = 1;
    for (const char *c = s; *c; c++) {
        run = c > s && *c == c[-1] ? run + 1 : 1;
        if (run >= 8)
            return 1;
    }
    return 0;
}

typedef struct texts {
    const char *v[FS_SPAM_COMPARED];
    int n, links, run;
} texts;

static void take(texts *t, json_object *v) {
    if (json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++)
            take(t, json_object_array_get_idx(v, i));
        return;
    }
    if (!json_object_is_type(v, json_type_string))
        return;
    const char *s = json_object_get_string(v);
    t->links += fs_spam_links(s);
    t->run |= run_of_eight(s);
    if (strlen(s) >= 2 && t->n < FS_SPAM_COMPARED)
        t->v[t->n++] = s;
}

/* Is the answer to key one people type freely (fs_spam.h)? */
static int free_text(const fs_fieldset *fs, const char *key) {
    if (!fs)
        return 1;
    const fs_field *f = fs_fieldset_find(fs, key);
    return f && (f->type == FS_FT_TEXT || f->type == FS_FT_TEXTAREA);
}

int fs_spam_score(const fs_fieldset *fs, json_object *answers, int honeypot, long fill_seconds) {
    if (honeypot)
        return 100;
    int score = 0;
    if (fill_seconds >= 0)
        score += fill_seconds < 3 ? 50 : fill_seconds < 8 ? 25 : 0;
    texts t = {{0}, 0, 0, 0};
    if (answers && json_object_is_type(answers, json_type_object)) {
        json_object_object_foreach(answers, k, v) {
            if (free_text(fs, k))
                take(&t, v);
        }
    }
    score += t.links >= 3 ? 50 : t.links * 15;
    int same = 0;
    for (int i = 0; i < t.n && !same; i++)
        for (int j = i + 1; j < t.n && !same; j++)
            same = !strcmp(t.v[i], t.v[j]);
    score += same ? 25 : 0;
    score += t.run ? 15 : 0;
    return score > 100 ? 100 : score;
}
