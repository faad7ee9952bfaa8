#!/usr/bin/env python3
"""For t/77_asks.t: reads {"original": schema, "form": schema, "instances": [...]}
on stdin and prints, as JSON, every instance that one schema accepts and the
other refuses: [{"instance", "original", "form"}]. python3-jsonschema is the
referee (Draft 2020-12, formats asserted by its FormatChecker in both)."""
import json, sys
from jsonschema import Draft202012Validator, FormatChecker

d = json.load(sys.stdin)
fc = FormatChecker()
orig = Draft202012Validator(d["original"], format_checker=fc)
form = Draft202012Validator(d["form"], format_checker=fc)
out = []
for x in d["instances"]:
    a, b = orig.is_valid(x), form.is_valid(x)
    if a != b:
        out.append({"instance": x, "original": a, "form": b})
print(json.dumps(out))
