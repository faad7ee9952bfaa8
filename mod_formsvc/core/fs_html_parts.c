/* fs_html_parts: the inputs of address, daterange and signature
 * questions, and the bounds of dates and times on the page. */
#include "fs_html_parts.h"
#include "fs_bounds.h"
#include "fs_field_more.h"
#include "fs_html.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static const char *part_value(json_object *v, const char *part) {
    json_object *m = v && json_object_is_type(v, json_type_object) ? fs_json_get(v, part) : NULL;
    return m && json_object_is_type(m, json_type_string) ? json_object_get_string(m) : "";
}

/* The autocomplete token of an address part (HTML's autofill names). */
static const char *autocomplete(const char *part) {
    return !strcmp(part, "line1")        ? "address-line1"
           : !strcmp(part, "line2")      ? "address-line2"
           : !strcmp(part, "city")       ? "address-level2"
           : !strcmp(part, "region")     ? "address-level1"
           : !strcmp(part, "postalCode") ? "postal-code"
                                         : "country";
}

static long part_maxlength(const char *part) {
    return !strcmp(part, "line1") || !strcmp(part, "line2") ? FS_ADDRESS_LINE_MAX
           : !strcmp(part, "city")                          ? FS_ADDRESS_CITY_MAX
           : !strcmp(part, "region")                        ? FS_ADDRESS_REGION_MAX
                                                            : FS_ADDRESS_POSTAL_MAX;
}

/* The country select: the codes in the order of the page's language
 * (country.order), each named in it (country.XX). */
static const char *countries(apr_pool_t *p, const fs_locale *loc, const char *cur) {
    const char *order = fs_tr(loc, "country.order");
    int localised = strcmp(order, "country.order") != 0;
    apr_array_header_t *out = apr_array_make(p, 260, sizeof(const char *));
    APR_ARRAY_PUSH(out, const char *) = apr_pstrcat(
        p, "<option value=\"\">", fs_html_escape(p, fs_tr(loc, "page.choose")), "</option>", NULL);
    char *list = apr_pstrdup(p, localised ? order : "");
    char *last = NULL;
    const char *c = localised ? apr_strtok(list, " ", &last) : NULL;
    for (int i = 0; localised ? c != NULL : fs_country_codes[i] != NULL; i++) {
        const char *code = localised ? c : fs_country_codes[i];
        const char *name = localised ? fs_tr(loc, apr_pstrcat(p, "country.", code, NULL)) : code;
        APR_ARRAY_PUSH(out, const char *) =
            apr_pstrcat(p, "<option value=\"", code, "\"", !strcmp(cur, code) ? " selected" : "",
                        ">", fs_html_escape(p, name), "</option>", NULL);
        if (localised)
            c = apr_strtok(NULL, " ", &last);
    }
    return apr_array_pstrcat(p, out, '\0');
}

const char *fs_html_parts(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                          const char *id, const char *aria_bad, const char *aria_ok, unsigned bad,
                          int required, int err) {
    const char *const *parts = fs_field_parts(f->type);
    if (!parts)
        return "";
    apr_array_header_t *out = apr_array_make(p, 16, sizeof(const char *));
    const char *tname = fs_field_type_name(f->type);
    int i = 0;
    for (const char *const *pt = parts; *pt; pt++, i++) {
        if (f->type == FS_FT_SIGNATURE && !strcmp(*pt, "image"))
            continue; /* drawn where script runs (fs_signature_pad) */
        const char *pid = apr_psprintf(p, "%s-%d", id, i);
        const char *name = apr_pstrcat(p, f->key, ".", *pt, NULL);
        const char *label = fs_tr(loc, apr_pstrcat(p, "page.", tname, ".", *pt, NULL));
        const char *val = part_value(v, *pt);
        const char *req = required && fs_field_part_required(f->type, *pt) ? " required" : "";
        const char *aria = i < 32 && (bad >> i) & 1u ? aria_bad : aria_ok;
        const char *input;
        if (f->type == FS_FT_ADDRESS && !strcmp(*pt, "country")) {
            input = apr_pstrcat(p, "<select id=\"", pid, "\" name=\"", name,
                                "\" autocomplete=\"country\"", req, aria, ">",
                                countries(p, loc, val), "</select>", NULL);
        } else if (f->type == FS_FT_DATERANGE) {
            /* a browser empties a date input it cannot read: show such a
             * typed value as text */
            input = apr_pstrcat(p, "<input type=\"", err && *val ? "text" : "date", "\" id=\"", pid,
                                "\" name=\"", name, "\" value=\"", fs_html_escape(p, val), "\"",
                                req, aria, fs_html_bounds(p, f), ">", NULL);
        } else {
            long max = f->type == FS_FT_SIGNATURE ? FS_SIGNATURE_NAME_MAX : part_maxlength(*pt);
            input = apr_pstrcat(p, "<input type=\"text\" id=\"", pid, "\" name=\"", name,
                                "\" value=\"", fs_html_escape(p, val), "\"", req, aria,
                                " maxlength=\"", apr_ltoa(p, max), "\" autocomplete=\"",
                                f->type == FS_FT_SIGNATURE ? "name" : autocomplete(*pt), "\"",
                                f->type == FS_FT_SIGNATURE && f->placeholder
                                    ? apr_pstrcat(p, " placeholder=\"",
                                                  fs_html_escape(p, f->placeholder), "\"", NULL)
                                    : "",
                                ">", NULL);
        }
        APR_ARRAY_PUSH(out, const char *) =
            apr_pstrcat(p, "\n<div class=\"part\"><label for=\"", pid, "\">",
                        fs_html_escape(p, label), "</label>", input, "</div>", NULL);
    }
    if (f->type == FS_FT_SIGNATURE)
        APR_ARRAY_PUSH(out, const char *) =
            apr_pstrcat(p, "<p class=\"help\" id=\"", id, "-sign\">",
                        fs_html_escape(p, fs_tr(loc, "page.signature.help")), "</p>", NULL);
    if (f->type == FS_FT_SIGNATURE)
        APR_ARRAY_PUSH(out, const char *) = fs_html_signature_pad(p, loc, f, id);
    return apr_array_pstrcat(p, out, '\0');
}

const char *fs_html_bounds(apr_pool_t *p, const fs_field *f) {
    const char *min = f->min_text, *max = f->max_text;
    if (f->type == FS_FT_DATETIME) {
        if (f->time_zone)
            return "";
        min = fs_bound_utc(p, min);
        max = fs_bound_utc(p, max);
    }
    return apr_pstrcat(p, min ? " min=\"" : "", min ? fs_html_escape(p, min) : "", min ? "\"" : "",
                       max ? " max=\"" : "", max ? fs_html_escape(p, max) : "", max ? "\"" : "",
                       NULL);
}

const char *fs_html_bounds_help(apr_pool_t *p, const fs_locale *loc, const fs_field *f) {
    if (!fs_bound_kind(fs_field_type_name(f->type)) || (!f->min_text && !f->max_text))
        return NULL;
    if (f->min_text && f->max_text)
        return fs_trf(p, loc, "page.bounds", "min", f->min_text, "max", f->max_text, NULL);
    if (f->min_text)
        return fs_trf(p, loc, "page.bounds.min", "min", f->min_text, NULL);
    return fs_trf(p, loc, "page.bounds.max", "max", f->max_text, NULL);
}

const char *fs_html_signature_pad(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                  const char *id) {
    return apr_pstrcat(p, "<div class=\"sigpad\" hidden><p class=\"help\" id=\"", id, "-draw\">",
                       fs_html_escape(p, fs_tr(loc, "page.signature.draw")),
                       "</p><canvas width=\"600\" height=\"150\" role=\"img\" aria-labelledby=\"",
                       id, "-draw\"></canvas><button type=\"button\" class=\"back\">",
                       fs_html_escape(p, fs_tr(loc, "page.signature.clear")),
                       "</button><input type=\"file\" name=\"", f->key,
                       ".image\" accept=\"image/png\" hidden></div>", NULL);
}

int fs_html_signature_on(const fs_fieldset *fs) {
    for (int i = 0; fs && i < fs->n; i++)
        if (fs->f[i].type == FS_FT_SIGNATURE)
            return 1;
    return 0;
}

/* Shows each pad; a stroke drawn with a pointer (mouse, pen, finger) is
 * put, as a PNG, into the pad's file input when the stroke ends; Clear
 * empties both. Browsers without DataTransfer or toBlob keep the pads
 * hidden. */
static const char SIG_SCRIPT[] =
    "(function(){var ps=document.querySelectorAll(\".sigpad\");if(!ps.length||!window.DataTransfer"
    "||!window.File||!HTMLCanvasElement.prototype.toBlob)return;Array.prototype.forEach.call(ps,"
    "function(d){var c=d.querySelector(\"canvas\"),x=c.getContext(\"2d\"),i=d.querySelector("
    "\"input[type=file]\"),b=d.querySelector(\"button\"),down=0,drawn=0;d.hidden=false;"
    "x.lineWidth=3;x.lineCap=\"round\";x.lineJoin=\"round\";x.strokeStyle=\"#000\";"
    "function pt(e){var r=c.getBoundingClientRect();return[(e.clientX-r.left)*c.width/r.width,"
    "(e.clientY-r.top)*c.height/r.height]}function save(){c.toBlob(function(bl){if(!bl)return;"
    "var t=new DataTransfer();t.items.add(new File([bl],\"signature.png\",{type:\"image/png\"}));"
    "i.files=t.files},\"image/png\")}c.addEventListener(\"pointerdown\",function(e){down=1;"
    "var q=pt(e);x.beginPath();x.moveTo(q[0],q[1]);x.lineTo(q[0]+0.1,q[1]);x.stroke();drawn=1;"
    "c.setPointerCapture(e.pointerId);e.preventDefault()});c.addEventListener(\"pointermove\","
    "function(e){if(!down)return;var q=pt(e);x.lineTo(q[0],q[1]);x.stroke()});"
    "c.addEventListener(\"pointerup\",function(){if(down&&drawn)save();down=0});"
    "b.addEventListener(\"click\",function(){x.clearRect(0,0,c.width,c.height);drawn=0;"
    "i.value=\"\"})})})();";

const char *fs_html_signature_script(void) {
    return SIG_SCRIPT;
}

const char *fs_html_signature_script_src(apr_pool_t *p) {
    return fs_html_css_src(p, SIG_SCRIPT); /* the hash of any inline text */
}
