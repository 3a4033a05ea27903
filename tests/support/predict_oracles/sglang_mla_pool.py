"""Oracle: SGLang's own MLA sizing (0.5.22, 0.5.23), run without a GPU.

Runs in the SGLang environment's interpreter, never in the harness process. Per case it builds SGLang's
ModelConfig from the case's config.json (written to a folder of its own), resolves the KV dtype as the model runner
does (configure_kv_cache_dtype), computes the per-token cell with DefaultPoolConfigurator._compute_cell_size (its
parallel state patched to the case's tp; no DCP, no DSA cache layer split), builds an MLATokenToKVPool of the case's
size and page on the CPU and reads its bytes back, and runs _mla_backend_page_constraints over the case's backends.
stdin: JSON list of cases {"config", "dtype", "kv_cache_dtype", "tp", "size", "page_size", "attention_backend",
"decode_attention_backend"}. stdout: JSON list of {"mla", "layers", "latent", "cell", "pool_bytes", "page_size"}.
"""

import json
import logging
import sys
import tempfile
import types
from pathlib import Path

logging.disable(logging.WARNING)

from sglang.srt.arg_groups.overrides import _mla_backend_page_constraints  # noqa: E402
from sglang.srt.configs.model_config import AttentionArch, ModelConfig  # noqa: E402
from sglang.srt.layers.cp import utils as cp_utils  # noqa: E402
from sglang.srt.mem_cache import kv_cache_dtype as kv_cache_dtype_module  # noqa: E402
from sglang.srt.mem_cache.memory_pool import MLATokenToKVPool  # noqa: E402
from sglang.srt.model_executor import pool_configurator  # noqa: E402


def parallel(tp: int):
    return types.SimpleNamespace(attn_tp_size=tp, attn_dcp_size=1, attn_cp_size=1,
                                 enable_dsa_cache_layer_split=False)


def page_after_constraints(case: dict) -> int:
    view = types.SimpleNamespace(page_size=case.get("page_size"), attention_backend=case.get("attention_backend"),
                                 decode_attention_backend=case.get("decode_attention_backend"),
                                 prefill_attention_backend=None, speculative_draft_attention_backend=None)
    return _mla_backend_page_constraints(view).get("page_size", case.get("page_size"))


def run(case: dict, folder: Path) -> dict:
    (folder / "config.json").write_text(json.dumps(case["config"]))
    model_config = ModelConfig(model_path=str(folder), dtype=case.get("dtype", "auto"))
    mla = model_config.attention_arch == AttentionArch.MLA
    # as on a GPU: the CPU engine refuses fp8_e5m2 (kv_cache_dtype.py:50-51), the only CPU branch there
    kv_cache_dtype_module.current_platform = types.SimpleNamespace(is_cpu=lambda: False)
    _, kv_dtype = kv_cache_dtype_module.configure_kv_cache_dtype(
        server_args_kv_cache_dtype=case.get("kv_cache_dtype", "auto"), model=None, model_dtype=model_config.dtype,
        is_draft_worker=False, is_dflash=False, speculative_draft_attention_backend=None)
    state = parallel(case["tp"])
    pool_configurator.get_parallel = lambda: state
    cp_utils.get_parallel = lambda: state
    layers = model_config.num_hidden_layers
    if not mla:  # sized per head by the MHA branch: only the architecture's verdict is asked
        return {"mla": False, "layers": layers, "latent": None, "cell": None, "pool_bytes": None, "page_size": None}
    kvc = types.SimpleNamespace(model_config=model_config, kv_cache_dtype=kv_dtype, use_mla_backend=mla,
                                server_args=types.SimpleNamespace(enable_hisparse=False), is_draft_worker=False)
    # the configurator without its __init__ (which sizes the whole pool): only the cell method is asked
    configurator = object.__new__(pool_configurator.DefaultPoolConfigurator)
    configurator.kv_cache_dtype_str = case.get("kv_cache_dtype", "auto")
    cell = configurator._compute_cell_size(kvc, layers)
    page = case.get("page_size") or 1
    pool = MLATokenToKVPool(case["size"], page, kv_dtype, model_config.kv_lora_rank, model_config.qk_rope_head_dim,
                            layers, device="cpu", enable_memory_saver=False)
    return {"mla": True, "layers": layers, "latent": model_config.kv_lora_rank + model_config.qk_rope_head_dim,
            "cell": int(cell), "pool_bytes": int(pool.get_kv_size_bytes()), "page_size": page_after_constraints(case)}


def answer(cases: list) -> list:
    out = []
    for case in cases:
        with tempfile.TemporaryDirectory(prefix="mla-config-") as folder:
            out.append(run(case, Path(folder)))
    return out


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)
