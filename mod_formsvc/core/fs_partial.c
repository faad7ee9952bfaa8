/* fs_partial: the resume token of partial answers (fs_partial.h). */
#include "fs_partial.h"
#include "fs_secret.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/sha.h>
#include <string.h>

#define SECRET_HEX 64
/* FS_NAV_NAME (fs_pages.h) as the script names it */
#define FS_NAV_NAME_JS "_nav"

char *fs_partial_secret(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                        const char *form_id, const char *page_token) {
    const char *text;
    if (page_token) {
        text = apr_pstrcat(p, "formsvc partial resume ", form_id, " ", page_token, NULL);
    } else {
        unsigned char rnd[32];
        if (!fs_random_bytes(rnd, sizeof(rnd)))
            return NULL;
        char *hex = apr_palloc(p, 2 * sizeof(rnd) + 1);
        for (apr_size_t i = 0; i < sizeof(rnd); i++)
            apr_snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
        text = hex;
    }
    const char *h = fs_secret_hash(p, pepper, pepper_len, text);
    return h ? apr_pstrcat(p, FS_PARTIAL_SECRET_PREFIX, h, NULL) : NULL;
}

char *fs_partial_token(apr_pool_t *p, const char *id, const char *secret) {
    return apr_pstrcat(p, id, ".", secret, NULL);
}

int fs_partial_token_parse(apr_pool_t *p, const char *token, const char **id, const char **secret) {
    *id = *secret = NULL;
    const char *dot = token ? strchr(token, '.') : NULL;
    if (!dot || dot - token > 64)
        return 0;
    const char *i = apr_pstrmemdup(p, token, (apr_size_t)(dot - token));
    const char *sec = dot + 1, *hex = sec + strlen(FS_PARTIAL_SECRET_PREFIX);
    if (!fs_id_valid(i, "sub_") ||
        strncmp(sec, FS_PARTIAL_SECRET_PREFIX, strlen(FS_PARTIAL_SECRET_PREFIX)) ||
        strlen(hex) != SECRET_HEX || strspn(hex, "0123456789abcdef") != SECRET_HEX)
        return 0;
    *id = i;
    *secret = sec;
    return 1;
}

/* Waits for 2 s without input, one post at a time; a failed post is
 * forgotten (the next pause, or the next step, stores the answers). */
static const char SCRIPT[] =
    "(function(){var f=document.querySelector(\"form\");if(!f||!window.fetch||!window.FormData||"
    "!window.URLSearchParams)return;var t=0,busy=0;function "
    "save(){if(busy){t=setTimeout(save,2000);"
    "return}busy=1;var d=new URLSearchParams();new FormData(f).forEach(function(v,k){"
    "if(typeof v===\"string\"&&k!==\"" FS_NAV_NAME_JS "\")d.append(k,v)});"
    "d.append(\"" FS_NAV_NAME_JS "\",\"" FS_NAV_AUTOSAVE
    "\");fetch(f.action,{method:\"POST\",body:d,"
    "headers:{Accept:\"application/json\"},credentials:\"same-origin\"}).then(function(r){"
    "return r.ok?r.json():null}).then(function(j){busy=0;if(!j||!j.resume)return;"
    "var h=f.querySelector(\"input[name=" FS_RESUME_NAME "]\");if(!h){h=document.createElement("
    "\"input\");h.type=\"hidden\";h.name=\"" FS_RESUME_NAME "\";f.appendChild(h)}h.value=j.resume"
    "})[\"catch\"](function(){busy=0})}f.addEventListener(\"input\",function(){clearTimeout(t);"
    "t=setTimeout(save,2000)});f.addEventListener(\"submit\",function(){clearTimeout(t)})})();";

const char *fs_partial_script(void) {
    return SCRIPT;
}

const char *fs_partial_script_src(apr_pool_t *p) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)SCRIPT, sizeof(SCRIPT) - 1, md);
    char *b = apr_palloc(p, (apr_size_t)apr_base64_encode_len(sizeof(md)));
    apr_base64_encode(b, (const char *)md, sizeof(md));
    return apr_pstrcat(p, "'sha256-", b, "'", NULL);
}
