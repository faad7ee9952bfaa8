#!/usr/bin/python3
"""A standard OAuth 2.0 client library against formsvc's token endpoint:
requests-oauthlib's BackendApplicationClient (RFC 6749 4.4) fetches a token
with HTTP Basic and with credentials in the body, narrows the scope, uses
the token on GET /v1/me, and reads an error response. Prints one JSON
object with what happened; t/44_oauthlib.t checks it.

Usage: oauthlib_client.py BASE_URL CLIENT_ID CLIENT_SECRET"""
import json
import os
import sys

# the test server speaks plain HTTP on localhost
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"

from oauthlib.oauth2 import BackendApplicationClient  # noqa: E402
from oauthlib.oauth2.rfc6749 import errors  # noqa: E402
from requests_oauthlib import OAuth2Session  # noqa: E402

base, client_id, client_secret = sys.argv[1:4]
token_url = base + "/v1/token"
out = {}

# 1. HTTP Basic (the library's default), full grant
s = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
tok = s.fetch_token(token_url=token_url, client_id=client_id, client_secret=client_secret)
out["basic"] = {k: tok.get(k) for k in ("token_type", "expires_in", "scope")}
me = s.get(base + "/v1/me")
out["basic"]["me_status"] = me.status_code
out["basic"]["me_client"] = me.json()["credential"].get("clientId")

# 2. credentials in the body, narrowed scope
s = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
tok = s.fetch_token(token_url=token_url, client_id=client_id, client_secret=client_secret,
                    include_client_id=True, scope=["keys:read"])
out["body"] = {k: tok.get(k) for k in ("token_type", "expires_in", "scope")}
out["body"]["me_status"] = s.get(base + "/v1/me").status_code
out["body"]["keys_status"] = s.get(base + "/v1/keys").status_code

# 3. a wrong secret: the library must recognise the OAuth error
s = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
try:
    s.fetch_token(token_url=token_url, client_id=client_id, client_secret=client_secret + "x")
    out["wrong_secret"] = "no error raised"
except errors.OAuth2Error as e:
    out["wrong_secret"] = {"class": type(e).__name__, "error": e.error,
                           "status": e.status_code}

# 4. a scope beyond the grant
s = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
try:
    s.fetch_token(token_url=token_url, client_id=client_id, client_secret=client_secret,
                  scope=["account:write"])
    out["wide_scope"] = "no error raised"
except errors.OAuth2Error as e:
    out["wide_scope"] = {"class": type(e).__name__, "error": e.error}

print(json.dumps(out))
