/* fs_theme: colours, contrast and settings.theme (see fs_theme.h). */
#include "fs_theme.h"
#include "fs_form.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

static int hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int fs_color_parse(const char *s, unsigned char rgb[3]) {
    if (!s || s[0] != '#')
        return 0;
    apr_size_t n = strlen(s + 1);
    if (n != 3 && n != 6)
        return 0;
    int d[6];
    for (apr_size_t i = 0; i < n; i++)
        if ((d[i] = hex(s[1 + i])) < 0)
            return 0;
    for (int i = 0; i < 3; i++)
        rgb[i] = (unsigned char)(n == 3 ? d[i] * 17 : d[2 * i] * 16 + d[2 * i + 1]);
    return 1;
}

/* x^2.4 for 0 < x <= 1 without libm: x^2 times the fifth root of x^2, the
 * root by Newton's method from above (y <- (4y + a/y^4) / 5 decreases
 * monotonically to a^(1/5) when started at 1 >= a^(1/5)). */
static double pow24(double x) {
    double a = x * x, y = 1.0;
    for (int i = 0; i < 60; i++) {
        double y4 = y * y * y * y, next = (4.0 * y + a / y4) / 5.0;
        if (next >= y)
            break;
        y = next;
    }
    return a * y;
}

/* sRGB component (0..255) to linear light, as WCAG 2 defines it (0.04045
 * is the threshold of IEC 61966-2-1; WCAG's 0.03928 gives the same result
 * for every 8-bit value). */
static double linear(unsigned char c) {
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow24((v + 0.055) / 1.055);
}

double fs_color_luminance(const unsigned char rgb[3]) {
    return 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
}

double fs_color_contrast(const unsigned char a[3], const unsigned char b[3]) {
    double la = fs_color_luminance(a), lb = fs_color_luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

void fs_settings_theme(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                       fs_error *verr) {
    json_object *t = fs_json_get(s, "theme");
    const char *tp = apr_pstrcat(p, ptr, "/theme", NULL);
    if (!t || json_object_is_type(t, json_type_null))
        return;
    if (!json_object_is_type(t, json_type_object)) {
        fs_error_add(p, verr, tp, "type", "theme must be an object or null.");
        return;
    }
    int before = verr->errors ? verr->errors->nelts : 0;
    json_object_object_foreach(t, k, m) {
        (void)m;
        if (strcmp(k, "accentColor") && strcmp(k, "logoUrl"))
            fs_error_add(p, verr, fs_json_pointer(p, tp, k), "unknown",
                         "Unknown member; theme takes accentColor and logoUrl.");
    }
    json_object *o = json_object_new_object();
    json_object *v = fs_json_get(t, "accentColor");
    const char *mp = apr_pstrcat(p, tp, "/accentColor", NULL);
    if (v && !json_object_is_type(v, json_type_null)) {
        unsigned char rgb[3];
        static const unsigned char white[3] = {255, 255, 255};
        if (!json_object_is_type(v, json_type_string))
            fs_error_add(p, verr, mp, "type", "accentColor must be a string or null.");
        else if (!fs_color_parse(json_object_get_string(v), rgb))
            fs_error_add(p, verr, mp, "format", "accentColor is #rgb or #rrggbb (hex digits).");
        else if (fs_color_contrast(rgb, white) < FS_THEME_MIN_CONTRAST)
            fs_error_add(p, verr, mp, "minimum",
                         "accentColor has a contrast of %.2f:1 against white; the page writes "
                         "white text on it, which needs at least 4.5:1 (WCAG 2 AA): choose a "
                         "darker colour.",
                         /* rounded down: 4.497 is not shown as 4.50 */
                         (double)(int)(fs_color_contrast(rgb, white) * 100) / 100);
        else
            json_object_object_add(
                o, "accentColor",
                json_object_new_string(apr_psprintf(p, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2])));
    }
    v = fs_json_get(t, "logoUrl");
    mp = apr_pstrcat(p, tp, "/logoUrl", NULL);
    if (v && !json_object_is_type(v, json_type_null)) {
        const char *u = fs_json_text(p, v, mp, "logoUrl", 1, FS_URL_MAX, 0, verr);
        if (u && (strncasecmp(u, "https://", 8) || !fs_url_origin(p, u)))
            fs_error_add(p, verr, mp, "format",
                         "logoUrl must be an absolute https URL of an image, with a host name, "
                         "no user information, and no spaces, quotes, semicolons, commas, "
                         "backslashes, angle brackets or non-ASCII characters "
                         "(percent-encode them).");
        else if (u)
            json_object_object_add(o, "logoUrl", json_object_new_string(u));
    }
    if ((verr->errors ? verr->errors->nelts : 0) > before || !json_object_object_length(o))
        json_object_put(o);
    else
        json_object_object_add(out, "theme", o);
}
