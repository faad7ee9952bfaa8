/* fs_theme: the public page's branding (settings.theme): colour
 * parsing, WCAG 2 relative luminance and contrast, and the validation of
 * settings.theme. Pure C without libm, so the core needs no new library. */
#ifndef FS_THEME_H
#define FS_THEME_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

/* WCAG 2.x level AA for normal text: the accent colour is the background
 * of the white submit button text. */
#define FS_THEME_MIN_CONTRAST 4.5

/* Parses "#rgb" or "#rrggbb" (hex digits in either case) into rgb[3];
 * 1 on success, 0 (rgb untouched) otherwise. NULL is not a colour. */
int fs_color_parse(const char *s, unsigned char rgb[3]);
/* The WCAG 2 relative luminance of an sRGB colour, 0 (black) .. 1 (white). */
double fs_color_luminance(const unsigned char rgb[3]);
/* The WCAG 2 contrast ratio of two colours, 1 .. 21 (order does not matter). */
double fs_color_contrast(const unsigned char a[3], const unsigned char b[3]);

/* Validates settings.theme of s and adds the normalised object to out when
 * it is set: {"accentColor": "#rrggbb" (lower case; contrast against white
 * at least FS_THEME_MIN_CONTRAST), "logoUrl": an https URL that
 * fs_url_origin accepts}; both optional, nothing else. Errors to verr
 * under ptr ("/settings"). */
void fs_settings_theme(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                       fs_error *verr);

#endif
