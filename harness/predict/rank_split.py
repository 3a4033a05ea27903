"""How much of each stored tensor one tensor-parallel rank holds, from the tensor's (Hugging Face) name.

vLLM shards most linear layers across the TP ranks (column- and row-parallel, experts by expert or by
intermediate size, the vocab by rows), but three kinds of tensor are not cut by tp:

- the K and V projections once tp exceeds the KV heads: each rank holds max(1, kv_heads // tp) heads, the heads
  replicated (vLLM 0.10.2 vllm/model_executor/layers/linear.py:868-874 QKVParallelLinear, num_kv_head_replicas;
  the same in 0.32.0);
- MoE routers: a ReplicatedLinear (or a plain nn.Linear) on every rank (0.10.2 models/qwen3_moe.py:153,
  qwen2_moe.py:123 and :138 shared_expert_gate, mixtral.py:83, deepseek_v2.py:192 with its
  e_score_correction_bias at :198, gpt_oss.py:147 router);
- norms: RMSNorm/LayerNorm weights are whole on every rank.

On an MoE checkpoint of 128 experts at TP 8 with 4 KV heads (Qwen3-235B-A22B) the replicated routers and KV
heads are 0.13 GiB a rank that dividing the whole checkpoint by tp leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from harness.predict.stored_weights import StoredTensor

# a router or gate of experts: `mlp.gate.`, `block_sparse_moe.gate.`, `mlp.router.`, `feed_forward.router.`,
# `shared_expert_gate.`, DeepSeek's `gate.e_score_correction_bias` (not `gate_proj`, `gate_up_proj`)
_ROUTER = re.compile(r"\.(?:gate|router|shared_expert_gate)(?:\.|$)")
_KV_PROJ = re.compile(r"\.(?:k_proj|v_proj)(?:\.|$)")


def is_replicated(name: str) -> bool:
    """A tensor every TP rank holds whole: a router of experts or a norm."""
    parts = name.split(".")
    return bool(_ROUTER.search(name)) or (len(parts) > 1 and "norm" in parts[-2])


def is_kv_projection(name: str) -> bool:
    """A K or V projection's tensor (weight, bias, scales): cut by KV heads, replicated past tp."""
    return bool(_KV_PROJ.search(name))


def rank_groups(tensors: Iterable[StoredTensor]) -> tuple[tuple[StoredTensor, ...], ...]:
    """(replicated, K/V projections, sharded by tp) - the three ways a rank's share of a tensor is decided."""
    replicated, kv, sharded = [], [], []
    for t in tensors:
        if is_replicated(t.name):
            replicated.append(t)
        elif is_kv_projection(t.name):
            kv.append(t)
        else:
            sharded.append(t)
    return tuple(replicated), tuple(kv), tuple(sharded)
