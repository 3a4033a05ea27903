"""`advise`'s loop: propose, launch as an ordinary run point, recalibrate, until the search closes.

Every launch is a row of one run folder (results.csv, logs/, run.json): the loop keeps the
launched settings as a zip in `DIR/advise.yaml`, a scenario of its own, and runs it with
`--resume` semantics, so only the new setting launches, a crash or timeout is a row like any
other, and an interrupted search continues from its rows (`advise ... --resume DIR`).
"""

from __future__ import annotations

import copy
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from harness.advise.search import Forecast, Launch, Setting, Step, Target, grid, next_step
from harness.analysis.calibrate import choose_fit, fit_calibrations
from harness.atomic import write_json
from harness.engines import get_engine
from harness.engines.base import Engine
from harness.engines.predicting import predict_point
from harness.engines.roles import AdviceKnobs
from harness.envs import host_is_cpu_only, resolve_env
from harness.errors import HarnessError, InputError, Interrupted
from harness.execute.cuda_reading import engine_gpu_total_mib
from harness.execute.executors.slots import usable_gpus
from harness.execute.gpu import nvml_reader, visible_gpu_count
from harness.execute.host import cpu_flags, read_host_memory
from harness.execute.models import resolve_model
from harness.execute.run import RunOptions, run_scenario
from harness.predict import Prediction, load_model_description
from harness.results.io import measured_only, read_results
from harness.scenario import Point, expand, load_scenario_with_releases, parse_scenario, read_yaml
from harness.scenario.schema import Scenario

log = logging.getLogger(__name__)

SCENARIO_FILE = "advise.yaml"
STATE_FILE = "advise.json"


@dataclass(frozen=True)
class Request:
    scenario_path: Path
    engine: str
    target: Target
    out: Path
    headroom_gib: float | None = None
    max_launches: int = 6
    resume: bool = False

    def identity(self) -> dict[str, Any]:
        """What a resumed search must share with the one it continues."""
        return {"scenario": str(self.scenario_path), "engine": self.engine, "max_model_len": self.target.max_model_len,
                "kv_tokens": self.target.kv_tokens, "concurrency": self.target.concurrency,
                "headroom_gib": self.headroom_gib}


@dataclass
class Device:
    total_mib: float | None
    free_mib: float | None
    kind: str  # "cuda" or "cpu"
    basis: str
    free_at_load: bool = False  # free_mib is an engine's own reading as it began loading (a launch's log)
    name: str | None = None  # the card's name (NVML's): vLLM's batch defaults keep an A100 below its tier by name


@dataclass
class Advice:
    request: Request
    engine_version: str | None
    device: Device
    step: Step
    launches: list[tuple[Launch, Prediction | None, str]]  # launch, its prediction then, why it was chosen
    base_args: dict[str, Any]
    alternatives: list[str] = field(default_factory=list)
    model_path: str = ""


class AdviseInterrupted(Interrupted):
    def __init__(self, request: Request, rows: int, argv: list[str]):
        self.run_dir = request.out
        msg = (f"interrupted; {rows} launch row(s) kept in {request.out}/results.csv; continue the search with:\n"
               f"  python -m harness advise {' '.join(argv)} --resume {request.out}")
        Exception.__init__(self, msg)


def advise_knobs(eng: Engine) -> AdviceKnobs:
    """What advise may turn for this engine; one line when the engine has nothing for advise to turn."""
    return eng.require("advice", "advise")


def _engine_spec(scenario: Scenario, engine: str):
    if engine not in scenario.engines:
        raise InputError(f"--engine {engine}: the scenario has no engines.{engine} "
                         f"(it has {', '.join(scenario.engines)})")
    spec = scenario.engines[engine]
    if spec.release_axis:
        raise InputError(f"engines.{engine}.version lists {len(spec.versions())} releases: advise tunes one; "
                         f"give one with --engine-version {engine}==VERSION")
    return spec


def _fixed_args(scenario: Scenario, engine: str, request: Request) -> dict[str, Any]:
    """The scenario's defaults and engine args with this request's length; the swept knobs dropped."""
    spec = scenario.engines[engine]
    args = {**scenario.defaults, **spec.args, "max_model_len": request.target.max_model_len}
    eng = get_engine(engine)
    for knob in (advise_knobs(eng).fraction_knob, advise_knobs(eng).batch_knob):
        args.pop(knob, None)
    return args


def _scenario_for(raw: dict[str, Any], engine: str, args: dict[str, Any], settings: list[Setting]) -> dict[str, Any]:
    eng = get_engine(engine)
    data = copy.deepcopy(raw)
    data["name"] = f"{raw.get('name', 'scenario')}-advise-{engine}"
    spec = dict(data["engines"][engine] or {})
    spec.pop("sweep", None)
    spec.pop("zip", None)
    spec["args"] = dict(args)
    zip_group = {advise_knobs(eng).fraction_knob: [s.fraction for s in settings]}
    if any(s.batch is not None for s in settings):
        zip_group[advise_knobs(eng).batch_knob] = [s.batch for s in settings]
    spec["zip"] = [zip_group]
    data["engines"] = {engine: spec}
    data.setdefault("run", {})
    data["run"] = {**(data["run"] or {}), "repeats": 1}
    return data


def _points(data: dict[str, Any], path: Path) -> list[Point]:
    return expand(parse_scenario(copy.deepcopy(data), path))


def measure_device(engine: str, version: str | None, env: dict[str, str], scenario: Scenario) -> Device:
    """What a launch here would size from: the card (NVML), else host memory as the engine reads it."""
    read = None if host_is_cpu_only() else nvml_reader()
    if read is not None:
        index = usable_gpus()[0]  # where the launches go (the sequential executor's first)
        state = read(index)
        total, basis = _engine_gpu_total(engine, version, scenario, read, index)
        return Device(total or state.total_mib, state.total_mib - state.used_mib, "cuda",
                      f"GPU {index} ({state.name}{basis if total else ''})", name=state.name)
    if scenario.gpu.memory_gib:
        raise InputError(f"the scenario is about a {scenario.gpu.memory_gib:g} GiB GPU, but this host has no NVIDIA "
                         "GPU (NVML unavailable): advise launches real engines, so run it on a GPU host")

    memory = get_engine(engine).require("formulas", "advise").cpu_memory(read_host_memory(env), version)
    if memory is None:
        raise InputError(f"{engine} {version or ''}: no host memory size to tune against on this CPU host")
    return Device(memory.total_mib, memory.free_mib, "cpu", memory.basis)


def _engine_gpu_total(engine: str, version: str | None, scenario: Scenario, read,
                      index: int) -> tuple[float | None, str]:
    """The total the engine sizes from on GPU `index` where it is not NVML's (vLLM: CUDA's, through its env)."""
    source = get_engine(engine).launch.gpu_total_source
    if source == "nvml":
        return None, ""
    try:
        env = resolve_env(engine, version, python=scenario.engines[engine].python)
    except HarnessError:
        return None, ""
    total = engine_gpu_total_mib(source, str(env.python), env.env_vars, read, [index], visible_gpu_count())
    return total, "; CUDA's total" if source == "cuda" else "; the host's smallest card"


def _latest_engine_reading(results_csv: Path) -> tuple[float, float] | None:
    """(total, free) MiB the latest launch's engine logged it read, None when no launch logged one."""
    if not results_csv.is_file():
        return None

    frame = measured_only(read_results(results_csv))
    read = frame[frame["engine_free_mib"].notna() & frame["device_total_mib"].notna()]
    if read.empty:
        return None
    last = read.iloc[-1]
    return float(last["device_total_mib"]), float(last["engine_free_mib"])


def _launches(results_csv: Path, by_id: dict[str, Setting]) -> list[Launch]:
    if not results_csv.is_file():
        return []

    frame = measured_only(read_results(results_csv))  # a predicted row was never launched
    out = []
    for _, row in frame.iterrows():
        setting = by_id.get(row["point_id"])
        if setting is None:
            continue
        kv = row.get("kv_tokens")
        kind = row.get("error_kind")
        out.append(Launch(setting, str(row["status"]), kind if isinstance(kind, str) else None,
                          None if kv is None or math.isnan(kv) else int(kv), str(row["point_id"])))
    return out


def run_advice(request: Request, argv: list[str], on_launch: Callable[[Setting, str, int], None] | None = None,
               engine_versions: dict[str, str] | None = None) -> Advice:
    """Search for the setting that meets the request's target: launch, recalibrate, until the search closes."""
    scenario, raw, args = _load_request(request, engine_versions)
    settings = _earlier_settings(request)
    request.out.mkdir(parents=True, exist_ok=True)
    spec = scenario.engines[request.engine]
    version = spec.versions()[0]
    device = measure_device(request.engine, version, spec.env_strings(), scenario)
    search = _Search(request, scenario, raw, args, version, device, load_model_description(scenario.model), settings)
    batches = _batches(get_engine(request.engine), args, spec.args)
    search.refuse_unmodelled(batches[0])
    ceilings = {b: _ceiling(raw, request, args, b, search.model, device, search.scenario_file) for b in batches}
    retried: set[Setting] = set()
    while True:
        step, launches, predict, basis = search.next_step(batches, ceilings)
        if step.done:
            return search.advice(step, launches, ceilings)
        search.note(step, basis, retried)
        predict(step.launch)  # keep the forecast the launch was chosen on
        search.save()
        if on_launch:
            on_launch(step.launch, step.why, len(search.settings))
        search.launch(argv)


def _load_request(request: Request, engine_versions: dict[str, str] | None
                  ) -> tuple[Scenario, dict[str, Any], dict[str, Any]]:
    """(the scenario with the releases asked for, its raw YAML with the engine's release, the fixed args)."""
    scenario = load_scenario_with_releases(request.scenario_path, engine_versions)
    spec = _engine_spec(scenario, request.engine)
    raw = read_yaml(request.scenario_path)
    if engine_versions:
        raw["engines"][request.engine]["version"] = engine_versions.get(request.engine, spec.version)
    return scenario, raw, _fixed_args(scenario, request.engine, request)


def _earlier_settings(request: Request) -> list[Setting]:
    """The settings an interrupted search launched (--resume), none for a new one; refused when the folder holds
    another search, or an earlier one not asked to resume."""
    out = request.out
    state_path = out / STATE_FILE
    if request.resume:
        if not state_path.is_file():
            raise InputError(f"--resume {out}: no {STATE_FILE} there (not an advise folder)")
        state = json.loads(state_path.read_text())
        if state.get("request") != request.identity():
            raise InputError(f"--resume {out}: that search was for {state.get('request')}; this one differs")
        return [Setting(s["fraction"], s.get("batch")) for s in state.get("settings", [])]
    if (out / "results.csv").exists():
        raise InputError(f"{out}: holds an earlier search; continue it with --resume {out}, or give another --out")
    return []


@dataclass
class _Search:
    """One search's state: the settings it launched (a zip in its own scenario file), why each was chosen,
    and the forecast it was chosen on."""

    request: Request
    scenario: Scenario
    raw: dict[str, Any]
    args: dict[str, Any]
    version: str | None
    device: Device
    model: Any  # harness.predict's ModelDescription
    settings: list[Setting]
    why: dict[tuple, str] = field(default_factory=dict)
    predictions: dict[tuple, Prediction] = field(default_factory=dict)

    @property
    def out(self) -> Path:
        return self.request.out

    @property
    def scenario_file(self) -> Path:
        return self.request.out / SCENARIO_FILE

    def save(self) -> None:
        data = _scenario_for(self.raw, self.request.engine, self.args, self.settings)
        self.scenario_file.write_text(yaml.safe_dump(data, sort_keys=False))
        write_json(self.out / STATE_FILE, {"request": self.request.identity(), "settings": [
            {"fraction": s.fraction, "batch": s.batch} for s in self.settings]})

    def launched_points(self) -> list[Point]:
        if not self.settings:
            return []
        return _points(_scenario_for(self.raw, self.request.engine, self.args, self.settings), self.scenario_file)

    def launches(self, points: list[Point]) -> list[Launch]:
        """The rows of the run folder, each with the setting its point launched."""
        return _launches(self.out / "results.csv", {p.point_id: s for p, s in zip(points, self.settings)})

    def refuse_unmodelled(self, batch: int | None) -> None:
        """A model kind or release the formulas do not size gets no forecast to search with: say so, launch nothing."""
        unmodelled = _predict_setting(self.raw, self.request.engine, self.args, Setting(None, batch), self.model,
                                      self.device, None, self.scenario_file)
        if not unmodelled.modelled:
            raise InputError(f"advise cannot forecast this point: {unmodelled.reason}")

    def next_step(self, batches: list[int | None], ceilings: dict) -> tuple[Step, list[Launch], Callable, str]:
        """(the search's next step, the launches so far, the forecast it was chosen by, what that forecast used)."""
        points = self.launched_points()  # one parse per round serves the row lookup and the calibration
        launches = self.launches(points)
        predict, basis = self.forecaster(launches, points)
        knobs = advise_knobs(get_engine(self.request.engine))
        step = next_step(self.request.target, launches, predict, batches, ceilings, knobs.kv_shortfall_errors,
                         self.request.max_launches)
        return step, launches, predict, basis

    def note(self, step: Step, basis: str, retried: set[Setting]) -> None:
        """Add the step's setting to the search (or mark it retried) with why it was chosen."""
        if step.launch in self.settings:
            # Its row is a harness error (an interrupted launch, say): run it again, once.
            if step.launch in retried:
                raise HarnessError(f"the launch at {step.launch.fraction:g} failed in the harness twice; see its row "
                                   f"in {self.out / 'results.csv'}")
            retried.add(step.launch)
        else:
            self.settings.append(step.launch)
        self.why[step.launch.key()] = step.why + basis

    def launch(self, argv: list[str]) -> None:
        """Run the search's scenario with resume semantics: only the new setting launches."""
        out = self.out
        options = RunOptions(out=out, resume=out if (out / "run.json").exists() else None, resume_changed=True)
        try:
            run_scenario(self.scenario_file, options)
        except Interrupted:
            raise AdviseInterrupted(self.request, len(self.launches(self.launched_points())), argv) from None

    def calibration_from(self, launches: list[Launch], points: list[Point]):
        ok = [launch for launch in launches if launch.status == "ok" and launch.kv_tokens is not None]
        if not ok:
            return None

        frame = measured_only(read_results(self.out / "results.csv"))
        try:
            fits = fit_calibrations(points, frame, self.model)
        except InputError:
            return None
        # The group holding the latest launch: on a host whose memory still moves, each reading the engine
        # logged is its own group, and the latest is what the next engine will most likely see.
        latest = ok[-1].point_id
        holding = [f for f in fits if any(r.point_id == latest for r in f.rows)]
        return holding[0] if holding else choose_fit(fits, self.request.engine, self.version, self.device.total_mib)

    def forecast_device(self, fit, launches: list[Launch]) -> Device:
        """The device the next launch will most likely size from."""
        # Calibrated, the forecast uses the device as the latest launch's engine read it (its rows' total, and
        # its free memory where it logged one): what the next launch will most likely see on a host whose
        # memory is still settling. The harness's own reading before the search sized no pool.
        here = self.device
        if fit is not None and fit.device_free_at_load:
            return replace(here, total_mib=fit.device_total_mib, free_mib=fit.device_free_mib, free_at_load=True)
        if fit is not None and fit.device_total_mib != here.total_mib:
            here = replace(here, total_mib=fit.device_total_mib)
        # A refusal states what the engine found free (vLLM-CPU: "Available memory on node 0 (AVAIL/TOTAL
        # GiB)"), which its pool lines do not: which fractions start is the engine's reading's to say, not
        # the harness's own reading before the search (on a host whose free memory moves, that one lets
        # the search walk up to the refusal one grain at a time).
        refused = _latest_engine_reading(self.out / "results.csv") if launches else None
        if refused is not None:
            here = replace(here, total_mib=here.total_mib if fit is not None else refused[0],
                           free_mib=refused[1], free_at_load=True)
        return here

    def forecaster(self, launches: list[Launch], points: list[Point]) -> tuple[Callable[[Setting], Forecast], str]:
        """(the forecast of a setting, calibrated on the launches so far; what it was forecast from)."""
        fit = self.calibration_from(launches, points)
        calibration = None if fit is None else fit.calibration
        here = self.forecast_device(fit, launches)
        cache: dict[tuple, Forecast] = {}
        launched = {launch.setting.key() for launch in launches}

        def predict(setting: Setting) -> Forecast:
            if setting.key() not in cache:
                p = _predict_setting(self.raw, self.request.engine, self.args, setting, self.model, here, calibration,
                                     self.scenario_file)
                if setting.key() not in launched:  # a launch keeps the forecast it was chosen on
                    self.predictions[setting.key()] = p
                cache[setting.key()] = Forecast(int(p.kv_tokens or 0), bool(p.will_start))
            return cache[setting.key()]

        said = "" if here is self.device else \
            f"; forecast from the free memory the latest launch's engine read ({here.free_mib:,.0f} MiB)" \
            if here.free_at_load else \
            f"; forecast from the total the latest launch's engine read ({here.total_mib:,.0f} MiB)"
        return predict, said

    def advice(self, step: Step, launches: list[Launch], ceilings: dict) -> Advice:
        """The search's answer: its last step, every launch with the forecast and reason it was chosen on."""
        advice = Advice(self.request, self.version, self.device, step,
                        [(launch, self.predictions.get(launch.setting.key()),
                          self.why.get(launch.setting.key(), "launched by an earlier session"))
                         for launch in launches], self.args)
        advice.model_path = resolve_model(self.scenario.model)
        if not step.reachable:
            advice.alternatives = alternatives(self.raw, self.request, self.args, self.model, self.device,
                                               self.scenario_file, step, ceilings)
        return advice


def predicted_reach(scenario_path: Path, engine: str, max_model_len: int,
                    engine_versions: dict[str, str] | None = None) -> tuple[float, int]:
    """The highest fraction advise proposes on this host (at the scenario's batch setting) and the KV tokens
    the uncalibrated predictor gives there: the range of targets a search here can meet."""
    scenario = load_scenario_with_releases(scenario_path, engine_versions)
    spec = _engine_spec(scenario, engine)
    raw = read_yaml(scenario_path)
    if engine_versions and engine in engine_versions:
        raw["engines"][engine]["version"] = engine_versions[engine]
    request = Request(scenario_path, engine, Target(max_model_len, 0), scenario_path.parent)
    args = _fixed_args(scenario, engine, request)
    device = measure_device(engine, spec.versions()[0], spec.env_strings(), scenario)
    model = load_model_description(scenario.model)
    batch = _batches(get_engine(engine), args, spec.args)[0]
    ceiling = _ceiling(raw, request, args, batch, model, device, scenario_path)
    for fraction in reversed(grid(ceiling)):  # the highest predicted to start (vLLM-CPU refuses above free memory)
        top = _predict_setting(raw, engine, args, Setting(fraction, batch), model, device, None, scenario_path)
        if top.will_start and top.kv_tokens:
            return fraction, int(top.kv_tokens)
    return 0.0, 0


def _predict_setting(raw, engine, args, setting: Setting, model, device: Device, calibration, path,
                     extra: dict[str, Any] | None = None, tp: int | None = None) -> Prediction:
    point_args = {**args, **(extra or {})}
    data = _scenario_for(raw, engine, point_args, [setting])
    point = _points(data, path)[0]
    return predict_point(point, model, device.total_mib, tp=tp, device=device.kind, calibration=calibration,
                         gpu_free_mib=device.free_mib, free_at_load=device.free_at_load, gpu_name=device.name,
                         cpu_flags=cpu_flags() if device.kind == "cpu" else None)


def _batches(eng, args: dict[str, Any], engine_args: dict[str, Any]) -> list[int | None]:
    """The scenario's batch setting first (None: the engine's default), then smaller steps."""
    start = engine_args.get(advise_knobs(eng).batch_knob, args.get(advise_knobs(eng).batch_knob))
    out: list[int | None] = [start]
    out += [b for b in advise_knobs(eng).batch_steps if start is None or b < int(start)]
    return list(dict.fromkeys(out))


def _ceiling(raw, request: Request, args, batch, model, device: Device, path) -> float:
    """The highest fraction advise proposes: the engine's own (or the headroom's), and for SGLang its
    default fraction at this chunk size (what it keeps back for activations itself)."""
    eng = get_engine(request.engine)
    ceiling = advise_knobs(eng).fraction_ceiling
    if request.headroom_gib is not None and device.total_mib:
        ceiling = min(ceiling, 1 - request.headroom_gib * 1024 / device.total_mib)
    elif advise_knobs(eng).default_fraction_is_safe:
        # fraction None: the engine's own formula at this chunk size
        default = _predict_setting(raw, request.engine, args, Setting(None, batch), model, device, None, path)
        # the fraction the engine derives itself, as its prediction names it
        derived = getattr(default, advise_knobs(eng).fraction_knob, None)
        if derived:
            ceiling = min(ceiling, derived)
    return max(0.0, ceiling)


def alternatives(raw, request: Request, args, model, device: Device, path, step: Step,
                 ceilings: dict) -> list[str]:
    """What would meet the target instead, predicted: FP8 KV, a shorter max_model_len, tensor parallel."""
    batch, ceiling = next(iter(ceilings.items()))
    # where the best launch got to (else the ceiling): the alternatives are predicted from there
    top = step.best_reachable.setting if step.best_reachable else Setting(ceiling, batch)
    best = step.best_reachable.kv_tokens if step.best_reachable else None
    out = []
    fp8 = _predict_setting(raw, request.engine, args, top, model, device, None, path, extra={"kv_cache_dtype": "fp8"})
    plain = _predict_setting(raw, request.engine, args, top, model, device, None, path)
    if fp8.kv_tokens and plain.kv_tokens:
        out.append(f"FP8 KV cache (kv_cache_dtype: fp8, about {fp8.kv_tokens / plain.kv_tokens:.1f}x tokens: "
                   f"{fp8.kv_tokens:,} predicted)")
    reach = best or plain.kv_tokens or 0
    if request.target.concurrency and reach:
        length = int(reach / request.target.concurrency)
        out.append(f"max_model_len {length} ({request.target.concurrency:g} requests fit in {reach:,} tokens)")
    elif reach:
        out.append(f"max_model_len {request.target.max_model_len} holds {reach:,} tokens at most here; "
                   f"fewer concurrent requests ({reach / request.target.max_model_len:.1f} x "
                   f"{request.target.max_model_len})")
    if device.kind == "cuda":
        for tp in (2, 4, 8):
            p = _predict_setting(raw, request.engine, args, top, model, device, None, path, tp=tp)
            if p.kv_tokens and p.kv_tokens >= request.target.kv_tokens:
                out.append(f"tensor parallel {tp} ({p.kv_tokens:,} KV tokens per rank predicted)")
                break
    return out
