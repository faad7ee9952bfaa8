/* fs_html_choice: the page's markup of scale, matrix, ranking, consent and
 * the Other choice (fs_html_choice.h). */
#include "fs_html_choice.h"
#include "fs_field_choice.h"
#include "fs_html.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

int fs_choice_is_group(const fs_field *f) {
    return f->type == FS_FT_SCALE || f->type == FS_FT_MATRIX || f->type == FS_FT_RANKING;
}

/* from and to of a scale (stored; tolerated when missing: 1..5). */
static json_object *array_of(json_object *v) {
    return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

/* ---- the page ---- */

/* The pieces of a question's markup, joined once at the end (a matrix
 * has a piece per cell: appending to one string would copy it each time). */
typedef struct {
    apr_pool_t *p;
    apr_array_header_t *parts;
} buf;

static void put(buf *b, const char *s) {
    APR_ARRAY_PUSH(b->parts, const char *) = s;
}

static const char *esc(apr_pool_t *p, const char *s) {
    return fs_html_escape(p, s ? s : "");
}

static int picked(json_object *cur, json_object *v) {
    if (!cur)
        return 0;
    if (json_object_is_type(cur, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(cur); i++)
            if (fs_json_equal(json_object_array_get_idx(cur, i), v))
                return 1;
        return 0;
    }
    return fs_json_equal(cur, v);
}

static const char *str_value(apr_pool_t *p, json_object *v) {
    if (v && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return v ? fs_json_str(p, v) : "";
}

const char *fs_choice_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                           const char *id, const char *aria, const char *required) {
    buf b = {p, apr_array_make(p, 16, sizeof(const char *))};
    switch (f->type) {
    case FS_FT_SCALE: {
        long long from, to;
        fs_choice_scale_range(f->def, &from, &to);
        const char *minl = json_object_get_string(fs_json_get(f->def, "minLabel"));
        const char *maxl = json_object_get_string(fs_json_get(f->def, "maxLabel"));
        put(&b, "\n<div class=\"scale\">");
        for (long long x = from; x <= to; x++) {
            const char *oid = apr_psprintf(p, "%s-%" APR_INT64_T_FMT, id, (apr_int64_t)(x - from));
            json_object *xv = json_object_new_int64(x);
            int sel = picked(v, xv);
            json_object_put(xv);
            const char *num = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)x);
            const char *lab =
                x == from && minl ? fs_trf(p, loc, "page.scale_end", "n", num, "label", minl, NULL)
                : x == to && maxl ? fs_trf(p, loc, "page.scale_end", "n", num, "label", maxl, NULL)
                                  : num;
            put(&b, apr_psprintf(p,
                                 "<div class=\"opt\"><input type=\"radio\" id=\"%s\" name=\"%s\" "
                                 "value=\"%s\"%s%s%s><label for=\"%s\">%s</label></div>",
                                 esc(p, oid), esc(p, f->key), num, sel ? " checked" : "", required,
                                 aria, esc(p, oid), esc(p, lab)));
        }
        put(&b, "</div>");
        break;
    }
    case FS_FT_RANKING: {
        size_t n = f->options ? json_object_array_length(f->options) : 0;
        json_object *arr = array_of(v);
        for (size_t i = 0; i < n; i++) {
            const char *sid = apr_psprintf(p, "%s-%lu", id, (unsigned long)i);
            json_object *cur =
                arr && i < json_object_array_length(arr) ? json_object_array_get_idx(arr, i) : NULL;
            put(&b, apr_psprintf(
                        p,
                        "\n<div class=\"rank\"><label for=\"%s\">%s</label><select "
                        "id=\"%s\" name=\"%s\"%s%s><option value=\"\">%s</option>",
                        esc(p, sid),
                        esc(p, fs_trf(p, loc, "page.rank", "n", apr_itoa(p, (int)i + 1), NULL)),
                        esc(p, sid), esc(p, f->key), required, aria,
                        esc(p, fs_tr(loc, "page.choose"))));
            for (size_t k = 0; k < n; k++) {
                json_object *ov = fs_json_get(json_object_array_get_idx(f->options, k), "value");
                put(&b,
                    apr_psprintf(p, "<option value=\"%s\"%s>%s</option>", esc(p, str_value(p, ov)),
                                 cur && fs_json_equal(cur, ov) ? " selected" : "",
                                 esc(p, fs_field_option_label(f, ov))));
            }
            put(&b, "</select></div>");
        }
        break;
    }
    case FS_FT_CONSENT: {
        const char *text = json_object_get_string(fs_json_get(f->def, "text"));
        const char *url = json_object_get_string(fs_json_get(f->def, "url"));
        const char *tid = apr_pstrcat(p, id, "-text", NULL);
        if (url)
            put(&b, apr_psprintf(p, "<p class=\"help consent\" id=\"%s\"><a href=\"%s\">%s</a></p>",
                                 esc(p, tid), esc(p, url), esc(p, text)));
        else
            put(&b, apr_psprintf(p, "<p class=\"help consent\" id=\"%s\">%s</p>", esc(p, tid),
                                 esc(p, text)));
        /* the box is described by the text too, before any help or error */
        const char *d = strstr(aria, "aria-describedby=\"");
        const char *described =
            d ? apr_pstrcat(p, apr_pstrndup(p, aria, (apr_size_t)(d - aria) + 18), esc(p, tid), " ",
                            d + 18, NULL)
              : apr_pstrcat(p, aria, " aria-describedby=\"", esc(p, tid), "\"", NULL);
        put(&b, apr_psprintf(
                    p,
                    "<div class=\"opt\"><input type=\"checkbox\" id=\"%s\" name=\"%s\" "
                    "value=\"true\"%s%s%s><label for=\"%s\">%s <span class=\"req\">%s</span>"
                    "</label></div>",
                    esc(p, id), esc(p, f->key),
                    v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v)
                        ? " checked"
                        : "",
                    required, described, esc(p, id), esc(p, f->label),
                    esc(p, fs_tr(loc, "page.required"))));
        break;
    }
    case FS_FT_MATRIX: {
        json_object *rows = array_of(fs_json_get(f->def, "rows"));
        json_object *cols = array_of(fs_json_get(f->def, "columns"));
        json_object *mv = fs_json_get(f->def, "multiple");
        int multiple = mv && json_object_get_boolean(mv);
        size_t nr = rows ? json_object_array_length(rows) : 0;
        size_t nc = cols ? json_object_array_length(cols) : 0;
        put(&b, "\n<table class=\"mx\"><thead><tr><td></td>");
        for (size_t c = 0; c < nc; c++)
            put(&b, apr_psprintf(p, "<th scope=\"col\">%s</th>",
                                 esc(p, json_object_get_string(fs_json_get(
                                            json_object_array_get_idx(cols, c), "label")))));
        put(&b, "</tr></thead><tbody>");
        for (size_t r = 0; r < nr; r++) {
            json_object *row = json_object_array_get_idx(rows, r);
            const char *rk = json_object_get_string(fs_json_get(row, "key"));
            const char *rl = json_object_get_string(fs_json_get(row, "label"));
            json_object *cur =
                v && json_object_is_type(v, json_type_object) ? fs_json_get(v, rk) : NULL;
            put(&b, apr_psprintf(p, "<tr><th scope=\"row\">%s</th>", esc(p, rl)));
            for (size_t c = 0; c < nc; c++) {
                json_object *col = json_object_array_get_idx(cols, c);
                json_object *cv = fs_json_get(col, "value");
                const char *cl = json_object_get_string(fs_json_get(col, "label"));
                /* the first cell is <id>-0, where the error summary links */
                const char *cid =
                    r == 0 && c == 0
                        ? apr_pstrcat(p, id, "-0", NULL)
                        : apr_psprintf(p, "%s-%lu-%lu", id, (unsigned long)r, (unsigned long)c);
                /* required on each radio: a row left out is refused by the
                 * browser too; not on checkboxes (one would force all) */
                put(&b,
                    apr_psprintf(
                        p,
                        "<td><label class=\"mxc\"><input type=\"%s\" id=\"%s\" "
                        "name=\"%s.%s\" value=\"%s\"%s%s%s aria-label=\"%s\"><span "
                        "class=\"mxl\" aria-hidden=\"true\">%s</span></label></td>",
                        multiple ? "checkbox" : "radio", esc(p, cid), esc(p, f->key), esc(p, rk),
                        esc(p, str_value(p, cv)), picked(cur, cv) ? " checked" : "",
                        multiple ? "" : required, aria,
                        esc(p, fs_trf(p, loc, "page.matrix_cell", "row", rl, "column", cl, NULL)),
                        esc(p, cl)));
            }
            put(&b, "</tr>");
        }
        put(&b, "</tbody></table>");
        break;
    }
    default: break;
    }
    return apr_array_pstrcat(p, b.parts, 0);
}

/* fs_choice_other_html, with aria the attributes of the text input */
static const char *other_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                              json_object *v, const char *id, int in_select, const char *aria) {
    if (!fs_choice_allows_other(f))
        return "";
    /* the other answer so far: {"other": text}, alone or in a list */
    json_object *other = NULL;
    if (v && json_object_is_type(v, json_type_object))
        other = v;
    for (size_t i = 0;
         v && json_object_is_type(v, json_type_array) && i < json_object_array_length(v); i++)
        if (json_object_is_type(json_object_array_get_idx(v, i), json_type_object))
            other = json_object_array_get_idx(v, i);
    const char *text = other ? json_object_get_string(fs_json_get(other, "other")) : NULL;
    if (in_select && f->type == FS_FT_SELECT)
        return apr_psprintf(p, "<option value=\"" FS_OTHER_VALUE "\"%s>%s</option>",
                            other ? " selected" : "", esc(p, fs_tr(loc, "page.other")));
    if (in_select)
        return "";
    const char *tid = apr_pstrcat(p, id, "-other", NULL);
    const char *out = "";
    if (f->type == FS_FT_MULTISELECT) {
        const char *cid = apr_pstrcat(p, id, "-otherbox", NULL);
        out = apr_psprintf(p,
                           "\n<div class=\"opt\"><input type=\"checkbox\" id=\"%s\" name=\"%s\" "
                           "value=\"" FS_OTHER_VALUE "\"%s><label for=\"%s\">%s</label></div>",
                           esc(p, cid), esc(p, f->key), other ? " checked" : "", esc(p, cid),
                           esc(p, fs_tr(loc, "page.other")));
    }
    return apr_pstrcat(
        p, out,
        apr_psprintf(p,
                     "\n<label class=\"other\" for=\"%s\">%s</label><input type=\"text\" "
                     "id=\"%s\" name=\"%s.other\" value=\"%s\" maxlength=\"%d\"%s>",
                     esc(p, tid),
                     esc(p, fs_trf(p, loc, "page.other_text", "label", f->label, NULL)),
                     esc(p, tid), esc(p, f->key), esc(p, text), FS_OTHER_MAX, aria),
        NULL);
}

const char *fs_choice_other_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                 json_object *v, const char *id, int in_select) {
    return other_html(p, loc, f, v, id, in_select, "");
}

const char *fs_choice_other_html_aria(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                      json_object *v, const char *id, const char *aria) {
    return other_html(p, loc, f, v, id, 0, aria ? aria : "");
}
