"""Oracle: SGLang's own handle_gpu_memory_settings (0.5.22, 0.5.23), run without a GPU (ENGINES.md §2.8).

Runs in the SGLang environment's interpreter, never in the harness process.
stdin: JSON list of cases {"gpu_mem_mib", "tp", "args": {ServerArgs fields}, "config": {HF config.json}, "mla": bool}
("mla": the model config says AttentionArch.MLA, as SGLang's ModelConfig does for DeepSeek's architectures).
stdout: JSON list of resolved values, one per case; with "mla", also the prefill graph backend after
disable_prefill_cuda_graph_for_deepseek_trtllm_mla (which the pipeline runs after the memory settings).
"""

import json
import logging
import sys
import types

logging.disable(logging.WARNING)

import sglang.srt.utils as sglang_utils  # noqa: E402
from sglang.srt.arg_groups import memory_hook  # noqa: E402
from sglang.srt.arg_groups.cuda_graph_hook import (  # noqa: E402
    disable_prefill_cuda_graph_for_deepseek_trtllm_mla,
    handle_cuda_graph_config,
)
from sglang.srt.arg_groups.overrides import declare_resolution, resolving_view  # noqa: E402
from sglang.srt.configs.model_config import AttentionArch  # noqa: E402
from sglang.srt.server_args import ServerArgs  # noqa: E402
from transformers import LlamaConfig  # noqa: E402

# Patched after the imports: patching is_cuda earlier breaks fp8_utils at import time.
sglang_utils.is_cuda = lambda: True  # default_prefill_backend() -> "breakable", as on CUDA


def model_fixture(config: dict, mla: bool = False):
    hf = LlamaConfig(**{k: v for k, v in config.items() if not k.startswith("_")})
    hf.architectures = config.get("architectures") or ["LlamaForCausalLM"]
    return types.SimpleNamespace(
        attention_arch=AttentionArch.MLA if mla else AttentionArch.MHA,
        is_multimodal=False,
        is_multimodal_breakable_cuda_graph_supported=False,
        is_hybrid_swa=False,
        hf_config=hf,
        context_len=config.get("max_position_embeddings", 2048),
    )


def run(case: dict) -> dict:
    gpu_mem = case["gpu_mem_mib"]
    memory_hook.get_device_memory_capacity = lambda device=None: gpu_mem
    sa = ServerArgs(model_path=case.get("model_path", "meta-llama/Llama-3.1-8B-Instruct"), tp_size=case["tp"],
                    **case.get("args", {}))
    sa._model_config = model_fixture(case["config"], case.get("mla", False))
    declare_resolution(sa, "experiment", device="cuda")
    handle_cuda_graph_config(sa)
    memory_hook.handle_gpu_memory_settings(sa)
    reserve = memory_hook.reserve_for_graph_mb(sa)
    view = resolving_view(sa)
    graphs = view.cuda_graph_config
    prefill_backend = str(graphs.prefill.backend)
    if case.get("mla"):
        disable_prefill_cuda_graph_for_deepseek_trtllm_mla(sa)
        prefill_backend = str(resolving_view(sa).cuda_graph_config.prefill.backend)
    return {
        "mem_fraction_static": view.mem_fraction_static,
        "chunked_prefill_size": view.chunked_prefill_size,
        "decode_backend": str(graphs.decode.backend),
        "decode_max_bs": graphs.decode.max_bs,
        "decode_bs": list(graphs.decode.bs or []),
        "prefill_backend": prefill_backend,
        "prefill_max_bs": graphs.prefill.max_bs,
        "prefill_bs": list(graphs.prefill.bs or []),
        "graph_reserve_mib": reserve,
    }


def answer(cases: list) -> list:
    return [run(case) for case in cases]


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)
