"""Why a vLLM-CPU wave got few /metrics answers: one server (the 2,048-token pool of scenarios/cpu_probe.yaml),
first, idle, what one /metrics answer costs its API process (on-CPU time per answer over 100 answers); then the
same decode-heavy wave (7 requests, 16-token prompts generating 496) four times, sampled the old way (one request at
a time) and the new way (a request every 0.05 s, up to 4 waiting), alternately. For each wave: the answers, each
answer's wait (sent -> answered), the longest gap between answers, and how the server's API process spent the wave
(/proc/<pid>/schedstat: on a CPU, waiting for one).

    flock /work/wt/engine.lock python results/cpu_probe/why_sparse/sampling_diag.py VLLM_BIN MODEL_DIR > out.json
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

PORT = 54999
WAVE = dict(requests=7, prompt_tokens=16, output_tokens=496)


def schedstat(pid: int) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) so far, summed over the process's threads."""
    run = wait = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            on, queued, _ = (int(x) for x in (task / "schedstat").read_text().split())
        except (OSError, ValueError):
            continue
        run, wait = run + on / 1e9, wait + queued / 1e9
    return run, wait


async def serial(client: httpx.AsyncClient, stop: asyncio.Event, seen: list) -> None:
    while not stop.is_set():  # the old sampler: the next request after the answer, 0.05 s after the last
        asked = time.monotonic()
        await client.get("/metrics")
        seen.append((asked, time.monotonic()))
        await asyncio.sleep(max(0.0, asked + 0.05 - time.monotonic()))


async def timed(client: httpx.AsyncClient, stop: asyncio.Event, seen: list) -> None:
    waiting: set = set()

    async def ask() -> None:
        asked = time.monotonic()
        await client.get("/metrics", headers={"Accept-Encoding": "identity"})
        seen.append((asked, time.monotonic()))

    due = time.monotonic()
    while not stop.is_set():
        if len(waiting) < 4:
            task = asyncio.create_task(ask())
            waiting.add(task)
            task.add_done_callback(waiting.discard)
        due = max(due + 0.05, time.monotonic())
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    await asyncio.gather(*waiting, return_exceptions=True)


async def wave(number: int, sampler, api_pid: int) -> dict:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{PORT}", timeout=60) as client, \
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{PORT}", timeout=300,
                              limits=httpx.Limits(max_connections=16)) as driver:
        seen: list = []
        stop = asyncio.Event()
        sampling = asyncio.create_task(sampler(client, stop, seen))
        await asyncio.sleep(0.3)
        page = len((await client.get("/metrics", headers={"Accept-Encoding": "identity"})).content)
        before, start = schedstat(api_pid), time.monotonic()
        # token ids below tiny-llama's 462, a first token of its own per request (no prefix shared)
        body = lambda i: {"model": "m", "prompt": [100 + number * 10 + i] + [7] * (WAVE["prompt_tokens"] - 1),  # noqa: E731
                          "max_tokens": WAVE["output_tokens"], "ignore_eos": True, "temperature": 0}
        answers = await asyncio.gather(*(driver.post("/v1/completions", json=body(i)) for i in range(WAVE["requests"])))
        end, after = time.monotonic(), schedstat(api_pid)
        stop.set()
        await sampling
    inside = sorted(t for _, t in seen if start < t <= end)
    times = [start, *inside, end]
    waits = [t - a for a, t in seen if start < t <= end]
    served = sum(a.status_code == 200 for a in answers)
    return {"sampler": sampler.__name__, "served": served, "duration_s": round(end - start, 2), "answers": len(inside),
            "per_s": round(len(inside) / (end - start), 1),
            "longest_gap_s": round(max(b - a for a, b in itertools.pairwise(times)), 3),
            "answer_wait_median_s": round(statistics.median(waits), 3) if waits else None,
            "answer_wait_max_s": round(max(waits), 3) if waits else None,
            "api_on_cpu_s": round(after[0] - before[0], 2), "api_waiting_for_cpu_s": round(after[1] - before[1], 2),
            "page_bytes": page}


def page_cost(api_pid: int) -> dict:
    """The API process's CPU per answer, idle, over 100 answers asked one after the other."""
    costs = {}
    with httpx.Client(base_url=f"http://127.0.0.1:{PORT}", timeout=60) as client:
        for name, path, headers in (("metrics", "/metrics", {}),):
            client.get(path, headers=headers)
            before = schedstat(api_pid)[0]
            for _ in range(100):
                size = len(client.get(path, headers=headers).content)
            costs[name] = {"api_cpu_ms_per_answer": round((schedstat(api_pid)[0] - before) * 10, 2), "bytes": size}
    return costs


def main() -> None:
    vllm, model = sys.argv[1], sys.argv[2]
    server = subprocess.Popen([vllm, "serve", model, "--served-model-name", "m", "--host", "127.0.0.1", "--port",
                               str(PORT), "--dtype", "float16", "--max-model-len", "512", "--enforce-eager",
                               "--kv-cache-memory-bytes", "1048576", "--max-num-batched-tokens", "512"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{PORT}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(2)
        load = Path("/proc/loadavg").read_text().split()[:3]
        cost = page_cost(server.pid)
        waves = [asyncio.run(wave(i, sampler, server.pid)) for i, sampler in enumerate((serial, timed) * 2)]
        print(json.dumps({"load_average_at_start": load, "idle_cost": cost, "waves": waves}, indent=1))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
