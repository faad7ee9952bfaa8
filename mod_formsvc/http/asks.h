/* asks: what the handlers of asks (handle_asks.c) and of the event feed
 * (its askId filter) share: loading the caller's ask and its
 * representation with the respondent's url. */
#ifndef FORMSVC_ASKS_H
#define FORMSVC_ASKS_H

#include <httpd.h>
#include <json.h>

#include "fs_error.h"
#include "fs_store_asks.h"

/* The caller's ask id: *out set, or a 404 not-found problem for a
 * malformed id or another account's ask (never a 403: an ask id says
 * nothing of whether it exists). */
fs_error *formsvc_ask_load(request_rec *r, const char *id, fs_ask_row **out);
/* The form of the caller's ask id (or the 404 of formsvc_ask_load). */
fs_error *formsvc_ask_form(request_rec *r, const char *id, const char **form_id);
/* The owner's representation: the stored json with its url (null when
 * the sealed token cannot be opened). Owned by r->pool. */
json_object *formsvc_ask_obj(request_rec *r, const fs_ask_row *a);

#endif
