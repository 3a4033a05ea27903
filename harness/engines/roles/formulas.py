"""The predict role: an engine's budget formulas, the releases they hold for, and how its logs state memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from harness.engines.explaining import KvSplit, ReleaseRule, SideFacts, changed_rules
from harness.engines.releases import ReleaseRange, version_key
from harness.engines.settings import Settings
from harness.predict.host import DeviceMemory, HostMemory
from harness.predict.model import ModelDescription
from harness.predict.prediction import Calibration, Prediction
from parsers.record import StartupRecord


@dataclass(frozen=True)
class Column:
    """One column of the `predict` table: its header and the Prediction attribute it shows."""

    header: str
    attr: str
    digits: int = 2


class BudgetFormulas:
    """An engine's budget formulas: what `predict`, `advise` and every row's prediction ask of it."""

    # The releases the formulas are sourced for (None: every release), and where the CPU backend's
    # hold for other releases than the GPU's (None: the same).
    predicted_releases: ClassVar[ReleaseRange | None] = None
    predicted_releases_cpu: ClassVar[ReleaseRange | None] = None
    # Why releases past the predicted ones get no numbers, where their source says: (releases, the sentence citing it)
    unmodelled_releases: ClassVar[tuple[tuple[ReleaseRange, str], ...]] = ()
    # Calibration: the prediction attribute the fitted overhead grows with (None: a constant), and
    # whether the logged KV GiB is the measured size (else tokens x bytes per token).
    calibration_axis: ClassVar[str | None] = None
    measured_kv_from_gib: ClassVar[bool] = False
    # Whether the axis's term is only memory gone before the engine's own pre-load reading: a fit over launches
    # that logged that reading then has no axis term. Knobs (the engine's names) read from its source never to
    # size what it holds beside its pool, beyond the formulas' exact terms: a fit gives them no slope.
    axis_before_own_reading: ClassVar[bool] = False
    knobs_outside_budget: ClassVar[frozenset[str]] = frozenset()
    # What `predict` prints for this engine's points: settings before the KV columns, results after.
    # the prediction these formulas fill: the neutral Prediction or the engine's subclass of it
    prediction_type: ClassVar[type[Prediction]] = Prediction
    settings_columns: ClassVar[tuple[Column, ...]] = ()
    result_columns: ClassVar[tuple[Column, ...]] = ()
    # Model kinds (harness.predict.kinds) whose KV cache these formulas size; a model of any other
    # KV-changing kind gets one line instead of numbers, with how the engine sizes it (kind -> sentence
    # citing the engine's source) where known.
    modelled_kinds: ClassVar[frozenset[str]] = frozenset()
    kind_sources: ClassVar[dict[str, str]] = {}

    def __init__(self, engine_name: str) -> None:
        self.engine_name = engine_name

    def predict(self, prediction: Prediction, settings: Settings, env: dict[str, str], model: ModelDescription,
                calibration: Calibration | None) -> Prediction:
        """Fill `prediction` from the budget formulas."""
        prediction.reason = f"no budget formulas for {self.engine_name}"
        return prediction

    def kind_modelled(self, kind: str, version: str | None, device: str | None) -> bool:
        """Whether these formulas size the KV cache of a model of `kind` for this release and device."""
        return kind in self.modelled_kinds

    def unmodelled_kind_note(self, model: ModelDescription, version: str | None,
                             device: str | None = None) -> str | None:
        """One line when `model` is of a kind whose KV bytes per token these formulas do not size (None: they do)."""
        kind = next((k for k in model.kinds if k.affects_kv and not self.kind_modelled(k.name, version, device)),
                    None)
        if kind is None:
            return None
        release = f" {version}" if version else ""
        how = self.kind_sources.get(kind.name)
        return (f"{self.engine_name}{release}: {model.name} has {kind.describe()}; the predictor's KV formula "
                f"(layers x 2 x kv_heads x head_dim) does not size it" + (f" - {how}" if how else "")
                + "; no numbers")

    # `compare --explain`: the prediction attribute each compared figure (a results column) is
    figure_attrs: ClassVar[dict[str, str]] = {}
    # the log record's fields that state the memory the engine read (shown when they differ between two sides)
    logged_readings: ClassVar[tuple[str, ...]] = ()

    def release_rules(self) -> tuple[ReleaseRule, ...]:
        """The budget rules this engine's releases differ by, each with its source (none: nothing to name)."""
        return ()

    def figure_rules(self, before: SideFacts, after: SideFacts, figure: str) -> list[ReleaseRule]:
        """The rules that changed between the two sides' releases and move `figure`."""
        return changed_rules(self.release_rules(), before.release, after.release, before.device, figure)

    # figures only the log states (name -> the record's field), explained like the row's when they change
    logged_figures: ClassVar[dict[str, str]] = {}

    def predicted_figure(self, prediction: Prediction, figure: str) -> object:
        """The predictor's value of a compared figure (None: it does not give it)."""
        attr = self.figure_attrs.get(figure)
        return getattr(prediction, attr, None) if attr else None

    def logged_outcome(self, side: SideFacts) -> tuple[object, str] | None:
        """The outcome (as compare writes it) the predictor gives this side from what its own log states of the
        memory it sized from, and a line saying what that was (None: the plain prediction stands)."""
        return None

    def figure_notes(self, before: SideFacts, after: SideFacts, figure: str) -> list[str]:
        """What the predictor's parts say moved `figure` between the two sides (none: nothing to add)."""
        return []

    def split_kv(self, before: SideFacts, after: SideFacts) -> KvSplit:
        """One point's KV change split into this engine's budget terms (harness.engines.explaining)."""
        return KvSplit(modelled=False, reason=f"no KV split for {self.engine_name}")

    def derived_context_len(self, model: ModelDescription) -> int:
        """The context length the engine derives from the model config."""
        return int(model.max_position_embeddings or 2048)

    def cpu_memory(self, host: HostMemory, version: str | None) -> DeviceMemory | None:
        """The host memory this release sizes its KV pool from when it runs on the CPU (None: not known)."""
        return None

    def memory_read(self, settings: Settings, record: StartupRecord | None, readings: list[DeviceMemory],
                    predict: Callable[[DeviceMemory], Prediction | None]) -> DeviceMemory | None:
        """The memory this launch's engine sized its pool from (host memory on a CPU, its card's on a GPU):
        what its log says it read, else the harness's reading before the launch.

        `readings` are the harness's own, oldest first (before the launch, when the engine began
        loading); `predict(reading)` is the point's prediction from one of them. An engine whose log
        states its reading overrides this: on a host whose memory still moves (a VM settling after
        boot, memory of the previous launch coming back) only the engine's own reading is right."""
        return readings[0] if readings else None

    def predicted_range(self, device: str | None) -> ReleaseRange | None:
        """The releases the formulas hold for on `device` (None: on any device the engine runs on)."""
        cpu = self.predicted_releases_cpu
        if device == "cpu" and cpu is not None:
            return cpu
        gpu = self.predicted_releases
        if device is None and cpu is not None and gpu is not None and cpu.first and gpu.first:
            # the union, for a note that cannot know the device (the two ranges end alike)
            return ReleaseRange(min(cpu.first, gpu.first, key=version_key), gpu.before)
        return gpu
