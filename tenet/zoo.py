"""The zoo by name: shipped architectures (``arch_zoo/``), workloads (``workloads/``), named
dataflows (``workloads/dataflows/``) and networks (``workloads/networks/``), as spec objects, and
the listing of what each dataflow is made for. Names may carry template arguments
(``gemm-os-systolic:rows=16,cols=16``); files are found by :mod:`tenet.spec.catalog`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    NetworkSpec,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_network,
    load_workload,
)
from tenet.spec.catalog import Kind, find_entry, zoo_entries, zoo_folder, zoo_names, zoo_path
from tenet.spec.template import Fits, resolve_args, split_arguments

__all__ = [
    "Kind",
    "ZooEntry",
    "architecture",
    "combinations",
    "dataflow",
    "entries",
    "family",
    "fits",
    "network",
    "workload",
    "zoo_folder",
    "zoo_names",
    "zoo_path",
]


def architecture(name: str, **args: int) -> ArchitectureSpec:
    """Return the architecture ``name`` of the zoo, with template arguments ``args``.

    Examples
    --------
    >>> architecture("systolic-2d", rows=16, cols=16).name
    'systolic-2d-16x16'
    """
    return load_architecture(name, **args)


def workload(name: str, **args: int) -> WorkloadSpec:
    """Return the workload ``name`` of the zoo, with template arguments ``args``.

    Examples
    --------
    >>> workload("conv2d", stride=2).accesses["I"].read[0]
    '{S[k, c, ox, oy, rx, ry] -> I[c, 2 * ox + 1 * rx, 2 * oy + 1 * ry]}'
    """
    return load_workload(name, **args)


def dataflow(
    name: str, architecture: str | ArchitectureSpec | None = None, **args: int
) -> DataflowSpec:
    """Return the named dataflow ``name``, sized for ``architecture`` (its PE extents give the
    array-size parameters not in ``args``) or by ``args`` and the declared defaults.

    Examples
    --------
    >>> dataflow("gemm-os-systolic", rows=8, cols=8).space_stamp
    '{S[i, j, k] -> PE[i % 8, j % 8]}'
    >>> dataflow("gemm-os-systolic", "systolic-2d-16x16").name
    'gemm-os-systolic:rows=16,cols=16'
    """
    spec = load_architecture(architecture) if architecture is not None else None
    return load_dataflow(name, spec, **args)


def network(name: str) -> NetworkSpec:
    """Return the network ``name`` of the zoo (a YAML or ONNX path also works).

    Examples
    --------
    >>> len(network("vgg16").layers)
    16
    """
    return load_network(name)


def family(kind: Kind, name: str) -> str | None:
    """Return the file (template) name a zoo name belongs to, or None for a name not in the zoo.

    Examples
    --------
    >>> family("architecture", "systolic-2d-16x16"), family("workload", "conv2d:stride=2")
    ('systolic-2d', 'conv2d')
    """
    base, _ = split_arguments(name)
    if Path(base).name != base or Path(base).suffix:
        return None
    found = find_entry(kind, base)
    return found[0].stem if found else None


@dataclass(frozen=True)
class ZooEntry:
    """One zoo name: the file it comes from (``family``), its template arguments (all of them,
    defaults included) and the file's first comment line; ``fits`` for dataflows."""

    kind: Kind
    name: str
    family: str
    args: dict[str, int]
    description: str
    fits: Fits | None

    @property
    def is_template(self) -> bool:
        """Return whether this is the file's own name (its defaults) rather than a preset."""
        return self.name == self.family


def entries(kind: Kind) -> list[ZooEntry]:
    """Return every zoo name of ``kind``: each file's own name, then its presets.

    Examples
    --------
    >>> [e.name for e in entries("architecture") if e.family == "eyeriss"]
    ['eyeriss', 'eyeriss-12x14']
    """
    found = []
    for entry in zoo_entries(kind):
        defaults = resolve_args(entry.template, {})
        found.append(
            ZooEntry(kind, entry.stem, entry.stem, defaults, entry.description, entry.fits)
        )
        for preset, args in entry.template.presets.items():
            values = resolve_args(entry.template, args)
            found.append(ZooEntry(kind, preset, entry.stem, values, entry.description, entry.fits))
    return found


def fits(dataflow_name: str, workload_name: str, architecture_name: str | None = None) -> bool:
    """Return whether the zoo dataflow declares that it fits the workload (and architecture).

    Names are matched through their families; a dataflow without ``fits``, and a workload or
    architecture that is not in the zoo (a file of one's own), are not checked.

    Examples
    --------
    >>> fits("gemm-os-systolic", "gemm", "systolic-2d-16x16"), fits("conv2d-os", "gemm")
    (True, False)
    """
    found = find_entry("dataflow", split_arguments(dataflow_name)[0])
    if found is None or found[0].fits is None:
        return True
    declared = found[0].fits
    workload_family = family("workload", workload_name)
    if workload_family is not None and workload_family not in declared.workloads:
        return False
    if architecture_name is None:
        return True
    base = split_arguments(architecture_name)[0]
    architecture_family = family("architecture", base)
    return (
        architecture_family is None
        or base in declared.architectures
        or architecture_family in declared.architectures
    )


def combinations() -> list[tuple[str, str, str]]:
    """Return the (workload, architecture, dataflow) zoo names each dataflow declares it fits.

    Examples
    --------
    >>> ("gemm", "systolic-2d", "gemm-os-systolic") in combinations()
    True
    """
    found = []
    for entry in zoo_entries("dataflow"):
        if entry.fits is None:
            continue
        for workload_name in entry.fits.workloads:
            for architecture_name in entry.fits.architectures:
                found.append((workload_name, architecture_name, entry.stem))
    return found
