"""Spec layer: text (YAML or TENET's formats) -> validated, immutable spec objects."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tenet.errors import SpecError
from tenet.spec.architecture import ArchitectureSpec, EnergySpec, LinkSpec
from tenet.spec.base import SpecModel
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.legacy import (
    Experiment,
    read_experiment,
    read_mapping,
    read_pe_array,
    read_statement,
)
from tenet.spec.workload import AccessSpec, WorkloadSpec
from tenet.zoo import Kind, zoo_names, zoo_path

__all__ = [
    "AccessSpec",
    "ArchitectureSpec",
    "DataflowSpec",
    "EnergySpec",
    "Experiment",
    "LinkSpec",
    "WorkloadSpec",
    "load_architecture",
    "load_dataflow",
    "load_workload",
    "read_experiment",
]

Spec = TypeVar("Spec", bound=SpecModel)


def _load(
    kind: Kind,
    model: type[Spec],
    source: str | Path | Spec,
    legacy: str,
    read_legacy: Callable[[Path], Spec],
) -> Spec:
    if isinstance(source, model):
        return source
    path = Path(source)  # type: ignore[arg-type]
    if path.suffix in (".yaml", ".yml"):
        return model.from_yaml(path)
    if path.suffix == legacy:
        return read_legacy(path)
    if path.suffix == "" and path.name == str(source):
        found = zoo_path(kind, str(source))
        if found is None:
            raise SpecError(
                f"no {kind} named {str(source)!r} in the zoo (known: "
                f"{', '.join(zoo_names(kind)) or 'none'})"
            )
        return model.from_yaml(found)
    raise SpecError(
        f"cannot tell the format of a {kind} from its name: expected .yaml, .yml or {legacy}",
        source=str(source),
    )


def load_workload(source: str | Path | WorkloadSpec) -> WorkloadSpec:
    """Load a workload from a YAML file, a TENET ``.s`` file or a zoo name."""
    return _load("workload", WorkloadSpec, source, ".s", read_statement)


def load_architecture(source: str | Path | ArchitectureSpec) -> ArchitectureSpec:
    """Load an architecture from a YAML file, a TENET ``.p`` file or a zoo name."""
    return _load("architecture", ArchitectureSpec, source, ".p", read_pe_array)


def load_dataflow(source: str | Path | DataflowSpec) -> DataflowSpec:
    """Load a dataflow from a YAML file, a TENET ``.m`` file or a zoo name."""
    return _load("dataflow", DataflowSpec, source, ".m", read_mapping)
