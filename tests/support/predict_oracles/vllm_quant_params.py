"""Oracle: the parameters vLLM's own quantization methods give one linear layer, i.e. which tensors a
checkpoint of that scheme must hold for it, with their dtypes and shapes (of the release installed in the
interpreter it runs in).

Runs in the vLLM environment's interpreter, never in the harness process.
stdin: JSON list of cases {"quantization_config": the config.json block, "out": rows, "in": columns}: each is built
as the engine builds a layer, a ReplicatedLinear (no tensor-parallel split, bf16 params) under the config's own
QuantizationConfig (vllm.model_executor.layers.quantization.get_quantization_config(quant_method).from_config), on
the meta device.
A case with "stub_kernels": true has vLLM's kernel choice stubbed out for the FP8-block, NVFP4 and ModelOpt methods:
this CPU build has no FP4 and no AMX kernel and refuses at layer creation (fp8.py:347, modelopt.py:2598-2604,
compressed_tensors_w4a4_nvfp4.py:31), though the parameters are made from the config alone, before any kernel
runs.
stdout: JSON list of {"params": {name: [dtype, shape]}} or {"error": text} (a scheme this build cannot make).
"""

import contextlib
import json
import logging
import os
import sys
import tempfile
from unittest import mock

logging.disable(logging.WARNING)
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

import torch  # noqa: E402
from vllm.config import ModelConfig, VllmConfig, set_current_vllm_config  # noqa: E402
from vllm.distributed import parallel_state  # noqa: E402
from vllm.model_executor.layers.linear import ReplicatedLinear  # noqa: E402
from vllm.model_executor.layers.quantization import get_quantization_config  # noqa: E402

# a tiny dense config: the quantization methods read the model's dtype from the current vLLM config
TINY = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
        "max_position_embeddings": 256, "torch_dtype": "bfloat16"}


def _vllm_config() -> VllmConfig:
    path = tempfile.mkdtemp(prefix="oracle-quant-")
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(TINY, f)
    return VllmConfig(model_config=ModelConfig(model=path, dtype="bfloat16", skip_tokenizer_init=True))


def _ensure_world_of_one(vllm_config: VllmConfig) -> None:
    if parallel_state.model_parallel_is_initialized():
        return
    with set_current_vllm_config(vllm_config):
        parallel_state.init_distributed_environment(world_size=1, rank=0, local_rank=0, backend="gloo",
                                                    distributed_init_method=f"file://{tempfile.mktemp()}")
        parallel_state.initialize_model_parallel(1, 1)


def _stubbed_kernels() -> contextlib.ExitStack:
    from vllm.model_executor.layers.quantization import fp8, modelopt
    from vllm.model_executor.layers.quantization.compressed_tensors.schemes import compressed_tensors_w4a4_nvfp4 as ct4

    stack = contextlib.ExitStack()
    for module, name in ((fp8, "init_fp8_linear_kernel"), (modelopt, "select_linear_kernel"),
                         (modelopt, "expose_input_quant_key"), (ct4, "init_nvfp4_linear_kernel"),
                         (ct4, "expose_input_quant_key")):
        stack.enter_context(mock.patch.object(module, name, lambda *args, **kwargs: None))
    return stack


def run(case: dict, vllm_config: VllmConfig) -> dict:
    qc = case["quantization_config"]
    stubs = _stubbed_kernels() if case.get("stub_kernels") else contextlib.nullcontext()
    try:
        quant = get_quantization_config(qc["quant_method"]).from_config(qc)
        with stubs, set_current_vllm_config(vllm_config), torch.device("meta"):
            layer = ReplicatedLinear(case["in"], case["out"], bias=False, params_dtype=torch.bfloat16,
                                     quant_config=quant, prefix="model.layers.0.mlp.down_proj")
    except Exception as exc:  # noqa: BLE001 - the test shows which scheme this build cannot make
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    return {"params": {n: [str(p.dtype).removeprefix("torch."), list(p.shape)] for n, p in layer.named_parameters()}}


def answer(cases: list[dict]) -> list[dict]:
    vllm_config = _vllm_config()
    _ensure_world_of_one(vllm_config)
    return [run(case, vllm_config) for case in cases]


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
