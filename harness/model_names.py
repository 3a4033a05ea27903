"""What a model name in a scenario or on the command line names: a builtin the harness builds, a path, or a Hugging
Face Hub repo. One rule, used by `run` (what it fetches), `doctor` (what it asks the Hub about) and `predict` (whose
config it may download)."""

from __future__ import annotations

from pathlib import Path

BUILTIN_PREFIX = "builtin:"
PATH_PREFIXES = ("/", "./", "../", "~")  # a model written as a path is a path, whether it exists or not


def is_hub_id(model: str) -> bool:
    """Not a builtin, not a path (one that exists from here, as the engine would open it, or one written as a
    path), and a repo id the Hub accepts ("name" or "owner/name"; huggingface_hub's own validate_repo_id)."""
    if model.startswith((BUILTIN_PREFIX, *PATH_PREFIXES)) or Path(model).expanduser().exists():
        return False
    # lazy: huggingface_hub costs ~0.4 s to import, paid only by a model named neither builtin nor by a path
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(model)
    except HFValidationError:
        return False
    return True
