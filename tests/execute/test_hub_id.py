"""One rule of what is a Hugging Face Hub id (harness/model_names.py is_hub_id), met the same way by `run`
(it fetches the model, or refuses it in one line before anything is written) and `doctor` (it asks the Hub
about it, or says it is no directory and no hub id): real public ids, and names the Hub's own client refuses."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.errors import InputError
from harness.execute import preflight
from harness.execute.hub_access import OK, HubAccess
from harness.execute.run import check_model_path
from harness.model_names import is_hub_id

CARDS = Path(__file__).resolve().parents[2] / "harness" / "predict" / "cards"
# Public repositories on the Hub: the bundled cards' own ids, and ones named in SOURCES.md and the docs,
# with dots, digits and a bare legacy name ("gpt2", an id without an owner the Hub still serves).
REAL_IDS = sorted({json.loads(p.read_text())["_id"] for p in CARDS.glob("*.json")}
                  | {"ibm-granite/granite-4.0-micro", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "gpt2"})
# What huggingface_hub's validate_repo_id refuses: a path of three parts, a space, a leading '-', a trailing
# '.', '--' and '..' inside, an empty owner, and a name over 96 characters.
NOT_IDS = ["org/name/extra", "my model", "-org/name", "org/name.", "org/na--me", "org/na..me", "/name",
           "org/" + "n" * 97]
PATHS = ["./models/mine", "../models/mine", "/models/mine", "~/models/mine"]


def test_the_real_ids_are_read_from_the_cards():
    assert "meta-llama/Llama-3.1-8B-Instruct" in REAL_IDS and len(REAL_IDS) >= 8


@pytest.mark.parametrize("model", REAL_IDS)
def test_a_real_public_id_is_a_hub_id_for_run_and_doctor(model, monkeypatch):
    asked = []
    monkeypatch.setattr(preflight, "hub_access", lambda m: asked.append(m) or HubAccess(OK, "reachable", False, 0))
    assert is_hub_id(model)
    check_model_path(model)  # no refusal: run goes on to fetch it
    preflight._model(SimpleNamespace(model=model))
    assert asked == [model]


@pytest.mark.parametrize("model", NOT_IDS + PATHS)
def test_a_name_the_hub_refuses_or_a_missing_path_is_refused_by_run_and_failed_by_doctor(model, monkeypatch,
                                                                                        tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(preflight, "hub_access", lambda m: pytest.fail(f"doctor asked the Hub about {m!r}"))
    assert not is_hub_id(model)
    with pytest.raises(InputError, match="no such directory") as refused:
        check_model_path(model)
    assert "\n" not in str(refused.value)
    check, _ = preflight._model(SimpleNamespace(model=model))
    assert not check.ok and "no such directory" in check.detail


def test_a_local_directory_named_like_an_id_is_a_path(tmp_path, monkeypatch):
    """The engine opens an existing path as it is, so "org/name" that exists here is that directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Qwen" / "Qwen2.5-7B-Instruct").mkdir(parents=True)
    (tmp_path / "Qwen" / "Qwen2.5-7B-Instruct" / "config.json").write_text("{}")
    monkeypatch.setattr(preflight, "hub_access", lambda m: pytest.fail(f"doctor asked the Hub about {m!r}"))
    assert not is_hub_id("Qwen/Qwen2.5-7B-Instruct")
    check_model_path("Qwen/Qwen2.5-7B-Instruct")
    check, _ = preflight._model(SimpleNamespace(model="Qwen/Qwen2.5-7B-Instruct"))
    assert check.ok and check.detail.startswith(str(tmp_path))


def test_a_builtin_is_no_hub_id():
    assert not is_hub_id("builtin:tiny-llama")
    check_model_path("builtin:tiny-llama")
