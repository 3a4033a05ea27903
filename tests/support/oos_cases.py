"""What each out-of-sample round of public GPU logs (tests/predict/test_predict_gpu_oos*.py) checks of a case as it
came out: the prediction locked to the figure its SOURCES.md reports, and inside or outside the tolerance as that
file says."""

from __future__ import annotations

from collections.abc import Mapping, Set

TOLERANCE = 0.03  # issue #40's target: within 3 % of the logged token figure


def check_case_as_it_came_out(name: str, prediction, logged_tokens: int, final_tokens: Mapping[str, int],
                              within: Set[str], tolerance: float = TOLERANCE) -> None:
    """`prediction` (harness.predict Prediction) is the case's as the final code makes it: it starts, it gives the
    locked token figure, and it is within `tolerance` of `logged_tokens` exactly when the case is in `within`."""
    assert prediction.modelled and prediction.will_start, prediction.reason
    assert prediction.kv_tokens == final_tokens[name], (name, prediction.kv_tokens, prediction.estimates)
    assert (abs(prediction.kv_tokens / logged_tokens - 1) <= tolerance) == (name in within), (
        name, f"{prediction.kv_tokens / logged_tokens - 1:+.2%}")
