"""Reduce Chromium's /json/protocol to what the typed-subset check needs.

Usage: curl -s http://127.0.0.1:PORT/json/protocol | python3 reduce.py > chromium-VERSION.json
Keeps, per domain, each command's and event's parameter names (with `optional`) and the
enum values of named types; drops descriptions (most of the 1.6 MB).
"""
import json
import sys

src = json.load(sys.stdin)
out = {"version": src.get("version"), "domains": {}}
for d in src["domains"]:
    def params(items):
        return {p["name"]: bool(p.get("optional", False)) for p in items or []}
    out["domains"][d["domain"]] = {
        "commands": {c["name"]: {"parameters": params(c.get("parameters")),
                                 "returns": params(c.get("returns"))}
                     for c in d.get("commands", [])},
        "events": {e["name"]: {"parameters": params(e.get("parameters"))}
                   for e in d.get("events", [])},
        "enums": {t["id"]: t["enum"] for t in d.get("types", []) if "enum" in t},
    }
json.dump(out, sys.stdout, indent=0, sort_keys=True)
sys.stdout.write("\n")
