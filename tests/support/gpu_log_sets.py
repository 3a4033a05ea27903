"""The sets of real GPU startup logs (tests/fixtures/gpu-logs, gpu-logs-2, gpu-logs-3) and their hand-read values.

Each set's `expected.json` names, per log, the values a person read from its lines (`expected`), under names of
their own choosing: `EXPECTED_READERS` says where the parser's record holds each one. A name no record field holds is
counted as missed, never skipped, so the figures say how much of what a person reads the parser reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from parsers import parse_log, read_log
from parsers.record import (
    POOL_DRAFT,
    POOL_FULL,
    POOL_KV,
    POOL_STATE,
    POOL_SWA,
    POOL_WORKER,
    STATUS_ENGINE_ERROR,
    STATUS_OK,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SETS = ("gpu-logs", "gpu-logs-2", "gpu-logs-3", "gpu-logs-4", "gpu-logs-5", "gpu-logs-6", "gpu-logs-7", "gpu-logs-8",
        "gpu-logs-9", "gpu-logs-10", "gpu-logs-11", "gpu-logs-12", "gpu-logs-13", "gpu-logs-14",
        "gpu-logs-15", "gpu-logs-16", "gpu-logs-17", "gpu-logs-18", "gpu-logs-19", "gpu-logs-20",
        "gpu-logs-21", "gpu-logs-22", "gpu-logs-23", "gpu-logs-24", "gpu-logs-25", "gpu-logs-26",
        "gpu-logs-27", "gpu-logs-28", "gpu-logs-29", "gpu-logs-30", "gpu-logs-31", "gpu-logs-32", "gpu-logs-33",
        "gpu-logs-34", "gpu-logs-35", "gpu-logs-36", "gpu-logs-37", "gpu-logs-38", "gpu-logs-39", "gpu-logs-40",
        "gpu-logs-41", "gpu-logs-42", "gpu-logs-43", "gpu-logs-44", "gpu-logs-45", "gpu-logs-46", "gpu-logs-47",
        "gpu-logs-48", "gpu-logs-49", "gpu-logs-50", "gpu-logs-51", "gpu-logs-52", "gpu-logs-53",
        "gpu-logs-54", "gpu-logs-55", "gpu-logs-56", "gpu-logs-57", "gpu-logs-58", "gpu-logs-59", "gpu-logs-60",
        "gpu-logs-61", "gpu-logs-62", "gpu-logs-63", "gpu-logs-64", "gpu-logs-65", "gpu-logs-66",
        "gpu-logs-67", "gpu-logs-68", "gpu-logs-69", "gpu-logs-70", "gpu-logs-71", "gpu-logs-72",
        "gpu-logs-73", "gpu-logs-74", "gpu-logs-75", "gpu-logs-76", "gpu-logs-77", "gpu-logs-78",
        "gpu-logs-79", "gpu-logs-80", "gpu-logs-81", "gpu-logs-82", "gpu-logs-83", "gpu-logs-84",
        "gpu-logs-85", "gpu-logs-86", "gpu-logs-87", "gpu-logs-88", "gpu-logs-89", "gpu-logs-90",
        "gpu-logs-91", "gpu-logs-92", "gpu-logs-93", "gpu-logs-94", "gpu-logs-95", "gpu-logs-96", "gpu-logs-97",
        "gpu-logs-98", "gpu-logs-99", "gpu-logs-100", "gpu-logs-102", "gpu-logs-103", "gpu-logs-104", "gpu-logs-105",
        "gpu-logs-106", "gpu-logs-107", "gpu-logs-108",
        "gpu-logs-109", "gpu-logs-110", "gpu-logs-111", "gpu-logs-112", "gpu-logs-113",
        "gpu-logs-114")
# Logs of a set aside before any rule was written for it (chosen across classes from its index alone) and read only
# once the rules were done: the out-of-sample checks of issue 42. gpu-logs-3 was collected from public issues by the
# logs-oos session and its values written by eye before any parser ran on it; its held-out third was chosen then.
HELD_OUT = {
    "gpu-logs-2": {"vllm": ("01", "05", "11", "16", "19"), "sglang": ("05", "08", "10", "13", "15")},
    # 21-25 and sglang 14: a second batch, collected after the rules were fitted on everything before, read once
    "gpu-logs-3": {"vllm": ("03", "07", "10", "13", "15", "20", "21", "22", "23", "24", "25"),
                   "sglang": ("05", "07", "12", "14")},
    # gpu-logs-4 (logs-oos2, issue 42's second round): every log held out, collected and read by eye after the source-
    # driven fixes, read through the parser once
    "gpu-logs-4": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)), "sglang": tuple(f"{n:02d}" for n in range(1, 12))},
    # gpu-logs-5 (logs5, issue 42's third round): every log held out, collected and read by eye on the classes the
    # earlier sets are thin on, read through the parser once
    "gpu-logs-5": {"vllm": tuple(f"{n:02d}" for n in range(1, 15)), "sglang": tuple(f"{n:02d}" for n in range(1, 14))},
    # gpu-logs-6 (logs6, issue 42's fourth round): every log held out, collected and read by eye on 2025-2026 backends,
    # wrappers, traps and fatal starts, read through the parser once
    "gpu-logs-6": {"vllm": tuple(f"{n:02d}" for n in range(1, 17)), "sglang": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-7 (logs7, issue 42's fifth round): every log held out, collected and read by eye on the wrappers,
    # backends, traps and fatal starts the earlier sets are thin on, read through the parser once
    "gpu-logs-7": {"vllm": tuple(f"{n:02d}" for n in range(1, 18)), "sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-8 (logs8, issue 42's sixth round): every log held out, collected and read by eye on the wrappers,
    # backends, traps and fatal starts the earlier sets are thin on, read through the parser once
    "gpu-logs-8": {"vllm": tuple(f"{n:02d}" for n in range(1, 17)), "sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-9 (logs9, issue 42's seventh round): every log held out, collected and read by eye on the KV counts and
    # statuses stated in unusual ways (blocks lines, trimmed or annotated KV lines, trap statuses), read through the
    # parser once
    "gpu-logs-9": {"vllm": tuple(f"{n:02d}" for n in range(1, 18)), "sglang": tuple(f"{n:02d}" for n in range(1, 12))},
    # gpu-logs-10 (logs10, issue 42's eighth round): every log held out, collected and read by eye on SGLang's fatal
    # starts and less common wordings and on the vLLM kinds the sets are thin on, read through the parser once
    # (vllm 10-11, sglang 15-17: a second batch, collected after this round's rules, read once)
    "gpu-logs-10": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": tuple(f"{n:02d}" for n in range(1, 18))},
    # gpu-logs-11 (logs11, issue 42's ninth round): every log held out, collected and read by eye on the 2026 CPU
    # backend, hybrid state pools, 2026 fatal wordings, traps and Python-source wrappers, read through the parser once
    # (vllm 11, sglang 10: a second batch, collected after this round's rules, read once)
    "gpu-logs-11": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-12 (logs12, issue 42's tenth round): every log held out, collected and read by eye on the backends
    # (XPU, TPU, Gaudi, ROCm, Jetson), HiCache host pools, Ray and Dynamo prefixes, fatal starts and wrappers the
    # earlier sets are thin on, read through the parser once
    "gpu-logs-12": {"vllm": tuple(f"{n:02d}" for n in range(1, 14)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-13 (logs13, issue 42's eleventh round): every log held out, collected and read by eye on the commonest
    # pasted shapes (compose and log-viewer prefixes, TP ranks, test receipts, author-cut lines), read through the
    # parser once
    # (vllm 06-08, sglang 06-07: a second batch, collected after this round's rules, read once)
    "gpu-logs-13": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-14 (logs14, issue 42's twelfth round): every log held out, collected and read by eye from write-ups,
    # run books and notes (author-shortened prefixes, prefixless marker lines, screenshots read by OCR, summaries
    # wrapped in comments or blockquotes), read through the parser once
    # (vllm 07-11: a second batch, collected after this round's rule, read once)
    "gpu-logs-14": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-15 (logs15, issue 42's thirteenth round): every log held out, collected and read by eye from Dynamo's
    # issues and from run books, decision records and notes in four languages, read through the parser once
    "gpu-logs-15": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-16 (logs16, issue 42's fourteenth round): every log held out, collected and read by eye from issue and
    # pull-request threads of vLLM, SGLang and the projects that wrap them (gpustack, vllm-omni, mellea, club-3090,
    # odysseus), read through the parser once
    "gpu-logs-16": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-17 (logs17, issue 42's round gpu-logs-17): every log held out, collected and read by eye from run books,
    # benchmark reports, research notes and documentation pages (grepped and author-cut lines, lists, Modal's log view,
    # override and projection traps, Ascend backends), read through the parser once
    # (vllm 11-12, sglang 07: a second batch, collected after this round's rules, read once)
    "gpu-logs-17": {"vllm": tuple(f"{n:02d}" for n in range(1, 13)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-18 (logs18, issue 42's round gpu-logs-18): every log held out, collected and read by eye from issue and
    # pull-request threads of vLLM, SGLang and the projects that wrap them (vllm-ascend, intel/llm-scaler, kaito),
    # read through the parser once
    # (vllm 07-08: a second batch, collected after this round's rules, read once)
    "gpu-logs-18": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-19 (logs19, issue 42's round gpu-logs-19): every log held out, collected and read by eye from run notes,
    # setup notes, benchmark kits, a parser's docstring and a Hugging Face Space's commit page (a log viewer's date
    # prefix, author-labelled rank lines, author-broken and elided lines, Ascend, V0 lines in shell comments, Mamba
    # state and HiCache host pool traps), read through the parser once
    "gpu-logs-19": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-20 (logs20, issue 42's round gpu-logs-20, SGLang first): every log held out, collected and read by eye
    # from an operator's pasted PD terminal sessions, run notes, write-ups, a guide, a saved issue and an issue comment
    # (fatal starts after the summary and in graph capture, author-broken exception lines, a HiCache host-pool trap,
    # a negative KV budget, vLLM 0.23's graph-pool line), read through the parser once
    "gpu-logs-20": {"vllm": tuple(f"{n:02d}" for n in range(1, 5)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-21 (logs21, issue 42's round gpu-logs-21): every log held out, collected and read by eye from log files
    # and logs kept in repositories (run notes, a run journal, benchmark READMEs, a workshop chapter, a profiling
    # report: a tool's banner estimate, grep-filtered pod logs, blockquoted and author-broken errors, level-less file
    # tags, a KV-pool fork, Mamba state traps), read through the parser once
    "gpu-logs-21": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-22 (logs22, issue 42's round gpu-logs-22, SGLang first): every log held out, collected and read by eye
    # from issue threads and repository reports not taken before (SGLang's JAX port on TPU and GPU, k3s reports with
    # author-edited lines, a non-zero node's rank lines, a decode OOM's free-token trap, the newer level-and-file
    # format, PP ranks, a negative --kv-cache-memory suggestion, CRI log prefixes), read through the parser once
    "gpu-logs-22": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-23 (logs23, issue 42's round gpu-logs-23, a short round): every log held out, collected and read by eye
    # from archived vllm-ascend issues not taken before (NPU starts whose KV pair is followed by an NPU runtime error or
    # an ACL graph capture failure, Ray pipeline stages with one KV pair each); no SGLang log found in time that was
    # not already in a set, read through the parser once; 05-06: a second batch (a ROCm docker compose start, a TPU
    # compact-mamba report), collected and committed after the first read and read once; 07-08: a third batch (a
    # kvcached start failing in profiling, a V1 start failing after its KV pair), the same way
    "gpu-logs-23": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ()},
    # gpu-logs-24 (logs24, issue 42's round gpu-logs-24, SGLang first): every log held out, collected and read by eye
    # from repository files that keep server logs and from projects that run SGLang inside them (grepped and
    # author-annotated lines, ktransformers, a Mamba state trap, SWA pool lines, a TP8 bench, ROCm DP4 and PD/NIXL and
    # PP2 failed starts, a vLLM worker log kept as a Python test string), read through the parser once
    "gpu-logs-24": {"vllm": ("01",), "sglang": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-25 (logs25, issue 42's round gpu-logs-25, SGLang first): every log held out, collected and read by eye
    # from server log files that repositories commit whole (sglang.log, sglang.txt, vllm_server.log: a nohup capture,
    # a HiCache host-pool trap, TP2 and TP4 ranks, a log-level-error run, a serving-time crash after a good start, a
    # T4 start failing in Inductor's autotuning), read through the parser once
    # (sglang 06-09: a second batch from SGLang deployment repositories' committed logs - ROCm RDNA4 TP2 with a Mamba
    # state trap and SWA pools, RTX 3090 boot-failure tails - collected after the first read, read once)
    # (vllm 05-06, sglang 10: a third batch - nohup and ANSI-coloured vLLM logs, SGLang's CPU engine - read once)
    "gpu-logs-25": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-26 (logs26, issue 42's round gpu-logs-26, vLLM whole files and backends beyond CUDA): every log held
    # out, collected and read by eye from the vllm.log / vllm_serve.log / logs/vllm.log files repositories commit
    # (V0 TP2 workers, a TP2 start whose sizing lines only TP0 prints, an NGC container behind a launcher banner, a
    # weights-load OOM, an ImportError, a start failing in kernel warm-up after its KV pair), ROCm Strix Halo and
    # Intel XPU failed starts, and SGLang's reference log and an MI355X TP2 window, read through the parser once
    # (vllm 11-13, sglang 03: a second batch from the same listings and the same MI355X repository, read once)
    "gpu-logs-26": {"vllm": tuple(f"{n:02d}" for n in range(1, 14)), "sglang": ("01", "02", "03")},
    # gpu-logs-27 (logs27, issue 42's round gpu-logs-27): every log held out, collected and read by eye from Jupyter
    # notebooks' output cells (Colab, Kaggle-style and local notebooks: stdout/stderr outputs interleaved, display_data
    # bars, IPython's ANSI tracebacks, a reader thread's '[STDERR] ' prefix, Unsloth's banner estimate, V0 worker ranks,
    # a CPU-only runtime's config error, a TP8 bitsandbytes failure on every SGLang rank), read through the parser once
    # (vllm 08, sglang 05-06: a second batch - Unsloth's banner estimate beside a V1 engine that states no KV GiB, a
    # fork's HiCache host pool after the summary, a pool capped by --max-total-tokens - collected after the fix, read
    # once)
    "gpu-logs-27": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-28 (logs28, issue 42's round gpu-logs-28): every log held out, collected and read by eye from issue
    # threads of projects that run vLLM inside them (trl's vllm-serve and GRPO trainer, ms-swift, OpenRLHF and its fork
    # lmm-r1, SkyRL, an EasyR1 fork: Ray actor prefixes and dedup suffixes, container timestamps, a wake-up OOM after
    # training, a rollout engine's offload lines, two log lines joined by a terminal's padding), read through the parser
    # once; no SGLang log was found in those threads
    # (vllm 12: a second batch - lm-evaluation-harness's TP start with zero GPU blocks - collected after the fix, read
    # once)
    "gpu-logs-28": {"vllm": tuple(f"{n:02d}" for n in range(1, 13)), "sglang": ()},
    # gpu-logs-29 (logs29, issue 42's round gpu-logs-29): every log held out, collected and read by eye from the
    # projects around SGLang (kvcached on ROCm with its virtual and physical pool lines, LMCache's SGLang connector and
    # its GPU buffer line, Mooncake HiCache in Python's default logging format, slime's and verl's Ray actors,
    # scheduler exceptions at serving time) and vLLM beside LMCache, read through the parser once
    "gpu-logs-29": {"vllm": tuple(f"{n:02d}" for n in range(1, 5)), "sglang": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-30 (logs30, issue 42's round gpu-logs-30): every log held out, collected and read by eye from fatal and
    # near-fatal starts of 2026's releases and their ports (negative KV budgets before a failed start, vllm-omni's
    # stage engine core, XPU workers failing while the KV cache is made, SGLang's "Loaded weights leave no GPU memory"
    # in a test's string, an NPU scheduler failing in its __init__, serving-time OOMs after a complete start), read
    # through the parser once
    # (vllm 10-12, sglang 04-05: a second batch - an OOM in the weights' repacking, double-spaced worker frames, a
    # free-memory check, vim's line numbers on an event-loop failure, SGLang's diffusion server aborting its start -
    # collected after the fixes, read once)
    "gpu-logs-30": {"vllm": tuple(f"{n:02d}" for n in range(1, 13)), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-31 (logs31, issue 42's round gpu-logs-31, SGLang first): every log held out, collected and read by eye
    # from the deployment projects' threads (GPUStack on Ascend, OME, Dynamo's Rust tracing format, srt-slurm on GB200,
    # Dynamo's V0 worker lines, llm-d's pod-prefixed lines, AIBrix's vineyard, Triton's vLLM backend and its memory
    # pool lines), read through the parser once
    # (vllm 06, sglang 06: a second batch - SkyPilot's job prefix, jetson-containers' SGLang image - collected after the
    # fix, read once)
    "gpu-logs-31": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-32 (logs32, issue 42's round gpu-logs-32, vLLM pool lines of 2026): every log held out, collected and
    # read by eye from 2026's vLLM starts that carry the KV pool lines or a trap beside them (an MTP drafter beside a
    # hybrid pool, the one-line "GPU KV cache size: N tokens, Maximum concurrency ..." form in test strings, grep
    # output, markdown tables and author-shortened notes, a DP rank's pair under DCP, a host-offload size in a comment,
    # KV cache group block sizes, a num_gpu_blocks override under Ray's nested prefixes, a reflowed max-seq-len
    # ValueError behind quote bars, a TP8 start failing after the graph-profiling notice), read through the parser
    # once; no SGLang log (gpu-logs-33 takes SGLang)
    # (vllm 13-15: a second batch - Gemma 4's pool below its request length with an author's elision, two bare KV
    # lines, vllm-omni's stage tags after the process prefix - collected after the fixes, read once)
    "gpu-logs-32": {"vllm": tuple(f"{n:02d}" for n in range(1, 16)), "sglang": ()},
    # gpu-logs-33 (logs33, issue 42's round gpu-logs-33, SGLang pool lines of 2026): every log held out, collected and
    # read by eye from an Ascend issue (a summary line split by a terminal's padding before a failure in the tree
    # cache's construction), an Ascend DeepSeek V4 run log's pool sizing and a DCU PD note's eight-rank MLA pool before
    # a graph capture failure, read through the parser once
    # (sglang 04-05: a second batch - an Ascend 910B note's prefixless lines, MLX's own pool line - collected after the
    # fixes, read once)
    "gpu-logs-33": {"vllm": (), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-34 (logs34, issue 42's round gpu-logs-34, accelerator backends beyond CUDA): every log held out,
    # collected and read by eye from TPU starts (tpu-inference's Init worker and Memory statistics lines, one wrapped by
    # an author, XLA's program allocation failure, a maxtext adapter failing in load_model) and Ascend starts
    # (vllm-ascend's per-worker byte lines and one KV pair per worker under DP, a worker failing in graph capture after
    # the pair, SGLang's NPU pool lines), read through the parser once
    # (vllm 08: a second batch - XLA's E0101 program allocation failure in its "Attempting to allocate" wording, split
    # after the class - collected after the fixes, read once)
    "gpu-logs-34": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ("01",)},
    # gpu-logs-35 (logs35, issue 42's round gpu-logs-35, CUDA starts with a trap beside the pool or an unusual wrapper):
    # every log held out, collected and read by eye - journalctl prefixes, an MTP drafter sharing the target's weights,
    # a patch's own GiB figures in quoted bullets, an author's wrapped one-line KV form before an OOM in the KV
    # allocation, a launcher's own token figure, SGLang's target and draft pools beside Mamba intermediate caches -
    # read through the parser once
    # (vllm 08-09: a second batch - grep -n's numbers and a free -h host table around the KV lines, a load's tail
    # with ps -ef rows - collected after the fixes, read once)
    "gpu-logs-35": {"vllm": tuple(f"{n:02d}" for n in range(1, 10)), "sglang": ("01",)},
    # gpu-logs-36 (logs36, issue 42's round gpu-logs-36, community write-ups and docs that quote a start): every log
    # held out, collected and read by eye - a blog's REST JSON with the figures in <strong> tags, runbooks and notes
    # with placeholder lines beside real figures, two ranks' KV budgets before an author-wrapped ValueError, an author's
    # aligned continuation lines, a fork's pool lines in backticked bullets, a report's comparator pool in a table -
    # read through the parser once
    # (vllm 06-08: a second batch - a home-lab project's notes: an author's ellipsis inside the max-seq-len ValueError,
    # the one-line KV form wrapped with an indent, the free-memory startup message in four lines - collected after the
    # fixes, read once)
    "gpu-logs-36": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ("01", "02", "03")},
    # gpu-logs-37 (logs37, issue 42's round gpu-logs-37, vLLM and a vLLM fork inside other serving projects): every log
    # held out, collected and read by eye - Aphrodite's own level column and pool wording, LLaMA-Factory's and
    # Xinference's failed starts (Xinference's actor-tagged ERROR line), FastChat's bare blocks line, an app's own
    # 'Available GPU memory' map, Xinference's and lighteval's re-formatted vLLM records - read through the parser once
    # (vllm 09: a second batch - KServe's huggingfaceserver lines between vLLM's on the CPU backend - collected after
    # the fixes, read once)
    "gpu-logs-37": {"vllm": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-38 (logs38, issue 42's round gpu-logs-38, SGLang multi-node and PD-disaggregated starts): every log held
    # out, collected and read by eye - a decode node's Mooncake glog lines before every rank's exception, a node whose
    # NCCL bootstrap is refused, a node waiting in dist init, two launch commands before one rank's indented pool end,
    # a request's KV-transfer failures after a start, the model gateway's Rust tracing start - read through the parser
    # once
    # (sglang 07-08: a second batch - a failed request pasted from three nodes and the gateway under the author's
    # labels, a launch refused by the argument parser - collected after the first read, read once)
    "gpu-logs-38": {"sglang": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-41 (logs41, issue 42's round gpu-logs-41, CI and job-runner logs with an engine inside): every log held
    # out, collected and read by eye - Buildkite's UTC stamps before vLLM-Omni's stage prefixes and tags, GitHub
    # Actions' 7-digit stamps before SGLang's scheduler traceback, pytest's locals and short summary around vLLM's
    # messages, a trainer's loguru memory line, a V0 engine's host-allocation error - read through the parser once
    # (vllm 11-12, sglang 02: a second batch - a document pipeline's logging prefix around vLLM's traceback and its own
    # retry advice, a multi-stage host process's Python logging around SGLang's pools - collected after the fixes,
    # read once)
    "gpu-logs-41": {"vllm": tuple(f"{n:02d}" for n in range(1, 13)), "sglang": ("01", "02")},
    # gpu-logs-39 (logs39, issue 42's round gpu-logs-39, vLLM on accelerator plugins and vendor forks): every log held
    # out, collected and read by eye - vllm-rbln's own dated record format and its KV cache layout line, vllm-neuron
    # and NxD Inference on Trainium (V0's '# neuron blocks' line, neuronx-cc's compile lines before a failed start, a
    # warm-up bucket's num_blocks, a teardown 'internal error' after the start), vllm-spyre-next on the CPU platform,
    # Kunlun and MetaX failed starts and a serving-time failure - read through the parser once; no SGLang log
    # (vllm 15-17: a second batch - V0 Neuron's mp-engine traceback, raw engine-core frames alone, V0 Neuron warnings
    # cut before the runtime's error - collected after the fixes, read once)
    "gpu-logs-39": {"vllm": tuple(f"{n:02d}" for n in range(1, 18))},
    # gpu-logs-40 (logs40, issue 42's round gpu-logs-40, the old wordings of 2024 to early 2025): every log held out,
    # collected and read by eye - SGLang 0.1-0.4's rank prefixes ('Rank N:', '[gpu_id=N]', '[date TPn]'), its summary
    # without available_gpu_mem, a request-length rejection and decode retractions (no pool), vLLM 0.5-0.7's V0 memory
    # profiling and blocks lines, a ROCm MI300X and a WSL start, the V0 max-seq-len ValueError, a fork's own memory
    # prints, a Jetson log flattened into one line, serving-time failures - read through the parser once
    # (vllm 10-12: a second batch - an author's re-wrapped V0 lines, Triton's glog lines after a V0 start, kubectl
    # records shortened to their level and file - collected after the fixes, read once)
    "gpu-logs-40": {"vllm": tuple(f"{n:02d}" for n in range(1, 13)), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-42 (logs42, issue 42's round gpu-logs-42, forums and Q&A pages quoting a start): every log held out,
    # collected and read by eye - Discourse's backslash-escaped brackets, an issue aggregator's elided pids, its cut
    # ValueError and its traceback flattened onto one line, a Reddit post's own KV figures, an article's stat-logger
    # line, an Ascend FAQ's serving-time abort, an article's de-indented frames - read through the parser once
    # (vllm 07, sglang 03: a second batch - GitHub mirrors in the pages corpus, an arrow-chain of frames after
    # "EngineCore encountered a fatal error.", sglang-jax on TPU with an author's annotation after the warm-up's 200 -
    # collected after the fixes, read once)
    "gpu-logs-42": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02", "03")},
    # gpu-logs-43 (logs43, issue 42's round gpu-logs-43, the newest releases: vLLM 0.30.0 and SGLang 0.5.20 as the
    # index holds them, late 2026): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-43": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": ("01", "02", "03")},
    # gpu-logs-45 (logs45, issue 42's round gpu-logs-45, upgrades and side-by-side comparisons): every log held out,
    # collected and read by eye - one side of a pair whose other side is in an earlier set or only in prose (vLLM
    # 0.8.5 -> 0.9.2 on DP2, a max-model-len A/B on a 3090, an fp8 KV A/B, a P2P on/off bench pair, a torch upgrade's
    # main side, 0.7.3 -> 0.8.2's GB-worded refusal, 0.8.5 -> 0.11.0's graph capture, a pre-0.8 start, 0.28.0's
    # interleaved OOM frames, SGLang in an FP8-load thread) - read through the parser once
    # (vllm 10-11, sglang 02: a second batch - a bench pair's other compose, a dual-card report beside an A/B thread,
    # the before side of an SGLang fix quoting a HIP OOM broken over two lines - collected after the fixes, read once)
    "gpu-logs-45": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": ("01", "02")},
    # gpu-logs-44 (logs44, issue 42's round gpu-logs-44, models that are not plain text generators, and adapters):
    # every log held out, collected and read by eye - a LoRA start's KV pair and block count, Whisper's encoder-decoder
    # start with its encoder cache budget, a reranker's author-shortened start with no KV line, a multimodal start's
    # encoder cache before an MTP pool, non-fatal ERROR lines (Triton imports, the pooling adapter's ST projector), an
    # embedding start failing in the KV sizing, Buildkite stamps before a LoRA start's failure, SGLang's LoRA manager
    # before a KV line without tokens, a blockquoted Whisper launch, an embedding notebook at --log-level warning -
    # read through the parser once
    # (vllm 10-11: a second batch - a LoRA start's config lines of 0.9.1, a reranker's serving-time KeyError on an NPU
    # with blank lines between - collected after the fix, read once)
    "gpu-logs-44": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": ("01", "02", "03")},
    # gpu-logs-47 (logs47, issue 42's round gpu-logs-47, failed starts that are not about memory): every log held out,
    # collected and read by eye - NCCL and c10d init failures and timeouts, a gated repository's 401, a CUDA driver
    # mismatch (error 803), missing or mismatched Python packages at import, engine-core frames with no header, a
    # start that sized its pool before a kernel failure beyond the window - read through the parser once
    # (vllm 08-10: a second batch - attention backends refused for the card or the model, 2025-12 to 2026-04 -
    # collected after the fix, read once)
    "gpu-logs-47": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)),
                    "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-46 (logs46, issue 42's round gpu-logs-46, SGLang starts of late 2025 and 2026 from sglang's own threads
    # and ktransformers' kt-kernel threads): every log held out, collected and read by eye - a summary after progress
    # bars joined by carriage returns, a pool then a scheduler exception making the attention backend, lines cut at a
    # fixed width, scheduler exceptions in Scheduler.__init__ with and without their header, the launcher's ready-wait
    # frames, docker compose's service prefix before a serving-time exception, a load begin with no TP0 line - read
    # through the parser once
    # (sglang 10-12: a second batch - a warm-up that failed after a prefill batch with requests running, the
    # diffusion runtime's month-day prefix over a killed scheduler, a log viewer's date column over NCCL warnings -
    # collected after the fixes, read once)
    "gpu-logs-46": {"sglang": tuple(f"{n:02d}" for n in range(1, 13))},
    # gpu-logs-48 (logs48, issue 42's round gpu-logs-48, SGLang starts of 2025 - releases 0.4.3 to 0.5.3 - from sglang's
    # own threads): every log held out, collected and read by eye - small Blackwell cards dying at graph capture (a KV
    # line then capture frames, a ptxas failure for sm_120a, bare frames into init_cuda_graphs), an overlap thread's
    # CUDA OOM with no line of the start, 'DPn PPn' prefixes after an author's prints, a sigquit before a load_model
    # failure, an Ascend traceback quoted line by line, serving lines only ('200 OK'), an author's shortened decode
    # lines at token usage 0.96 - read through the parser once before any rule was written for it
    # (10: a second batch, collected after the fixes and read once)
    "gpu-logs-48": {"sglang": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-49 (logs49, issue 42's round gpu-logs-49, threads written in Chinese): every log held out, collected and
    # read by eye from vllm-ascend's, vLLM's, GLM-V's, MinerU's and SGLang's Chinese-language threads - an author's
    # notes between two instances' lines with ANSI codes written as text, data-parallel and Ray-nested KV pairs before
    # a failure, a question with one error line, a full-width label before an NPU OOM, serving-time metrics whose KV
    # usage is no pool, a log read back from a screenshot with prefixes split from their messages - read through the
    # parser once
    # (vllm 10: a second batch - a TP8/EP start's serving lines after workers' empty ERROR records, from Qwen3-VL's
    # Chinese thread - collected after the fixes, read once)
    "gpu-logs-49": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)), "sglang": ("01", "02")},
    # gpu-logs-51 (logs51, issue 42's round gpu-logs-51, KV offloading and KV connectors beside the device pool): every
    # log held out, collected and read by eye - NIXL's registration and UCX's own lines around a KV pair before a failed
    # start, Ray-nested PP workers with NIXL, kubectl-prefixed DEBUG memory lines of llm-d's PD pods, KVBM's Rust
    # tracing, LMCache's records beside a second instance, a HiCache host pool beside a dynamic storage backend,
    # Mooncake store setup and put failures, an unprefixed Scheduler.__init__ traceback - read through the parser once
    # (vllm 08-09: a second batch - Dynamo's Rust tracing around the stat logger and KVBM's hit rates, KVBM's own
    # G1/G2/G3 block summary - collected after the fix, read once)
    "gpu-logs-51": {"vllm": tuple(f"{n:02d}" for n in range(1, 10)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-52 (logs52, issue 42's round gpu-logs-52, multi-node and data-parallel starts): every log held out,
    # collected and read by eye - Ray workers' lines nested in the engine core's prefix with '[repeated Nx across
    # cluster]', remote workers' 'ip=' tags, a V0 driver's errors after a remote worker's memory summary, DP-attention
    # ranks whose rank 0 KV line is outside the window, an overlap thread's traceback on DP4 - read through the parser
    # once (vllm 08: a second batch - the master node of vllm-ascend's two-node hybrid DP start failing in its profile
    # run - collected after the fixes, read once)
    "gpu-logs-52": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ("01", "02")},
    # gpu-logs-50 (logs50, issue 42's round gpu-logs-50, quantized checkpoints): every log held out, collected and read
    # by eye from vLLM's, vllm-gguf-plugin's, a DeepSeek-V4 fork's and SGLang's threads - GGUF, GPTQ on Marlin and
    # Machete, FP8 block and online FP8, a Llama 4 Scout OOM; nested and compose prefixes, a custom log format, the
    # weights lines beside the kernel choices - read through the parser once
    # (vllm 07: a second batch - a TP2 Mistral start with 0.9's rank prefixes and its KV pair printed twice - collected
    # after the fixes, read once)
    "gpu-logs-50": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02", "03")},
    # gpu-logs-53 (logs53, issue 42's round gpu-logs-53, starts the environment ended or interrupted): every log held
    # out, collected and read by eye - a SIGTERM'd start seen only as the engine core's exit, a worker that died in its
    # start, workers dead at serving time, a shell's 'Killed', SIGTERM stops before and after the start, Ray's list of
    # possible causes - read through the parser once; sglang/05 a second batch, committed before its read
    "gpu-logs-53": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-54 (logs54, issue 42's round gpu-logs-54, logs printed inside notebooks): every log held out, collected
    # and read by eye - a cell's "outputs" list as the .ipynb file holds it (JSON-escaped strings, ANSI codes as
    # \u001b escapes, stdout/stderr streams and widget display_data between them), offline LLM, AsyncLLMEngine and
    # sgl.Engine starts in a cell, a server log cat'ed in a cell, a CUDA OOM and a forked-CUDA failure before IPython's
    # and VS Code's error outputs, SGLang's own docs notebook - read through the parser once
    # (vllm 09-10: a second batch - a complete V0 start before the cell's own AttributeError, a V0 0.7.0 start -
    # collected after the fix, read once)
    "gpu-logs-54": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)), "sglang": tuple(f"{n:02d}" for n in range(1, 4))},
    # gpu-logs-55 (logs55, issue 42's round gpu-logs-55, vLLM and SGLang inside RL and post-training frameworks): every
    # log held out, collected and read by eye - verl's WorkerDict / TaskRunner / vLLMHttpServer / SGLangHttpServer
    # actors (nested Ray prefixes with an address, dedup suffixes, verl's own 'LEVEL:date:' records and serve arguments
    # printed as a Python list), verl's own torch memory figures beside the engine, a trainer's failure that is not the
    # engine's, torch_memory_saver failures at resume, slime's and miles' SGLangEngine actors - read through the parser
    # once
    # (vllm 08-10: a second batch - OpenRLHF's LLMRayActor with its KV lines, ms-swift's sleep on Ascend, a verl run
    # whose worker died in the actor's update - collected after the fixes, committed before its read, read once)
    "gpu-logs-55": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)), "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-56 (logs56, issue 42's round gpu-logs-56, structured and exported logs): every log held out, collected
    # and read by eye - journald lines (a unit's script as the identifier, grep -n and grep -B/-A over journalctl, a
    # journal kept in a test's string literal, a second logger nested in the engine's prefix), container stamps (a bare
    # 'Z' RFC 3339 stamp before a dateless vLLM format, CRI 'stdout F' lines in a blockquote, docker's nanosecond stamp)
    # and SGLang beside other loggers (SGLANG_LOG_MS stamps, aiter's line in SGLang's own prefix format) - read
    # through the parser once
    # (vllm 07-08: a second batch - a journal with a boot separator between a served start and a cut one, a host and
    # an identifier both named vllm - collected after the fixes, read once)
    "gpu-logs-56": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ("01", "02", "03")},
    # gpu-logs-58 (logs58, issue 42's round gpu-logs-58, vLLM and SGLang as the backend of evaluation and benchmark
    # tools): every log held out, collected and read by eye - lm-evaluation-harness's vLLM backend (a TP 2 start with
    # flashinfer's autotuner bars glued to the engine's lines and lm_eval's table, a driver too old, a config
    # validation error), `vllm bench` results alone, SGLang's bench_one_batch and bench_offline_throughput on MLX (the
    # stub's placeholder pool beside MLX's own) and on CUDA - read through the parser once
    # (vllm/05, sglang/05: a second batch - ArcticInference's benchmark table, a benchmark record as JSON with
    # bench_serving's result as a list of strings - collected after the fixes, committed before its read, read once)
    "gpu-logs-58": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-57 (logs57, issue 42's round gpu-logs-57, edge, desktop and unified-memory hardware): every log held out,
    # collected and read by eye - vllm-metal's own KV budget check failing on Apple silicon (one line, wrapped, with a
    # hybrid GDN reserve), free-memory checks on WSL2 and a Strix Halo APU, a WSL2 start whose cause is elided, SGLang's
    # MLX pool lines (an auto-sizer report annotated by its author, a stub's zero-GPU pools beside the MLX pool, a
    # ready start) and a WSL2 Blackwell OOM in the Mamba pool - read through the parser once
    # (vllm 07-10: a second batch - DGX Spark notes: the free-memory startup message broken with an author's arrow, the
    # ValueError indented under a list item, quoted with placeholders, in inline code - committed before its read)
    "gpu-logs-57": {"vllm": tuple(f"{n:02d}" for n in range(1, 11)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-60 (logs60, issue 42's round gpu-logs-60, startup output shown by guides, READMEs and documentation
    # pages): every log held out, collected and read by eye - a recipe README's smoke-test output quoting the KV line
    # with the default run's figures in the prose before it, prefixless startup lines kept by authors (a Vast.ai
    # report, Chinese lab notes with a comparison table and full-width annotations quoting another run's pool), a
    # bare NotImplementedError of an unsupported KV dtype, and SGLang's rendered documentation pages (a LoRA server
    # start indented four spaces, an offline engine at log level 'error' whose server_args quote max_total_tokens
    # without a pool line) - read through the parser once
    # (vllm 07-11: a second batch - a Vast.ai note's prefixless KV triple and its two refused backends, a recipe
    # README's boot evidence with the author's '~3.2x', a Japanese pin note's one-line KV pair with another release's
    # pool in the prose, a bare FlashInfer RuntimeError inside _initialize_kv_caches - committed before its read)
    "gpu-logs-60": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": ("01", "02")},
    # gpu-logs-62 (logs62, issue 42's round gpu-logs-62, the releases this project targets: vLLM 0.29-0.30 and the
    # September 2026 builds around them, SGLang 0.5.2x and its forks): every log held out, collected and read by eye - a
    # serve wrapper's own lines around a 0.30.0 start sized by kv_cache_memory_bytes, 0.29.0 lines kept in Python
    # strings (one split by backslash continuations), a KV pair wrapped by its author, a hybrid's 784-token block;
    # SGLang's prefixless log, a fork's capacity lines and unlabelled
    # draft pool per rank, a HiCache host pool alone - read through the parser once
    # (vllm 06-09: a second batch - a GB10 report's 0.30 windows (an API server's ValidationError, a graph-profiling
    # advice line), an arrow before a 0.28.1 build's KV line, a KV line quoted in a Markdown bullet - committed before
    # its read, read once)
    "gpu-logs-62": {"vllm": tuple(f"{n:02d}" for n in range(1, 10)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-61 (logs61, issue 42's round gpu-logs-61, datacenter accelerators other than NVIDIA): every log held out,
    # collected and read by eye - tpu-inference's HBM budget check and its JAX runtime error on multi-host TPUs, its
    # 'Init model | hbm=' line before a failed start, vLLM's free-memory check on an Ascend NPU wrapped by its author,
    # vllm-gaudi's runtime feature dump, torch_npu's OOM under SGLang on Ascend A3, the ROCm runtime's memory fault on
    # MI300X/MI355X, faulthandler dumps of SGLang's threads interleaved - read through the parser once
    # (vllm/06, sglang/04: a second batch - a Gaudi 1 V0 start with the HPU runner's memory lines before a PT_LAZY
    # fatal error, AITER's tuning lines in two shapes on MI300X - committed before its read, read once)
    "gpu-logs-61": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-59 (logs59, issue 42's round gpu-logs-59, SGLang's less common starts of 2025-2026): every log held out,
    # collected and read by eye - vision-language servers (Qwen2.5-VL over two pipeline stages, its ViT piecewise
    # CUDA graph start, InternVL's processor config lines after the capture, a VLM CI test's output), a LoRA start
    # quoted by line number with an assistant's annotations, a hierarchical cache's host pool refused, and on the vLLM
    # side a VLM's encoder cache budget beside torch.compile and an MTP start's auto-fit length - read through the
    # parser once
    # (vllm 03-04: a second batch - a Windows build's launcher after the engine's init line, a Qwen3-VL TP4/EP start's
    # compile lines - collected after the fix, committed before its read, read once)
    "gpu-logs-59": {"vllm": ("01", "02", "03", "04"), "sglang": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-63 (logs63, issue 42's round gpu-logs-63, the newer model pools of 2026): every log held out, collected
    # and read by eye - hybrid (Mamba / GDN) starts' block-size and padding lines beside the KV pair, a hidden-state
    # cache group's block beside the attention block, a plugin's Gemma 4 with the hybrid manager disabled, SGLang's
    # sliding-window pool on Gemma 4, DeepSeek V4's memory calculation after a code block, a hybrid's mamba usage in
    # an NPU warm-up - read through the parser once
    # (vllm 07-09: a second batch - a patch's own KV-capacity lines after the pair under grep -n, two wrapped block-size
    # lines before a table of pools, a plugin's sliding-ring reservation before 'No available memory' - collected after
    # the fixes, committed before its read, read once)
    "gpu-logs-63": {"vllm": tuple(f"{n:02d}" for n in range(1, 10)), "sglang": ("01", "02", "03")},
    # gpu-logs-64 (logs64, issue 42's round gpu-logs-64, lines that look like the pool and are not: LMCache's CPU buffer
    # and chunk sizes, usage and hit-rate stat lines, HiCache host pools, a draft's weights beside the target's): every
    # log held out, collected and read by eye before any parser ran on it, read through the parser once (vllm 07-08: a
    # second batch, collected after this round's rules, read once)
    "gpu-logs-64": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": tuple(f"{n:02d}" for n in range(1, 4))},
    # gpu-logs-66 (logs66, issue 42's round gpu-logs-66, vLLM starts that fail for memory): every log held out,
    # collected and read by eye before any parser ran on it - the free-memory check under a CI stamp and in an omni
    # stage, sampler warm-up OOMs (wrapped by an author, under nested Ray prefixes, cut at the raise), a lone torch OOM,
    # workers' tracebacks cut in model construction and after the graph capture - read through the parser once
    "gpu-logs-66": {"vllm": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-65 (logs65, issue 42's round gpu-logs-65, SGLang starts that fail for memory, 2025-2026: the pool
    # configurator's 'Not enough memory', CUDA OOMs in the capture, the launcher's dead scheduler, torch_memory_saver's
    # resume, serving-time pool exhaustion and leak reports): every log held out, collected and read by eye before any
    # parser ran on it, read through the parser once
    "gpu-logs-65": {"sglang": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-67 (logs67, issue 42's round gpu-logs-67, starts quoted in write-ups in other languages than English
    # and Chinese - Korean and Japanese, 2026): every log held out, collected and read by eye before any parser ran
    # on it, read through the parser once
    "gpu-logs-67": {"vllm": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-68 (logs68, issue 42's round gpu-logs-68, starts printed by cloud platforms and orchestrators,
    # 2025-2026): every log held out, collected and read by eye before any parser ran on it - RunPod's nanosecond
    # stamps before a worker that failed to start, SageMaker's container-standards lines in a diff, Ray Serve LLM's
    # nested replica prefixes and its controller's replica exceptions, BentoML's records before vLLM's - read through
    # the parser once; no SGLang log was found in the vein that was not already in a set
    "gpu-logs-68": {"vllm": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-69 (logs69, issue 42's round gpu-logs-69, home-lab starts of 2025-2026: consumer cards under WSL2 and
    # native Windows, a Strix Halo iGPU, two cards of mixed sizes, small quantized models at low utilization, and the
    # memory errors those hosts print): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-69": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01",)},
    # gpu-logs-70 (logs70, issue 42's round gpu-logs-70, starts of newly released models posted in model vendors'
    # repositories and in kt-kernel's threads, 2025-2026: GLM-4.5V / GLM-4.6V-Flash, DeepSeek-OCR, MiniMax-M2.1,
    # DeepSeek-V3 / V3.2): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-70": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01", "02", "03")},
    # gpu-logs-71 (logs71, issue 42's round gpu-logs-71, speculative decoding and LoRA starts of 2025-2026): every log
    # held out, collected and read by eye before any parser ran on it - MTP and EAGLE3 drafters loaded beside the
    # target (DeepSeek V4 on two GB10 nodes, Kimi K2.6 failing in its profile run), V0 n-gram workers, LoRA starts
    # under Unsloth/ART with a banner's KV estimate and a wrapper's own LoRA prints, GPUStack's LoRA arguments, SGLang's
    # multi-LoRA + n-gram start and EAGLE3 scheduler failures under a pod viewer's and Ray's prefixes - read through
    # the parser once
    "gpu-logs-71": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01", "02", "03")},
    # gpu-logs-72 (logs72, issue 42's round gpu-logs-72, vLLM used as a library in offline batch scripts of 2025-2026:
    # tqdm's 'Adding requests' / 'Processed prompts' bars with the engine's lines glued on, the scripts' prints and
    # tracebacks, plugins' backends, Docker's pull lines; no SGLang log was found in the vein that no set holds):
    # every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-72": {"vllm": tuple(f"{n:02d}" for n in range(1, 10))},
    # gpu-logs-73 (logs73, issue 42's round gpu-logs-73, starts that end without their own end, 2025-2026: NCCL and
    # Gloo inits that hang until a 30-minute timeout, engine cores waiting on their workers' broadcast queue, a weight
    # load outlived by the API server's timeout, SGLang ranks that stop at their distributed init and a watchdog's
    # kill): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-73": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02", "03")},
    # gpu-logs-74 (logs74, issue 42's round gpu-logs-74, output several processes wrote at once, 2025-2026: tensor-,
    # pipeline-, data- and expert-parallel ranks printing together, Ray actors' lines doubled under the engine core's
    # tag, bars cut by another rank's line, several engine cores of one script on one GPU, a Compose prefix missing
    # from the bar's stream): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-74": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01", "02")},
    # gpu-logs-75 (logs75, issue 42's round gpu-logs-75, starts run by Kubernetes operators and serving stacks of
    # 2025-2026: kubectl's 'Defaulted container' line and a LoRA syncer sidecar's log, GPUStack workers' records around
    # vLLM and SGLang (one collapsed onto a single line by a wiki), AIBrix's vineyard cache lines, llm-d's benchmark
    # harness, Transformer Lab's SGLang plugin): every log held out, collected and read by eye before any parser ran
    "gpu-logs-75": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02", "03", "04")},
    # gpu-logs-76 (logs76, issue 42's round gpu-logs-76, starts that went past the pool line and then ended, 2025-2026:
    # windows cut in CUDA graph capture or its memory profiling, servers that served and then died - EngineDeadError
    # in the output handler, MQLLMEngine dead, an illegal memory access - a first run's capture failure before a second
    # run's complete start, a lone prefill batch before a scheduler exception): every log held out, collected and read
    # by eye before any parser ran
    "gpu-logs-76": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02", "03")},
    # gpu-logs-77 (logs77, issue 42's round gpu-logs-77, SGLang's router and model gateway around its workers,
    # 2025-2026: sgl-router / smg Rust tracing lines, worker registration and health checks, PD prefill and decode
    # workers behind it, vllm-router's fork): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-77": {"vllm": ("01", "02"), "sglang": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-78 (logs78, issue 42's round gpu-logs-78, vLLM's 2026 front ends: several API servers and how their
    # start ended (a config error in one, the engines' handshake timeout, 'Supported tasks' and 'Application startup
    # complete' from each), PaddleX's api_server_count in one process, the Rust front end's launch, stat, routes and
    # death lines): every log held out, collected and read by eye before any parser ran on it; vLLM only
    "gpu-logs-78": {"vllm": tuple(f"{n:02d}" for n in range(1, 11))},
    # gpu-logs-79 (logs79, issue 42's round gpu-logs-79, SGLang starts whose window ends part-way, 2025-2026: in the
    # weights' load bar, inside the capture bar, at the summary, at 'Uvicorn running', at the fired-up line), every log
    # held out, read by eye and committed before the parser read it
    "gpu-logs-79": {"sglang": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-80 (logs80, issue 42's round gpu-logs-80, vLLM V1 starts whose window ends part-way, 2025-2026: in
    # torch.compile, in the profile run, inside the capture bar, after the KV lines, at the server's start line and
    # routes): every log held out, collected and read by eye before any parser ran on it; vLLM only
    "gpu-logs-80": {"vllm": tuple(f"{n:02d}" for n in range(1, 12))},
    # gpu-logs-81 (logs81, issue 42's round gpu-logs-81, starts of vision-language models of 2025-2026: the encoder
    # cache budget and multimodal warmup lines beside the pool, a wrapper's fallback server after a failed start): every
    # log held out, collected and read by eye before any parser ran on it; vLLM only
    "gpu-logs-81": {"vllm": ("01", "02", "03", "04")},
    # gpu-logs-82 (logs82, issue 42's round gpu-logs-82, vendor builds and containers of the engines, 2025-2026: NGC's
    # vLLM 26.01 container on a GB10 - its banner, its 'vLLM Version' line, the CUDA forward-compatibility note, the
    # '+faa43dbf.nv26.01' local version, a launcher script's lines around it - a hybrid start, a negative KV budget, an
    # embedding model with no pool, a free-memory check): every log held out, collected and read by eye before any
    # parser ran on it; vLLM only
    "gpu-logs-82": {"vllm": ("01", "02", "03", "04")},
    # gpu-logs-83 (logs83, issue 42's round gpu-logs-83, starts logged at non-default levels): every log held out,
    # collected and read by eye from 2025-2026 DEBUG starts (VLLM_LOGGING_LEVEL=DEBUG: the profiling and free-memory
    # lines at DEBUG, a fork's extra sizing lines, a hang on Ascend, a V0 TP2 start with NCCL INFO) and SGLang docs
    # notebooks run at --log-level warning, read through the parser once
    "gpu-logs-83": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": ("01", "02")},
    # gpu-logs-84 (logs84, issue 42's round gpu-logs-84, starts that fail for reasons other than memory, 2025-2026:
    # FlashInfer and torch JIT builds failing at the engine core's start, in its warm-up after the pool and in SGLang's
    # capture, a missing nvcc, a driver too old, DeepGEMM's toolkit warnings, a Ray placement-group wait, a port held
    # by another process): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-84": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-85 (logs85, issue 42's round gpu-logs-85, starts on the newest releases, logs of 2026-09/10: vLLM 0.30.0
    # and a 0.30 nightly - a GB10 report's fenced windows with the graph-profiling advice beside the one-line KV pair,
    # a harness's prefixless init-engine line, a ROCm start failing in memory profiling): every log held out, collected
    # and read by eye before any parser ran on it; vLLM only (no SGLang 0.5.20+ start was found in a usable window)
    "gpu-logs-85": {"vllm": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-86 (logs86, issue 42's round gpu-logs-86, whole logs committed to benchmark and submission repositories,
    # 2026: MLPerf v6.0 harness output with vLLM at ERROR level and an SGLang CPU server log, a benchmark study's
    # harness logs around grepped engine lines, a benchmark collection's failed start): every log held out, collected
    # and read by eye before any parser ran on it
    "gpu-logs-86": {"vllm": ("01", "02", "03", "04"), "sglang": ("01",)},
    # gpu-logs-87 (logs87, issue 42's round gpu-logs-87, files that hold several starts, 2025-2026: systemd restarts
    # in a journal, a unit's appended log with a launcher's echo between two starts, two units' status blocks, a
    # restart loop, a refused start and the relaunch that served): every log held out, collected and read by eye
    # before any parser ran on it; vLLM only
    "gpu-logs-87": {"vllm": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-88 (logs88, issue 42's round gpu-logs-88, SGLang starts of 2026: a CPU-backend start whose lines the
    # paste cut at 112 columns, a capture failure under a time-less rank prefix, a start cut at the load, a soft
    # watchdog's report, a watchdog's kill after py-spy's dump): every log held out, collected and read by eye before
    # any parser ran on it; SGLang only
    "gpu-logs-88": {"sglang": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-89 (logs89, issue 42's round gpu-logs-89, what happens after the start, 2025-2026: serving-time OOMs
    # and fatal errors after a complete start, an NCCL watchdog timeout, preemption and KV-usage lines that are not
    # the pool): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-89": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": tuple(f"{n:02d}" for n in range(1, 4))},
    # gpu-logs-90 (logs90, issue 42's round gpu-logs-90, logs people edited before posting, 2026: a rig report's bold
    # section headers written between the engine lines it picked, an author's prefixless lines with '~' before each
    # figure, a Japanese summary that kept the engine's wording with bold values): every log held out, collected and
    # read by eye before any parser ran on it; vLLM only
    "gpu-logs-90": {"vllm": ("01", "02", "03", "04")},
    # gpu-logs-92 (logs92, issue 42's round gpu-logs-92, long-context starts, 2025-2026: pools of 1M-token contexts
    # quoted from run books and reports, a pool smaller than one request, a drafter's private pool beside the pool,
    # the engine's refusals at 118000-262144 with an encoder budget and an author's byte prints beside one, SGLang
    # summary lines elided or grepped to two fields): every log held out, collected and read by eye before any parser
    # ran on it
    "gpu-logs-92": {"vllm": tuple(f"{n:02d}" for n in range(1, 8)), "sglang": ("01", "02")},
    # gpu-logs-93 (logs93, issue 42's round gpu-logs-93, the engines' own CI and test logs, 2025-2026: Buildkite's
    # stamps and fold markers, pytest's short summary of two server fixtures kept as HTML, a test script's bash trace
    # launching a second server, a test's own marker line between SGLang's batches): every log held out, collected
    # and read by eye before any parser ran on it
    "gpu-logs-93": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": ("01",)},
    # gpu-logs-91 (logs91, issue 42's round gpu-logs-91, how the bytes arrive, 2025-2026: vLLM on native Windows with
    # drive-letter paths and a Winsock error in the host's Chinese locale, a description pasted as markdown that ate the
    # traceback's dunder underscores and indentation): every log held out, collected and read by eye before any parser
    # ran on it; vLLM only
    "gpu-logs-91": {"vllm": ("01", "02", "03")},
    # gpu-logs-94 (logs94, issue 42's round gpu-logs-94, HPC batch schedulers and service managers, 2024-2026: a
    # Slurm job's sbatch poll echoed between Ray workers' lines in an Apptainer image, an HPC module's Singularity
    # banner and a job script's echo before the API server's traceback, Apptainer's underlay lines, srun --label's
    # task prefix, tail's file headers over a job's .err and .out, srun's report of a task's exit code): every log
    # held out, collected and read by eye before any parser ran on it; vLLM only
    "gpu-logs-94": {"vllm": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-95 (logs95, issue 42's round gpu-logs-95, status traps of 2025-2026: healthy starts whose log carries
    # error-looking lines - a worker's UserWarning, UCX's WARN, Gloo's peer checks - and starts that look up line by
    # line but had not served or died - /health, /metrics and /health_generate answered, throughput lines of a hung
    # server, a harness's timeout): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-95": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": tuple(f"{n:02d}" for n in range(1, 5))},
    # gpu-logs-98 (logs98, issue 42's round gpu-logs-98, sources not mined before, 2024-2026: Pastebin pastes with
    # their numbered lines (a compose column and a glued progress bar, double-spaced lines, Cloudflare's obfuscated
    # prompt, RunPod's log view newest first), Hugging Face Hub discussions and repository log files shown as table
    # cells, a kernel OOM killer line): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-98": {"vllm": tuple(f"{n:02d}" for n in range(1, 9)), "sglang": ("01",)},
    # gpu-logs-97 (logs97, issue 42's round gpu-logs-97, pools set by a flag rather than a memory fraction, 2025-2026:
    # num_gpu_blocks_override logged and ignored, set by tpu-inference for its kernel's page, set to one block;
    # kv_cache_memory_bytes on XPU and in a harness's report; CPU offload's pool too small for the context; a 10M-token
    # context before auto-fit; a draft runner's max_total_tokens above a negative profile): every log held out,
    # collected and read by eye before any parser ran on it
    # (vllm 10-11: a second batch - a fork's notes quoting two auto-fit boots, one line broken by its author -
    # collected after the first read, committed before its read, read once)
    "gpu-logs-97": {"vllm": tuple(f"{n:02d}" for n in range(1, 12)), "sglang": ("01",)},
    # gpu-logs-96 (logs96, issue 42's round gpu-logs-96, hybrid and state-space models' starts, 2025-2026: Kimi
    # Linear's KDA/MLA pool with a padding layer, Granite 4.0-H and Nemotron-H pages aligned to the mamba page, a
    # Qwen3-Next start refused in vllm-ascend's mamba-config patch, a GPU hang after the alignment, SGLang's state
    # pool too small for one request quoted in a comment and a cap of 0 beside a table of other runs' pools): every
    # log held out, collected and read by eye before any parser ran on it (vllm 06: a second batch, a Qwen3-Next start
    # on vllm-ascend 0.13.0 failing in its graph capture after the pool, collected after this round's rules, read once)
    "gpu-logs-96": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01", "02")},
    # gpu-logs-100 (logs100, issue 42's round gpu-logs-100, out-of-tree platforms and plugins, 2025-2026: vllm-metal's
    # KV budget ValueError with its figures on indented lines and an author-elided non-paged start on Apple Silicon,
    # Tenstorrent's KV cache allocation bar glued to tt-metal's DRAM out-of-memory, and two DRAM OOMs at a prefill
    # under the V0 engine's engine.py lines): every log held out, collected and read by eye before any parser ran on
    # it; vLLM only (no SGLang log on these platforms was found that no earlier set holds in the first batch)
    # (vllm 06: a second batch, a vllm-metal stdout file kept in a repository, collected after the first read and the
    # fix, committed before its read, read once)
    "gpu-logs-100": {"vllm": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-105 (logs105, issue 42's round gpu-logs-105, pipeline-parallel starts, 2025-2026: stages across two
    # Ray nodes with one KV pair for all of them and a non-zero rank's memory lines, eight stages' graph lines beside
    # the engine's pair, a two-node PP2 x TP8 Ascend start refused by Ray's placement, a V0 PP16 start's stage-0
    # weights before the CLI's traceback, SGLang's four stages each printing the pool and their own 'Memory pool end'):
    # every log held out, collected and read by eye before any parser ran on it
    # (vllm 05-06: a second batch - two descriptions flattened onto one line by an issue wiki, their non-default args
    # naming the pipeline size - collected after the first read and the fix, committed before its read, read once)
    "gpu-logs-105": {"vllm": ("01", "02", "03", "04", "05", "06"), "sglang": ("01",)},
    # gpu-logs-99 (logs99, issue 42's round gpu-logs-99, the largest mixture-of-experts starts of 2025-2026 with expert
    # and data parallelism: Qwen3-235B on 16 Ascend ranks failing in its profiling run after the ranks' expert maps,
    # DeepSeek-V3.1 w8a8 on eight ranks failing in Dynamo's compile with two ranks' tracebacks interleaved,
    # DeepSeek-V3.2's sparse-attention decode failing at serving time under a DP3/EP13 worker, a DCP prefill node's
    # pool, three DP/EP ranks' graph-profiling notices, an EPLB start failure): every log held out, collected and read
    # by eye before any parser ran on it; vLLM only
    # (vllm 07-08: a second batch - a blockquoted 16-rank Qwen3-235B start failing in its profiling run, GLM-4.7's
    # ACL graph capture failing on four interleaved ranks and two DP engine cores - collected after the first read,
    # committed before its read, read once)
    "gpu-logs-99": {"vllm": tuple(f"{n:02d}" for n in range(1, 9))},
    # gpu-logs-102 (logs102, issue 42's round gpu-logs-102, the engines' own developers' before/after logs in
    # pull-request descriptions and comments, 2025-2026: V1's short-lived '# GPU blocks' line beside the token count
    # that replaced it, a start before a logging change, two API servers refused by the Hub's repo-id validator before
    # any engine line (one under the 0.19 banner) beside the start the fix allowed, SGLang's piecewise-CUDA-graph runs
    # on four ranks and on a B200): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-102": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01", "02")},
    # gpu-logs-103 (logs103, issue 42's round gpu-logs-103, Blackwell-class cards and FP4 checkpoints, 2025-2026: a
    # DGX Spark start that falls back to Marlin for its NVFP4 layers and serves, an SM120 start under WSL2 whose
    # FlashInfer FP4 GEMM autotune prints TMA descriptor errors and then fails the engine core after the pool, an RTX
    # 5070 Ti write-up's key lines with the KV figures joined, Jetson Thor cut in the load, an RTX PRO 6000 probe's
    # prefixless messages; SGLang's trimmed RTX PRO 6000 NVFP4 lines and a B200 pool beside the CUTLASS/TMA notice):
    # every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-103": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": ("01", "02")},
    # gpu-logs-104 (logs104, issue 42's round gpu-logs-104, forks and derived engines that keep vLLM's or SGLang's
    # lines but change them: a local-inference-lab vLLM fork build with decode context parallelism and an MTP drafter,
    # Aphrodite Engine 0.4.2 quoted in LangChain's docs (one window translated into Chinese by the docs' translators),
    # a patched SGLang vendor container's start summarized by its author): every log held out, collected and read by
    # eye, committed before any parser read it
    "gpu-logs-104": {"vllm": tuple(f"{n:02d}" for n in range(1, 5)), "sglang": ("01",)},
    # gpu-logs-109 (logs109, issue 42's round gpu-logs-109, audio and speech models, 2025-2026: Voxtral Mini 4B
    # Realtime under docker compose beside other services' lines, Orpheus TTS refused by V0's max-seq-len check behind
    # a Flask app, a Whisper benchmark's key lines, two Qwen3-Omni stage windows of vllm-omni (a '(process-scoped)'
    # KV memory line, a talker's encoder budget), Higgs Audio's fork cut before its exception): every log held out,
    # collected and read by eye before any parser ran on it; vLLM only (no SGLang audio start was found that the
    # sources hold whole)
    # (vllm 07: a second batch - Step-Audio2's stage 0 refused for 0.0 GiB of KV memory on an L4, the author's key
    # lines - collected after the first read, committed before its read, read once)
    "gpu-logs-109": {"vllm": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-111 (logs111, issue 42's round gpu-logs-111, starts on Windows, 2026: ROCm under WSL2 without amdsmi
    # behind a shell prompt and its engine core's pin_memory=False warning, throughput lines quoted in
    # markdown from Rancher Desktop's /dev/dxg passthrough, a WSL2 RTX 5090 Laptop's arguments line broken at 1,000
    # characters, SystemPanic's native Windows build failing on an illegal memory access in a pipeline-parallel
    # worker): every log held out, collected and read by eye before any parser ran on it; vLLM only (no SGLang log of
    # the vein was found that no earlier set holds)
    # (vllm 06, 07: a second batch - two Docker Desktop container logs of one author's WSL2 runs behind the log view's
    # stamps, refused for 0.47 GiB of KV memory and out of memory in the CUDA-graph profiling's minimal KV cache -
    # collected after the first read, committed before its read, read once)
    "gpu-logs-111": {"vllm": tuple(f"{n:02d}" for n in range(1, 8))},
    # gpu-logs-112 (logs112, issue 42's round gpu-logs-112, vLLM's disaggregated prefill/decode deployments, 2025-2026:
    # a NIXL handshake's engine id mismatch on a DP/EP decode worker, vllm-ascend's MooncakeConnector debug lines
    # around a throughput line, the output handler failing in the KV connector's metrics, a Mooncake hybrid
    # connector's transfer failure before a '200 OK', a production-stack prefill pod with LMCache over NIXL, a
    # heterogeneous P/D's NIXL transfer failure on an XPU decode): every log held out, collected and read by eye
    # before any parser ran on it; vLLM only (SGLang's P/D is gpu-logs-38's vein)
    "gpu-logs-112": {"vllm": tuple(f"{n:02d}" for n in range(1, 7))},
    # gpu-logs-108 (logs108, issue 42's round gpu-logs-108, checkpoints quantized at load or outside safetensors,
    # 2025-2026: bitsandbytes in-flight under vLLM 0.18.0 in a kubectl session (the 'GiB memory and' weights line), a
    # pre-quantized bitsandbytes start under Unsloth's V0 engine beside its banner estimate, an in-flight bitsandbytes
    # reranker whose engine core dies after the load, a bitsandbytes version ImportError, V0's three bitsandbytes
    # lines): every log held out, collected and read by eye before any parser ran on it; vLLM only in the first batch
    # (no SGLang log in the vein was found then that no earlier set holds)
    # (vllm 06, sglang 01: a second batch - an in-flight bitsandbytes vision start under Unsloth broken by the terminal
    # at 126 characters that fails in its profiling run, SGLang's online FP8 Grok-2 on eight H100s - collected after
    # the first read, committed before its read, read once)
    "gpu-logs-108": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01",)},
    # gpu-logs-106 (logs106, issue 42's round gpu-logs-106, vLLM's CPU backend, 2025-2026: an Apple-silicon build's
    # start-up memory check and KV-allocation refusal with its negative KV figure, the same build's 'Auto set ... GiB
    # for KV cache on node 0' start behind a shell prompt, an offline LLM() in a lab VM under c10's NUMA MEMBIND
    # warning, IBM Z's thread-binding lines alone, an M3's annotated key lines and its start-up check broken over two
    # lines by the author): every log held out, collected and read by eye before any parser ran on it; vLLM only (no
    # SGLang CPU log was found that no earlier set holds)
    # (vllm 08-12: a second batch - an arm64 image's two key lines, a Rust doc comment's two quoted lines, a hybrid
    # model's config checks under the default KV space warning, a container-stamped page-size error - collected after
    # the first read and the fix, committed before its read, read once)
    "gpu-logs-106": {"vllm": tuple(f"{n:02d}" for n in range(1, 13))},
    # gpu-logs-107 (logs107, issue 42's round gpu-logs-107, what happens to the pool after the start, 2025: vLLM's sleep
    # mode - V0 and V1 workers' 'Sleep mode freed' lines, the allocator's freed/backed-up/discarded split, a level-2
    # sleep with its weights reloaded in place, eight engines woken by tag under ms-swift's own log format, a V0 memory
    # profile beside DeepSpeed's memory lines - and AReaL's weight updates of SGLang servers with requests running
    # before a scheduler exception): every log held out, collected and read by eye before any parser ran on it
    "gpu-logs-107": {"vllm": tuple(f"{n:02d}" for n in range(1, 6)), "sglang": ("01", "02")},
    # gpu-logs-110 (logs110, issue 42's round gpu-logs-110, starts on a slice or a share of a card, 2025-2026: vLLM's
    # memory-profiling assertion on a HAMi vGPU slice, beside a co-tenant on an H100 NVL and in time-sliced packs on
    # Modal, the free-memory check on a card another serving lane holds, vllm-ascend's key lines from a HAMi soft-slice
    # report, a second container's engine left no KV memory on one card): every log held out, collected and read by
    # eye before any parser ran on it; vLLM only in the first batch
    # (sglang 01: a second batch - SGLang's launch traceback on an H100 MIG slice in Kubernetes, cut before nvidia-smi's
    # exception - collected after the first read and the fixes, committed before its read, read once)
    "gpu-logs-110": {"vllm": tuple(f"{n:02d}" for n in range(1, 7)), "sglang": ("01",)},
    # gpu-logs-114 (logs114, issue 42's round gpu-logs-114, engines started by a deployment tool that prints its own
    # lines around them, 2025: GPUStack's key lines trimmed by an author to '[stamp] [file:N]' with trailing spaces,
    # GPUStack's own 'ERROR - Failed to derive max model length' before it starts vLLM 0.11.0, the same log's load
    # and its 'Application startup complete.' while the tool shows 'Starting', GPUStack's resource-fit estimate of
    # 3.68 GiB of VRAM beside pipx's install lines): every log held out, collected and read by eye before any parser
    # ran on it; vLLM only (no SGLang log of the vein was found that no earlier set holds)
    "gpu-logs-114": {"vllm": tuple(f"{n:02d}" for n in range(1, 6))},
    # gpu-logs-113 (logs113, issue 42's round gpu-logs-113, starts whose KV cache is not the model's dtype, 2026: an
    # fp8 cache on an FP8-dynamic checkpoint in NGC 26.01 with kv_cache.py's scale-1.0 warnings, the 2026 'Using
    # fp8_e4m3 data type' wording before a negative KV figure under Docker Desktop's stamps, an author's five key lines
    # of an fp8_e5m2 start with the KV size and concurrency lines joined): every log held out, collected and read by
    # eye before any parser ran on it; vLLM only (no SGLang log of the vein was found that no earlier set holds)
    "gpu-logs-113": {"vllm": ("01", "02", "03")},
}


def _pools(kind: str) -> Callable:
    return lambda r: [p for p in r.kv_pools if p.kind == kind]


def _data(key: str) -> Callable:
    return lambda r: r.error_data.get(key)


def _first(*getters: Callable) -> Callable:
    def read(record):
        for get in getters:
            value = get(record)
            if value is not None:
                return value
        return None
    return read


def _attr(name: str) -> Callable:
    return lambda r: getattr(r, name, None)


# expected.json name -> where the record holds it (the same name when absent here)
EXPECTED_READERS: dict[str, Callable] = {
    "tokens_per_request": _attr("max_model_len"),
    # SGLang's watchdog figure, which the parser keeps with its error (parsers/sglang.py's watchdog_timeout rules)
    "watchdog_timeout_s": _data("watchdog_timeout_s"),
    "available_kv_gib": _attr("kv_gib"),
    "weights_gb": _attr("weights_gib"),
    "avail_mem_before_load_gb": _attr("avail_mem_before_load_gib"),
    "avail_mem_before_load_gb_tp0": _attr("avail_mem_before_load_gib"),
    "avail_mem_after_load_gb": _attr("avail_mem_after_load_gib"),
    "avail_mem_after_pool_gb": _attr("avail_mem_after_pool_gib"),
    "available_gpu_mem_gb": _attr("available_mem_gib"),
    "chunked_prefill_size": _attr("chunked_prefill_size_effective"),
    "mem_fraction_static": _first(_attr("mem_fraction_static_effective"), _data("mem_fraction_static_effective")),
    "mem_fraction_static_derived": _attr("mem_fraction_static_derived"),
    "page_size": _attr("block_size"),
    "cuda_graph_gb": _attr("cuda_graph_gib"),
    "cuda_graph_max_bs": _attr("cuda_graph_decode_max_bs"),
    "torch_compile_seconds": _attr("compilation_seconds"),
    "k_size_gb": _attr("k_gib"),
    "v_size_gb": _attr("v_gib"),
    "target_k_size_gb": _attr("k_gib"),
    "target_v_size_gb": _attr("v_gib"),
    "draft_k_size_gb": _attr("draft_k_gib"),
    "draft_v_size_gb": _attr("draft_v_gib"),
    "avail_mem_after_target_pool_gb": _attr("avail_mem_after_pool_gib"),
    "avail_mem_after_draft_pool_gb": _attr("avail_mem_after_draft_pool_gib"),
    "avail_after_graph_gb": _attr("avail_mem_after_graph_gib"),
    "kv_size_gb": _attr("kv_gib"),
    "target_kv_gib": lambda r: _sum_gib([p for p in r.kv_pools if p.kind not in (POOL_DRAFT, POOL_STATE)]),
    "draft_kv_gib": _attr("draft_kv_gib"),
    "draft_weights_gb": _attr("draft_weights_gib"),
    "draft_avail_mem_before_load_gb": _attr("draft_avail_mem_before_load_gib"),
    "draft_avail_mem_after_load_gb": _attr("draft_avail_mem_after_load_gib"),
    "swa_kv_pool_mem_usage_gb": _attr("kv_gib"),
    "mamba_ssm_state_gb": _attr("state_ssm_gib"),
    "mamba_conv_state_gb": _attr("state_conv_gib"),
    "max_mamba_cache_size": _first(_attr("state_pool_slots"), _data("max_mamba_cache_size")),
    "kv_tokens_lines": lambda r: [p.tokens for p in _pools(POOL_WORKER)(r)] or None,
    "max_concurrency_lines": _attr("max_concurrency_lines"),
    "available_kv_gib_lines": _attr("kv_gib_lines"),
    "full_layer_tokens": _attr("pool_tokens"),
    "swa_layer_tokens": _attr("swa_pool_tokens"),
    "configured_max_model_len": _first(_attr("configured_max_model_len"), _attr("max_model_len")),
    "second_pool_tokens": lambda r: _second(r, "tokens"),
    "second_pool_kv_gib": lambda r: _second(r, "gib"),
    "pool1_kv_gib": lambda r: _nth(r, 0, "gib"),
    "pool2_kv_gib": lambda r: _nth(r, 1, "gib"),
    "mem_fraction_static_profiling_line": _attr("profile_mem_fraction_static"),
    "available_gpu_memory_gb": _attr("profile_available_gib"),
    "total_gpu_memory_gb": _attr("profile_total_gib"),
    "rest_memory_gb": _attr("profile_rest_gib"),
    "oom_tried_gib": _data("tried_gib"),
    "total_gib": _first(_data("total_gib"), _attr("total_memory_gib")),
    "free_gib": _first(_data("free_gib"), _attr("initial_free_gib")),
    "requested_gib": _first(_data("requested_gib"), _attr("requested_memory_gib")),
    "utilization": _data("utilization"),
    "device_id": _data("device_id"),
    "needed_gib": _data("needed_gib"),
    "available_gib": _data("available_gib"),
    # the CPU worker's KV share of its budget at the allocation, "requested memory for kv (-0.39/3.6 GiB)" (0.26.0
    # vllm/v1/worker/cpu_worker.py:224-238; parsers/vllm.py's cpu_kv_cache_above_available rule keeps it, gpu-logs-106
    # vllm/02)
    "requested_kv_gib": _data("requested_kv_gib"),
    # the free memory after the profile run in vLLM's memory-profiling assertion, "Error in memory profiling. Initial
    # free memory 82.94 GiB, current free memory 90.17 GiB." (0.20.0 vllm/v1/worker/gpu_worker.py:412-419; parsers/
    # vllm.py's memory_profiling_error rule keeps it, gpu-logs-110 vllm/01-03); the initial figure is free_gib's
    "current_free_gib": _data("current_free_gib"),
    "max_num_seqs": _data("max_num_seqs"),
    "mamba_cache_blocks": _data("mamba_cache_blocks"),
    "current_kv_cache_gib": _attr("current_kv_cache_gib"),
    # gpu-logs-5's names for facts the record holds under its own: tpu-inference's "Memory statistics" line (the
    # capped limit, the HBM used, the HBM left for the KV cache) and DeepSeek V4's memory calculation line
    "hbm_limit_cap_gib": _attr("requested_memory_gib"),
    "hbm_used_gib": _attr("non_kv_gib"),
    "hbm_avail_gib": _attr("kv_gib"),
    "dsv4_available_gib": _attr("pool_budget_gib"),
    "dsv4_bytes_per_full_token": _attr("cell_bytes"),
}
# What a person wrote for an error kind -> the parser's kinds that mean it. "During CUDA graph capture" is an
# exception of kind other with the phase at capturing (the record says both).
ERROR_KINDS = {
    # (oom_loading_weights: vLLM's own error around the CUDA OOM of a weights load, which it outranks)
    "oom": ("cuda_oom", "device_oom", "oom_loading_weights"),
    "max_num_seqs_exceeds_mamba_cache_blocks": ("mamba_blocks_below_max_num_seqs",),
    "max_model_len_too_large (V0 wording)": ("max_model_len_too_large",),
    "negative_available_kv_memory": ("no_kv_cache_memory",),
    "kv_cache_space_above_free_memory": ("cpu_kv_cache_above_available",),
    "mamba_state_cache_too_small": ("state_pool_too_small",),
}
CAPTURE_FAILURES = ("exception_during_cuda_graph_capture", "worker_exception_during_cuda_graph_capture")
# A failure of the warm-up request SGLang sends itself once its HTTP server is up: a failed start, raised during warmup.
WARMUP_FAILURES = ("exception_in_warmup_prefill",)
# Keys that are notes, not values read from a line.
NOT_VALUES = {"ready", "error", "mem_fraction_static_note", "status", "no_pool"}
# The pool kinds that are the device's KV pool (a draft's pool and a recurrent state are not).
DEVICE_POOLS = (POOL_KV, POOL_FULL, POOL_SWA, POOL_WORKER)


def _sum_gib(pools) -> float | None:
    known = [p.gib for p in pools if p.gib is not None]
    return round(sum(known), 2) if known else None


def _nth(record, index: int, what: str):
    pools = [p for p in record.kv_pools if p.kind != POOL_STATE]
    return getattr(pools[index], what) if len(pools) > index else None


def _second(record, what: str):
    pools = [p for p in record.kv_pools if p.kind in (POOL_SWA, POOL_DRAFT)] or [
        p for p in record.kv_pools if p.kind != POOL_STATE][1:]
    return getattr(pools[0], what) if pools else None


UNKNOWN = "unknown"


def expected_status(value) -> str | None:
    """A person's status note -> the parser's status: "ok (summary line reached, ...)" is ok; "unknown (...)": the
    excerpt ends before the start is decided, so the record must say no status (None)."""
    if value is None or str(value).startswith(UNKNOWN):
        return None
    return STATUS_OK if str(value).startswith(STATUS_OK) else STATUS_ENGINE_ERROR


@dataclass
class Score:
    fields: int = 0
    fields_right: int = 0
    kv: int = 0
    kv_right: int = 0
    statuses: int = 0
    statuses_right: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("fields", "fields_right", "kv", "kv_right", "statuses", "statuses_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses.extend(other.misses)

    def text(self) -> str:
        pct = 100.0 * self.fields_right / self.fields if self.fields else 100.0
        return (f"fields {self.fields_right}/{self.fields} ({pct:.0f} %), KV counts {self.kv_right}/{self.kv}, "
                f"statuses {self.statuses_right}/{self.statuses}")


def same(expected, got) -> bool:
    if isinstance(expected, float) or isinstance(got, float):
        try:
            return math.isclose(float(expected), float(got), abs_tol=0.0051)
        except (TypeError, ValueError):
            return False
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(same(e, g) for e, g in zip(expected, got))
    return expected == got


def _error_kind_right(expected: str, record) -> bool:
    if expected in CAPTURE_FAILURES:
        return record.status == STATUS_ENGINE_ERROR and "cuda_graph_capture" in (record.failed_during,
                                                                                  record.phase and "cuda_graph_"
                                                                                  + record.phase.replace("ing", "e"))
    if expected in WARMUP_FAILURES:
        return record.status == STATUS_ENGINE_ERROR and record.failed_during == "warmup"
    if expected.startswith("not shown"):
        return record.error_kind == "other"
    return record.error_kind in ERROR_KINDS.get(expected, (expected,))


def score_log(name: str, entry: dict, record) -> Score:
    score = Score()
    values = entry["expected"]
    if "status" in values:
        score.statuses = 1
        want = expected_status(values["status"])
        if record.status == want:
            score.statuses_right = 1
        else:
            score.misses.append(f"{name}: status {record.status!r}, read {want!r}")
    if values.get("no_pool"):
        score.add(_no_pool(name, record))
    for key, want in values.items():
        if key in NOT_VALUES or (want is None and key != "estimated_max_model_len"):
            continue
        score.fields += 1
        if key == "error_kind":
            right = _error_kind_right(str(want), record)
            got = record.error_kind
        else:
            got = EXPECTED_READERS.get(key, _attr(key))(record)
            right = same(want, got)
        if key == "kv_tokens":
            score.kv, score.kv_right = 1, int(right)
        if right:
            score.fields_right += 1
        else:
            score.misses.append(f"{name}: {key} {got!r}, read {want!r}")
    return score


def _no_pool(name: str, record) -> Score:
    """A log whose pool-like lines are not the device pool (host memory, a refused size): one field, right when the
    record states no device pool at all."""
    pools = [p for p in record.kv_pools if p.kind in DEVICE_POOLS]
    right = record.kv_tokens is None and record.kv_gib is None and not pools
    miss = f"{name}: a trap line read as the pool ({record.kv_tokens}, {record.kv_gib})"
    return Score(fields=1, fields_right=int(right), misses=[] if right else [miss])


def fixture_log(prefix: str) -> Path:
    """The one GPU-set log a "set/engine/NN-" prefix names ("gpu-logs-29/sglang/01-")."""
    folder, stem = prefix.rsplit("/", 1)
    (path,) = sorted((FIXTURES / folder).glob(f"{stem}*.log"))
    return path


def entries(set_name: str, engine: str, held_out: bool | None = None) -> list[tuple[str, dict, Path]]:
    """(file name, expected entry, log path) of one set; `held_out` True/False: only those / none of those."""
    folder = FIXTURES / set_name / engine
    if not (folder / "expected.json").exists():  # a set of one engine's logs (gpu-logs-37: vLLM only)
        return []
    data = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    out = []
    for name, entry in data.items():
        out_of_sample = name[:2] in HELD_OUT.get(set_name, {}).get(engine, ())
        if held_out is not None and out_of_sample != held_out:
            continue
        if (folder / name).exists():
            out.append((name, entry, folder / name))
    return out


def score_set(set_name: str, engine: str, held_out: bool | None = None) -> dict[str, Score]:
    """Per log, its score."""
    return {name: score_log(name, entry, parse_log(read_log(path), engine))
            for name, entry, path in entries(set_name, engine, held_out)}


# Each log of the second set by what is special about it (from the set's README index alone, before reading it):
# backend = a backend beyond CUDA, wrapper = how it was captured or shown, fatal = a failed start, pools = a newer
# or several pools, trap = a line that looks like another fact, ranks = several ranks' figures, plain = none of these.
CLASSES = {
    "vllm": {"01": "wrapper", "02": "pools", "03": "ranks", "04": "trap", "05": "backend", "06": "fatal",
             "07": "wrapper", "08": "wrapper", "09": "wrapper", "10": "wrapper", "11": "fatal", "12": "wrapper",
             "13": "backend", "14": "fatal", "15": "backend", "16": "fatal", "17": "fatal", "18": "trap",
             "19": "backend", "20": "backend"},
    "sglang": {"01": "pools", "02": "fatal", "03": "wrapper", "04": "pools", "05": "wrapper", "06": "wrapper",
               "07": "pools", "08": "pools", "09": "pools", "10": "fatal", "11": "plain", "12": "fatal",
               "13": "fatal", "14": "wrapper", "15": "pools", "16": "fatal", "17": "wrapper", "18": "plain",
               "19": "backend", "20": "fatal"},
}


def by_class(set_name: str, engine: str, scores: dict[str, Score]) -> dict[str, Score]:
    """Per class, the set's scores: gpu-logs-2's from CLASSES, a later set's from each entry's own "class"."""
    if set_name == "gpu-logs-2":
        classes = CLASSES[engine]
    else:
        classes = {name[:2]: entry.get("class", "plain") for name, entry, _ in entries(set_name, engine)}
    out: dict[str, Score] = {}
    for name, score in scores.items():
        out.setdefault(classes.get(name[:2], "plain"), Score()).add(score)
    return out


def main() -> None:
    """Print every set's figures, the second set's per class, in sample and held out apart."""
    for set_name in SETS:
        for engine in ("vllm", "sglang"):
            groups = [None] if set_name not in HELD_OUT else [False, True]
            for held_out in groups:
                scores = score_set(set_name, engine, held_out)
                total = Score()
                for score in scores.values():
                    total.add(score)
                label = "" if held_out is None else " held out" if held_out else " in sample"
                print(f"{set_name} {engine}{label}: {total.text()}")
                if set_name in HELD_OUT:
                    for cls, score in sorted(by_class(set_name, engine, scores).items()):
                        print(f"    {cls}: {score.text()}")
                for miss in total.misses:
                    print(f"    miss {miss[:200]}")


if __name__ == "__main__":
    main()
