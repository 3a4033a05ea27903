#!/usr/bin/env python3
"""The toy engine's server: sizes a pool from --pool-tokens, says so in its own log format, serves /health."""

from __future__ import annotations

import argparse
import http.server
import sys

BLOCK = 16

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True)
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--pool-tokens", type=int, default=256)
args = parser.parse_args()

print(f"toy 1.0 starting with {args.model}", flush=True)
blocks = args.pool_tokens // BLOCK
if blocks < 2:
    print(f"toy error: pool too small ({blocks} blocks of {BLOCK}; need 2)", file=sys.stderr, flush=True)
    sys.exit(1)
print(f"toy pool: {blocks * BLOCK} tokens in {blocks} blocks of {BLOCK}", flush=True)


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *_):
        pass


server = http.server.HTTPServer((args.host, args.port), Health)
print("toy serving", flush=True)
server.serve_forever()
