/* public_routes: the public side's route table (http/router.h), the
 * respondent's routes under /f/; the handlers are in public_view.c and
 * public_submit.c. */
#include "public/public_page.h"

const formsvc_route formsvc_routes_public[] = {
    {M_GET, "/f/embed.js", formsvc_h_embed_js, 0, 0}, /* before /f/{ref} */
    {M_GET, "/f/{ref}", formsvc_h_public_get, 0, 0},
    {M_POST, "/f/{ref}", formsvc_h_public_post, 0, 0},
    {M_OPTIONS, "/f/{ref}", formsvc_h_public_options, 0, 0},
    {M_GET, "/f/{ref}/thanks", formsvc_h_public_thanks, 0, 0},
    {M_POST, "/f/{ref}/decline", formsvc_h_public_decline, 0, 0},
    {M_GET, "/f/{ref}/declined", formsvc_h_public_declined, 0, 0},
    {0, NULL, NULL, 0, 0}};
