"""The scenario's shape as pydantic models: keys, types and simple ranges (pass one of validation)."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness.engines import engine_names
from harness.model_names import BUILTIN_PREFIX
from harness.scenario.problems import Problem, format_location, nearest


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GpuSpec(_Strict):
    memory_gib: float | None = Field(default=None, gt=0)
    # the card's CUDA compute capability (8.0 A100, 8.6 RTX 3090/A6000, 8.9 L40S/RTX 4090, 9.0 H100): `predict` uses
    # it where an engine's kernels, and so what it holds, depend on it (vLLM's FP8 Marlin fallback below 8.9)
    compute_capability: float | None = Field(default=None, gt=0)
    # the card's name as torch reports it ("NVIDIA A100-SXM4-80GB"): vLLM's batch defaults keep an A100 below the
    # 70 GiB tier by its name (0.32.0 vllm/engine/arg_utils.py get_batch_defaults), whatever its memory
    name: str | None = Field(default=None, min_length=1)


class ProbeSpec(_Strict):
    """What `stop_after: probe` sends to a ready server, every figure bounded."""

    # request lengths L (prompt + output tokens): "max" is the point's max_model_len as its engine logged it
    lengths: list[Literal["max"] | int] = Field(default_factory=lambda: ["max"], min_length=1, max_length=4)
    # a wave per length and shape: prompt_heavy (a long prompt, output_tokens generated: what admission sees at
    # once) and decode_heavy (a decode_prompt_tokens prompt generating up to L: what a scheduler that admits by
    # the blocks a request needs now must preempt when the requests grow)
    shapes: list[Literal["prompt_heavy", "decode_heavy"]] = Field(
        default_factory=lambda: ["prompt_heavy", "decode_heavy"], min_length=1, max_length=2)
    # each prompt-heavy request generates exactly this many (at most half its length): enough decode steps that the
    # requests admitted first are still running when the last are admitted (8 left vLLM-CPU's 4-request pool half
    # used)
    output_tokens: int = Field(default=64, ge=1, le=1024)
    decode_prompt_tokens: int = Field(default=16, ge=1, le=1024)
    # tokens every prompt starts with; 0: no two requests share a prefix (a prefix cache would give one request
    # another's blocks and inflate what runs at once)
    shared_prefix_tokens: int = Field(default=0, ge=0, le=4096)
    # requests sent at once per length: the engine's claimed concurrency at L x this, plus one
    oversubscribe: float = Field(default=1.5, gt=1, le=8)
    max_requests: int = Field(default=32, ge=1, le=512)  # the cap on requests sent at once
    timeout_s: float = Field(default=300, gt=0, le=3600)  # the whole probe of one point

    @field_validator("lengths")
    @classmethod
    def _lengths_above_output(cls, value: list) -> list:
        small = [v for v in value if isinstance(v, int) and v < 2]
        if small:
            raise ValueError(f"a request length must be at least 2 tokens, not {small[0]}")
        if len(set(value)) != len(value):
            raise ValueError("a length is listed twice: each is one wave per shape")
        return value

    @field_validator("shapes")
    @classmethod
    def _shapes_once(cls, value: list) -> list:
        if len(set(value)) != len(value):
            raise ValueError("a shape is listed twice")
        return value


class RunSpec(_Strict):
    timeout_s: float = Field(default=900, gt=0)
    # probe: after readiness, drive the server (run.probe) and measure what really fits
    stop_after: Literal["kv", "ready", "probe"] = "ready"
    probe: ProbeSpec = Field(default_factory=ProbeSpec)
    repeats: int = Field(default=1, ge=1)
    # cold: every point compiles from scratch; warm: points share one compile cache per engine
    # release (kept across runs), which shortens startup and can change vLLM's KV figures.
    compile_cache: Literal["cold", "warm"] = "cold"
    # grid: launch every point; sparse: launch what pins the formulas' unknown terms and predict the rest within
    # tolerance_pct (harness/sparse, `run --sparse`)
    strategy: Literal["grid", "sparse"] = "grid"
    tolerance_pct: float = 1.0

    @field_validator("tolerance_pct")
    @classmethod
    def _tolerance_positive(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"{value:g}: a bound must be more than 0 % of the predicted KV tokens (e.g. 1; a point "
                             "whose bound is wider is launched)")
        return value

    @model_validator(mode="after")
    def _sparse_stops_before_probe(self) -> RunSpec:
        if self.strategy == "sparse" and self.stop_after == "probe":
            raise ValueError("strategy: sparse predicts KV pools, and a probe's served requests are not predicted: "
                             "use stop_after: kv or ready with strategy: sparse, or strategy: grid to probe")
        return self


class EngineSpec(_Strict):
    # A list makes the release a sweep axis: the same points run on each release, in this order.
    version: str | list[str] | None = None
    python: str | None = None
    sweep: dict[str, list[Any]] = Field(default_factory=dict)
    # Each zip group pairs its lists element-wise and acts as one axis of the product.
    zip: list[dict[str, list[Any]]] = Field(default_factory=list)
    args: dict[str, Any] = Field(default_factory=dict)
    env: dict[str, str | int | float | bool] = Field(default_factory=dict)

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        # `version: 0.5` in YAML is a float; a version is text.
        def text(item: Any) -> Any:
            return str(item) if isinstance(item, (int, float)) and not isinstance(item, bool) else item

        if isinstance(value, list):
            items = [text(item) for item in value]
            if not items:
                raise ValueError("empty list: name at least one release")
            repeated = sorted({i for i in items if isinstance(i, str) and items.count(i) > 1})
            if repeated:
                raise ValueError(f"release {', '.join(repeated)} is listed twice")
            return items[0] if len(items) == 1 else items
        return text(value)

    def versions(self) -> list[str | None]:
        """The releases this engine runs on, in order (one, or None for the env's own)."""
        return list(self.version) if isinstance(self.version, list) else [self.version]

    @property
    def release_axis(self) -> bool:
        return isinstance(self.version, list)

    @field_validator("zip", mode="before")
    @classmethod
    def _single_group(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    def env_strings(self) -> dict[str, str]:
        return {k: ("1" if v is True else "0" if v is False else str(v)) for k, v in self.env.items()}


class BuiltinModel(_Strict):
    builtin: str


class Scenario(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    model: str | BuiltinModel
    gpu: GpuSpec = Field(default_factory=GpuSpec)
    defaults: dict[str, Any] = Field(default_factory=dict)
    engines: dict[str, EngineSpec]
    run: RunSpec = Field(default_factory=RunSpec)

    @field_validator("model")
    @classmethod
    def _model_as_text(cls, value: Any) -> str:
        # One spelling downstream: "builtin:<name>" for a model the harness builds itself.
        if isinstance(value, BuiltinModel):
            return BUILTIN_PREFIX + value.builtin
        if not value.strip():
            raise ValueError("must name a model (hub id, local dir or {builtin: tiny-llama})")
        return value

    @field_validator("engines")
    @classmethod
    def _some_engine(cls, value: dict[str, EngineSpec]) -> dict[str, EngineSpec]:
        if not value:
            raise ValueError(f"name at least one engine ({', '.join(engine_names())})")
        return value

    def single_releases(self) -> list[Scenario]:
        """The scenario once per release of a release axis, each naming one release per engine
        (what the per-release checks run on); the scenario itself when no engine has a list."""
        if not any(spec.release_axis for spec in self.engines.values()):
            return [self]
        longest = max(len(spec.versions()) for spec in self.engines.values())
        out = []
        for i in range(longest):
            engines = {name: spec.model_copy(update={"version": spec.versions()[min(i, len(spec.versions()) - 1)]})
                       for name, spec in self.engines.items()}
            out.append(self.model_copy(update={"engines": engines}))
        return out


def _model_class(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel inside an annotation like `dict[str, EngineSpec]` or `GpuSpec | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, (types.UnionType,)) or typing.get_origin(annotation) in (Union, dict, list):
        for arg in typing.get_args(annotation):
            found = _model_class(arg)
            if found is not None:
                return found
    return None


def _fields_at(loc: tuple[Any, ...]) -> list[str]:
    """Valid key names for the mapping that holds loc[-1]."""
    current: type[BaseModel] | None = Scenario
    for part in loc[:-1]:
        if current is None:
            return []
        if isinstance(part, str) and part in current.model_fields:
            current = _model_class(current.model_fields[part].annotation)
        # dict keys (engine names) and list indexes keep the model we are in
    return list(current.model_fields) if current is not None else []


def pydantic_problems(error: ValidationError) -> list[Problem]:
    problems = []
    for item in error.errors():
        loc = tuple(item["loc"])
        if item["type"] == "extra_forbidden":
            hint = nearest(str(loc[-1]), _fields_at(loc))
            message = "unknown key" + (f"; did you mean '{hint}'?" if hint else "")
            message += f" (valid: {', '.join(_fields_at(loc))})"
        elif item["type"] == "missing":
            message = "required key is missing"
        else:
            message = item["msg"]
            if item["type"].startswith("value_error"):
                message = message.removeprefix("Value error, ")
            message += f", got {item['input']!r}"
        problems.append(Problem(format_location(loc), message))
    return problems
