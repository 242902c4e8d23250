"""Spec layer: text (YAML or TENET's formats) -> validated, immutable spec objects."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path

from tenet.errors import SpecError
from tenet.spec.architecture import ArchitectureSpec, EnergySpec, LinkSpec
from tenet.spec.base import Spec
from tenet.spec.catalog import Kind, find_entry, zoo_names
from tenet.spec.chain import ChainSpec, StatementSpec, is_chain, load_chain
from tenet.spec.constraints import ConstraintsSpec, LevelConstraints, load_constraints
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.io import strict_json
from tenet.spec.layout import ScratchpadSpec
from tenet.spec.network import LayerInput, LayerSpec, NetworkSpec
from tenet.spec.onnx import read_onnx
from tenet.spec.onnx_chain import OnnxChain, read_onnx_chain
from tenet.spec.original import (
    Experiment,
    read_experiment,
    read_mapping,
    read_pe_array,
    read_statement,
)
from tenet.spec.params import check_params, check_sizes
from tenet.spec.schema import SCHEMA_KINDS, SchemaKind, spec_schema
from tenet.spec.specs import Specs
from tenet.spec.template import instantiate, pe_extents, read_entry, split_arguments
from tenet.spec.workload import AccessSpec, WorkloadSpec

__all__ = [
    "SCHEMA_KINDS",
    "SchemaKind",
    "spec_schema",
    "AccessSpec",
    "ArchitectureSpec",
    "ChainSpec",
    "StatementSpec",
    "load_chain",
    "is_chain",
    "OnnxChain",
    "read_onnx_chain",
    "ConstraintsSpec",
    "LevelConstraints",
    "load_constraints",
    "DataflowSpec",
    "EnergySpec",
    "Experiment",
    "Kind",
    "LayerInput",
    "LayerSpec",
    "LinkSpec",
    "NetworkSpec",
    "ScratchpadSpec",
    "Specs",
    "WorkloadSpec",
    "check_params",
    "check_sizes",
    "load_architecture",
    "load_dataflow",
    "load_network",
    "load_workload",
    "read_experiment",
    "strict_json",
]


def _not_in_zoo(kind: Kind, name: str) -> str:
    """The message for a name that is not in the zoo: the closest names, if any."""
    known = zoo_names(kind)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        return f"no {kind} named {name!r} in the zoo; did you mean {' or '.join(map(repr, close))}?"
    listing = "archs" if kind == "architecture" else f"{kind}s"
    return f"no {kind} named {name!r} in the zoo (see 'tenet zoo {listing}')"


def _load(
    kind: Kind,
    model: type[Spec],
    source: str | Path | Spec,
    original_suffix: str,
    read_original: Callable[[Path], Spec],
    args: Mapping[str, int] | None = None,
    extents: tuple[int | None, ...] | None = None,
) -> Spec:
    if isinstance(source, model):
        if args:
            raise SpecError(f"template arguments need a {kind} name or file, not a spec object")
        return source
    text, named_args = split_arguments(str(source))
    given = {**named_args, **(args or {})}
    path = Path(text)
    if path.suffix in (".yaml", ".yml"):
        return instantiate(read_entry(path), model, given, extents=extents)
    if path.suffix == original_suffix:
        if given:
            raise SpecError(f"template arguments need a YAML {kind}", source=text)
        return read_original(path)
    if path.is_dir():
        raise SpecError("is a directory, not a spec file", source=text)
    if path.suffix == "" and path.name == text:
        found = find_entry(kind, text)
        if found is None:
            raise SpecError(_not_in_zoo(kind, text))
        entry, preset = found
        return instantiate(
            entry,
            model,
            {**preset, **given},
            extents=extents,
            name=text if preset and not given else None,
        )
    raise SpecError(
        f"cannot tell the format of a {kind} from its name: expected .yaml, .yml or "
        f"{original_suffix}",
        source=text,
    )


def load_workload(source: str | Path | WorkloadSpec, **args: int) -> WorkloadSpec:
    """Load a workload from a YAML file, a TENET ``.s`` file or a zoo name; ``args`` (or
    ``NAME:ARG=VALUE,...``) are template arguments."""
    return _load("workload", WorkloadSpec, source, ".s", read_statement, args)


def load_architecture(source: str | Path | ArchitectureSpec, **args: int) -> ArchitectureSpec:
    """Load an architecture from a YAML file, a TENET ``.p`` file or a zoo name; ``args`` (or
    ``NAME:ARG=VALUE,...``) are template arguments."""
    return _load("architecture", ArchitectureSpec, source, ".p", read_pe_array, args)


def load_dataflow(
    source: str | Path | DataflowSpec,
    architecture: ArchitectureSpec | None = None,
    **args: int,
) -> DataflowSpec:
    """Load a dataflow from a YAML file, a TENET ``.m`` file or a zoo name; ``args`` (or
    ``NAME:ARG=VALUE,...``) are template arguments. Given the ``architecture``, parameters
    declared with ``array_dim`` default to the extents of its PE indices."""
    extents = pe_extents(architecture) if architecture is not None else None
    return _load("dataflow", DataflowSpec, source, ".m", read_mapping, args, extents)


def load_network(source: str | Path | NetworkSpec) -> NetworkSpec:
    """Load a network from a YAML file, an ONNX file (its Conv, MatMul and Gemm layers) or a
    zoo name."""
    return _load("network", NetworkSpec, source, ".onnx", read_onnx)
