"""`run --executor ray` against a real `ray start --head` cluster with token authentication.

The head runs with its own temp dir, ports, HOME (so no ~/.ray/auth_token is read or written)
and token; the test stops it by the process group it started. Without the token the harness
says token authentication and what to set; with it a stand-in sweep of 4 points on 2 logical
GPUs completes.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from harness.results.io import read_results
from tests.support.executor_helpers import alive, standin_sweep

pytestmark = pytest.mark.engine  # a Ray head and two CLI runs: about a minute on two shared cores

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 90
RUN_TIMEOUT_S = 240
AUTH_VARS = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _free_ports(count: int, avoid: range) -> list[int]:
    """`count` distinct free ports outside `avoid` (the workers' range): the kernel may hand the same ephemeral port
    out twice, or one inside that range, and Ray then refuses to start ("the same port is used by multiple
    components": the test skipped in a fresh-clone CI on 2026-12-04)."""
    ports: list[int] = []
    while len(ports) < count:
        port = _free_port()
        if port not in avoid and port not in ports:
            ports.append(port)
    return ports


def _free_range(width: int = 40) -> int:
    """The first port of `width` consecutive free ports (Ray's worker port range)."""
    for _ in range(50):
        base = random.randint(20000, 60000 - width)
        try:
            for port in range(base, base + width):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    pytest.skip("no range of free ports for Ray's workers")


def _ray_bin() -> Path:
    ray = Path(sys.executable).parent / "ray"
    if not ray.exists():
        pytest.skip(f"no `ray` command next to {sys.executable} (pip install 'kv-budget-harness[ray]')")
    return ray


def _descendants(pid: int) -> list[int]:
    """Every live process under `pid` (the head's gcs_server, raylet, workers), by /proc parent links."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _stop(head: subprocess.Popen) -> None:
    """Stop only what this test started: SIGTERM to the head's process group (`ray start --block`
    stops its node on it), then SIGKILL to whatever of it is left. Never `ray stop`, which stops
    every Ray process on the machine."""
    pids = [head.pid, *_descendants(head.pid)]
    pgid = head.pid  # start_new_session: the head leads its own group
    with_group = [p for p in pids if alive(p)]
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 15
    while any(alive(p) for p in with_group) and time.monotonic() < deadline:
        head.poll()
        time.sleep(0.2)
    for pid in with_group:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    head.wait(timeout=10)


@pytest.fixture(scope="module")
def token_cluster():
    """(address, token, base env) of a head started with RAY_AUTH_MODE=token."""
    pytest.importorskip("ray")
    ray = _ray_bin()
    # Short and private: Ray's unix sockets live under the temp dir (a 107-byte path limit).
    root = Path(tempfile.mkdtemp(prefix="kvh-rt-", dir="/tmp"))
    home = root / "home"
    home.mkdir()
    token = secrets.token_hex(16)
    base_env = {k: v for k, v in os.environ.items() if k not in AUTH_VARS}
    base_env.update(HOME=str(home), RAY_USAGE_STATS_ENABLED="0", KV_HARNESS_MODELS_DIR=str(root / "models"))
    workers = _free_range()
    names = ("--port", "--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
             "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port")
    ports = {**dict(zip(names, _free_ports(len(names), avoid=range(workers, workers + 40)))),
             "--min-worker-port": workers, "--max-worker-port": workers + 39}
    port = ports["--port"]
    cmd = [str(ray), "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--temp-dir", str(root / "ray"),
           "--num-cpus", "2", "--num-gpus", "2", "--object-store-memory", str(80 * 2**20),
           "--include-dashboard", "false", "--disable-usage-stats",
           *[str(x) for pair in ports.items() for x in pair]]
    log = (root / "head.log").open("wb")
    # No drain on SIGTERM (Ray 2.60 waits up to 30 s for the node to drain before stopping its processes).
    head_env = {**base_env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token,
                "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"}
    head = subprocess.Popen(cmd, env=head_env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        started = False
        while time.monotonic() < deadline and head.poll() is None:
            text = (root / "head.log").read_text(errors="replace")
            if "Ray runtime started" in text:
                started = True
                break
            time.sleep(0.5)
        if not started:
            lines = [x for x in (root / "head.log").read_text(errors="replace").splitlines() if x.strip()]
            pytest.skip(f"`ray start --head` with token authentication did not start here "
                        f"(exit {head.poll()}): {' | '.join(lines[-2:])[-400:]}")
        yield f"127.0.0.1:{port}", token, base_env
    finally:
        _stop(head)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def _run(scenario: Path, out: Path, address: str, env: dict) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "harness", "run", str(scenario), "--executor", "ray", "--ray-address", address,
           "--out", str(out)]
    return subprocess.run(cmd, check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def test_without_the_token_the_error_names_token_authentication(token_cluster, tmp_path):
    address, _, env = token_cluster
    scenario, _ = standin_sweep(tmp_path, values=(1, 2), tp2_value=0)
    proc = _run(scenario, tmp_path / "run", address, env)
    assert proc.returncode == 3, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    hint = [line for line in lines if f"--ray-address {address}" in line]
    assert hint, proc.stderr[-3000:]
    assert "token authentication" in hint[0]
    assert "set RAY_AUTH_MODE=token" in hint[0] and "RAY_AUTH_TOKEN" in hint[0]
    assert not (tmp_path / "run" / "results.csv").exists()


def test_with_the_token_a_sweep_runs_on_two_logical_gpus(token_cluster, tmp_path):
    address, token, env = token_cluster
    scenario, _ = standin_sweep(tmp_path, values=(1, 2, 3, 4), tp2_value=0)
    proc = _run(scenario, tmp_path / "run", address, {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token})
    assert proc.returncode == 0, proc.stderr[-3000:]
    frame = read_results(tmp_path / "run" / "results.csv")
    assert sorted(frame["max_num_batched_tokens"]) == [1, 2, 3, 4]
    assert set(frame["status"]) == {"ok"}, frame[["status", "error_message"]].to_string()
    assert set(frame["gpu_indices"].astype(str)) <= {"0", "1"}
    for log_path in frame["log_path"]:  # the logs came back with the rows
        assert "KV cache size" in (tmp_path / "run" / log_path).read_text()


def test_with_a_wrong_token_the_error_says_the_token_was_refused(token_cluster, tmp_path):
    address, _, env = token_cluster
    scenario, _ = standin_sweep(tmp_path, values=(1,), tp2_value=0)
    proc = _run(scenario, tmp_path / "run", address, {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 32})
    assert proc.returncode == 3, proc.stderr[-3000:]
    hint = [line for line in proc.stderr.splitlines() if f"--ray-address {address}" in line]
    assert hint and "Ray refused the token" in hint[0] and "set RAY_AUTH_TOKEN" in hint[0], proc.stderr[-3000:]
