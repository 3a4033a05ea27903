"""A fixture config (a reconstructed config.json with its `_id`) as the predictor reads it."""

from __future__ import annotations

import json
from pathlib import Path

from harness.predict import model_from_config
from harness.predict.model import ModelDescription


def config_model(path: Path) -> ModelDescription:
    """tests/fixtures/predict/*-gpu-public/*.json: shape facts kept where no verbatim config.json was found."""
    cfg = json.loads(path.read_text())
    return model_from_config(cfg, cfg["_id"], f"fixture {path.name}")
