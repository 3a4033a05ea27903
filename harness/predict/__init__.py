"""Engine-neutral prediction: the model description, Prediction, calibration; each engine's formulas live in its package.

Pure arithmetic over a model description and a device size; the harness never imports
vLLM or SGLang (the oracle tests run the engines' own code in their own interpreters).
"""

from harness.predict.model import ModelDescription, bundled_cards, load_model_description, model_from_config
from harness.predict.predictor import (
    Calibration,
    Estimate,
    Prediction,
    predict,
    predict_point,
    prediction_error_pct,
)

__all__ = [
    "Calibration",
    "Estimate",
    "ModelDescription",
    "Prediction",
    "bundled_cards",
    "load_model_description",
    "model_from_config",
    "predict",
    "predict_point",
    "prediction_error_pct",
]
