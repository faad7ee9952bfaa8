#!/usr/bin/env python3
"""The authorization code flow with a stock client, Authlib (Debian
python3-authlib), driven by t/49_authorize_clients.t: RFC 8414 discovery,
RFC 7591 registration, the authorization URL with PKCE S256, the person's
part (this script plays them: it signs in with the code mailed to the
account, read from the test mail sink, and approves), the code exchange, a
refresh, and an MCP call with the token. Prints one JSON object.

usage: authlib_client.py BASE_URL EMAIL MAIL_DIR"""
import glob, html, json, os, re, sys, time
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

base, email, maildir = sys.argv[1:4]
out = {}
meta = requests.get(base + "/.well-known/oauth-authorization-server").json()
redirect = "http://127.0.0.1:9/callback"
reg = requests.post(meta["registration_endpoint"], json={
    "client_name": "Authlib test client", "redirect_uris": [redirect],
    "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
    "token_endpoint_auth_method": "none"})
out["registration_status"] = reg.status_code
reg = reg.json()
out["client_id"] = reg.get("client_id")

client = OAuth2Session(reg["client_id"], scope="forms:read forms:write account:read",
                       redirect_uri=redirect, code_challenge_method="S256",
                       token_endpoint_auth_method="none")
verifier = generate_token(48)
url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier)

# ---- the person ----
browser = requests.Session()
browser.headers["Accept-Language"] = "en"

def hidden(page):
    form = re.search(r"<form .*?</form>", page, re.S).group(0)
    return {k: html.unescape(v) for k, v in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form) if k != "step"}

def action(page):
    return html.unescape(re.search(r'<form method="post" action="([^"]+)"', page).group(1))

def mails():
    found = []
    for f in sorted(glob.glob(os.path.join(maildir, "*.eml"))):
        raw = open(f, "rb").read().decode("utf-8", "replace")
        if re.search(r"^To: " + re.escape(email) + r"\r?$", raw, re.M | re.I):
            found.append(raw.replace("=\r\n", ""))
    return found

page = browser.get(url)
out["page_status"] = page.status_code
before = len(mails())
r = browser.post(action(page.text), data={**hidden(page.text), "step": "email", "email": email})
deadline = time.time() + 30
while len(mails()) <= before and time.time() < deadline:
    time.sleep(0.1)
code = re.search(r"^    ([A-Z2-9]{8})\r?$", mails()[-1], re.M).group(1)
r = browser.post(action(r.text), data={**hidden(r.text), "step": "code", "code": code})
out["signed_in"] = "Signed in as" in r.text
r = browser.post(action(r.text), data={**hidden(r.text), "step": "consent", "decision": "approve"},
                 allow_redirects=False)
location = r.headers["Location"]

# ---- the client again ----
token = client.fetch_token(meta["token_endpoint"], authorization_response=location,
                           code_verifier=verifier)
out["token_type"] = token["token_type"]
out["scope"] = token.get("scope")
out["has_refresh"] = bool(token.get("refresh_token"))
first_refresh = token["refresh_token"]
new = client.refresh_token(meta["token_endpoint"])
out["refreshed"] = new["access_token"] != token["access_token"]
out["rotated"] = new["refresh_token"] != first_refresh

rpc = client.post(base + "/mcp", headers={"Accept": "application/json, text/event-stream"},
                  json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "create_form",
                                   "arguments": {"title": "From Authlib", "fields": []}}})
out["mcp_status"] = rpc.status_code
res = rpc.json().get("result", {})
out["mcp_is_error"] = res.get("isError", False)
out["mcp_form_id"] = (res.get("structuredContent") or {}).get("id")
me = client.get(base + "/v1/me")
out["me_status"] = me.status_code

# the first refresh token, used again: the grant goes (RFC 9700 4.14.2)
again = requests.post(meta["token_endpoint"], data={
    "grant_type": "refresh_token", "refresh_token": first_refresh, "client_id": reg["client_id"]})
out["reuse_error"] = again.json().get("error")
out["after_reuse_status"] = client.get(base + "/v1/forms").status_code
print(json.dumps(out))
