/* subs_columns: the columns of a form's submissions export. */
#include "http/subs_columns.h"
#include "fs_captcha.h"
#include "fs_field.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_json.h"
#include "fs_scores.h"
#include "fs_store_asks.h"
#include "fs_store_forms.h"
#include "fs_store_links.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <string.h>

fs_error *formsvc_sub_cols_make(request_rec *r, const formsvc_form *form, int with_spam,
                                formsvc_sub_cols *c) {
    fs_error *e;
    memset(c, 0, sizeof(*c));
    c->with_spam = with_spam;
    if ((e = fs_store_link_any(formsvc_store(r), form->id, &c->links)))
        return e;
    if ((e = fs_store_sub_state_any(formsvc_store(r), form->id, &c->owned)))
        return e;
    if (c->links && (e = fs_store_ask_form_has(formsvc_store(r), form->id, &c->asked)))
        return e;
    json_object *endings = fs_json_get(form->settings, "endings");
    c->ended = endings && json_object_is_type(endings, json_type_array) &&
               json_object_array_length(endings) > 0;
    c->scored = fs_spam_threshold(form->settings) > 0;
    c->ncalc = fs_scores_csv_columns(r->pool, form->settings, form->fields, &c->calc);
    /* at most a column per part (FS_FIELD_PARTS_MAX) or per matrix row */
    size_t nf = json_object_array_length(form->fields);
    size_t most = nf * FS_FIELD_PARTS_MAX + (size_t)fs_choice_csv_extra(form->fields);
    c->keys = apr_pcalloc(r->pool, sizeof(char *) * (most + 1));
    c->as_date = apr_pcalloc(r->pool, sizeof(int) * (most + 1));
    for (size_t i = 0; i < nf; i++) {
        json_object *fd = json_object_array_get_idx(form->fields, i);
        const char *t = json_object_get_string(fs_json_get(fd, "type"));
        if (t && !strcmp(t, "page")) /* layout, no column */
            continue;
        const char *key = json_object_get_string(fs_json_get(fd, "key"));
        const char *const *parts = fs_field_parts(fs_field_type_of(t));
        for (; parts && *parts; parts++) /* "key.part" */
            c->keys[c->nq++] = apr_pstrcat(r->pool, key, ".", *parts, NULL);
        if (parts)
            continue;
        int date = t && !strcmp(t, "date");
        int cols = fs_choice_csv_columns(r->pool, fd, c->keys + c->nq); /* a matrix: "key.row" */
        for (int k = 0; k < cols; k++)
            c->as_date[c->nq++] = date;
    }
    for (int i = 0; i < c->nq; i++)
        c->parted |= strchr(c->keys[i], '.') != NULL;
    int n = 3 + c->with_spam + c->nq + 2 * c->links + c->asked + 3 * c->owned + c->ended +
            c->ncalc + c->scored;
    const char **v = c->names = apr_pcalloc(r->pool, sizeof(char *) * (size_t)(n + 1));
    *v++ = "id";
    *v++ = "createdAt";
    *v++ = "formVersion";
    if (c->with_spam)
        *v++ = "spam";
    for (int i = 0; i < c->nq; i++)
        *v++ = c->keys[i];
    if (c->links) {
        *v++ = "linkId";
        *v++ = "linkMetadata";
    }
    if (c->asked)
        *v++ = "askId";
    if (c->owned) { /* camelCase: no field key can take these names */
        *v++ = "ownerStatus";
        *v++ = "ownerTags";
        *v++ = "ownerNote";
    }
    if (c->ended)
        *v++ = "endingKey";
    for (int i = 0; i < c->ncalc; i++)
        *v++ = c->calc[i];
    if (c->scored)
        *v++ = "spamScore";
    c->n = n;
    return NULL;
}
