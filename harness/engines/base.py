"""What every engine is: its flags (the scenario's contract with it) and the roles it provides.

The stages talk to an `Engine` instead of naming one. Its roles (harness/engines/roles/) are how it is
launched and how its log is read - every engine has those - and, where the engine has them, how it is
installed, how its budget is predicted and what `advise` may turn. A command that needs a role an
engine lacks says so in one line (`Engine.require`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from harness.engines import cli_flags, releases
from harness.engines.knobs import Knob
from harness.engines.releases import ReleaseNote
from harness.engines.roles import AdviceKnobs, BudgetFormulas, Installation, Launch, LogReading, ServingApi
from harness.errors import InputError

# The harness picks the port, binds to loopback and names the model, for every engine.
HARNESS_OWNED_FLAGS = frozenset({"host", "port", "model", "model_path"})

ROLE_NAMES = {"installation": "install recipe", "formulas": "budget formulas", "advice": "advise knobs",
              "serving": "serving API"}


class Engine:
    """One inference engine: its flags, and the roles it is made of.

    Subclasses live in `harness/engines/<name>/` and are found through `engines/registry.py`; each sets
    `launch` and `logs`, and the optional roles it has.
    """

    name: ClassVar[str]
    # Flags a memory sweep plausibly names: valid even when no bundled --help list is there.
    curated_flags: ClassVar[frozenset[str]] = frozenset()
    # The flags whose values the harness reads; each value is parsed once into its type.
    knobs: ClassVar[Mapping[str, Knob]] = {}
    # The scenario's engine-neutral `defaults` names -> this engine's flag (max_model_len -> ...).
    aliases: ClassVar[Mapping[str, str]] = {}
    # This engine's own knob columns of the results CSV (harness/results/columns.py): the neutral knob columns
    # (max_model_len, kv_cache_dtype) are every engine's; any other knob goes to extra_args.
    knob_columns: ClassVar[tuple[str, ...]] = ()
    # Flags the harness sets itself; a scenario that names one is refused.
    owned_flags: ClassVar[frozenset[str]] = HARNESS_OWNED_FLAGS

    launch: Launch
    logs: LogReading
    installation: Installation | None = None
    formulas: BudgetFormulas | None = None
    advice: AdviceKnobs | None = None
    serving: ServingApi | None = None  # the probe's requests and metrics (stop_after: probe)

    def require(self, role: str, needed_for: str) -> Any:
        """The role, or one line saying this engine has none (`role`: installation, formulas, advice)."""
        found = getattr(self, role)
        if found is None:
            raise InputError(f"{self.name} has no {ROLE_NAMES.get(role, role)}: {needed_for} needs one")
        return found

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

    def predictor_note(self, version: str | None, device: str | None = None) -> str | None:
        """One line when the budget formulas are not sourced for this release (predict prints no numbers)."""
        if self.formulas is None:
            return f"{self.name} has no budget formulas; no numbers"
        formulas = self.formulas
        modelled = formulas.predicted_range(device)
        if version is None or modelled is None or version in modelled:
            return None
        cpu, gpu = formulas.predicted_releases_cpu, formulas.predicted_releases
        if cpu is not None and gpu is not None and device is None and cpu != gpu:
            models = f"{gpu.describe()} on a GPU, {cpu.describe()} on CPU"
        elif cpu is not None and device == "cpu":
            models = f"{cpu.describe()} on CPU"
        else:
            models = modelled.describe()
        why = next((f": {reason}" for releases, reason in formulas.unmodelled_releases if version in releases), "")
        return (f"{self.name} {version}: the predictor models {self.name} {models} only; no numbers for this "
                f"release{why}")

    def offline_release_notes(self, version: str | None, *, predicting: bool = False) -> list[ReleaseNote]:
        """What the engine's own data says of a release: a missing flag list, formulas not sourced for it.
        (Whether the index has the release is the environment builder's question: harness/envs/index.py.)"""
        if not version:
            return []
        notes = []
        line = self.flag_list_note(version)
        if line:
            notes.append(ReleaseNote("warning", line))
        if predicting:
            line = self.predictor_note(version)
            if line:
                notes.append(ReleaseNote("warning", line))
        return notes

    def resolved_release(self, version: str | None) -> dict[str, Any]:
        """What a requested release resolves to: the flag list used, whether the formulas hold, its distributions."""
        install = self.installation
        return {
            "engine": self.name,
            "requested": version,
            "flag_list": self.flag_list_version(version),
            "predicted": self.predictor_note(version) is None,
            "distribution": install.index_name() if install else None,
            "cpu_distribution": (install.cpu_distribution or install.index_name()) if install else None,
        }
