"""How SGLang 0.4.10+ lowers a multimodal model's default mem_fraction_static by its vision tower's size.

adjust_mem_fraction_for_vlm (0.4.10 sglang/srt/server_args.py:1946-1985; 0.5.10 the same body, called at :1334 when
the model is multimodal and not --language-only; 0.5.22 sglang/srt/arg_groups/memory_hook.py:419-464, called at :334
for is_vlm, :285-290): the default fraction is multiplied by 0.95 x clamp(1 - 0.1 x (ratio - 1), 0.8, 1.05), where
ratio is the tower's num_hidden_layers x hidden_size^2 over a ViT-L/14's 24 x 1024^2. It only runs while SGLang
chooses the fraction itself (inside `if mem_fraction_static is None`, 0.4.10 :286, 0.5.22 :283): a given fraction is
left alone. The two numbers are read with getattr on the transformers config object, whose class default stands in
when config.json leaves one out; the predictor only uses the numbers config.json states."""

from __future__ import annotations

from typing import Any

BASE_FACTOR = 0.95  # base_mem_fraction_reduction_ratio
BASELINE_SCORE = 24 * 1024**2  # ViT-L/14: 24 layers x 1024^2
SENSITIVITY = 0.1  # "every time the complexity grows 100%, adjust final factor for 10%"
CLAMP = (0.8, 1.05)


def vlm_fraction_factor(vision_config: dict[str, Any]) -> float | str:
    """The factor the default fraction is multiplied by, or why it is not known (a str)."""
    layers, hidden = vision_config.get("num_hidden_layers"), vision_config.get("hidden_size")
    if not isinstance(layers, int) or not isinstance(hidden, int):
        return ("its vision_config does not state num_hidden_layers and hidden_size, where SGLang reads the "
                "transformers config class's defaults")
    ratio = layers * hidden**2 / BASELINE_SCORE
    dynamic = max(CLAMP[0], min(CLAMP[1], 1.0 - SENSITIVITY * (ratio - 1.0)))
    return BASE_FACTOR * dynamic
