"""Serve the oracles from one engine interpreter, so the engine's modules are imported once per env.

Runs in an engine environment's interpreter. stdin: one JSON line per request, {"oracle": "<module of
this folder>", "cases": [...]}; stdout: per request one line "ORACLE <json>", {"answer": [...]} or
{"error": "<traceback>"} (the prefix sets the answer apart from whatever the engine's modules print).
Each oracle module's `answer(cases)` is what it prints when run alone.
"""

import importlib
import json
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
reply = sys.stdout
sys.stdout = sys.stderr  # anything the engine prints goes to stderr, never into a reply

for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    try:
        out = {"answer": importlib.import_module(request["oracle"]).answer(request["cases"])}
    except Exception:  # noqa: BLE001 - the test process shows the traceback
        out = {"error": traceback.format_exc()}
    reply.write("ORACLE " + json.dumps(out) + "\n")
    reply.flush()
