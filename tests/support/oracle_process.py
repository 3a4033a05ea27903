"""One long-lived engine interpreter serving the predictor oracles (tests/support/predict_oracles/serve.py).

Importing an engine's modules takes 10-20 s on two cores; every oracle of an env asks the same
interpreter, so they are imported once per env instead of once per oracle run.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from pathlib import Path

SERVE = Path(__file__).resolve().parent / "predict_oracles" / "serve.py"


class OracleProcess:
    """`ask(oracle, cases)`: the engine's own answers; the process ends with `close()`."""

    def __init__(self, python: str | Path, env_vars: dict[str, str]):
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        environ.update({k: str(v) for k, v in env_vars.items()})
        self.workdir = tempfile.TemporaryDirectory(prefix="oracle-")
        environ.setdefault("TMPDIR", self.workdir.name)
        self.stderr = Path(self.workdir.name) / "stderr.txt"
        self.proc = subprocess.Popen([str(python), str(SERVE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr.open("w"), text=True, cwd=self.workdir.name, env=environ)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def ask(self, oracle: str, cases: list[dict], timeout: float = 900) -> list:
        self.proc.stdin.write(json.dumps({"oracle": oracle, "cases": cases}) + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.selector.select(timeout=max(0.0, deadline - time.monotonic())):
                break
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the oracle process ended: {self._stderr_tail()}")
            if line.startswith("ORACLE "):
                out = json.loads(line[len("ORACLE "):])
                assert "error" not in out, out.get("error")
                assert len(out["answer"]) == len(cases)
                return out["answer"]
        raise AssertionError(f"{oracle}: no answer within {timeout:.0f} s: {self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        return self.stderr.read_text(errors="replace")[-4000:]

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.workdir.cleanup()
