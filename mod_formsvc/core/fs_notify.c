/* fs_notify: settings.notify and settings.confirmation, and the text of
 * the mail they send (include/fs_notify.h). */
#include "fs_notify.h"
#include "fs_field.h"
#include "fs_field_choice.h"
#include "fs_fieldset.h"
#include "fs_json.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>
#include <strings.h>

void fs_notify_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                              fs_error *verr) {
    json_object *v = fs_json_get(s, "notify");
    const char *mp = apr_pstrcat(p, ptr, "/notify", NULL);
    json_object_object_add(out, "notify", NULL);
    if (!v || json_object_is_type(v, json_type_null))
        return;
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, mp, "type",
                     "notify must be an object {\"emails\": [...], \"mode\": \"each\" or "
                     "\"hourly\"} or null.");
        return;
    }
    static const char *const allowed[] = {"emails", "mode", NULL};
    fs_json_unknown_members_at(p, v, mp, allowed, verr);
    int before = verr->errors ? verr->errors->nelts : 0;
    const char *mode = "each";
    json_object *m = fs_json_get(v, "mode");
    if (m && !json_object_is_type(m, json_type_null)) {
        const char *ms = json_object_is_type(m, json_type_string) ? json_object_get_string(m) : "";
        if (strcmp(ms, "each") && strcmp(ms, "hourly"))
            fs_error_add(p, verr, apr_pstrcat(p, mp, "/mode", NULL), "enum",
                         "mode is \"each\" (a mail per submission) or \"hourly\" (a digest).");
        else
            mode = ms;
    }
    json_object *em = fs_json_get(v, "emails");
    const char *ep = apr_pstrcat(p, mp, "/emails", NULL);
    json_object *list = json_object_new_array();
    if (!em || !json_object_is_type(em, json_type_array)) {
        fs_error_add(p, verr, ep, em ? "type" : "required",
                     "emails is an array of 1 to %d e-mail addresses.", FS_NOTIFY_EMAILS_MAX);
    } else if (json_object_array_length(em) < 1 ||
               json_object_array_length(em) > FS_NOTIFY_EMAILS_MAX) {
        fs_error_add(p, verr, ep, json_object_array_length(em) < 1 ? "minItems" : "maxItems",
                     "emails lists 1 to %d addresses.", FS_NOTIFY_EMAILS_MAX);
    } else {
        for (size_t i = 0; i < json_object_array_length(em); i++) {
            json_object *it = json_object_array_get_idx(em, i);
            const char *ip = apr_psprintf(p, "%s/%lu", ep, (unsigned long)i);
            const char *a =
                json_object_is_type(it, json_type_string) ? json_object_get_string(it) : NULL;
            if (!a || strlen(a) > FS_EMAIL_MAX || !fs_email_valid(a)) {
                fs_error_add(p, verr, ip, a ? "format" : "type",
                             "Each item of emails is an e-mail address such as ops@example.com.");
                continue;
            }
            int dup = 0;
            for (size_t j = 0; j < json_object_array_length(list); j++)
                dup |= !strcasecmp(json_object_get_string(json_object_array_get_idx(list, j)), a);
            if (dup) {
                fs_error_add(p, verr, ip, "unique", "An address is listed twice in emails.");
                continue;
            }
            json_object_array_add(list, json_object_new_string(a));
        }
    }
    if ((verr->errors ? verr->errors->nelts : 0) != before) {
        json_object_put(list);
        return;
    }
    json_object *n = json_object_new_object();
    json_object_object_add(n, "emails", list);
    json_object_object_add(n, "mode", json_object_new_string(mode));
    json_object_object_add(out, "notify", n);
}

void fs_confirmation_settings_parse(apr_pool_t *p, json_object *s, const char *ptr,
                                    json_object *out, fs_error *verr) {
    json_object *v = fs_json_get(s, "confirmation");
    const char *mp = apr_pstrcat(p, ptr, "/confirmation", NULL);
    json_object_object_add(out, "confirmation", NULL);
    if (!v || json_object_is_type(v, json_type_null))
        return;
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, mp, "type",
                     "confirmation must be an object {\"emailField\", \"subject\", \"body\"} "
                     "or null.");
        return;
    }
    static const char *const allowed[] = {"emailField", "subject", "body", NULL};
    fs_json_unknown_members_at(p, v, mp, allowed, verr);
    const char *f = NULL, *subj = NULL, *body = NULL;
    json_object *x = fs_json_get(v, "emailField");
    const char *xp = apr_pstrcat(p, mp, "/emailField", NULL);
    if (!x)
        fs_error_add(p, verr, xp, "required", "emailField names the email field to mail to.");
    else if (!json_object_is_type(x, json_type_string) ||
             !fs_field_key_valid(json_object_get_string(x)))
        fs_error_add(p, verr, xp, json_object_is_type(x, json_type_string) ? "pattern" : "type",
                     "emailField is the key of an email field of the form.");
    else
        f = json_object_get_string(x);
    x = fs_json_get(v, "subject");
    xp = apr_pstrcat(p, mp, "/subject", NULL);
    if (!x)
        fs_error_add(p, verr, xp, "required", "subject is the mail's subject.");
    else
        subj = fs_json_text(p, x, xp, "subject", 1, FS_CONFIRM_SUBJECT_MAX, 0, verr);
    x = fs_json_get(v, "body");
    xp = apr_pstrcat(p, mp, "/body", NULL);
    if (!x)
        fs_error_add(p, verr, xp, "required", "body is the mail's plain text.");
    else
        body = fs_json_text(p, x, xp, "body", 1, FS_CONFIRM_BODY_MAX, 1, verr);
    if (!f || !subj || !body)
        return;
    json_object *c = json_object_new_object();
    json_object_object_add(c, "emailField", json_object_new_string(f));
    json_object_object_add(c, "subject", json_object_new_string(subj));
    json_object_object_add(c, "body", json_object_new_string(body));
    json_object_object_add(out, "confirmation", c);
}

void fs_confirmation_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                                  fs_error *verr) {
    json_object *c = fs_json_get(settings, "confirmation");
    const char *key = json_object_get_string(fs_json_get(c, "emailField"));
    if (!c || !key)
        return;
    const fs_field *f = fs_fieldset_find(fs_fieldset_from_json(p, fields), key);
    if (!f || f->type != FS_FT_EMAIL)
        fs_error_add(p, verr, "/settings/confirmation/emailField", "enum",
                     "settings.confirmation.emailField names %s, which is not an email field of "
                     "the form (set confirmation to null before removing or retyping the field).",
                     key);
}

int fs_notify_settings_mail(json_object *settings) {
    json_object *n = fs_json_get(settings, "notify"), *c = fs_json_get(settings, "confirmation");
    return (n && !json_object_is_type(n, json_type_null)) ||
           (c && !json_object_is_type(c, json_type_null));
}

void fs_notify_text_init(fs_notify_text *t, apr_pool_t *p, apr_size_t max) {
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->max = max;
}

void fs_notify_text_addn(fs_notify_text *t, const char *s, apr_size_t n) {
    if (t->cut || !n)
        return;
    apr_size_t note = 0;
    if (n > t->max - t->n) { /* keep what fits, ending on a character boundary */
        n = t->max - t->n;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        note = sizeof(FS_MAIL_TEXT_CUT) - 1;
    }
    if (t->n + n + note + 1 > t->cap) {
        apr_size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->n + n + note + 1)
            cap *= 2;
        char *ns = apr_palloc(t->p, cap);
        if (t->n)
            memcpy(ns, t->s, t->n);
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    if (note) { /* the note goes beyond max: nothing follows it */
        memcpy(t->s + t->n, FS_MAIL_TEXT_CUT, note);
        t->n += note;
        t->cut = 1;
    }
    t->s[t->n] = '\0';
}

void fs_notify_text_add(fs_notify_text *t, const char *s) {
    if (s)
        fs_notify_text_addn(t, s, strlen(s));
}

char *fs_notify_text_done(fs_notify_text *t) {
    return t->s ? t->s : apr_pstrdup(t->p, "");
}

/* One value as text: strings as they are, numbers and booleans as JSON
 * writes them, an option value as its label, a file ({name, ...}) by its
 * name, arrays joined by ", " (in one concatenation). */
static const char *value_text(apr_pool_t *p, const fs_field *f, json_object *v) {
    if (!v || json_object_is_type(v, json_type_null))
        return "";
    if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        apr_array_header_t *parts = apr_array_make(p, n ? (int)n * 2 : 1, sizeof(const char *));
        for (size_t i = 0; i < n; i++) {
            if (i)
                APR_ARRAY_PUSH(parts, const char *) = ", ";
            APR_ARRAY_PUSH(parts, const char *) = value_text(p, f, json_object_array_get_idx(v, i));
        }
        return apr_array_pstrcat(p, parts, 0);
    }
    const char *choice = f ? fs_choice_text(p, f, v) : NULL; /* a matrix, an Other answer */
    if (choice)
        return choice;
    if (json_object_is_type(v, json_type_object)) {
        json_object *n = fs_json_get(v, "name");
        return n && json_object_is_type(n, json_type_string) ? json_object_get_string(n) : "";
    }
    const char *label = f ? fs_field_option_label(f, v) : NULL;
    if (label)
        return label;
    if (json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return apr_pstrdup(p, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

const char *fs_notify_answer(apr_pool_t *p, const fs_fieldset *fs, json_object *data,
                             const char *key) {
    const fs_field *f = fs_fieldset_find(fs, key);
    return f ? value_text(p, f, fs_json_get(data, key)) : "";
}

/* text appended with every line after a newline indented by two spaces */
static void add_indented(fs_notify_text *t, const char *text) {
    fs_notify_text_add(t, "  ");
    const char *s = text;
    for (const char *nl; !t->cut && (nl = strchr(s, '\n')); s = nl + 1) {
        fs_notify_text_addn(t, s, (apr_size_t)(nl - s));
        fs_notify_text_add(t, "\n  ");
    }
    fs_notify_text_add(t, s);
}

void fs_notify_answers_add(fs_notify_text *t, const fs_fieldset *fs, json_object *data) {
    int any = 0;
    for (int i = 0; i < fs->n && !t->cut; i++) {
        const fs_field *f = &fs->f[i];
        json_object *v = fs_json_get(data, f->key);
        if (!v || json_object_is_type(v, json_type_null))
            continue;
        if (any++)
            fs_notify_text_add(t, "\n");
        fs_notify_text_add(t, f->label ? f->label : f->key);
        fs_notify_text_add(t, ":\n");
        add_indented(t, value_text(t->p, f, v));
        fs_notify_text_add(t, "\n");
    }
    if (!any)
        fs_notify_text_add(t, "(no answers)\n");
}

char *fs_notify_answers_text(apr_pool_t *p, const fs_fieldset *fs, json_object *data) {
    fs_notify_text t;
    fs_notify_text_init(&t, p, FS_MAIL_TEXT_MAX);
    fs_notify_answers_add(&t, fs, data);
    return fs_notify_text_done(&t);
}

char *fs_notify_fill(apr_pool_t *p, const char *tmpl, const fs_fieldset *fs, json_object *data) {
    fs_notify_text t;
    fs_notify_text_init(&t, p, FS_MAIL_TEXT_MAX);
    const char *s = tmpl, *open;
    while (!t.cut && (open = strstr(s, "{{"))) {
        const char *k = open + 2;
        while (*k == ' ')
            k++;
        const char *ke = k;
        while ((*ke >= 'a' && *ke <= 'z') || (*ke >= '0' && *ke <= '9') || *ke == '_')
            ke++;
        const char *close = ke;
        while (*close == ' ')
            close++;
        if (ke == k || strncmp(close, "}}", 2)) { /* not a placeholder: keep its "{" */
            fs_notify_text_addn(&t, s, (apr_size_t)(open + 1 - s));
            s = open + 1;
            continue;
        }
        fs_notify_text_addn(&t, s, (apr_size_t)(open - s));
        const char *key = apr_pstrndup(p, k, (apr_size_t)(ke - k));
        const fs_field *f = fs_fieldset_find(fs, key);
        if (f)
            fs_notify_text_add(&t, value_text(p, f, fs_json_get(data, key)));
        s = close + 2;
    }
    fs_notify_text_add(&t, s);
    return fs_notify_text_done(&t);
}

char *fs_notify_header_text(apr_pool_t *p, const char *s, apr_size_t max) {
    char *o = apr_pstrdup(p, s ? s : "");
    for (char *c = o; *c; c++)
        if ((unsigned char)*c < 32 || *c == 127)
            *c = ' ';
    apr_size_t n = strlen(o);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)o[n] & 0xC0) == 0x80)
            n--;
        o[n] = '\0';
    }
    return o;
}
