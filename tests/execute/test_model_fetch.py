"""A hub model is fetched before the first point (harness/execute/models.py fetch_model), against a Hub
stand-in (tests/support/fake_hub.py) that the real huggingface_hub client talks to: a gated repo without
access and a missing repo stop the run in one line before anything launches; a public one is fetched once,
its time kept in run.json apart from every point's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.builtin_models import BUILTINS
from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml
from tests.support.fake_hub import FakeHub

REPO = Path(__file__).resolve().parents[2]


def _run(*argv, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The CLI in a child: huggingface_hub reads HF_ENDPOINT and HF_HOME when it is imported."""
    return subprocess.run([sys.executable, "-m", "harness", "run", *map(str, argv)], check=False,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300, cwd=REPO)


@pytest.fixture
def hub(tmp_path, monkeypatch):
    from harness.execute.models import build_tiny_llama

    build_tiny_llama(tmp_path / "tiny", BUILTINS["tiny-llama"])
    files = {p.name: p.read_bytes() for p in (tmp_path / "tiny").iterdir() if p.is_file()}
    with FakeHub({"org/tiny": files, "org/gated": files}, gated={"org/gated"}, accepted_tokens={"hf_ok"}) as fake:
        monkeypatch.delenv("HF_TOKEN", raising=False)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        fake.env = {"HF_ENDPOINT": fake.url, "HF_HOME": str(tmp_path / "hf")}
        yield fake


def _scenario(tmp_path: Path, model: str) -> Path:
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]})
    path = tmp_path / "s.yaml"
    path.write_text(scenario_yaml(python, [256]).replace("model: {builtin: tiny-llama}", f"model: {model}"))
    return path


def test_a_public_hub_model_is_fetched_once_before_the_first_point(tmp_path, hub):
    out = tmp_path / "out"
    proc = _run(_scenario(tmp_path, "org/tiny"), "--out", out, env=hub.env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fetch = json.loads((out / "run.json").read_text())["model_fetch"]
    assert fetch["model"] == "org/tiny" and fetch["seconds"] >= 0
    assert (Path(fetch["path"]) / "config.json").is_file() and any(Path(fetch["path"]).glob("*.safetensors"))
    downloads = [r for r in hub.requests if r.startswith("GET /org/tiny/resolve/")]
    assert downloads
    assert _run(_scenario(tmp_path / "again", "org/tiny"), "--out", tmp_path / "out2", env=hub.env).returncode == 0
    assert [r for r in hub.requests if r.startswith("GET /org/tiny/resolve/")] == downloads  # cached: not again


@pytest.mark.parametrize("repo, token, said", [
    ("org/gated", None, "model org/gated: gated on the Hugging Face Hub, and no token is set: set HF_TOKEN"),
    ("org/gated", "hf_other", ("model org/gated: gated on the Hugging Face Hub, and the token this host has (HF_TOKEN "
                               "or huggingface-cli login) has no access")),
    ("org/missing", None, "model org/missing: no such repository on the Hugging Face Hub"),
])
def test_a_hub_refusal_is_one_line_before_anything_launches(tmp_path, hub, repo, token, said):
    out = tmp_path / "out"
    proc = _run(_scenario(tmp_path, repo), "--out", out, env={**hub.env, **({"HF_TOKEN": token} if token else {})})
    assert proc.returncode == 2
    err = [line for line in proc.stderr.strip().splitlines() if not line.startswith("Fetching ")]  # hub's progress
    assert len(err) == 1 and err[0].startswith(f"error: {said}"), err
    assert not out.exists()


def test_the_accepted_token_fetches_the_gated_model(tmp_path, hub):
    proc = _run(_scenario(tmp_path, "org/gated"), "--out", tmp_path / "out", env={**hub.env, "HF_TOKEN": "hf_ok"})
    assert proc.returncode == 0, proc.stderr[-2000:]
