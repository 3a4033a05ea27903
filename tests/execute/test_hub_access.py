"""What `doctor` learns from the Hub before a run (harness/execute/hub_access.py), against the Hub stand-in
(tests/support/fake_hub.py) that the real huggingface_hub client talks to: public, gated with and without an accepted
token, missing, and offline with and without the model cached."""

from __future__ import annotations

import pytest

from harness.builtin_models import BUILTINS
from harness.execute.hub_access import GATED_NO_ACCESS, GATED_NO_TOKEN, NOT_FOUND, OFFLINE, OK, hub_access
from tests.support.fake_hub import FakeHub


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory) -> dict[str, bytes]:
    from harness.execute.models import build_tiny_llama

    target = build_tiny_llama(tmp_path_factory.mktemp("hub") / "tiny", BUILTINS["tiny-llama"])
    return {p.name: p.read_bytes() for p in target.iterdir() if p.is_file()}


@pytest.fixture
def hub(tmp_path, monkeypatch, tiny_files):
    """The stand-in Hub with a public and a gated copy of tiny-llama, this process's huggingface_hub pointed at it
    with an empty cache and no token: its constants, which HF_ENDPOINT/HF_HOME set at import, patched in this
    process instead of a child's environment."""
    from huggingface_hub import constants

    files = tiny_files
    with FakeHub({"org/tiny": files, "org/gated": files}, gated={"org/gated"}, accepted_tokens={"hf_ok"}) as fake:
        # what HF_ENDPOINT sets at import: the endpoint and the file URL template made from it
        monkeypatch.setattr(constants, "ENDPOINT", fake.url)
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE",
                            fake.url + "/{repo_id}/resolve/{revision}/{filename}")
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        monkeypatch.delenv("HF_HUB_CACHE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        fake.model_bytes = sum(len(b) for name, b in files.items() if name.endswith((".json", ".safetensors")))
        yield fake


def test_a_public_repo_is_reachable_and_its_download_sized_from_its_file_list(hub):
    access = hub_access("org/tiny")
    assert access.verdict == OK and not access.blocks
    assert access.download_bytes == hub.model_bytes
    assert not any(r.startswith("GET /org/tiny/resolve/") for r in hub.requests)  # nothing downloaded


def test_a_gated_repo_without_a_token_blocks_naming_the_fix(hub):
    access = hub_access("org/gated")
    assert access.verdict == GATED_NO_TOKEN and access.blocks
    assert "set HF_TOKEN" in access.detail and "https://huggingface.co/org/gated" in access.detail


def test_a_gated_repo_with_a_token_not_accepted_and_with_one_accepted(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_other")
    refused = hub_access("org/gated")
    assert refused.verdict == GATED_NO_ACCESS and refused.blocks and "accept its terms" in refused.detail
    monkeypatch.setenv("HF_TOKEN", "hf_ok")
    assert hub_access("org/gated").verdict == OK


def test_a_missing_repo_blocks(hub):
    access = hub_access("org/nothing")
    assert access.verdict == NOT_FOUND and access.blocks and "no such repository" in access.detail


def test_offline_is_said_as_offline_and_blocks_only_an_uncached_model(hub, monkeypatch):
    from huggingface_hub import constants, snapshot_download

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    uncached = hub_access("org/tiny")
    assert uncached.verdict == OFFLINE and uncached.blocks and "HF_HUB_OFFLINE=1" in uncached.detail
    assert "no such" not in uncached.detail and "gated" not in uncached.detail
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    snapshot_download("org/tiny")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    cached = hub_access("org/tiny")
    assert cached.verdict == OFFLINE and not cached.blocks and cached.download_bytes == 0


def test_a_gated_repo_already_cached_does_not_block(hub, monkeypatch):
    """run's snapshot_download falls back to the cached snapshot when the Hub refuses: so must doctor's verdict."""
    from huggingface_hub import snapshot_download

    monkeypatch.setenv("HF_TOKEN", "hf_ok")
    snapshot_download("org/gated")
    monkeypatch.delenv("HF_TOKEN")
    access = hub_access("org/gated")
    assert access.verdict == GATED_NO_TOKEN and not access.blocks and "local cache" in access.detail

    from harness.execute.models import fetch_model

    assert fetch_model("org/gated") is not None  # run's own fetch agrees: the cached copy is used
