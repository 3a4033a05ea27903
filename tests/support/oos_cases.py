"""What each out-of-sample round of public GPU logs (tests/predict/test_predict_gpu_oos*.py) checks of a case as it
came out: the prediction locked to the figure its SOURCES.md reports, and inside or outside the tolerance as that
file says."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.predict import ModelDescription, load_model_description
from parsers import parse_log, read_log
from tests.support.fixture_configs import config_model

TOLERANCE = 0.03  # issue #40's target: within 3 % of the logged token figure
CPU_TOLERANCE = 0.02  # issue #40's target for the vLLM-CPU path (round 25 on)


@dataclass(frozen=True)
class Case:
    """One public log with the inputs its engine sized from, pinned from the source (SOURCES.md of its round)."""

    engine: str
    log: str  # under the round's folder
    model: str  # a fixture config (a path ending .json, under the folder the round names) or a bundled card
    release: str
    card_mib: float
    capability: float | None  # the card's CUDA compute capability (None: not pinned)
    args: dict
    part: str  # "fit" or "held_out"
    logged_tokens: int  # the engine's own token figure (read from the file by logged_tokens, checked there)
    env: dict = field(default_factory=dict)
    gpu_name: str | None = None  # the card's name as the source gives it (None: not given, as rounds 1-9)
    # SGLang's own pre-load reading ("Load weight begin. avail mem=..."), GiB as SGLang prints it (None: not used, as
    # rounds 9-20; round 21 gives it, as ../predict/test_predict_gpu_oos4.py did)
    free_before_gib: float | None = None
    # "cpu": a CPU-backend start (round 25 on), `card_mib` the node total its budget line prints and `capability` None;
    # `cpu_flags` the host CPU's /proc/cpuinfo flags where named (None: not known, or not x86)
    device: str = "cuda"
    cpu_flags: frozenset[str] | None = None

    def model_description(self, configs: Path) -> ModelDescription:
        if self.model.endswith(".json"):
            return config_model(configs / self.model)
        return load_model_description(self.model)

    def text(self, folder: Path) -> str:
        """The case's log (or write-up) as it is stored in its round's `folder`."""
        return read_log(folder / self.log)

    def logged_figure(self, folder: Path) -> int:
        """The token figure the case's file gives (logged_tokens), to set against the one the case names."""
        return logged_tokens(folder / self.log, self.engine, self.logged_tokens)

    def predict(self, configs: Path, capability: float | None = None):
        """The case predicted as its engine would size it (`capability` in place of the card's, where given)."""
        return predict(self.engine, self.args, self.model_description(configs), self.card_mib,
                       device=self.device, cpu_flags=self.cpu_flags, engine_version=self.release, env=self.env,
                       gpu_name=self.gpu_name,
                       gpu_capability=self.capability if capability is None else capability,
                       gpu_free_mib=None if self.free_before_gib is None else self.free_before_gib * 1024,
                       free_at_load=self.free_before_gib is not None)


def check_case_as_it_came_out(name: str, prediction, logged_tokens: int, final_tokens: Mapping[str, int],
                              within: Set[str], tolerance: float = TOLERANCE) -> None:
    """`prediction` (harness.predict Prediction) is the case's as the final code makes it: it starts, it gives the
    locked token figure, and it is within `tolerance` of `logged_tokens` exactly when the case is in `within`."""
    assert prediction.modelled and prediction.will_start, prediction.reason
    assert prediction.kv_tokens == final_tokens[name], (name, prediction.kv_tokens, prediction.estimates)
    assert (abs(prediction.kv_tokens / logged_tokens - 1) <= tolerance) == (name in within), (
        name, f"{prediction.kv_tokens / logged_tokens - 1:+.2%}")


def logged_tokens(log: Path, engine: str, named_tokens: int) -> int:
    """The token figure a case's source gives: the parser's reading where the file is a log (SGLang's pool tokens
    first), else `named_tokens` as the write-up prints it (a table cell, a list or a quoted line), found in the file."""
    text = read_log(log)
    record = parse_log(text, engine)
    tokens = (record.pool_tokens or record.kv_tokens) if engine == "sglang" else record.kv_tokens
    if tokens:
        return tokens
    assert f"{named_tokens:,}" in text or str(named_tokens) in text, log
    return named_tokens


def round_checks(cases: Mapping[str, Case], folder: Path, final_tokens: Mapping[str, int], within: Set[str],
                 tolerance: float = TOLERANCE):
    """The two checks every round makes of its cases, for the round's module to bind to these names (pytest collects
    them there): the figure the source logs is the one the case names, and each case as the final code predicts it
    (within `tolerance`: CPU_TOLERANCE for a round of CPU starts)."""

    @pytest.mark.parametrize("name", list(cases))
    def test_the_logged_figure_is_the_one_the_case_names(name):
        case = cases[name]
        assert case.logged_figure(folder) == case.logged_tokens

    @pytest.mark.parametrize("name", list(final_tokens))
    def test_each_case_as_it_came_out(name):
        case = cases[name]
        check_case_as_it_came_out(name, case.predict(folder), case.logged_tokens, final_tokens, within, tolerance)

    return test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out


def held_out(cases: Mapping[str, Case]) -> list[str]:
    """The cases marked held out, in the order collected."""
    return [name for name, case in cases.items() if case.part == "held_out"]
