"""Templates: YAML specs with declared integer parameters substituted into their text.

A spec file (workload, architecture or dataflow) may declare ``template: {params, presets}``;
``${name}`` placeholders in its string values are replaced by the arguments (or the declared
defaults) before the spec is validated. Structural numbers that isl cannot take as parameters
(array sizes in ``i % 8``, a convolution's stride in ``2 * ox``, link directions) are template
parameters; sizes that isl counts symbolically stay isl parameters (``params:``). A dataflow
parameter with ``array_dim: k`` takes by default the extent of PE index ``k`` of the
architecture it is placed on, so one named dataflow adapts to the array size. A dataflow file
may also state ``fits: {workloads, architectures}``, the zoo entries it is made for.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

import islpy as isl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tenet.errors import SpecError
from tenet.isl_utils import parse_set
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.base import Spec
from tenet.spec.io import read_text, read_yaml

__all__ = [
    "Entry",
    "Fits",
    "ParamDecl",
    "TemplateDecl",
    "instance_name",
    "instantiate",
    "pe_extents",
    "read_entry",
    "resolve_args",
    "split_arguments",
]


_ARGUMENTS = re.compile(r"^(?P<base>.+?):(?P<args>[A-Za-z_]\w*=[^,]*(?:,[A-Za-z_]\w*=[^,]*)*)$")
_HEADER_KEYS = ("template", "fits")


class ParamDecl(BaseModel):
    """One template parameter: an integer with a default and optional bounds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default: int = Field(description="Value used when no argument is given.")
    min: int | None = Field(None, description="Smallest allowed value.")
    max: int | None = Field(None, description="Largest allowed value.")
    choices: tuple[int, ...] | None = Field(None, description="The only allowed values.")
    array_dim: int | None = Field(
        None,
        ge=0,
        description="Dataflows only: by default, the extent of this PE index of the array.",
    )
    description: str = Field("", description="What the parameter means, with its unit.")

    def check(self, name: str, value: int) -> str | None:
        """Return why ``value`` is not allowed for parameter ``name``, or None."""
        if self.choices is not None and value not in self.choices:
            return f"{name}={value} is not one of {', '.join(map(str, self.choices))}"
        if self.min is not None and value < self.min:
            return f"{name}={value} is below the minimum {self.min}"
        if self.max is not None and value > self.max:
            return f"{name}={value} is above the maximum {self.max}"
        return None

    @model_validator(mode="after")
    def _default_allowed(self) -> ParamDecl:
        problem = self.check("default", self.default)
        if problem:
            raise ValueError(problem)
        return self


class TemplateDecl(BaseModel):
    """The ``template:`` section: declared parameters and named presets of arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    params: dict[str, ParamDecl] = Field(
        default_factory=dict, description="Template parameters by name."
    )
    presets: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Zoo names of argument sets, e.g. systolic-2d-16x16."
    )


class Fits(BaseModel):
    """The ``fits:`` section of a dataflow: zoo workloads and architectures it is made for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workloads: tuple[str, ...] = Field(description="Workload zoo names (template names).")
    architectures: tuple[str, ...] = Field(
        description="Architecture zoo names: a template name stands for all its instances."
    )


@dataclass(frozen=True)
class Entry:
    """A spec file split into its header (template, fits, first comment line) and its body."""

    path: Path
    body: Mapping[str, Any]
    lines: Mapping[str, int]
    template: TemplateDecl
    fits: Fits | None
    description: str

    @property
    def stem(self) -> str:
        """Return the entry's own name: the file name without extension."""
        return self.path.stem


def _header(data: Mapping[str, Any], model: type[BaseModel], key: str, source: str) -> Any:
    try:
        return model.model_validate(data.get(key) or {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise SpecError(f"invalid {key} section: {problems}", source=source, location=key) from exc


def read_entry(path: str | Path) -> Entry:
    """Read a YAML spec file and split off its ``template`` and ``fits`` sections.

    Examples
    --------
    >>> from tenet.spec.catalog import zoo_path
    >>> entry = read_entry(zoo_path("dataflow", "gemm-os-systolic"))
    >>> sorted(entry.template.params), entry.fits.workloads
    (['cols', 'rows'], ('gemm',))
    """
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = 0
    return _read_entry(path, stamp)


@lru_cache(maxsize=512)
def _read_entry(path: Path, stamp: int) -> Entry:
    data, lines = read_yaml(path)
    source = str(path)
    template = _header(data, TemplateDecl, "template", source)
    fits = _header(data, Fits, "fits", source) if "fits" in data else None
    for preset, args in template.presets.items():
        resolve_args(template, args, source=source, location=f"template.presets.{preset}")
    description = _summary(read_text(path))
    body = {k: v for k, v in data.items() if k not in _HEADER_KEYS}
    return Entry(path, body, lines, template, fits, description)


def _summary(text: str) -> str:
    comment = []
    for line in text.lstrip().splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    summary = " ".join(comment)
    depth = 0
    for k, char in enumerate(summary):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if depth == 0 and char in ".:" and summary[k + 1 : k + 2] in (" ", ""):
            return summary[:k]
    return summary


def split_arguments(text: str) -> tuple[str, dict[str, int]]:
    """Split ``NAME:ARG=VALUE,...`` into the name and integer arguments.

    Examples
    --------
    >>> split_arguments("gemm-os-systolic:rows=16,cols=4")
    ('gemm-os-systolic', {'rows': 16, 'cols': 4})
    >>> split_arguments("workloads/gemm.yaml")
    ('workloads/gemm.yaml', {})
    """
    match = _ARGUMENTS.match(text)
    if match is None:
        return text, {}
    args: dict[str, int] = {}
    for item in match["args"].split(","):
        key, _, value = item.partition("=")
        try:
            args[key.strip()] = int(value)
        except ValueError as exc:
            raise SpecError(
                f"template argument {item!r} is not NAME=INTEGER", source=match["base"]
            ) from exc
    return match["base"], args


def resolve_args(
    template: TemplateDecl,
    args: Mapping[str, int],
    *,
    extents: tuple[int | None, ...] | None = None,
    source: str | None = None,
    location: str | None = None,
) -> dict[str, int]:
    """Return every declared parameter's value: ``args``, else the array extent (for
    ``array_dim`` parameters, when ``extents`` is given), else the default.

    Raises
    ------
    SpecError
        An unknown parameter, a value out of its bounds, or an array index the architecture
        does not have.
    """
    declared = template.params
    unknown = [name for name in args if name not in declared]
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(declared), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SpecError(
            f"unknown template parameter {unknown[0]!r} (declared: "
            f"{', '.join(declared) or 'none'}){hint}; size parameters go in params/--param",
            source=source,
            location=location,
        )
    values: dict[str, int] = {}
    for name, decl in declared.items():
        if name in args:
            value = args[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise SpecError(
                    f"template parameter {name} takes an integer, got {value!r}",
                    source=source,
                    location=location,
                )
        elif decl.array_dim is not None and extents is not None:
            extent = extents[decl.array_dim] if decl.array_dim < len(extents) else None
            if extent is None:
                raise SpecError(
                    f"parameter {name} takes the extent of PE index {decl.array_dim}, which the "
                    f"architecture does not give (its PEs have {len(extents)} indices); "
                    f"give {name}=... explicitly",
                    source=source,
                    location=location,
                )
            value = extent
        else:
            value = decl.default
        problem = decl.check(name, value)
        if problem:
            raise SpecError(problem, source=source, location=location)
        values[name] = value
    return values


def instance_name(entry: Entry, values: Mapping[str, int]) -> str:
    """Return the name of an instance: the preset whose arguments these are, else the entry's
    name with the non-default arguments (``stem:rows=16,cols=16``), else the entry's name."""
    for preset, args in entry.template.presets.items():
        if resolve_args(entry.template, args) == dict(values):
            return preset
    changed = [f"{k}={v}" for k, v in values.items() if v != entry.template.params[k].default]
    if not changed:
        return str(entry.body.get("name", entry.stem))
    return f"{entry.stem}:{','.join(changed)}"


def _substitute(value: Any, values: Mapping[str, int], used: set[str], where: str, src: str) -> Any:
    if isinstance(value, dict):
        return {
            k: _substitute(v, values, used, f"{where}.{k}" if where else k, src)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_substitute(v, values, used, f"{where}.{k}", src) for k, v in enumerate(value)]
    if not isinstance(value, str):
        return value
    template = Template(value)
    names = {m["named"] or m["braced"] for m in template.pattern.finditer(value)} - {None}
    used.update(names)
    try:
        text = template.substitute({k: str(v) for k, v in values.items()})
    except KeyError as exc:
        raise SpecError(
            f"placeholder ${{{exc.args[0]}}} is not a declared template parameter "
            f"(declared: {', '.join(values) or 'none'})",
            source=src,
            location=where,
        ) from exc
    except ValueError as exc:
        raise SpecError(f"malformed placeholder ({exc})", source=src, location=where) from exc
    whole = re.fullmatch(r"\$\{(\w+)\}|\$(\w+)", value.strip())
    return values[whole[1] or whole[2]] if whole else text


def instantiate(
    entry: Entry,
    model: type[Spec],
    args: Mapping[str, int] | None = None,
    *,
    extents: tuple[int | None, ...] | None = None,
    name: str | None = None,
) -> Spec:
    """Substitute the arguments into ``entry`` and validate it as ``model``.

    Examples
    --------
    >>> from tenet.spec import DataflowSpec
    >>> from tenet.spec.catalog import zoo_path
    >>> entry = read_entry(zoo_path("dataflow", "gemm-os-systolic"))
    >>> spec = instantiate(entry, DataflowSpec, {"rows": 4, "cols": 2})
    >>> spec.name, spec.space_stamp
    ('gemm-os-systolic:rows=4,cols=2', '{S[i, j, k] -> PE[i % 4, j % 2]}')
    """
    source = str(entry.path)
    if entry.fits is not None and model.kind != "dataflow":
        raise SpecError("only a dataflow may state 'fits'", source=source, location="fits")
    if model.kind != "dataflow":
        for key, decl in entry.template.params.items():
            if decl.array_dim is not None:
                raise SpecError(
                    "array_dim is meaningful in a dataflow only",
                    source=source,
                    location=f"template.params.{key}",
                )
    values = resolve_args(
        entry.template, args or {}, extents=extents, source=source, location="template"
    )
    used: set[str] = set()
    body = _substitute(dict(entry.body), values, used, "", source)
    unused = [k for k in values if k not in used]
    if unused:
        raise SpecError(
            f"template parameter {unused[0]} is declared but never used",
            source=source,
            location=f"template.params.{unused[0]}",
        )
    body["name"] = name or instance_name(entry, values)
    return model.from_mapping(body, source=source, lines=entry.lines)


def pe_extents(architecture: ArchitectureSpec) -> tuple[int | None, ...]:
    """Return the number of values each PE index takes (None where it depends on a size
    parameter).

    Examples
    --------
    >>> spec = {"name": "a", "pe": "{PE[i, j]: 0 <= i < 3 and 0 <= j < 5}"}
    >>> pe_extents(ArchitectureSpec.from_mapping(spec))
    (3, 5)
    """
    pe_set = parse_set(architecture.pe, source=architecture.source, location="pe")
    extents: list[int | None] = []
    for k in range(pe_set.dim(isl.dim_type.set)):
        if pe_set.dim(isl.dim_type.param):
            extents.append(None)
            continue
        low, high = pe_set.dim_min_val(k), pe_set.dim_max_val(k)
        if not (low.is_int() and high.is_int()):
            extents.append(None)
            continue
        extents.append(int(high.to_python()) - int(low.to_python()) + 1)
    return tuple(extents)
