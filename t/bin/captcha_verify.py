#!/usr/bin/env python3
"""A local stand-in for a captcha provider's siteverify API (t/34_captcha.t).

Usage: captcha_verify.py PORTFILE SEENFILE
Listens on 127.0.0.1 (a free port, written to PORTFILE once listening),
answers each form-encoded POST by its token (response=):
  good...   {"success": true}
  bad...    {"success": false, "error-codes": ["invalid-input-response"]}
  slow...   {"success": true} after 3 seconds
  broken... HTTP 500
and appends one JSON line per request to SEENFILE (the form's members), so
the test can see what the module sent.
"""
import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Verify(BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(n).decode()).items()}
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps(form) + "\n")
        tok = form.get("response", "")
        if tok.startswith("slow"):
            time.sleep(8)  # well past FormsvcCaptchaTimeout (2 s in t/34_captcha.t)
        if tok.startswith("broken"):
            self.send_response(500)
            self.end_headers()
            return
        ok = tok.startswith("good") or tok.startswith("slow")
        body = json.dumps({"success": True} if ok else
                          {"success": False, "error-codes": ["invalid-input-response"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", 0), Verify)
srv.daemon_threads = True
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
