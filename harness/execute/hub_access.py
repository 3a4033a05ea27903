"""What `run` will meet at the Hugging Face Hub for a hub model, asked without downloading anything: the repo there,
gated or not, this host's token allowed or not, and the bytes of the files `run` fetches (execute/models.py
MODEL_FILES) that the local cache does not hold yet.

`doctor` asks this so that a gated repo without a token, a missing repo or an offline host is said before the run,
in the words `run` would stop with. Offline is a state of the host, never a verdict on the repo.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.execute.models import MODEL_FILES, NOT_MODEL_FILES
from harness.predict.model import find_in_hf_cache

OK, GATED_NO_TOKEN, GATED_NO_ACCESS, NOT_FOUND, OFFLINE, REFUSED = (
    "ok", "gated_no_token", "gated_no_access", "not_found", "offline", "refused")


@dataclass(frozen=True)
class HubAccess:
    verdict: str  # one of the names above
    detail: str  # one line: what was found, and the fix where something would stop the run
    cached: bool  # config.json and safetensors weights in the local Hugging Face cache
    download_bytes: int | None  # what `run` would fetch before the first point; None when not known

    @property
    def blocks(self) -> bool:
        """Whether `run` would stop on it before the first point: snapshot_download falls back to the cached
        snapshot on any Hub error but a missing revision (huggingface_hub 2.4 _snapshot_download.py), so a cached
        model never stops it."""
        return self.verdict != OK and not self.cached


def _is_cached(model: str) -> bool:
    config = find_in_hf_cache(model)
    return config is not None and any(config.parent.glob("*.safetensors"))


def _gated(model: str, has_token: bool, cached: bool) -> HubAccess:
    if has_token:
        verdict = GATED_NO_ACCESS
        why = f"this host's token has no access: accept its terms on https://huggingface.co/{model} with that account"
    else:
        verdict = GATED_NO_TOKEN
        why = ("no token is set: set HF_TOKEN (or `hf auth login`) for an account that accepted its terms on "
               f"https://huggingface.co/{model}")
    if cached:
        why = f"{why} (run uses the files already in the local cache meanwhile)"
    return HubAccess(verdict, f"{model}: gated on the Hugging Face Hub and {why}", cached, 0 if cached else None)


def _model_files_bytes(model: str) -> int:
    """The bytes of the files run's snapshot_download takes (the same patterns), from the repo's file list."""
    # lazy, as in hub_access: only a hub model pays huggingface_hub's import
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import RepoFile
    from huggingface_hub.utils import filter_repo_objects

    files = [f for f in HfApi().list_repo_tree(model, recursive=True) if isinstance(f, RepoFile)]
    wanted = filter_repo_objects(files, allow_patterns=MODEL_FILES, ignore_patterns=NOT_MODEL_FILES,
                                 key=lambda f: f.path)
    return sum(f.size or 0 for f in wanted)


def hub_access(model: str) -> HubAccess:
    """Ask the Hub about `model` (a hub id) the way `run`'s fetch will meet it: a HEAD of its config.json carries
    the gating answer for this host's token; the file list gives the download's size."""
    # lazy: huggingface_hub costs ~0.4 s to import; only a hub model needs it
    from huggingface_hub import get_hf_file_metadata, get_token, hf_hub_url
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        HTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
    )

    cached = _is_cached(model)
    try:
        get_hf_file_metadata(hf_hub_url(model, "config.json"))
        size = 0 if cached else _model_files_bytes(model)
    except GatedRepoError:  # before RepositoryNotFoundError: it is one
        return _gated(model, get_token() is not None, cached)
    except RepositoryNotFoundError:
        return HubAccess(NOT_FOUND, f"{model}: no such repository on the Hugging Face Hub (or a private one this "
                                    "host's token cannot see): check the name in the scenario's model", cached, None)
    except HfHubHTTPError as exc:
        return HubAccess(REFUSED, f"{model}: the Hugging Face Hub refused: {str(exc).splitlines()[0]}", cached, None)
    except (OfflineModeIsEnabled, HTTPError, OSError) as exc:  # no answer from the Hub: DNS, connection, proxy
        why = "HF_HUB_OFFLINE=1" if isinstance(exc, OfflineModeIsEnabled) else \
            f"the Hub cannot be reached ({type(exc).__name__})"
        if cached:
            return HubAccess(OFFLINE, f"{model}: in the local Hugging Face cache; {why}, so access was not checked "
                                      "(run uses the cached files)", True, 0)
        return HubAccess(OFFLINE, f"{model}: not in the local Hugging Face cache and {why}: run stops before the "
                                  f"first point; fetch it where the Hub is reachable (hf download {model})",
                         False, None)
    where = ("in the local Hugging Face cache" if cached
             else f"{size / (1 << 30):.1f} GiB to download, which run does before the first point, outside any "
                  "point's timeout")
    return HubAccess(OK, f"{model}: reachable on the Hugging Face Hub with this host's access; {where}", cached, size)
