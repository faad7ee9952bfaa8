/* quota: the tiers' quotas as the API shows and enforces them. */
#ifndef FORMSVC_QUOTA_H
#define FORMSVC_QUOTA_H

#include <httpd.h>
#include <json.h>

#include "fs_error.h"
#include "http/auth.h"
#include "runtime/config.h"

/* The quota member of GET /v1/me: {tier, limits: {forms, fields,
 * submissions, keys, clients, webhooks, requests}}, each {limit, used};
 * NULL and *err on a database failure. */
json_object *formsvc_quota_json(request_rec *r, const formsvc_principal *who, fs_error **err);

/* The tier of an account (0 unverified, 1 verified) as configured. */
const formsvc_tier *formsvc_tier_of(request_rec *r, int verified);

/* 403 quota-exceeded for the count quota named quota ("forms", "keys",
 * ...), with quota, limit and used (the decimal count the store returned;
 * NULL: limit). */
fs_error *formsvc_quota_exceeded(request_rec *r, const char *quota, int limit, const char *used);

/* The fields quota of the caller's tier; 403 quota-exceeded when a form
 * would hold more than it allows (used: the fields the form holds now). */
fs_error *formsvc_fields_quota(request_rec *r, int wanted, int now);

/* The per-account /v1 limit of the caller's tier (requests a minute), with
 * RateLimit-Limit, -Remaining and -Reset headers. Called by the router
 * after authentication (counted by ratelimit.h's stores). */
fs_error *formsvc_ratelimit_account(request_rec *r);

#endif
