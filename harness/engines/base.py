"""What every engine provides: the `Engine` base class the stages talk to instead of naming an engine."""

from __future__ import annotations

import inspect
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from harness.engines import cli_flags
from harness.engines.knobs import Knob

if TYPE_CHECKING:
    from parsers.base import LogParser

    from harness.envs.recipes import InstallSteps, Recipe
    from harness.predict.model import ModelDescription
    from harness.predict.predictor import Calibration, Prediction
    from harness.scenario.settings import Settings

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

    # ---- flags ------------------------------------------------------------------------------

    def native_name(self, key: str) -> str:
        return self.aliases.get(key, key)

    def knob_for(self, key: str) -> Knob | None:
        return self.knobs.get(self.native_name(key))

    def owns(self, key: str) -> bool:
        return self.native_name(key.lstrip("-").replace("-", "_")) in self.owned_flags

    @classmethod
    def package_dir(cls) -> Path:
        return Path(inspect.getfile(cls)).resolve().parent

    def flags_dir(self) -> Path:
        """Bundled `--help` flag lists, one `<version>.txt` per release."""
        return self.package_dir() / "flags"

    def bundled_flags(self, version: str | None) -> tuple[str | None, frozenset[str]]:
        return cli_flags.bundled_list(self.flags_dir(), version)

    def flag_list_version(self, version: str | None) -> str | None:
        return self.bundled_flags(version)[0]

    def known_flags(self, version: str | None) -> frozenset[str]:
        """Curated flags, aliases, and the release's real CLI flags (its bundled list, else the newest)."""
        return self.curated_flags | frozenset(self.aliases) | self.bundled_flags(version)[1]

    def flag_name(self, key: str) -> str:
        """`max_num_batched_tokens` -> `--max-num-batched-tokens` (an engine with other spellings overrides)."""
        return "--" + key.replace("_", "-")

    def render_flags(self, args: Mapping[str, Any]) -> list[str]:
        """Engine argv for resolved args: None = not passed, True = bare flag, False = not passed."""
        argv: list[str] = []
        for key in sorted(args):
            value = args[key]
            if value is None or value is False:
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

    # ---- launching --------------------------------------------------------------------------

    @abstractmethod
    def command(self, python: str, model: str, port: int | str, args: Mapping[str, Any]) -> list[str]:
        """The server's argv: its own interpreter or console script, bound to 127.0.0.1:port."""

    def help_command(self, python: str) -> list[str]:
        """argv printing every server flag (read by `envs flags`)."""
        return [*self.command(python, "MODEL", 0, {})[:2], "--help"]

    def cache_env(self, cache_root: Path) -> dict[str, str]:
        """Env vars that point the engine's compile caches at cache_root."""
        return {
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / "inductor"),
            "TRITON_CACHE_DIR": str(cache_root / "triton"),
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
        steps.install([str(steps.wheel)])

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
