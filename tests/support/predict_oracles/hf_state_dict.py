"""Oracle: the tensors a Hugging Face checkpoint of a config.json stores, from transformers' own model classes
(`save_pretrained` writes the model's state dict: its parameters and persistent buffers, a tied LM head once).

Runs in an engine environment's interpreter (the transformers release that engine pins), never in the harness
process. stdin: JSON list of cases {"config": config.json, "auto": "causal-lm" | "image-text-to-text"}; each model
is made from the config on the meta device (no weights), in bf16.
stdout: JSON list of {"tensors": {name: [dtype, shape]}} or {"error": text}.
"""

import json
import logging
import sys

logging.disable(logging.WARNING)

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoConfig  # noqa: E402

AUTO = {"causal-lm": "AutoModelForCausalLM", "image-text-to-text": "AutoModelForImageTextToText"}


def run(case: dict) -> dict:
    cfg = dict(case["config"])
    try:
        config = AutoConfig.for_model(**cfg)
        with torch.device("meta"):
            model = getattr(transformers, AUTO[case.get("auto", "causal-lm")]).from_config(config, dtype=torch.bfloat16)
    except Exception as exc:  # noqa: BLE001 - the test shows which config this transformers cannot make
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    return {"tensors": {name: [str(t.dtype).removeprefix("torch."), list(t.shape)]
                        for name, t in model.state_dict().items()}}


def answer(cases: list[dict]) -> list[dict]:
    return [run(case) for case in cases]


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
