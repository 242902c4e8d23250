"""Design points: a workload, an architecture and a dataflow with their size parameters, named
for a report, and their evaluation. They are what the comparison tables and plots of
:mod:`tenet.report` put side by side; a YAML file can list them (``tenet table --designs
FILE``), TENET experiment files are one each."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tenet import spec
from tenet.errors import SpecError
from tenet.metrics.assessment import Assessment, assess_problem
from tenet.metrics.evaluate import Metrics
from tenet.model import Problem
from tenet.spec.base import SpecModel
from tenet.vocab import Figure, Source

__all__ = [
    "DesignPoint",
    "DesignsSpec",
    "assess_designs",
    "design_point",
    "evaluate_designs",
    "experiment_point",
    "label_designs",
    "load_designs",
]


@dataclass(frozen=True)
class DesignPoint:
    """One design point: its specs (with the size parameters given) and the label it carries
    in tables and plots (``None`` until :func:`label_designs`)."""

    specs: spec.Specs
    label: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Return (label, workload, architecture, dataflow) names, the key columns of the
        report tables (:data:`tenet.report.DESIGN_COLUMNS`)."""
        workload, architecture, dataflow = _names(self)
        return (self.label or dataflow, workload, architecture, dataflow)

    def problem(self) -> Problem:
        """Build the checked :class:`~tenet.model.Problem` of this design point."""
        return Problem.from_specs(self.specs.checked())

    def evaluate(self) -> Metrics:
        """Count every metric of this design point exactly (named by its label)."""
        return assess_problem(self.problem(), figures=["metrics"], name=self.key[0]).metrics

    def assess(self) -> Assessment:
        """Count the array's metrics and the memory figures of this design point exactly
        (named by its label): what its headline needs."""
        figures: list[Figure] = ["metrics", "memory"]
        return assess_problem(self.problem(), figures=figures, name=self.key[0])


def design_point(
    workload: Source | spec.WorkloadSpec,
    architecture: Source | spec.ArchitectureSpec,
    dataflow: Source | spec.DataflowSpec,
    params: Mapping[str, int] | None = None,
    label: str | None = None,
) -> DesignPoint:
    """Load a design point from specs, files (YAML or TENET text) or zoo names; a named
    dataflow is sized to the array as everywhere (:func:`tenet.load_specs`).

    Examples
    --------
    >>> p = design_point("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> p.key
    ('gemm-os-systolic', 'gemm', 'systolic-2d-8x8', 'gemm-os-systolic')
    >>> design_point("gemm", "systolic-2d-16x16", "gemm-os-systolic").specs.dataflow.name
    'gemm-os-systolic:rows=16,cols=16'
    """
    w, a = spec.load_workload(workload), spec.load_architecture(architecture)
    specs = spec.Specs(w, a, spec.load_dataflow(dataflow, architecture=a), dict(params or {}))
    return DesignPoint(specs, label)


def experiment_point(
    path: Source, params: Mapping[str, int] | None = None, label: str | None = None
) -> DesignPoint:
    """Load the design point of a TENET ``experiment_N`` file."""
    return DesignPoint(spec.read_experiment(path).specs.with_params(params or {}), label)


def _names(point: DesignPoint) -> tuple[str, str, str]:
    """The names of the workload, the architecture and the dataflow of ``point``."""
    s = point.specs
    return s.workload.name, s.architecture.name, s.require_dataflow().name


def _with_params(point: DesignPoint) -> str:
    workload, architecture, dataflow = _names(point)
    name = f"{workload}: {dataflow} @ {architecture}"
    params = point.specs.params
    if not params:
        return name
    return f"{name} ({','.join(f'{k}={v}' for k, v in sorted(params.items()))})"


_LABELS: tuple[Callable[[DesignPoint], str], ...] = (
    lambda p: "{2}".format(*_names(p)),
    lambda p: "{2} @ {1}".format(*_names(p)),
    lambda p: "{0}: {2} @ {1}".format(*_names(p)),
    _with_params,
)


def label_designs(points: Sequence[DesignPoint]) -> list[DesignPoint]:
    """Give every unlabelled point a label, unique among all the points.

    The label is the dataflow's name; when two points would share it, every unlabelled point
    adds the architecture, then the workload, then the size parameters, as far as needed.

    Raises
    ------
    SpecError
        Two points that no label tells apart (the same labels, specs and parameters).

    Examples
    --------
    >>> a = design_point("gemm", "systolic-2d-8x8", "gemm-os-systolic")
    >>> for p in label_designs([a, replace(a, specs=a.specs.with_params({"K": 8}))]):
    ...     print(p.label)
    gemm: gemm-os-systolic @ systolic-2d-8x8
    gemm: gemm-os-systolic @ systolic-2d-8x8 (K=8)
    """
    fixed = [p.label for p in points if p.label is not None]
    for make in _LABELS:
        labels = [p.label if p.label is not None else make(p) for p in points]
        if len(set(labels)) == len(labels):
            return [replace(p, label=label) for p, label in zip(points, labels, strict=True)]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    where = "given labels" if set(duplicates) & set(fixed) else "design points"
    raise SpecError(f"{where} repeat {duplicates[0]!r}: give each design point its own label")


def evaluate_designs(
    points: Sequence[DesignPoint],
    progress: Callable[[Iterable[DesignPoint]], Iterable[DesignPoint]] = iter,
) -> dict[tuple[str, ...], Metrics]:
    """Label the points (:func:`label_designs`) and evaluate each; keys are the points'
    :attr:`~DesignPoint.key`.

    ``progress`` wraps the iteration (e.g. a progress bar). The result goes straight into
    :func:`tenet.report.comparison_table` or :func:`tenet.report.reuse_table`.

    Examples
    --------
    >>> p = design_point("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> {k[0]: m.macs for k, m in evaluate_designs([p]).items()}
    {'gemm-os-systolic': 256}
    """
    return {p.key: p.evaluate() for p in progress(label_designs(points))}


def assess_designs(
    points: Sequence[DesignPoint],
    progress: Callable[[Iterable[DesignPoint]], Iterable[DesignPoint]] = iter,
) -> dict[tuple[str, ...], Assessment]:
    """Label the points (:func:`label_designs`) and assess each (:meth:`DesignPoint.assess`:
    the array's metrics and the headline); keys are the points' :attr:`~DesignPoint.key`,
    ``progress`` as in :func:`evaluate_designs`. The result goes straight into
    :func:`tenet.report.comparison_table`, which then leads with each point's headline.

    Examples
    --------
    >>> p = design_point("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> [a.headline()["latency_cycles"] for a in assess_designs([p]).values()]  # no levels
    [31]
    """
    return {p.key: p.assess() for p in progress(label_designs(points))}


class DesignSpec(BaseModel):
    """One entry of a designs file: three references or one TENET experiment file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str | None = Field(None, description="Name of the design point in tables and plots.")
    workload: str | None = Field(None, description="Workload: zoo name or file.")
    architecture: str | None = Field(None, description="Architecture: zoo name or file.")
    dataflow: str | None = Field(None, description="Dataflow: zoo name or file.")
    experiment: str | None = Field(None, description="A TENET experiment_N file instead.")
    params: dict[str, int] = Field(
        default_factory=dict, description="Size parameters of this point (over the file's)."
    )

    @model_validator(mode="after")
    def _one_source(self) -> DesignSpec:
        triple = (self.workload, self.architecture, self.dataflow)
        if self.experiment is not None and any(x is not None for x in triple):
            raise ValueError("give either experiment or workload/architecture/dataflow")
        if self.experiment is None and not all(x is not None for x in triple):
            raise ValueError("give experiment, or all of workload, architecture, dataflow")
        return self


class DesignsSpec(SpecModel):
    """A designs file: the design points of one comparison.

    Examples
    --------
    >>> DesignsSpec.from_mapping({"name": "d", "designs": [{"experiment": "x/experiment_1"}]}
    ...                          ).designs[0].experiment
    'x/experiment_1'
    """

    kind: ClassVar[str] = "designs"

    params: dict[str, int] = Field(
        default_factory=dict, description="Size parameters of every point."
    )
    designs: list[DesignSpec] = Field(min_length=1, description="The design points.")


def _reference(text: str, folder: Path) -> str | Path:
    """A zoo name stays as is; a path is taken relative to the designs file's folder."""
    path = Path(text)
    if path.suffix == "" and path.name == text:
        return text
    return path if path.is_absolute() else folder / path


def load_designs(path: Source) -> list[DesignPoint]:
    """Read a designs YAML file into design points (labels not yet made unique).

    Paths in the file are relative to its folder; bare names are zoo names.

    Raises
    ------
    SpecError
        A malformed file or entry, naming the file and the entry (``designs.1``).
    """
    listing = DesignsSpec.from_yaml(path)
    folder = Path(path).parent
    points = []
    for k, entry in enumerate(listing.designs):
        try:
            if entry.experiment is not None:
                point = experiment_point(_reference(entry.experiment, folder), label=entry.label)
            else:
                point = design_point(
                    _reference(entry.workload or "", folder),
                    _reference(entry.architecture or "", folder),
                    _reference(entry.dataflow or "", folder),
                    label=entry.label,
                )
        except SpecError as exc:
            if exc.source is not None:
                raise
            raise SpecError(exc.reason, source=str(path), location=f"designs.{k}") from exc
        given = point.specs.with_params(listing.params).with_params(entry.params)
        points.append(replace(point, specs=given))
    return points
