/* glue: what every handler file needs, and nothing else: reading the
 * request and the database connection (request.h), answering
 * (response.h), the caller (auth.h) and the route table type (router.h).
 * Helpers that only some handlers use have their own headers: audit.h,
 * quota.h, forms_access.h, idempotency.h, public.h, ratelimit.h, mail.h,
 * webhooks.h; pure logic is in the core (include/fs_*.h). */
#ifndef FORMSVC_GLUE_H
#define FORMSVC_GLUE_H

#include "auth.h"
#include "request.h"
#include "response.h"
#include "router.h"

#endif
