/* public_scores: what the respondent sees of a quiz's score
 * (settings.showScore, fs_scores.h): the thanks page's query that
 * carries it (signed under the pepper), the page's sentence and the
 * {score} and {max} of a message, the score in the JSON answer. In
 * r->pool. */
#ifndef FORMSVC_PUBLIC_SCORES_H
#define FORMSVC_PUBLIC_SCORES_H

#include "public/public_page.h"

/* "score=7&max=10&sig=<hex>" for the thanks page (sig: a keyed hash of
 * the form id, score and max under the pepper, so that a link cannot
 * make the owner's page show another score), or NULL when calc has no
 * score. */
const char *formsvc_pub_score_query(request_rec *r, const char *form_id, json_object *calc);

/* The thanks page's message: {score} and {max} in msg filled from the
 * request's query when its signature holds ("?" otherwise), and with
 * settings.showScore the sentence thanks.score after it (only with a
 * signed score). */
const char *formsvc_pub_score_message(request_rec *r, pub *pb, const fs_locale *loc,
                                      const char *msg);

/* What the respondent's JSON answer shows of calc: {score, max} with
 * settings.showScore, never the variables; NULL otherwise. */
json_object *formsvc_pub_score_shown(pub *pb, json_object *calc);

#endif
