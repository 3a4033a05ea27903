"""A: the torch peak of vLLM's profile run above what was allocated before it, per release.

profile_run runs a dummy forward of max_num_batched_tokens tokens, then a dummy sampler run over
min(max_num_seqs, max_num_batched_tokens) rows (releases.FLASHINFER_SAMPLER_IF_INSTALLED names the sources). The
forward's intermediate tensors are freed when it returns; its hidden states stay referenced while the sampler runs
(0.10.2 vllm/v1/worker/gpu_model_runner.py:3030-3040). So the peak is the larger of the forward's and the sampler's
(plus those hidden states), not their sum. Both are estimates of tensor sizes, in the release's arithmetic."""

from __future__ import annotations

from harness.engines.vllm import formulas as vf
from harness.engines.vllm.releases import (
    FLASHINFER_SAMPLER_BY_DEFAULT,
    FLASHINFER_SAMPLER_IF_INSTALLED,
    MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY,
    MOE_MODULAR_WORKSPACE,
    TRITON_TOP_K_TOP_P,
)
from harness.predict.config_weights import routed_experts
from harness.predict.model import GiB, ModelDescription

# Bytes each logit (one row x one vocabulary entry) holds at the sampler's peak beyond the model-dtype logits from
# compute_logits, per top-k/top-p implementation. Every path first copies the logits to float32 (0.10.2
# vllm/v1/sample/sampler.py:87, 0.32.0 :97): 4.
SAMPLER_BYTES_PER_LOGIT = {
    # FlashInfer's top_k_top_p_sampling_from_logits: the float32 copy and its float32 probabilities
    "flashinfer": 4 + 4,
    # apply_top_k_top_p (0.11.0 vllm/v1/sample/ops/topk_topp_sampler.py:183-203): the sort's float32 values and int64
    # indices, the top-k and top-p bool masks, the float32 softmax (cumsum in place), and the scatter's new tensor
    "sort": 4 + 4 + 8 + 1 + 1 + 4 + 4,
    # the same from 0.17.0 with the scatter in place (0.17.0 topk_topp_sampler.py:299), below 8 rows
    "sort_in_place": 4 + 4 + 8 + 1 + 1 + 4,
    # the Triton kernel masks in place (0.17.0 topk_topp_sampler.py:251); then the float32 probabilities and
    # random_sample's exponential noise of their shape (0.32.0 topk_topp_sampler.py:565-571)
    "triton": 4 + 4 + 4,
}
# The sort's own scratch (torch's stable CUDA sort, which vLLM's sort-based top-k/top-p calls on the float32 copy):
# from 128 rows up it is segmented_sort_pairs, which allocates an int64 reverse index per logit and hands cub's
# SortPairs no double buffer, so cub takes alternate float32 keys and int64 values of the same size (pytorch
# aten/src/ATen/native/cuda/SortStable.cu segmented_sort_pairs, do_launch_stable_sort_kernel's `nsegments < 128`
# branch). While the sort runs, the model-dtype logits, the float32 copy and the sort's float32/int64 outputs are
# live too: 4 + (4 + 8) + (8 + 4 + 8) bytes beyond the model dtype, more than the scatter phase's 26. Fitted on
# nothing: the two 0.10.2 logs with 256 dummy rows of Qwen3's 151,936-token vocabulary print "1.4 GiB for peak
# activation" (tests/fixtures/predict/vllm-gpu-public, gpu-oos v03), this gives 1.39 GiB.
SEGMENTED_SORT_MIN_ROWS = 128
SEGMENTED_SORT_PHASE_BYTES_PER_LOGIT = 4 + (4 + 8) + (8 + 4 + 8)
# The Triton kernel's float32 scratch rows: min(the card's SM count, rows) (0.18.0
# vllm/v1/sample/ops/topk_topp_triton.py:947-1010, kept in _TRITON_BUFFER_CACHE). The SM count is the card's (L40S 142,
# H100 132, A100 108), which the predictor is not told: an estimate.
TRITON_BUFFER_ROWS_ESTIMATE = 128
TRITON_MIN_ROWS = 8  # the Triton kernel from 8 rows up in 0.17.0-0.20.x (0.17.0 topk_topp_sampler.py:251)


def sampler_path(release: str, env: dict[str, str], rows: int) -> tuple[str, str]:
    """Which top-k/top-p implementation the release's dummy sampler run takes, and why (one clause)."""
    flag = env.get("VLLM_USE_FLASHINFER_SAMPLER")
    if flag == "0":
        return _pytorch_path(release, rows, "VLLM_USE_FLASHINFER_SAMPLER=0")
    if release in FLASHINFER_SAMPLER_BY_DEFAULT:
        return "flashinfer", f"FlashInfer's sampler (on by default in vllm {release})"
    if flag == "1":
        return "flashinfer", "FlashInfer's sampler (VLLM_USE_FLASHINFER_SAMPLER=1, flashinfer taken as installed)"
    if release in FLASHINFER_SAMPLER_IF_INSTALLED:
        return _pytorch_path(release, rows, f"vllm {release}'s PyPI wheel installs no flashinfer; with it (the "
                                            "[flashinfer] extra, vLLM's image) set VLLM_USE_FLASHINFER_SAMPLER=1")
    return _pytorch_path(release, rows, f"FlashInfer's sampler is opt-in in vllm {release}")


def _pytorch_path(release: str, rows: int, why: str) -> tuple[str, str]:
    if release not in TRITON_TOP_K_TOP_P:
        return "sort", f"the PyTorch top-k/top-p, a full sort ({why})"
    if rows >= TRITON_MIN_ROWS:
        return "triton", f"the Triton top-k/top-p in place ({why})"
    return "sort_in_place", f"the PyTorch top-k/top-p, a full sort below {TRITON_MIN_ROWS} rows ({why})"


def sampler_peak_bytes(model: ModelDescription, rows: int, elem_bytes: int, path: str) -> int:
    """The dummy sampler run's tensors at its peak: every rank holds the whole vocabulary's logits of `rows` rows
    in the model dtype and what `path` adds per logit; the Triton kernel its scratch rows."""
    logits = rows * model.vocab_size
    scratch = min(rows, TRITON_BUFFER_ROWS_ESTIMATE) * model.vocab_size * 4 if path == "triton" else 0
    per_logit = SAMPLER_BYTES_PER_LOGIT[path]
    if path in ("sort", "sort_in_place") and rows >= SEGMENTED_SORT_MIN_ROWS:
        per_logit = max(per_logit, SEGMENTED_SORT_PHASE_BYTES_PER_LOGIT)  # the sort's scratch is the peak
    return logits * (elem_bytes + per_logit) + scratch


def model_runner_v2_sampler_bytes(model: ModelDescription, release: str, rows: int, tp: int, elem_bytes: int) -> int:
    """Model Runner V2's dummy sampler run at its peak, in bytes (hidden states apart).

    Its dummy requests sit in slots the runner never filled: temperature 0 (UvaBackedTensor starts at zeros, 0.27.1
    vllm/v1/worker/gpu/buffer_utils.py:101, sample/states.py:22), top_k the vocabulary size and top_p 1.0
    (states.py:31-35), so get_top_k_top_p gives neither (:94-101), the run is greedy and FlashInfer's sampler is not
    taken (sample/sampler.py:240-247; 0.32.0 :306-311); gumbel_sample's scratch is rows x vocabulary blocks
    (gumbel.py:233-236): nothing per logit. Two phases hold vocabulary-wide tensors: compute_logits, whose TP
    all-gather holds the rank's slice, the gathered buffer and its reshaped copy (0.27.1
    vllm/distributed/device_communicators/base_device_communicator.py:238-252); then the sampler, which holds the
    logits and, up to 0.25.x, their float32 copy (releases.MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY)."""
    logits = rows * model.vocab_size
    gather = (2 * logits + rows * vf.cdiv(model.vocab_size, tp)) * elem_bytes if tp > 1 else logits * elem_bytes
    copy = 4 if release in MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY else 0
    return max(gather, logits * (elem_bytes + copy))


PATH_LABELS = {"flashinfer": "FlashInfer", "sort": "PyTorch sort", "sort_in_place": "PyTorch sort",
               "triton": "Triton top-k/top-p", "mrv2": "Model Runner V2's greedy"}


def moe_workspace_per_token(model: ModelDescription, release: str, tp: int, expert_parallel: bool = False,
                            padded: tuple[int, int] | None = None) -> int | None:
    """Elements per token a MoE layer's fused-experts call holds at once in the dummy forward, in the activation
    dtype: the router's logits and the kernel's two intermediate caches (releases.MOE_MODULAR_WORKSPACE names the
    shapes and their sources). None for a model without routed experts. Every MoE backend is taken with the
    Triton/Marlin shapes (DeepGEMM, FlashInfer and CUTLASS size their own): an estimate. `padded` (expert width a
    rank holds, hidden size) where the experts are held padded (mxfp4_marlin.padded_dims): the caches take those
    sizes, and the layer's padded copy of its input (tokens x padded hidden size) is held beside them."""
    moe = routed_experts(model.config)
    if moe is None or not moe.moe_layers:
        return None
    inter = moe.intermediate if expert_parallel else max(1, moe.intermediate // max(1, tp))
    k = model.hidden_size
    pad_copy = 0
    if padded is not None:
        inter, k = padded
        pad_copy = k if k != model.hidden_size else 0
    second = max(inter, k) if release in MOE_MODULAR_WORKSPACE else inter
    return moe.experts + moe.top_k * (max(2 * inter, k) + second) + pad_copy


def forward_bytes(model: ModelDescription, release: str, num_tokens: int, tp: int, elem_bytes: int,
                  expert_parallel: bool = False, padded: tuple[int, int] | None = None) -> tuple[int, str]:
    """The dummy forward's peak (formulas.activation_estimate_bytes), its MLP term taken by a MoE model's
    fused-experts workspace where its layers are MoE (moe_workspace_per_token): the larger of that and the dense
    MLP where the model keeps dense layers too. The second value says the MoE term ("" for a dense model)."""
    forward = vf.activation_estimate_bytes(model, num_tokens, 0, tp, elem_bytes)
    moe = moe_workspace_per_token(model, release, tp, expert_parallel, padded)
    if moe is None:
        return forward, ""
    dense_mlp = 3 * model.intermediate_size // max(1, tp)  # what activation_estimate_bytes counted
    dense_layers = routed_experts(model.config).dense_layers
    mlp = max(moe, dense_mlp if dense_layers else 0)
    forward += num_tokens * (mlp - dense_mlp) * elem_bytes
    return forward, f", MoE workspace {num_tokens * moe * elem_bytes / GiB:.2f}"


def activation_bytes(model: ModelDescription, release: str, env: dict[str, str], num_tokens: int, rows: int,
                     tp: int, elem_bytes: int, expert_parallel: bool = False,
                     padded: tuple[int, int] | None = None,
                     model_runner_v2: bool = False) -> tuple[int, str, str | None]:
    """A for the release: max(dummy forward, dummy sampler + the forward's hidden states), in bytes, a short basis,
    and a note where the sampler implementation is the predictor's assumption (installed packages decide it). Under
    Model Runner V2 the sampler is its greedy dummy run (model_runner_v2_sampler_bytes), whatever is installed."""
    forward, moe = forward_bytes(model, release, num_tokens, tp, elem_bytes, expert_parallel, padded)
    hidden = num_tokens * model.hidden_size * elem_bytes
    if model_runner_v2:
        path, assumed, why = "mrv2", False, ""
        sampler = model_runner_v2_sampler_bytes(model, release, rows, tp, elem_bytes) + hidden
    else:
        path, why = sampler_path(release, env, rows)
        sampler = sampler_peak_bytes(model, rows, elem_bytes, path) + hidden
        assumed = release in FLASHINFER_SAMPLER_IF_INSTALLED and "VLLM_USE_FLASHINFER_SAMPLER" not in env
    basis = (f"estimate: max(forward {forward / GiB:.2f}{moe}, {PATH_LABELS[path]} sampler {sampler / GiB:.2f}) "
             "GiB")
    return max(forward, sampler), basis, f"the profile's dummy sampler run: {why}" if assumed else None


def unmodelled_encoder_profile(model: ModelDescription, skip_mm_profiling: bool) -> str | None:
    """Why a multimodal model's profile peak is not modelled (None: a text model, or the encoder not profiled).

    profile_run first runs the multimodal encoder on a dummy batch of the largest inputs the encoder budget allows
    and caches its outputs (0.10.2 vllm/v1/worker/gpu_model_runner.py:2982-3027, 0.32.0 :6135-6190), unless
    --skip-mm-profiling: a peak the predictor has no estimate of (the 0.13.0 H100 NVL log of a Qwen3-VL MoE lost
    ~6 GiB to it beyond the weights)."""
    if skip_mm_profiling or not model.architecture.endswith("ForConditionalGeneration"):
        return None
    return (f"{model.name} ({model.architecture}) is multimodal: the profile run's peak includes its encoder on a "
            "dummy batch of the largest inputs (gpu_model_runner.py profile_run), which is not modelled; "
            "--skip-mm-profiling leaves it out")
