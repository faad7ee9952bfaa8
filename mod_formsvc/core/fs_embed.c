/* fs_embed: origins that may frame a form, and the resize scripts (see
 * fs_embed.h). */
#include "fs_embed.h"
#include "fs_json.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

/* The form page's script: only inside a frame; the height goes to "*"
 * because the page cannot know its parent's origin (Referrer-Policy
 * no-referrer); it says nothing but the height. */
static const char PAGE_JS[] =
    "(function(){if(window.parent===window)return;var h=-1;function s(){"
    "var n=document.documentElement.scrollHeight;if(n!==h){h=n;"
    "window.parent.postMessage({type:\"formsvc:height\",height:n},\"*\")}}"
    "addEventListener(\"load\",s);addEventListener(\"resize\",s);"
    "if(window.ResizeObserver)new ResizeObserver(s).observe(document.body);s()})();";

/* embed.js: sizes each <iframe data-formsvc> to the height its own
 * document reports; a message counts only from that frame's window and
 * from the origin of its src. */
static const char EMBED_JS[] =
    "/* formsvc embed.js: sizes <iframe data-formsvc> to the form's height. */\n"
    "(function(){\"use strict\";\n"
    "addEventListener(\"message\",function(e){\n"
    "var d=e.data;\n"
    "if(!d||d.type!==\"formsvc:height\"||typeof d.height!==\"number\"||!isFinite(d.height))"
    "return;\n"
    "var fs=document.querySelectorAll(\"iframe[data-formsvc]\");\n"
    "for(var i=0;i<fs.length;i++){var f=fs[i];\n"
    "if(f.contentWindow!==e.source)continue;\n"
    "var o;try{o=new URL(f.src,location.href).origin}catch(x){continue}\n"
    "if(o!==e.origin)continue;\n"
    "f.style.height=Math.max(0,Math.min(Math.ceil(d.height),100000))+\"px\"}\n"
    "})})();\n";

static int label_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

const char *fs_embed_origin(apr_pool_t *p, const char *s) {
    if (!s || strlen(s) > 300)
        return NULL;
    char *o = apr_pstrdup(p, s);
    for (char *c = o; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    const char *h;
    int https = !strncmp(o, "https://", 8);
    if (https)
        h = o + 8;
    else if (!strncmp(o, "http://", 7))
        h = o + 7;
    else
        return NULL;
    /* host: labels, none empty */
    const char *c = h;
    int label = 0, labels = 0;
    for (; *c && *c != ':'; c++) {
        if (*c == '.') {
            if (!label)
                return NULL;
            label = 0;
        } else if (label_char(*c)) {
            if (!label)
                labels++;
            label++;
        } else {
            return NULL; /* '/', '*', '@', '[', ';', space, ... */
        }
    }
    if (!label || !labels)
        return NULL;
    apr_size_t hl = (apr_size_t)(c - h);
    if (*c == ':') {
        const char *port = c + 1;
        apr_size_t n = strlen(port);
        if (n < 1 || n > 5 || port[0] == '0' || strspn(port, "0123456789") != n ||
            atoi(port) > 65535)
            return NULL;
    }
    if (!https &&
        !((hl == 9 && !strncmp(h, "localhost", 9)) || (hl == 9 && !strncmp(h, "127.0.0.1", 9))))
        return NULL;
    return o;
}

void fs_settings_embed(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                       fs_error *verr) {
    json_object *e = fs_json_get(s, "embed");
    const char *ep = apr_pstrcat(p, ptr, "/embed", NULL);
    if (!e || json_object_is_type(e, json_type_null))
        return;
    if (!json_object_is_type(e, json_type_object)) {
        fs_error_add(p, verr, ep, "type", "embed must be an object or null.");
        return;
    }
    int before = verr->errors ? verr->errors->nelts : 0;
    json_object_object_foreach(e, k, m) {
        (void)m;
        if (strcmp(k, "allowedOrigins"))
            fs_error_add(p, verr, fs_json_pointer(p, ep, k), "unknown",
                         "Unknown member; embed takes allowedOrigins.");
    }
    json_object *list = fs_json_get(e, "allowedOrigins");
    const char *lp = apr_pstrcat(p, ep, "/allowedOrigins", NULL);
    json_object *norm = json_object_new_array();
    if (!list || json_object_is_type(list, json_type_null)) {
        fs_error_add(p, verr, lp, "required", "embed needs allowedOrigins.");
    } else if (!json_object_is_type(list, json_type_array)) {
        fs_error_add(p, verr, lp, "type", "allowedOrigins must be an array of origins.");
    } else if (json_object_array_length(list) < 1) {
        fs_error_add(p, verr, lp, "minItems", "allowedOrigins needs at least one origin.");
    } else if (json_object_array_length(list) > FS_EMBED_MAX_ORIGINS) {
        fs_error_add(p, verr, lp, "maxItems", "allowedOrigins takes at most %d origins.",
                     FS_EMBED_MAX_ORIGINS);
    } else {
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            json_object *v = json_object_array_get_idx(list, i);
            const char *ip = apr_psprintf(p, "%s/%lu", lp, (unsigned long)i);
            const char *o = v && json_object_is_type(v, json_type_string)
                                ? fs_embed_origin(p, json_object_get_string(v))
                                : NULL;
            if (!v || !json_object_is_type(v, json_type_string)) {
                fs_error_add(p, verr, ip, "type", "An origin is a string.");
                continue;
            }
            if (!o) {
                fs_error_add(p, verr, ip, "format",
                             "An origin is https://host or https://host:port (http only for "
                             "localhost and 127.0.0.1): no path, not even /, no wildcard, no "
                             "user information.");
                continue;
            }
            int dup = 0;
            for (size_t j = 0; j < json_object_array_length(norm); j++)
                dup |= !strcmp(json_object_get_string(json_object_array_get_idx(norm, j)), o);
            if (dup)
                fs_error_add(p, verr, ip, "unique", "This origin is listed twice.");
            else
                json_object_array_add(norm, json_object_new_string(o));
        }
    }
    if ((verr->errors ? verr->errors->nelts : 0) > before) {
        json_object_put(norm);
        return;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "allowedOrigins", norm);
    json_object_object_add(out, "embed", o);
}

const char *fs_embed_frame_ancestors(apr_pool_t *p, json_object *settings) {
    json_object *list = fs_json_get(fs_json_get(settings, "embed"), "allowedOrigins");
    if (!list || !json_object_is_type(list, json_type_array))
        return NULL;
    const char *out = NULL;
    for (size_t i = 0; i < json_object_array_length(list) && i < FS_EMBED_MAX_ORIGINS; i++) {
        json_object *v = json_object_array_get_idx(list, i);
        const char *o = v && json_object_is_type(v, json_type_string)
                            ? fs_embed_origin(p, json_object_get_string(v))
                            : NULL;
        if (o)
            out = out ? apr_pstrcat(p, out, " ", o, NULL) : o;
    }
    return out;
}

static const char *digest_b64(apr_pool_t *p, const unsigned char *md, int n) {
    char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len(n));
    apr_base64_encode(b, (const char *)md, n);
    return b;
}

const char *fs_embed_page_script(void) {
    return PAGE_JS;
}

const char *fs_embed_page_script_src(apr_pool_t *p) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)PAGE_JS, sizeof(PAGE_JS) - 1, md);
    return apr_pstrcat(p, "'sha256-", digest_b64(p, md, sizeof(md)), "'", NULL);
}

const char *fs_embed_js(void) {
    return EMBED_JS;
}

const char *fs_embed_js_integrity(apr_pool_t *p) {
    unsigned char md[SHA384_DIGEST_LENGTH];
    SHA384((const unsigned char *)EMBED_JS, sizeof(EMBED_JS) - 1, md);
    return apr_pstrcat(p, "sha384-", digest_b64(p, md, sizeof(md)), NULL);
}
