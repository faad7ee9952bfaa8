/* quota: the tiers' quotas as the API shows and enforces them. */
#ifndef FORMSVC_QUOTA_H
#define FORMSVC_QUOTA_H

#include "glue.h"

/* The quota member of GET /v1/me: {tier, limits: {forms, fields,
 * submissions, keys, clients, webhooks, requests}}, each {limit, used};
 * NULL and *err on a database failure. */
json_object *formsvc_quota_json(request_rec *r, const formsvc_principal *who, fs_error **err);

/* The tier of an account (0 unverified, 1 verified) as configured. */
const formsvc_tier *formsvc_tier_of(request_rec *r, int verified);

#endif
