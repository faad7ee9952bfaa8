#!/usr/bin/python3
"""Parses a Prometheus text exposition (stdin) with the reference Python
client's parser (Debian: python3-prometheus-client) and prints one JSON
object: {"families": {name: type}, "samples": [[name, {labels}, value], ...]}.
Exits 1 with the parser's complaint on stderr when the text does not parse,
2 when the parser is not installed."""
import json
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.stderr.write("prometheus_client is not installed\n")
    sys.exit(2)

try:
    families, samples = {}, []
    for fam in text_string_to_metric_families(sys.stdin.read()):
        families[fam.name] = fam.type
        for s in fam.samples:
            samples.append([s.name, s.labels, s.value])
except Exception as e:  # the parser raises ValueError and others on bad input
    sys.stderr.write("parse error: %s\n" % e)
    sys.exit(1)
json.dump({"families": families, "samples": samples}, sys.stdout)
