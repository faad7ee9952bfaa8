/* public_scores: the respondent's side of a quiz's score
 * (public_scores.h). */
#include "public/public_scores.h"
#include "fs_json.h"
#include "fs_scores.h"
#include "fs_secret.h"

#include <apr_strings.h>
#include <string.h>

#define SIG_HEX 32 /* the first 128 bits of the HMAC-SHA-256, in hex */

static const char *sig_of(request_rec *r, const char *form_id, const char *score, const char *max) {
    formsvc_srv *c = formsvc_conf(r->server);
    const char *h = fs_secret_hash(
        r->pool, c->pepper, c->pepper_len,
        apr_pstrcat(r->pool, "formsvc score\n", form_id, "\n", score, "\n", max, NULL));
    return h ? apr_pstrndup(r->pool, h, SIG_HEX) : NULL;
}

const char *formsvc_pub_score_query(request_rec *r, const char *form_id, json_object *calc) {
    json_object *sv = fs_json_get(calc, "score"), *mv = fs_json_get(calc, "max");
    if (!json_object_is_type(sv, json_type_int) || !json_object_is_type(mv, json_type_int))
        return NULL;
    const char *score =
        apr_psprintf(r->pool, "%" APR_INT64_T_FMT, (apr_int64_t)json_object_get_int64(sv));
    const char *max =
        apr_psprintf(r->pool, "%" APR_INT64_T_FMT, (apr_int64_t)json_object_get_int64(mv));
    const char *sig = sig_of(r, form_id, score, max);
    return sig ? apr_pstrcat(r->pool, "score=", score, "&max=", max, "&sig=", sig, NULL) : NULL;
}

/* An integer as the query writes it: an optional '-' and 1..16 digits. */
static int integer_text(const char *s) {
    size_t n = 0;
    if (!s)
        return 0;
    s += *s == '-';
    for (; s[n] >= '0' && s[n] <= '9'; n++)
        ;
    return n > 0 && n <= 16 && !s[n];
}

const char *formsvc_pub_score_message(request_rec *r, pub *pb, const fs_locale *loc,
                                      const char *msg) {
    const char *score = NULL, *max = NULL, *sig = NULL;
    if (formsvc_arg(r, "score", &score) || formsvc_arg(r, "max", &max) ||
        formsvc_arg(r, "sig", &sig) || !integer_text(score) || !integer_text(max) || !sig ||
        !fs_secret_equal(sig, sig_of(r, pb->f.id, score, max) ?: ""))
        score = max = NULL; /* none, or not ours: the placeholders say "?" */
    msg = fs_scores_fill(r->pool, msg, score ? score : "?", max ? max : "?");
    if (score && json_object_get_boolean(fs_json_get(pb->settings, "showScore")))
        msg = apr_pstrcat(r->pool, msg, " ",
                          fs_trf(r->pool, loc, "thanks.score", "score", score, "max", max, NULL),
                          NULL);
    return msg;
}

json_object *formsvc_pub_score_shown(pub *pb, json_object *calc) {
    json_object *sv = fs_json_get(calc, "score"), *mv = fs_json_get(calc, "max");
    if (!sv || !mv || !json_object_get_boolean(fs_json_get(pb->settings, "showScore")))
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "score", json_object_get(sv));
    json_object_object_add(o, "max", json_object_get(mv));
    return o;
}
