"""Mapping in, assessment out: :func:`assess_problem` counts what a caller asks of a problem under
a mapping (the problem's own dataflow, or a loop nest whose tiles, places and kept tensors replace
its own) and keeps it, with the mapping, in one :class:`Assessment`.

Its stages: the array's metrics (:mod:`tenet.metrics.evaluate`), the legality checks
(:mod:`tenet.model.legality`, reported rather than enforced), the memory levels' figures under
either retention rule or only their capacity needs (:mod:`tenet.metrics.memory`), and a design
point's row of the design-space search (:mod:`tenet.metrics.design`). A search keeps each
mapping it counted as one :class:`Evaluated` record (mapping, assessment, objective value), which
:meth:`Evaluated.to_dict` writes as exact JSON for the results stores.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

from tenet.isl_utils import parse_map
from tenet.mapping import LoopNest, Stamps, to_stamps
from tenet.metrics.design import Cutoff, SharedCounts, design_row
from tenet.metrics.evaluate import Metrics, evaluate
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import (
    MemoryMetrics,
    decode_metrics,
    encode_metrics,
    evaluate_memory,
    fraction_text,
    level_needs,
)
from tenet.metrics.row import HEADLINE_FIELDS, mapping_row
from tenet.model.hierarchy import check_keep
from tenet.model.legality import Legality, check_dataflow
from tenet.model.problem import Problem
from tenet.vocab import EnergyUnit, Figure, MemoryObjective, Retention, TensorName

__all__ = [
    "LevelNeeds",
    "Assessment",
    "assess_problem",
    "objective_value",
    "Evaluated",
    "FULL",
    "RECORD_FORMAT",
]

FULL: tuple[Figure, ...] = ("metrics", "legality", "memory")
"""The figures of a full assessment (``tenet eval``): metrics, legality, memory levels."""

RECORD_FORMAT = 2
"""The layout of :meth:`Evaluated.to_dict`: part of the key of every search run that stores
records, so that a store written with another layout is searched afresh."""

_T = TypeVar("_T")


class _Counted(Generic[_T]):
    """One figure of an :class:`Assessment`, kept in its field ``_<name>`` (None: not
    counted); read when it was not counted, it raises ``ValueError``."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.__doc__ = f"The {what} (``figures=`` of :func:`assess_problem`)."

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = f"_{name}"

    @overload
    def __get__(self, assessment: None, owner: type) -> _Counted[_T]: ...

    @overload
    def __get__(self, assessment: object, owner: type) -> _T: ...

    def __get__(self, assessment: object | None, owner: type) -> _T | _Counted[_T]:
        if assessment is None:
            return self
        value: _T | None = getattr(assessment, self.field)
        if value is None:
            raise ValueError(f"this assessment did not count the {self.what} (see figures=)")
        return value


@dataclass(frozen=True)
class LevelNeeds:
    """The largest tile of each counted level inside the outermost (elements, summed over the
    tensors it keeps) and whether every tile fits its capacity (per tensor under ``split``)."""

    needs: dict[str, int]
    fits: bool


@dataclass(frozen=True)
class Assessment:
    """What :func:`assess_problem` counted of one problem under one ``mapping``: its stamps,
    tile stamps, places and kept tensors as isl text (as a dataflow file writes them), and the
    figures asked for (``metrics``, ``legality``, ``memory``, ``needs``, ``design``); a
    figure not counted raises ``ValueError`` when read."""

    mapping: Stamps
    energy_unit: EnergyUnit
    """The unit of the energies: the architecture's energy table's."""
    _metrics: Metrics | None = None
    _legality: Legality | None = None
    _memory: MemoryMetrics | None = None
    _needs: LevelNeeds | None = None
    _design: dict[str, Any] | None = None

    metrics = _Counted[Metrics]("array's metrics")
    legality = _Counted[Legality]("legality report")
    memory = _Counted[MemoryMetrics]("memory levels' figures")
    needs = _Counted[LevelNeeds]("levels' capacity needs")
    design = _Counted[dict[str, Any]]("design point's row")
    """The design point's row: :data:`tenet.dse.run.worker.METRIC_COLUMNS`, or ``status``
    ``pruned`` and its ``reason`` when it cannot beat the cutoff."""

    @property
    def legal(self) -> bool:
        """Whether the legality checks made pass (dependences and placement; whether every
        tile fits its level is :attr:`fits`)."""
        return self._legality is None or self._legality.legal

    @property
    def fits(self) -> bool:
        """Whether every tile of every memory level fits its capacity (memory figures)."""
        return self.memory.fits

    def headline(self) -> dict[str, Any]:
        """Return the design's headline (:data:`tenet.metrics.row.HEADLINE_FIELDS` of
        :meth:`row`): latency, energy, DRAM traffic, whether it fits and which model gave
        them (the memory-aware one when the architecture has levels inside the outermost,
        else the array's, whose metrics it then needs).

        Examples
        --------
        >>> from tenet.api import load_problem
        >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
        ...                  {"M": 32, "N": 32, "K": 32})
        >>> h = assess_problem(p, figures=["memory"]).headline()
        >>> h["fits"], h["overflow"]  # each PE keeps 32 x 4 of A and B, 4 x 4 of C
        (False, 'rf needs 272 of 256 elements')
        """
        row = self.row()
        return {name: row[name] for name in HEADLINE_FIELDS}

    def row(self) -> dict[str, Any]:
        """Return the mapping row (:func:`tenet.metrics.row.mapping_row`) of the assessed
        mapping: its memory-aware figures and its dataflow."""
        m = self.mapping
        array = None if self._metrics is None else (self._metrics.latency, self._metrics.energy)
        return mapping_row(
            self.memory,
            m.space_stamp,
            m.time_stamp,
            m.tiles,
            energy_unit=self.energy_unit,
            array=array,
            places=m.places,
            keep=m.keep,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready data, of the figures counted: the ``headline`` (:meth:`headline`),
        the array's metrics (:meth:`tenet.metrics.evaluate.Metrics.to_dict`: its latency and
        energy as ``latency_array`` and ``energy_array``), ``legality`` (the violations of the
        dependence and placement checks) and ``capacity`` (the tiles that do not fit), each
        a ``kind`` and a ``message``, and the memory figures' fields."""
        memory = self._memory
        headline = memory is not None and (len(memory.levels) > 1 or self._metrics is not None)
        checks = [] if self._legality is None else self._legality.violations
        return {
            **({"headline": self.headline()} if headline else {}),
            **({} if self._metrics is None else self._metrics.to_dict()),
            "legality": [{"kind": v.kind, "message": v.message} for v in checks],
            **(
                {}
                if memory is None
                else {
                    "capacity": [{"kind": v.kind, "message": v.message} for v in memory.violations]
                }
            ),
            **({} if memory is None else memory.to_dict()),
        }


def _stamps(problem: Problem, mapping: LoopNest | None) -> Stamps:
    """The assessed mapping as text: the problem's stamps as its spec writes them, with the
    tiles, places and kept tensors of ``mapping`` (none: the dataflow's)."""
    flow = problem.dataflow
    spec = flow.spec
    space = str(flow.space_stamp) if spec is None else spec.space_stamp
    time = str(flow.time_stamp) if spec is None else spec.time_stamp
    if mapping is not None:
        own = to_stamps(mapping)
        return Stamps(space, time, own.tiles, own.places, own.keep)
    if spec is not None:
        places = {level: dict(per) for level, per in spec.places.items()}
        return Stamps(space, time, dict(spec.tiles), places, dict(spec.keep))
    placed: dict[str, dict[str, str]] = {}
    for level, tensor, stamp in flow.places:
        placed.setdefault(level, {})[tensor] = str(stamp)
    return Stamps(
        space,
        time,
        {level: str(stamp) for level, stamp in flow.tiles},
        placed,
        {level: tuple(sorted(tensors)) for level, tensors in flow.keep},
    )


def assess_problem(
    problem: Problem,
    mapping: LoopNest | None = None,
    *,
    figures: Collection[Figure] = FULL,
    retention: Retention = "keep",
    shared: SharedCounts | None = None,
    name: str | None = None,
    reductions: Collection[TensorName] | None = None,
    instances_per_step: int | None = None,
    latency_compute: int | None = None,
    levels: Collection[str] | None = None,
    cutoff: Cutoff | None = None,
    whole: Mapping[TensorName, int] | None = None,
) -> Assessment:
    """Count the ``figures`` of ``problem`` under ``mapping`` exactly: a loop nest whose
    tiles, places and kept tensors replace the dataflow's (its stamps are the problem's), or
    None, the problem's own dataflow.

    ``figures`` (:data:`tenet.vocab.Figure`): ``metrics`` (named ``name``, default the
    dataflow's), ``legality`` (``reductions`` and ``instances_per_step`` as in
    :func:`tenet.model.legality.check_dataflow`), ``memory`` (under the ``retention`` rule;
    ``latency_compute`` the array's compute latency in cycles, counted when not given),
    ``needs`` (of ``levels``, default every level; ``whole``: tensors counted whole, with
    their elements, as :func:`tenet.metrics.memory.level_needs` counts them), ``design``
    (the counts that design points share kept in ``shared``, below the ``cutoff``).

    Raises
    ------
    SpecError, UnknownTensorError
        ``mapping`` keeps tensors at a level the architecture lacks, at the outermost level,
        a tensor the workload lacks or one the level may not hold (``keep.<level>``).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 4})
    >>> a = assess_problem(p)
    >>> a.legal, a.fits, a.metrics.macs, [s.level for s in a.memory.levels]  # 8 * 8 * 4 MACs
    (True, True, 256, ['dram'])
    >>> assess_problem(p, figures=["needs"]).needs  # no level inside DRAM
    LevelNeeds(needs={}, fits=True)
    """
    stamps = _stamps(problem, mapping)
    tiles, places, keep = None, [], None
    if mapping is not None:
        keep = {level: frozenset(t) for level, t in stamps.keep.items()}
        check_keep(problem.architecture.levels, keep, problem.workload.tensors)
        tiles = [(level, parse_map(text)) for level, text in stamps.tiles.items()]
        places = [
            (level, tensor, parse_map(text))
            for level, per in stamps.places.items()
            for tensor, text in per.items()
        ]
    metrics = evaluate(problem, name=name) if "metrics" in figures else None
    legality = None
    if "legality" in figures:
        legality = check_dataflow(
            problem.workload,
            problem.architecture,
            problem.dataflow,
            reductions=reductions,
            instances_per_step=instances_per_step,
        )
    memory = None
    if "memory" in figures:
        if latency_compute is None:
            latency_compute = (
                metrics.latency_compute
                if metrics is not None
                else occupancy(problem).latency_compute
            )
        memory = evaluate_memory(problem, latency_compute, tiles, places, keep, retention)
    needs = None
    if "needs" in figures:
        needs = LevelNeeds(*level_needs(problem, tiles, places, levels, keep, whole))
    design = None
    if "design" in figures:
        design = design_row(problem, SharedCounts() if shared is None else shared, cutoff)
    unit = problem.architecture.energy.unit
    return Assessment(stamps, unit, metrics, legality, memory, needs, design)


def objective_value(memory: MemoryMetrics, objective: MemoryObjective) -> Fraction:
    """Return the value ``objective`` minimises: cycles, energy, or their product."""
    energy = Fraction(memory.energy).limit_denominator(10**9)
    if objective == "latency":
        return memory.latency
    if objective == "energy":
        return energy
    return memory.latency * energy


@dataclass(frozen=True)
class Evaluated:
    """One mapping a search counted: the mapping (a loop nest: tiles, places, kept tensors),
    its assessment (memory figures) and the value of the searched objective (cycles, energy,
    or their product)."""

    mapping: LoopNest
    assessment: Assessment
    value: Fraction

    @classmethod
    def of(
        cls, problem: Problem, mapping: LoopNest, objective: MemoryObjective, compute: int
    ) -> Evaluated:
        """Count the memory figures of ``problem`` under ``mapping`` (``compute``: the array's
        compute latency, cycles) and their ``objective`` value."""
        found = assess_problem(problem, mapping, figures=["memory"], latency_compute=compute)
        return cls(mapping, found, objective_value(found.memory, objective))

    @property
    def memory(self) -> MemoryMetrics:
        """The memory figures of the assessment."""
        return self.assessment.memory

    def rank(self, objective: MemoryObjective) -> tuple[Fraction, Fraction, int]:
        """The order of mappings by ``objective``: its value, then the energy when it is the
        latency (else the latency), then less DRAM traffic."""
        other = self.memory.energy if objective == "latency" else self.memory.latency
        return (self.value, Fraction(other), self.memory.traffic_dram)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as exact JSON-ready values (fractions as ``p/q``), read back by
        :meth:`from_dict`.

        Examples
        --------
        >>> from tenet.api import load_problem
        >>> from tenet.mapping import tiled_nest
        >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
        ...                  {"M": 8, "N": 8, "K": 8})
        >>> nest = tiled_nest(("i", "j", "k"), (8, 8, 8), "dram", [("glb", (8, 8, 4), (2,))],
        ...     (0, 1, 2))
        >>> point = Evaluated.of(p, nest, "latency", 22)
        >>> Evaluated.from_dict(point.to_dict()) == point
        True
        """
        return {
            "tiling": self.mapping.to_dict(),
            "mapping": asdict(self.assessment.mapping),
            "energy_unit": self.assessment.energy_unit,
            **encode_metrics(self.memory),
            "value": fraction_text(self.value),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evaluated:
        """Return the record written by :meth:`to_dict`."""
        m = data["mapping"]
        stamps = Stamps(
            m["space_stamp"],
            m["time_stamp"],
            dict(m["tiles"]),
            {level: dict(per) for level, per in m["places"].items()},
            {level: tuple(t) for level, t in m["keep"].items()},
        )
        assessment = Assessment(stamps, data["energy_unit"], _memory=decode_metrics(data))
        return cls(LoopNest.from_dict(data["tiling"]), assessment, Fraction(data["value"]))
