"""What every engine provides: the `Engine` base class the stages talk to instead of naming an engine."""

from __future__ import annotations

import inspect
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from harness.engines import cli_flags, releases
from harness.engines.knobs import Knob
from harness.engines.releases import ReleaseNote, ReleaseRange

if TYPE_CHECKING:
    from parsers.base import LogParser
    from parsers.record import StartupRecord

    from harness.engines.install import InstallSteps, Recipe
    from harness.predict.host import DeviceMemory, HostMemory
    from harness.predict.model import ModelDescription
    from harness.predict import Calibration, Prediction
    from harness.engines.settings import Settings

@dataclass(frozen=True)
class Column:
    """One column of the `predict` table: its header and the Prediction attribute it shows."""

    header: str
    attr: str
    digits: int = 2


# The harness picks the port, binds to loopback and names the model, for every engine.
HARNESS_OWNED_FLAGS = frozenset({"host", "port", "model", "model_path"})


class Engine(ABC):
    """One inference engine: how to start it, read it, install it, and predict what it allocates.

    Subclasses live in `harness/engines/<name>/` and are found through `engines/registry.py`.
    Class attributes are the engine's facts; methods with a default do what most engines do.
    """

    name: ClassVar[str]
    # Flags a memory sweep plausibly names: valid even when no bundled --help list is there.
    curated_flags: ClassVar[frozenset[str]] = frozenset()
    # The flags whose values the harness reads; each value is parsed once into its type.
    knobs: ClassVar[Mapping[str, Knob]] = {}
    # The scenario's engine-neutral `defaults` names -> this engine's flag (max_model_len -> ...).
    aliases: ClassVar[Mapping[str, str]] = {}
    # Flags the harness sets itself; a scenario that names one is refused.
    owned_flags: ClassVar[frozenset[str]] = HARNESS_OWNED_FLAGS
    readiness_path: ClassVar[str] = "/health"
    # The highest --port the engine accepts: some derive other ports from it (port + offset).
    highest_port: ClassVar[int] = 65535
    # Flags that multiply the GPUs one launch takes (tensor, pipeline, data parallel), by native name.
    tp_flags: ClassVar[tuple[str, ...]] = ()
    pp_flags: ClassVar[tuple[str, ...]] = ()
    dp_flags: ClassVar[tuple[str, ...]] = ()
    # The module an interpreter must import for this engine, and the distributions whose versions matter.
    module: ClassVar[str | None] = None
    probe_dists: ClassVar[tuple[str, ...]] = ("torch",)
    # Effective settings the engine reports that `compare` checks next to the KV figures.
    effective_columns: ClassVar[tuple[str, ...]] = ()
    # Calibration: the prediction attribute the fitted overhead grows with (None: a constant),
    # and whether the logged KV GiB is the measured size (else tokens x bytes per token).
    calibration_axis: ClassVar[str | None] = None
    measured_kv_from_gib: ClassVar[bool] = False
    # What `predict` prints for this engine's points: settings before the KV columns, results after.
    prediction_settings_columns: ClassVar[tuple[Column, ...]] = ()
    prediction_result_columns: ClassVar[tuple[Column, ...]] = ()
    # Releases: the distribution whose versions on the package index are this engine's releases, the
    # one a CPU-only host installs when that is another (None: the same), and the releases the
    # budget formulas are sourced for (None: every release).
    index_distribution: ClassVar[str | None] = None
    cpu_distribution: ClassVar[str | None] = None
    predicted_releases: ClassVar[ReleaseRange | None] = None
    # Where the CPU backend's formulas hold for other releases than the GPU's (None: the same).
    predicted_releases_cpu: ClassVar[ReleaseRange | None] = None
    # The server's CLI entry point for reading its flags: "module:function" or a module run as
    # __main__, and the argv it sees.
    help_entry: ClassVar[tuple[str, tuple[str, ...]]] = ("", ())
    # `advise`: the knob that sizes the pool (a fraction of the device), the batch knob whose
    # activation reserve competes with it, the highest fraction it will propose without a
    # headroom given, and the startup errors that mean "too little KV" (raise the fraction; any
    # other failure means the setting asked for too much).
    fraction_knob: ClassVar[str | None] = None
    batch_knob: ClassVar[str | None] = None
    batch_steps: ClassVar[tuple[int, ...]] = ()
    fraction_ceiling: ClassVar[float] = 0.98
    # the engine's own default fraction keeps back what its activations need: never propose above it
    default_fraction_is_safe: ClassVar[bool] = False
    kv_shortfall_errors: ClassVar[frozenset[str]] = frozenset()

    # ---- flags ------------------------------------------------------------------------------

    def native_name(self, key: str) -> str:
        return self.aliases.get(key, key)

    def knob_for(self, key: str) -> Knob | None:
        return self.knobs.get(self.native_name(key))

    def owns(self, key: str) -> bool:
        # `--host`, `host` and `--host=0.0.0.0` are all the harness's --host.
        return self.native_name(key.lstrip("-").split("=", 1)[0].replace("-", "_")) in self.owned_flags

    @classmethod
    def package_dir(cls) -> Path:
        return Path(inspect.getfile(cls)).resolve().parent

    def flags_dir(self) -> Path:
        """Bundled `--help` flag lists, one `<version>.txt` per release."""
        return self.package_dir() / "flags"

    def bundled_flags(self, version: str | None) -> tuple[str | None, frozenset[str]]:
        """(the release whose list is used, its flags): the release's own list, else the nearest older one."""
        return cli_flags.bundled_list(self.flags_dir(), version)

    def flag_releases(self) -> list[str]:
        """Releases with a bundled flag list, oldest first."""
        return cli_flags.bundled_versions(self.flags_dir())

    def flag_list_version(self, version: str | None) -> str | None:
        return self.bundled_flags(version)[0]

    def known_flags(self, version: str | None) -> frozenset[str]:
        """Curated flags, aliases, and the release's real CLI flags (its bundled list, else the newest)."""
        return self.curated_flags | frozenset(self.aliases) | self.bundled_flags(version)[1]

    def flag_name(self, key: str) -> str:
        """`max_num_batched_tokens` -> `--max-num-batched-tokens` (an engine with other spellings overrides)."""
        return "--" + key.replace("_", "-")

    def render_flags(self, args: Mapping[str, Any], version: str | None = None) -> list[str]:
        """Engine argv for resolved args: None = not passed, True = bare flag, False = the release's off form.

        `false` is passed as the release's negative spelling (`--no-enable-x`, or `--disable-x` where the
        release renamed it), so a switch whose default is on really goes off; a switch the release has no
        off form for is left out (its default is off). `version` picks the release's flag list
        (None: the newest bundled one).
        """
        argv: list[str] = []
        flags: frozenset[str] | None = None
        for key in sorted(args):
            value = args[key]
            if value is None:
                continue
            if value is False:
                if key.startswith("--"):
                    continue
                if flags is None:
                    flags = self.bundled_flags(version)[1]
                off = cli_flags.negative_form(key, flags)
                if off is not None:
                    argv.append(self.flag_name(off))
                continue
            if key.startswith("--"):  # verbatim pass-through: the scenario spelled the flag itself
                argv.append(key)
                if value is not True:
                    argv.append(str(value))
                continue
            argv.append(self.flag_name(key))
            if value is True:
                continue
            if isinstance(value, (list, tuple)):
                argv.extend(str(v) for v in value)
            elif isinstance(value, dict):
                argv.append(json.dumps(value, separators=(",", ":"), sort_keys=True))
            else:
                argv.append(str(value))
        return argv

    # ---- releases ---------------------------------------------------------------------------

    def index_name(self) -> str:
        return self.index_distribution or self.name

    def known_releases(self) -> set[str]:
        """Releases the harness holds data for (a bundled flag list): known to exist without asking the index."""
        return set(self.flag_releases())

    def flag_list_note(self, version: str) -> str | None:
        """One line when the release has no bundled flag list of its own: which list stands in, how to add it."""
        used = self.flag_list_version(version)
        if used is None:
            return f"{self.name} {version}: no bundled flag list; only the curated flags are checked"
        if used == releases.base_version(version):
            return None
        newest = self.flag_releases()[-1]
        where = (f"newest {newest}" if used == newest else
                 f"oldest {used}" if releases.version_key(version) < releases.version_key(used) else
                 f"nearest older {used}")
        return (f"{self.name} {version}: no bundled flag list ({where}); flags checked against {used}'s; "
                f"add it with: python -m harness envs flags {self.name}=={releases.base_version(version)} --write")

    def index_note(self, version: str) -> ReleaseNote | None:
        """An error when the release is not on the package index; a warning when the index cannot be asked."""
        if releases.base_version(version) in self.known_releases():
            return None
        found = releases.index_versions(self.index_name())
        if found is None:
            return ReleaseNote("warning", f"{self.name} {version}: could not ask the package index whether "
                                          f"{self.index_name()} {version} exists")
        if releases.base_version(version) in {releases.base_version(v) for v in found}:
            return None
        newest = releases.newest(found)
        return ReleaseNote("error", f"{self.name} {version} is not a release of {self.index_name()} on the package "
                                    f"index" + (f" (newest: {newest})" if newest else ""))

    def release_note(self, version: str, host_has_gpu: bool) -> str | None:
        """One line when this host cannot run the release at all (no build for it here), else None."""
        if host_has_gpu or self.cpu_distribution is None:
            return None
        found = releases.index_versions(self.cpu_distribution)
        if found is None or releases.base_version(version) in {releases.base_version(v) for v in found}:
            return None
        newest = releases.newest(found)
        return (f"{self.name} {version}: no {self.cpu_distribution} build of this release (newest "
                f"{self.cpu_distribution}: {newest or 'none'}); {self.name} {version} needs a GPU host")

    def predicted_range(self, device: str | None) -> ReleaseRange | None:
        """The releases the formulas hold for on `device` (None: on any device the engine runs on)."""
        cpu = self.predicted_releases_cpu
        if device == "cpu" and cpu is not None:
            return cpu
        gpu = self.predicted_releases
        if device is None and cpu is not None and gpu is not None and cpu.first and gpu.first:
            # the union, for a note that cannot know the device (the two ranges end alike)
            return ReleaseRange(min(cpu.first, gpu.first, key=releases.version_key), gpu.before)
        return gpu

    def predictor_note(self, version: str | None, device: str | None = None) -> str | None:
        """One line when the budget formulas are not sourced for this release (predict prints no numbers)."""
        releases = self.predicted_range(device)
        if version is None or releases is None or version in releases:
            return None
        cpu, gpu = self.predicted_releases_cpu, self.predicted_releases
        if cpu is not None and gpu is not None and device is None:
            models = f"{gpu.describe()} on a GPU, {cpu.describe()} on CPU"
        elif cpu is not None and device == "cpu":
            models = f"{cpu.describe()} on CPU"
        else:
            models = releases.describe()
        return f"{self.name} {version}: the predictor models {self.name} {models} only; no numbers for this release"

    def release_notes(self, version: str | None, *, predicting: bool = False,
                      host_has_gpu: bool | None = None) -> list[ReleaseNote]:
        """Everything to say about the release a scenario asks for, errors first.

        The index is asked only for releases without bundled data; `host_has_gpu=False` adds the
        no-build line; `predicting` adds the predictor's range.
        """
        if not version:
            return []
        notes = [n for n in [self.index_note(version)] if n is not None]
        if host_has_gpu is not None:
            line = self.release_note(version, host_has_gpu)
            if line:
                notes.append(ReleaseNote("error", line))
        line = self.flag_list_note(version)
        if line:
            notes.append(ReleaseNote("warning", line))
        if predicting:
            line = self.predictor_note(version)
            if line:
                notes.append(ReleaseNote("warning", line))
        return sorted(notes, key=lambda n: not n.is_error)

    def resolved_release(self, version: str | None) -> dict[str, Any]:
        """What a requested release resolves to: the flag list used, whether the formulas hold, its distributions."""
        return {
            "engine": self.name,
            "requested": version,
            "flag_list": self.flag_list_version(version),
            "predicted": self.predictor_note(version) is None,
            "distribution": self.index_name(),
            "cpu_distribution": self.cpu_distribution or self.index_name(),
        }

    def flag_distribution(self, version: str) -> str:
        """The wheel `envs flags` reads a release's CLI from (the GPU wheel has the same CLI)."""
        return self.index_name()

    def prepare_flag_overlay(self, site: Path, version: str) -> None:
        """Adjust an unpacked wheel before its CLI runs over another env (e.g. force the CPU platform)."""

    # ---- launching --------------------------------------------------------------------------

    @abstractmethod
    def command(self, python: str, model: str, port: int | str, args: Mapping[str, Any],
                version: str | None = None) -> list[str]:
        """The server's argv: its own interpreter or console script, bound to 127.0.0.1:port.

        `version` is the release it runs (its flag spellings; None: the newest bundled list)."""

    def help_command(self, python: str) -> list[str]:
        """argv printing every server flag (read by `envs flags`)."""
        return [*self.command(python, "MODEL", 0, {})[:2], "--help"]

    def cache_env(self, cache_root: Path) -> dict[str, str]:
        """Env vars that point the engine's compile and JIT caches at cache_root: torch.compile's (Inductor),
        Triton's kernels, the CUDA driver's PTX JIT cache (CUDA_CACHE_PATH, ~/.nv/ComputeCache by default)
        and FlashInfer's JIT kernels (FLASHINFER_WORKSPACE_BASE, read by the FlashInfer releases that have it;
        older ones write ~/.cache/flashinfer whatever is set). Not covered: DeepGEMM's and other kernel
        libraries' own JIT folders."""
        return {
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / "inductor"),
            "TRITON_CACHE_DIR": str(cache_root / "triton"),
            "CUDA_CACHE_PATH": str(cache_root / "cuda"),
            "FLASHINFER_WORKSPACE_BASE": str(cache_root / "flashinfer"),
        }

    @abstractmethod
    def make_parser(self) -> "LogParser":
        """A fresh streaming parser for this engine's startup log."""

    def log_score(self, text: str) -> int:
        """How much `text` looks like this engine's log (0: not at all), for `parse --engine auto`."""
        return type(self.make_parser()).score(text)

    def gpus_needed(self, args: Mapping[str, Any]) -> int:
        """GPUs one launch occupies: TP x PP x DP, by native name or verbatim `--flag`."""
        normalised = {k.lstrip("-").replace("-", "_"): v for k, v in args.items() if v is not None and v is not False}
        return (_factor(normalised, self.tp_flags) * _factor(normalised, self.pp_flags)
                * (_factor(normalised, self.dp_flags) if self.dp_adds_gpus(normalised) else 1))

    def dp_adds_gpus(self, args: Mapping[str, Any]) -> bool:
        return True

    # The device total this engine sizes from on a GPU: "nvml" (the card's total as NVML reports it),
    # "cuda" (cudaMemGetInfo's total through the env's own torch: NVML's less what the driver reserves),
    # "nvml_min" (the smallest card NVML lists on the host, whichever card the engine runs on).
    gpu_total_source: ClassVar[str] = "nvml"

    def host_gpu_warning(self, host_gpus: list) -> str | None:
        """A warning about this host's GPUs that matters for this engine's sizing, or None."""
        return None

    # ---- environments -----------------------------------------------------------------------

    def recipe(self, version: str, cpu: bool) -> "Recipe":
        from harness.errors import InputError

        raise InputError(f"{self.name}: the harness has no install recipe; name an interpreter with "
                         f"engines.{self.name}.python")

    def install(self, steps: "InstallSteps") -> None:
        """Install the downloaded wheel with its dependencies (engines with workarounds override)."""
        steps.install_engine()

    def cuda_variants(self, version: str) -> tuple[str, ...]:
        """The CUDA versions (\"12.9\") the engine publishes `version` for besides PyPI's build, as
        `<name>==<version>+cuXYZ` (harness/envs/cuda_build.py); none known by default."""
        return ()

    def cuda_variant_sources(self, version: str, cuda: str) -> tuple[str, ...]:
        """Find-links pages that hold those builds."""
        return ()

    def runtime_env(self, env_dir: Path, cpu: bool, cache_dir: Path | None, managed: bool) -> dict[str, str]:
        """What the engine process needs beyond PATH and VIRTUAL_ENV."""
        return {}

    def probe_imports(self, env_dir: Path, cpu: bool) -> tuple[str, ...]:
        """Extra modules that must import for the environment to count as working."""
        return ()

    def check_probe(self, found: dict, cpu: bool) -> str | None:
        """What is wrong with a freshly installed environment, as one line, or None."""
        return None

    # ---- prediction -------------------------------------------------------------------------

    def derived_context_len(self, model: "ModelDescription") -> int:
        """The context length the engine derives from the model config."""
        return int(model.max_position_embeddings or 2048)

    def cpu_memory(self, host: "HostMemory", version: str | None) -> "DeviceMemory | None":
        """The host memory this release sizes its KV pool from when it runs on the CPU (None: not known)."""
        return None

    def memory_read(self, settings: "Settings", record: "StartupRecord | None", readings: "list[DeviceMemory]",
                    predict: "Callable[[DeviceMemory], Prediction | None]") -> "DeviceMemory | None":
        """The memory this launch's engine sized its pool from (host memory on a CPU, its card's on a GPU):
        what its log says it read, else the harness's reading before the launch.

        `readings` are the harness's own, oldest first (before the launch, when the engine began
        loading); `predict(reading)` is the point's prediction from one of them. An engine whose log
        states its reading overrides this: on a host whose memory still moves (a VM settling after
        boot, memory of the previous launch coming back) only the engine's own reading is right."""
        return readings[0] if readings else None

    def predict(self, prediction: "Prediction", settings: "Settings", env: dict[str, str],
                model: "ModelDescription", calibration: "Calibration | None") -> "Prediction":
        """Fill `prediction` from the engine's budget formulas; engines without formulas say so."""
        prediction.reason = f"no budget formulas for {self.name}"
        return prediction


    def tp_size(self, args: Mapping[str, Any]) -> int:
        normalised = {k.lstrip("-").replace("-", "_"): v for k, v in args.items() if v is not None and v is not False}
        return _factor(normalised, self.tp_flags)


def _factor(args: Mapping[str, Any], names: tuple[str, ...]) -> int:
    from harness.errors import InputError

    for name in names:
        if name in args:
            try:
                value = int(args[name])
            except (TypeError, ValueError):
                raise InputError(f"{name}={args[name]!r} is not a whole number") from None
            if value < 1:
                raise InputError(f"{name}={value} must be at least 1")
            return value
    return 1
