"""A Hugging Face Hub stand-in on 127.0.0.1 for huggingface_hub (HF_ENDPOINT=its URL): the few routes a
model fetch uses, with the Hub's answers for a public repo, a gated one (403, X-Error-Code: GatedRepo,
unless the request carries an accepted token) and a missing one (404, X-Error-Code: RepoNotFound).
A file GET with a `Range: bytes=a-b` header gets those bytes only (206), as the Hub's CDN answers
get_safetensors_metadata's header reads; `served` counts the body bytes sent per file.

    with FakeHub({"org/tiny": {"config.json": b"{}", "model.safetensors": b"..."}}, gated={"org/tiny"},
                 accepted_tokens={"hf_ok"}) as hub:
        env["HF_ENDPOINT"] = hub.url
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from urllib.parse import unquote


class FakeHub:
    def __init__(self, repos: dict[str, dict[str, bytes]], gated: set[str] = frozenset(),
                 accepted_tokens: set[str] = frozenset()):
        self.repos, self.gated, self.accepted = repos, set(gated), set(accepted_tokens)
        self.requests: list[str] = []
        self.served: dict[str, int] = {}  # "repo/filename" -> body bytes sent
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _deny(self, status: int, code: str, message: str) -> None:
                self.send_response(status)
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.send_header("Content-Type", "application/json")
                body = json.dumps({"error": message}).encode()
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _answer(self, body: bytes, headers: dict[str, str], status: int = 200) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _route(self):
                path = unquote(self.path.split("?")[0])
                hub.requests.append(f"{self.command} {path}")
                token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
                if path.startswith("/api/models/") and "/tree/" in path:
                    repo = path[len("/api/models/"):].split("/tree/")[0]
                    if repo not in hub.repos:
                        return self._deny(404, "RepoNotFound", "Repository not found")
                    tree = [{"type": "file", "path": name, "size": len(body), "oid": hashlib.sha1(body).hexdigest()}
                            for name, body in hub.repos[repo].items()]
                    return self._answer(json.dumps(tree).encode(), {"Content-Type": "application/json"})
                if path.startswith("/api/models/"):
                    repo = path[len("/api/models/"):].split("/revision/")[0]
                    if repo not in hub.repos:
                        return self._deny(404, "RepoNotFound", "Repository not found")
                    files = [{"rfilename": name} for name in hub.repos[repo]]
                    return self._answer(json.dumps({"id": repo, "modelId": repo, "sha": _sha(repo),
                                                    "gated": "manual" if repo in hub.gated else False,
                                                    "siblings": files, "private": False}).encode(),
                                        {"Content-Type": "application/json"})
                if "/resolve/" in path:
                    repo, _, rest = path.lstrip("/").partition("/resolve/")
                    filename = rest.split("/", 1)[1] if "/" in rest else ""
                    if repo not in hub.repos:
                        return self._deny(404, "RepoNotFound", "Repository not found")
                    if repo in hub.gated and token not in hub.accepted:
                        return self._deny(403 if token else 401, "GatedRepo",
                                          f"Access to model {repo} is restricted. You must have access to it and be "
                                          "authenticated to access it. Please log in.")
                    if filename not in hub.repos[repo]:
                        return self._deny(404, "EntryNotFound", "Entry not found")
                    body = hub.repos[repo][filename]
                    headers = {"X-Repo-Commit": _sha(repo), "ETag": f'"{hashlib.sha1(body).hexdigest()}"',
                               "Content-Type": "application/octet-stream"}
                    status, part = 200, body
                    wanted = (self.headers.get("Range") or "").removeprefix("bytes=")
                    if wanted and self.command == "GET":
                        first, _, last = wanted.partition("-")
                        start, end = int(first), min(int(last) if last else len(body) - 1, len(body) - 1)
                        status, part = 206, body[start:end + 1]
                        headers["Content-Range"] = f"bytes {start}-{end}/{len(body)}"
                    if self.command == "GET":
                        key = f"{repo}/{filename}"
                        hub.served[key] = hub.served.get(key, 0) + len(part)
                    return self._answer(part, headers, status)
                return self._deny(404, "NotFound", "not found")

            do_GET = do_HEAD = _route  # noqa: N815 - http.server's naming

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeHub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _sha(repo: str) -> str:
    return hashlib.sha1(repo.encode()).hexdigest()
