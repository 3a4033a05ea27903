"""Engine-neutral prediction knowledge: the model description, the host's and device's memory, what a Prediction holds.

Pure arithmetic and types, below the engines: each engine's formulas live in its package and make a
Prediction; harness.engines.predicting dispatches to them; harness.analysis.calibrate fits their
estimated terms to measured rows. The harness never imports vLLM or SGLang (the oracle tests run the
engines' own code in their own interpreters).
"""

from harness.predict.model import ModelDescription, bundled_cards, load_model_description, model_from_config
from harness.predict.prediction import Calibration, Estimate, Prediction, prediction_error_pct

__all__ = [
    "Calibration",
    "Estimate",
    "ModelDescription",
    "Prediction",
    "bundled_cards",
    "load_model_description",
    "model_from_config",
    "prediction_error_pct",
]
