"""Scenario files: YAML -> validated `Scenario`, with every problem as one located line.

Validation happens in two passes: pydantic checks the shape (keys, types), then
`_check_knobs` checks engine flags against the adapters (known names, the right engine,
value ranges). Both produce `Problem`s so `validate` can print all of them at once.
"""

from __future__ import annotations

import difflib
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.engines import ADAPTERS
from harness.engines.base import HARNESS_OWNED_FLAGS
from harness.engines.cli_flags import bundled_list
from harness.errors import InputError

BUILTIN_PREFIX = "builtin:"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GpuSpec(_Strict):
    memory_gib: float | None = Field(default=None, gt=0)


class RunSpec(_Strict):
    timeout_s: float = Field(default=900, gt=0)
    stop_after: Literal["kv", "ready"] = "ready"
    repeats: int = Field(default=1, ge=1)


class EngineSpec(_Strict):
    version: str | None = None
    python: str | None = None
    sweep: dict[str, list[Any]] = Field(default_factory=dict)
    # Each zip group pairs its lists element-wise and acts as one axis of the product.
    zip: list[dict[str, list[Any]]] = Field(default_factory=list)
    args: dict[str, Any] = Field(default_factory=dict)
    env: dict[str, Union[str, int, float, bool]] = Field(default_factory=dict)

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        # `version: 0.5` in YAML is a float; a version is text.
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value

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
            raise ValueError(f"name at least one engine ({', '.join(ADAPTERS)})")
        return value


@dataclass(frozen=True)
class Problem:
    location: str  # dotted path into the scenario, e.g. engines.vllm.sweep.gpu_memory_utilization[2]
    message: str

    def render(self, path: str | Path) -> str:
        return f"{path}: {self.location}: {self.message}" if self.location else f"{path}: {self.message}"


class ScenarioError(InputError):
    """A scenario with problems; `str()` is one line per problem."""

    def __init__(self, path: str | Path, problems: list[Problem]):
        self.path = str(path)
        self.problems = problems
        super().__init__("\n".join(p.render(path) for p in problems))


def format_location(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def nearest(name: str, candidates: typing.Iterable[str]) -> str | None:
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None


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


def _pydantic_problems(error: ValidationError) -> list[Problem]:
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


def known_flags(engine: str, version: str | None) -> frozenset[str]:
    """The adapter's own flags, its aliases, and the engine's real CLI flags (bundled lists)."""
    adapter = ADAPTERS[engine]
    return adapter.flags | frozenset(adapter.aliases) | bundled_list(engine, version)[1]


def _check_flag(engine: str, key: str, where: str, versions: dict[str, str | None]) -> Problem | None:
    if key in HARNESS_OWNED_FLAGS:
        return Problem(where, "is set by the harness; remove it")
    if key.startswith("--") or key in known_flags(engine, versions.get(engine)):
        return None
    owners = [name for name in ADAPTERS if name != engine and key in known_flags(name, versions.get(name))]
    if owners:
        return Problem(where, f"is a {owners[0]} flag, not a {engine} flag")
    list_version, _ = bundled_list(engine, versions.get(engine))
    what = f"{engine} {list_version}" if list_version else engine
    hint = nearest(key, known_flags(engine, versions.get(engine)))
    return Problem(where, f"unknown {what} flag" + (f"; did you mean '{hint}'?" if hint else "")
                   + " (prefix a flag the harness does not know with '--' in args to pass it verbatim)")


def _check_value(engine: str, key: str, value: Any, where: str) -> Problem | None:
    if value is None:
        return None  # null = engine default
    knob = ADAPTERS[engine].knobs.get(ADAPTERS[engine].native_name(key))
    error = knob.check(value) if knob else None
    return Problem(where, error) if error else None


def _check_knobs(scenario: Scenario) -> list[Problem]:
    problems: list[Problem | None] = []
    versions = {name: spec.version for name, spec in scenario.engines.items()}
    for engine, spec in scenario.engines.items():
        if engine not in ADAPTERS:
            hint = nearest(engine, ADAPTERS)
            problems.append(Problem(f"engines.{engine}", "unknown engine" + (f"; did you mean '{hint}'?" if hint else "")
                                    + f" (known: {', '.join(ADAPTERS)})"))
            continue
        for key, value in scenario.defaults.items():
            problems.append(_check_flag(engine, key, f"defaults.{key}", versions) or _check_value(engine, key, value, f"defaults.{key}"))
        for key, value in spec.args.items():
            where = f"engines.{engine}.args.{key}"
            problems.append(_check_flag(engine, key, where, versions) or _check_value(engine, key, value, where))
        swept: dict[str, str] = {}
        groups = [("sweep", spec.sweep)] + [(f"zip[{i}]", group) for i, group in enumerate(spec.zip)]
        for section, lists in groups:
            lengths = {len(v) for v in lists.values()}
            if section != "sweep" and len(lengths) > 1:
                sizes = ", ".join(f"{k}={len(v)}" for k, v in lists.items())
                problems.append(Problem(f"engines.{engine}.{section}", f"zipped lists differ in length ({sizes})"))
            for key, values in lists.items():
                where = f"engines.{engine}.{section}.{key}"
                if key in swept:
                    problems.append(Problem(where, f"is swept twice (also in {swept[key]})"))
                swept[key] = section
                if key in spec.args:
                    problems.append(Problem(where, f"is both swept and fixed in engines.{engine}.args"))
                flag_problem = _check_flag(engine, key, where, versions)
                if flag_problem:
                    problems.append(flag_problem)
                    continue
                if not values:
                    problems.append(Problem(where, "empty list: give at least one value (null = engine default)"))
                for i, value in enumerate(values):
                    problems.append(_check_value(engine, key, value, f"{where}[{i}]"))
    return [p for p in problems if p is not None]


def read_yaml(path: str | Path) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(path, [Problem("", "no such file")]) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise ScenarioError(path, [Problem("", f"cannot read: {exc.__class__.__name__}: {exc}")]) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(path, [Problem(where, f"YAML syntax error: {problem}")]) from None


def parse_scenario(data: Any, path: str | Path = "<scenario>") -> Scenario:
    """Validate already-loaded YAML data; raises ScenarioError listing every problem."""
    if not isinstance(data, dict):
        raise ScenarioError(path, [Problem("", f"must be a YAML mapping with name, model, engines; got {type(data).__name__}")])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(path, _pydantic_problems(exc)) from None
    problems = _check_knobs(scenario)
    if not problems:
        from harness.sweep import duplicate_problems  # sweep imports this module

        problems = duplicate_problems(scenario)
    if problems:
        raise ScenarioError(path, problems)
    return scenario


def load_scenario(path: str | Path) -> Scenario:
    return parse_scenario(read_yaml(path), path)
