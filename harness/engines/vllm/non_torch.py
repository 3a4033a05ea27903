"""vLLM's non-torch term on a GPU (O): what the release's profile counts besides the weights and the torch peak,
as a function of what drives it: the release (what its startup snapshot already holds) and tensor parallelism (the
communicators, which exist only when a group has more than one rank: 0.10.2 vllm/distributed/parallel_state.py:259).

Each figure is an estimate fitted on named public logs (tests/fixtures/predict/gpu-oos3/SOURCES.md has every logged
figure, which were fitted and which were checked); what moves it beyond that (the card's interconnect, NCCL's
algorithms, fused all-reduce workspaces) is not known to the predictor and is said in the basis."""

from __future__ import annotations

from harness.engines.vllm.releases import (
    NON_KV_FROM_TOTAL_CONSUMED,
    NON_TORCH_SINCE_SNAPSHOT,
    SNAPSHOT_AFTER_DISTRIBUTED_INIT,
)

# One rank, no communicator: what loading kernels and modules adds after the snapshot. Fitted on the one-GPU vLLM
# 0.10.2 log of Qwen3-8B-FP8 (gpu-oos/v03: "0.02 GiB for non-torch memory").
ONE_RANK_GIB = 0.02
# 0.9.1-0.10.x with tensor parallelism: the communicators are created after the snapshot (PyNccl's comm and warm-up
# all-reduce, custom all-reduce's IPC buffers: 0.10.2 custom_all_reduce.py:164-169, 2 x 8 MiB), NCCL's channel
# buffers the bulk. Fitted on the 8x L40S TP 8 log (vllm-gpu-public, 0.10.2: 0.17-0.21 GiB a rank, PCIe: custom
# all-reduce off above two ranks without NVLink, custom_all_reduce.py:143). On an NVSwitch card NCCL's buffers are
# larger (2x H200 TP 2, 0.10.2: 1.38 GiB, one log, gpu-oos/v04): not modelled, the card's links are not known here.
COMMUNICATORS_GIB = 0.20
# From 0.27.0 the budget takes all memory consumed since the snapshot (0.27.0 vllm/utils/mem_utils.py:317-326), so
# the model runner's persistent torch buffers count beside the non-torch memory. The largest of them is sized in the
# source and added apart (penalty_buffers_bytes, Model Runner V2 only); the rest is this estimate, fitted on the two
# one-GPU logs that state the consumed memory with the weights, less that buffer at their 256 sequences, their mean
# (gpu-oos/v01 0.31.0: 15.26 GiB consumed less 14.99 held less 0.126, 0.144; v02 0.27.1: 1.23 less 0.92 less 0.149,
# 0.161). Before the buffer was sized apart this was 0.29 for every run (gpu-oos5/SOURCES.md).
CONSUMED_BEYOND_WEIGHTS_GIB = 0.15
# 0.11.0-0.26.x with tensor parallelism: the communicators are in the baseline; what NCCL and the all-reduce backends
# allocate on their first collective in the profile run is counted. No log here pins it: the former constant.
LAZY_COLLECTIVES_GIB = 0.30


def penalty_buffers_bytes(max_num_reqs: int, vocab_size: int) -> int:
    """Model Runner V2's penalty statistics, allocated with its sampler after the weights are measured and kept for
    the server's life: output_bin_counts, int32 of max_num_seqs x vocabulary, and prompt_bin_mask, int32 of
    max_num_seqs x ceil(vocabulary / 32) (0.27.1 vllm/v1/worker/gpu/sample/penalties.py:31-42, made by the Sampler in
    load_model after its DeviceMemoryProfiler, gpu/model_runner.py:306-328 and :350-360; the same in 0.32.0
    penalties.py:39-47). 0.14 GiB at 256 sequences of Qwen's 151,936 tokens, 2 MiB at 4."""
    return max_num_reqs * (vocab_size + -(-vocab_size // 32)) * 4


def non_torch_gib(release: str, tp: int) -> tuple[float, str]:
    """O for a release and a tensor-parallel size, in GiB, and what it stands for (before 0.9.1 the CUDA context is
    added by the caller: those releases count all non-torch memory on the card)."""
    if release in NON_KV_FROM_TOTAL_CONSUMED:
        return CONSUMED_BEYOND_WEIGHTS_GIB, (f"consumed since the snapshot beyond the weights (vllm {release}: "
                                             "non-torch memory and the runner's torch buffers)")
    if tp <= 1:
        return ONE_RANK_GIB, "non-torch since the snapshot, one rank: no communicator"
    if release in SNAPSHOT_AFTER_DISTRIBUTED_INIT:
        return LAZY_COLLECTIVES_GIB, (f"non-torch since the snapshot; vllm {release} creates the communicators before "
                                      f"it, what their first collectives allocate counts (no log pins it)")
    since = "since the snapshot" if release in NON_TORCH_SINCE_SNAPSHOT else "on the card"
    return COMMUNICATORS_GIB, (f"non-torch {since}, the tensor-parallel communicators included (vllm {release} creates "
                               f"them after its snapshot; PCIe-fitted: NVSwitch cards' NCCL buffers are larger)")
