"""Exact figures of the memory hierarchy: per level and tensor, the footprint of a tile, the
fills and writebacks summed over the tiles in order, the capacity check, and per level the
accesses, time and energy (definitions in ``docs/memory.md``). Counted on the relations of
:mod:`tenet.model.tiles`, never by walking points."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import islpy as isl

from tenet.counting import constant_pieces, count
from tenet.errors import CountingError, UnknownTensorError
from tenet.isl_utils import coalesce, point_text
from tenet.metrics.latency import occupancy
from tenet.model.hierarchy import MemoryLevel, mapped_levels
from tenet.model.problem import Problem
from tenet.model.spacetime import identity, neighbours
from tenet.model.tiles import TiledLevel, tensor_tile_levels, tile_levels
from tenet.vocab import Retention, TensorName

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LevelTensor",
    "LevelSummary",
    "CapacityViolation",
    "MemoryMetrics",
    "evaluate_memory",
    "level_needs",
    "kept_on_chip",
    "count_served",
    "tensor_relations",
    "fraction_text",
    "encode_metrics",
    "decode_metrics",
]


@dataclass(frozen=True)
class LevelTensor:
    """Figures of one tensor at one level, in elements (per-PE levels: summed over PEs); the
    parent's side after the network's multicast and reduction (``docs/memory.md``)."""

    level: str
    tensor: TensorName
    footprint: int
    """The tensor's largest tile at the level (elements; per-PE levels: in one PE)."""
    fills: int
    """Elements written into the level from outside it, whatever their source."""
    writebacks: int
    """Elements of an output written out of the level to its parent."""
    capacity: int | None
    """The level's capacity (elements; None: unbounded)."""
    fits: bool
    """Whether the level's tiles fit its capacity."""
    fills_neighbour: int = 0
    """The fills taken from a linked PE's instance of the level."""
    fills_parent: int = 0
    """The fills taken from the parent level."""
    reads_parent: int = 0
    """Elements read out of the parent on this level's behalf."""
    writes_parent: int = 0
    """Elements written into the parent on this level's behalf."""


@dataclass(frozen=True)
class LevelSummary:
    """Figures of one level: largest tile (elements), accesses, time (cycles), energy."""

    level: str
    footprint: int
    capacity: int | None
    fits: bool
    accesses_read: int
    accesses_write: int
    latency: Fraction
    energy: float


@dataclass(frozen=True)
class CapacityViolation:
    """A tile that does not fit its level, as a legality violation with a witness: for a
    level's need, the moment's key (``docs/memory.md``) and what each tensor holds then."""

    level: str
    tensor: TensorName | None
    need: int
    capacity: int
    witness: str
    kind: str = "capacity"
    shares: tuple[tuple[TensorName, int], ...] = ()
    """Each tensor's elements held at the witness, at its own place (a level's need only)."""

    @property
    def overflow(self) -> str:
        """The need against the capacity, without the witness: ``rf needs 2,880 of 64
        elements`` (a tensor's share of a split level: ``A in rf needs ...``).

        Examples
        --------
        >>> CapacityViolation("rf", None, 2880, 64, "[PE[0] -> rf[]]").overflow
        'rf needs 2,880 of 64 elements'
        """
        what = f"{self.tensor} in " if self.tensor else ""
        return f"{what}{self.level} needs {self.need:,} of {self.capacity:,} elements"

    @property
    def message(self) -> str:
        """One line: which tile, how many elements against how many, and whose."""
        what = f"{self.tensor} in " if self.tensor else ""
        held = ", ".join(f"{tensor} {n}" for tensor, n in self.shares)
        return (
            f"tile {self.witness} needs {self.need} elements of {what}{self.level}, "
            f"which holds {self.capacity}" + (f" ({held})" if held else "")
        )


@dataclass(frozen=True)
class MemoryMetrics:
    """The memory figures of one dataflow; latencies in cycles, energy in the arch's unit."""

    records: tuple[LevelTensor, ...]
    levels: tuple[LevelSummary, ...]
    latency_compute: int
    latency: Fraction
    bottleneck: str
    energy: float
    """The levels' energy for fills and writebacks plus :attr:`energy_operands` and
    :attr:`energy_links`."""
    violations: tuple[CapacityViolation, ...]
    energy_operands: float = 0.0
    """The MACs' operand reads and result writes, each at the innermost level that holds its
    tensor (every instance reads one element per read access and writes one per write)."""
    energy_links: float = 0.0
    """The elements per-PE levels take from linked instances, each at its link's energy."""

    @property
    def fits(self) -> bool:
        """True when every tile of every level fits its capacity."""
        return not self.violations

    @property
    def overflow(self) -> str | None:
        """What does not fit, one phrase per overflowing level (or tensor of a split level),
        outermost first: ``rf needs 2,880 of 64 elements``; None when everything fits."""
        return "; ".join(v.overflow for v in self.violations) or None

    @property
    def traffic_dram(self) -> int:
        """Elements moved between the outermost level and the levels it feeds: its reads and
        writes (the fills and writebacks it serves; 0 without a level inside it)."""
        outer = self.levels[0]
        return outer.accesses_read + outer.accesses_write

    def record(self, level: str, tensor: TensorName) -> LevelTensor:
        """Return the figures of ``tensor`` at ``level``."""
        for r in self.records:
            if r.level == level and r.tensor == tensor:
                return r
        raise KeyError((level, tensor))

    def summary(self, level: str) -> LevelSummary:
        """Return the figures of ``level``."""
        for s in self.levels:
            if s.level == level:
                return s
        raise KeyError(level)

    def table(self) -> pd.DataFrame:
        """Return one row per level and tensor, one column per figure (elements)."""
        import pandas as pd

        return pd.DataFrame([asdict(r) for r in self.records]).set_index(["level", "tensor"])

    def to_dict(self) -> dict[str, Any]:
        """Return JSON-ready values: ``levels`` (per level and tensor), ``memory`` (per level)."""
        return {
            "levels": [asdict(r) for r in self.records],
            "memory": {
                "levels": [{**asdict(s), "latency": float(s.latency)} for s in self.levels],
                "latency_compute": self.latency_compute,
                "latency": float(self.latency),
                "bottleneck": self.bottleneck,
                "energy": self.energy,
                "energy_operands": self.energy_operands,
                "energy_links": self.energy_links,
            },
        }


def fraction_text(value: Fraction) -> str:
    """Return ``value`` as exact text, ``p/q`` (read back by :class:`~fractions.Fraction`)."""
    return f"{value.numerator}/{value.denominator}"


def encode_metrics(metrics: MemoryMetrics) -> dict[str, Any]:
    """Return the memory figures ``metrics`` as exact JSON-ready values (fractions as
    ``p/q``), read back by :func:`decode_metrics`.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> m = evaluate_memory(load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic"))
    >>> decode_metrics(encode_metrics(m)) == m
    True
    """
    m = metrics
    return {
        "records": [asdict(r) for r in m.records],
        "levels": [{**asdict(s), "latency": fraction_text(s.latency)} for s in m.levels],
        "latency_compute": m.latency_compute,
        "latency": fraction_text(m.latency),
        "bottleneck": m.bottleneck,
        "energy": m.energy,
        "energy_operands": m.energy_operands,
        "energy_links": m.energy_links,
        "violations": [asdict(v) for v in m.violations],
    }


def decode_metrics(data: Mapping[str, Any]) -> MemoryMetrics:
    """Return the :class:`MemoryMetrics` written by :func:`encode_metrics`."""
    return MemoryMetrics(
        tuple(LevelTensor(**r) for r in data["records"]),
        tuple(LevelSummary(**{**s, "latency": Fraction(s["latency"])}) for s in data["levels"]),
        data["latency_compute"],
        Fraction(data["latency"]),
        data["bottleneck"],
        data["energy"],
        tuple(
            CapacityViolation(**{**v, "shares": tuple(map(tuple, v.get("shares", ())))})
            for v in data["violations"]
        ),
        data.get("energy_operands", 0.0),
        data.get("energy_links", 0.0),
    )


def tensor_relations(problem: Problem) -> dict[TensorName, tuple[isl.Map, isl.Map]]:
    """Return, per analysed tensor, its (read, write) relations S -> tensor (maybe empty)."""
    out: dict[TensorName, tuple[isl.Map, isl.Map]] = {}
    for access in problem.accesses:
        relation = access.relation.intersect_domain(problem.workload.domain)
        empty = isl.Map.empty(relation.get_space())
        read, write = out.get(access.tensor, (empty, empty))
        if access.access == "read":
            read = read.union(relation)
        else:
            write = write.union(relation)
        out[access.tensor] = (read, write)
    return out


def _maximum(per_key: isl.PwQPolynomial) -> int:
    """Return the largest value of a count per key (0 when there is no key). Over a wrapped
    key (``PE -> level``) isl bounds the count over the level's dimensions first, a function
    of the PE's; when that bound is tight (attained for every PE) its maximum is the count's,
    found without isl's search of every point of the key space (0.19 CPU-s to a few ms on a
    per-PE level of ResNet-50's fc1000)."""
    fold, tight = per_key.bound(isl.fold.max)
    value = fold.max() if tight else per_key.max()
    if value.is_nan() or value.is_infty() or value.is_neginfty():
        return 0
    if not value.is_int():
        raise CountingError(f"footprint is not an integer: {value}")
    return int(value.to_python())


def _first_over(domain: isl.Set, poly: isl.QPolynomial, limit: int) -> isl.Point | None:
    """Return the first point of ``domain`` where ``poly`` exceeds ``limit``."""
    found: list[isl.Point] = []

    def visit(point: isl.Point) -> None:
        if not found and poly.eval(point).to_python() > limit:
            found.append(point)

    domain.foreach_point(visit)
    return found[0] if found else None


def _over(per_key: isl.PwQPolynomial, limit: int) -> isl.Point:
    """Return a key whose count exceeds ``limit`` (a piece's points are listed only when its
    count is not a constant)."""
    pieces = constant_pieces(per_key)
    if pieces is not None:
        for domain, value in pieces:
            if value > limit:
                return domain.sample_point()
    for domain, poly in per_key.get_pieces():
        if _maximum(isl.PwQPolynomial.alloc(domain, poly)) > limit:
            found = _first_over(domain, poly, limit)
            if found is not None:
                return found
    raise AssertionError("no key exceeds the limit")  # pragma: no cover


def _per_key_count(held: isl.Map) -> isl.PwQPolynomial:
    """Return the number of elements each key holds, key -> count, on the keys of ``held``.

    The relation is first simplified against its own keys (constraints that only say which
    keys exist are dropped), so barvinok counts over the few key dimensions the held elements
    depend on; the count is then restricted to the keys again. Same figures as
    ``held.card()``, without counting the key set's own constraints (seconds to milliseconds
    on per-PE levels).
    """
    keys = held.domain()
    return held.gist_domain(keys).card().intersect_domain(keys)


@dataclass(frozen=True)
class _Traffic:
    held: isl.Map
    footprint: isl.PwQPolynomial
    fills: int
    writebacks: int
    fills_neighbour: int
    reads_parent: int
    writes_parent: int
    energy_links: float


def count_served(tiled: TiledLevel, pairs: isl.Map, merged: bool) -> int:
    """Count the (key, element) ``pairs``, or with ``merged`` the (tile, element) pairs they
    cover: the instances of one step served by one access (multicast or reduction)."""
    if not merged or not tiled.level.per_pe:
        return count(pairs)
    return count(tiled.tile_of_key.reverse().apply_range(pairs))


def _traffic(tiled: TiledLevel, read: isl.Map, write: isl.Map) -> _Traffic:
    """Count the footprint per key, fills (by source) and writebacks of one tensor at one
    level, and what the parent serves for them."""
    accessed = read.union(write)
    held = tiled.key_of.reverse().apply_range(accessed)
    new = held.subtract(tiled.previous.apply_range(held))
    leaving_dirty = isl.Map.empty(held.get_space())
    if not write.is_empty():
        written_tile = tiled.tile_of.reverse().apply_range(write)
        written_before = tiled.tile_of_key.apply_range(
            tiled.earlier_tiles.apply_range(written_tile)
        )
        needed = tiled.key_of.reverse().apply_range(read).union(written_before)
        new = new.intersect(needed)
        leaving = held.subtract(tiled.previous.reverse().apply_range(held))
        dirty = tiled.up_to.apply_range(tiled.key_of.reverse().apply_range(write))
        leaving_dirty = leaving.intersect(dirty)
    from_neighbour = new.intersect(tiled.supply.apply_range(held))
    fills_neighbour = count(from_neighbour)
    return _Traffic(
        held,
        _per_key_count(held),
        count(new),
        count(leaving_dirty),
        fills_neighbour,
        count_served(tiled, new.subtract(from_neighbour), tiled.level.multicast),
        count_served(tiled, leaving_dirty, tiled.level.reduction),
        _link_energy(tiled, from_neighbour, held),
    )


def _link_energy(tiled: TiledLevel, from_neighbour: isl.Map, held: isl.Map) -> float:
    """Return the energy of the fills taken from linked instances, each charged to the
    cheapest link that supplies it."""
    if not any(link.energy for link, _ in tiled.supplies):
        return 0.0
    energy, left = 0.0, from_neighbour
    for link, over in sorted(tiled.supplies, key=lambda s: s[0].energy):
        if not link.energy:
            left = left.subtract(over.apply_range(held))
            continue
        moved = left.intersect(over.apply_range(held))
        energy += count(moved) * link.energy
        left = left.subtract(moved)
    return energy


def _operand_energy(problem: Problem, levels: Sequence[MemoryLevel]) -> float:
    """Return the energy of every instance's operand reads and result writes, each at the
    innermost of ``levels`` that holds the tensor (the outermost when every level bypasses
    it)."""
    total = 0.0
    for access in problem.accesses:
        level = next((lv for lv in reversed(levels) if lv.holds(access.tensor)), levels[0])
        pairs = count(access.relation.intersect_domain(problem.workload.domain))
        total += pairs * (level.energy_read if access.access == "read" else level.energy_write)
    return total


def _refetched(tiled: TiledLevel, read: isl.Map, write: isl.Map) -> _Traffic:
    """Count the footprint per key of one tensor at one level, and the traffic of the
    ``refetch`` rule: every tile brings in what it reads (partial sums: only those written by
    an earlier tile), all from the parent (served once per step when the parent's network
    multicasts), and writes back what it wrote (reduced once per step when the network
    reduces)."""
    held = tiled.key_of.reverse().apply_range(read.union(write))
    needed = tiled.key_of.reverse().apply_range(read)
    written = tiled.key_of.reverse().apply_range(write)
    if not write.is_empty():
        written_tile = tiled.tile_of.reverse().apply_range(write)
        needed = needed.union(
            tiled.tile_of_key.apply_range(tiled.earlier_tiles.apply_range(written_tile))
        )
    brought = held.intersect(needed)
    return _Traffic(
        held,
        _per_key_count(held),
        count(brought),
        count(written),
        0,
        count_served(tiled, brought, tiled.level.multicast),
        count_served(tiled, written, tiled.level.reduction),
        0.0,
    )


def _levels(
    problem: Problem, keep: Mapping[str, Collection[str]] | None
) -> tuple[MemoryLevel, ...]:
    """The memory levels holding what ``keep`` keeps (None: what the dataflow keeps)."""
    return problem.levels if keep is None else mapped_levels(problem.architecture.levels, keep)


def _time(elements: int, bandwidth: Fraction | None) -> Fraction:
    return Fraction(0) if bandwidth is None or not elements else Fraction(elements) / bandwidth


def evaluate_memory(
    problem: Problem,
    latency_compute: int | None = None,
    tiles: Sequence[tuple[str, isl.Map]] | None = None,
    places: Sequence[tuple[str, str, isl.Map]] = (),
    keep: Mapping[str, Collection[str]] | None = None,
    retention: Retention = "keep",
) -> MemoryMetrics:
    """Count the memory figures of ``problem`` exactly (see ``docs/memory.md``); the stage of
    :func:`tenet.metrics.assessment.assess_problem` that counts them.

    ``latency_compute`` is the array's compute latency in cycles (counted when not given);
    ``tiles`` (level name, tile stamp) replace the dataflow's tile stamps when given,
    ``places`` (level name, tensor, tile stamp) its tensors' places and ``keep`` (level name,
    tensors; checked by :func:`tenet.model.hierarchy.check_keep`) the tensors it keeps;
    ``retention`` is the rule by which a level keeps a tile (``docs/peers.md``): ``keep``,
    what the previous tile held stays, or ``refetch``, every tile is brought in whole.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 4})
    >>> [(r.level, r.tensor, r.footprint) for r in evaluate_memory(p).records]
    [('dram', 'A', 32), ('dram', 'B', 32), ('dram', 'C', 64)]
    """
    levels = _levels(problem, keep)
    relations = tensor_relations(problem)
    for level in problem.architecture.levels:
        for name in (*level.split, *(level.tensors or ())):
            if name not in problem.workload.tensors:
                raise UnknownTensorError(
                    name, problem.workload.tensors, source=problem.architecture.source
                )
    if latency_compute is None:
        latency_compute = occupancy(problem).latency_compute
    records: list[LevelTensor] = [
        LevelTensor(levels[0].name, t, count(r.union(w).range()), 0, 0, None, True)
        for t, (r, w) in relations.items()
    ]
    violations: list[CapacityViolation] = []
    moved = 0.0
    footprints: dict[str, int] = {levels[0].name: sum(r.footprint for r in records)}
    own = tensor_tile_levels(problem, tiles, places, levels)
    traffic_of = _traffic if retention == "keep" else _refetched
    for k, tiled in enumerate(tile_levels(problem, tiles, levels=levels)):
        level = tiled.level
        placed = {t: own[t][k] if t in own else tiled for t in relations if level.holds(t)}
        moments = _moments(tiled, placed.values())
        shares: dict[TensorName, isl.PwQPolynomial] = {}
        level_records: list[LevelTensor] = []
        for tensor, (read, write) in relations.items():
            if tensor not in placed:
                continue
            traffic = traffic_of(placed[tensor], read, write)
            moved += traffic.energy_links
            shares[tensor] = _at_moments(moments, placed[tensor], traffic.held, traffic.footprint)
            footprint = _maximum(traffic.footprint)
            limit = level.capacity_of(tensor) if level.split else None
            fits = limit is None or footprint <= limit
            if not fits:
                assert limit is not None
                witness = point_text(_over(traffic.footprint, limit))
                violations.append(CapacityViolation(level.name, tensor, footprint, limit, witness))
            level_records.append(
                LevelTensor(
                    level.name,
                    tensor,
                    footprint,
                    traffic.fills,
                    traffic.writebacks,
                    limit if level.split else level.capacity,
                    fits,
                    traffic.fills_neighbour,
                    traffic.fills - traffic.fills_neighbour,
                    traffic.reads_parent,
                    traffic.writes_parent,
                )
            )
        total = _total(shares)
        need = _maximum(total) if total is not None else 0
        footprints[level.name] = need
        if not level.split and level.capacity is not None and need > level.capacity:
            assert total is not None
            point = _over(total, level.capacity)
            held = tuple((t, int(per.eval(point).to_python())) for t, per in shares.items())
            violations.append(
                CapacityViolation(
                    level.name, None, need, level.capacity, point_text(point), shares=held
                )
            )
            level_records = [replace(r, fits=False) for r in level_records]
        records.extend(level_records)
    metrics = _summarise(levels, records, footprints, latency_compute, violations)
    operands = _operand_energy(problem, levels)
    return replace(
        metrics,
        energy=metrics.energy + operands + moved,
        energy_operands=operands,
        energy_links=moved,
    )


def level_needs(
    problem: Problem,
    tiles: Sequence[tuple[str, isl.Map]] | None = None,
    places: Sequence[tuple[str, str, isl.Map]] = (),
    levels: Collection[str] | None = None,
    keep: Mapping[str, Collection[str]] | None = None,
    whole: Mapping[TensorName, int] | None = None,
) -> tuple[dict[str, int], bool]:
    """Return the largest tile of every level inside the outermost (elements, summed over
    tensors; only ``levels`` when given) and whether every tile fits (per tensor under
    ``split``); no fills counted. ``tiles``, ``places`` and ``keep`` replace the dataflow's
    as in :func:`evaluate_memory`, whose stage of
    :func:`tenet.metrics.assessment.assess_problem` this is (``figures="needs"``).

    ``whole`` (tensor, its elements) counts those tensors whole at every level that holds
    them, beside each moment's tiles of the others: a tensor kept on chip between layers.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 8})
    >>> level_needs(p, levels=["glb"])  # one tile: A, B and C whole, 3 x 64
    ({'glb': 192}, True)
    >>> level_needs(p, levels=["glb"], whole={"C": 100})  # C counted as 100 elements
    ({'glb': 228}, True)
    """
    relations = tensor_relations(problem)
    needs: dict[str, int] = {}
    fits = True
    kept = _levels(problem, keep)
    own = tensor_tile_levels(problem, tiles, places, kept)
    for k, tiled in enumerate(tile_levels(problem, tiles, levels=kept)):
        level = tiled.level
        if levels is not None and level.name not in levels:
            continue
        placed = {t: own[t][k] if t in own else tiled for t in relations if level.holds(t)}
        moments = _moments(tiled, placed.values())
        shares: dict[TensorName, isl.PwQPolynomial] = {}
        constant = 0
        for tensor, (read, write) in relations.items():
            if tensor not in placed:
                continue
            if whole is not None and tensor in whole:
                constant += whole[tensor]
                if level.split and whole[tensor] > (level.capacity_of(tensor) or 0):
                    fits = False
                continue
            held = placed[tensor].key_of.reverse().apply_range(read.union(write))
            per_key = _per_key_count(held)
            if level.split and _maximum(per_key) > (level.capacity_of(tensor) or 0):
                fits = False
            shares[tensor] = _at_moments(moments, placed[tensor], held, per_key)
        total = _total(shares)
        needs[level.name] = (_maximum(total) if total is not None else 0) + constant
        if not level.split and level.capacity is not None and needs[level.name] > level.capacity:
            fits = False
    return needs, fits


def kept_on_chip(
    problem: Problem,
    metrics: MemoryMetrics,
    tensors: Collection[TensorName],
    need: int,
    keep: Mapping[str, Collection[str]] | None = None,
) -> MemoryMetrics:
    """Return ``metrics`` (of ``problem`` under the kept tensors ``keep``, as in
    :func:`evaluate_memory`) with ``tensors`` held whole by the level inside the outermost for
    the whole run: brought there by the layer before or left there for the layer after
    (``docs/fusion.md``). Their fills and writebacks at that level, and what the outermost
    level serves for them, are gone; their footprint there is the whole tensor and the
    level's largest tile ``need`` (:func:`level_needs` with them ``whole``); every level's
    accesses, time and energy, and the memory-aware latency, are counted again from the
    records.

    Raises
    ------
    ValueError
        A tensor the level does not hold, or one it takes from linked instances.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 8})
    >>> m = evaluate_memory(p)
    >>> m.traffic_dram, kept_on_chip(p, m, ["C"], 192).traffic_dram  # C's 64 writebacks gone
    (192, 128)
    """
    levels = _levels(problem, keep)
    outer, level = levels[0].name, levels[1].name
    records = []
    for r in metrics.records:
        if r.level == level and r.tensor in tensors:
            if r.fills_neighbour:
                raise ValueError(f"{level} takes {r.tensor} from linked instances")
            whole = metrics.record(outer, r.tensor).footprint
            r = replace(r, footprint=whole, fills=0, writebacks=0, fills_parent=0)
            r = replace(r, reads_parent=0, writes_parent=0)
        records.append(r)
    held = {r.tensor for r in records if r.level == level}
    if not set(tensors) <= held:
        raise ValueError(f"{level} does not hold {', '.join(sorted(set(tensors) - held))}")
    footprints = {s.level: s.footprint for s in metrics.levels} | {level: need}
    summed = _summarise(
        levels, records, footprints, metrics.latency_compute, list(metrics.violations)
    )
    return replace(
        summed,
        energy=summed.energy + metrics.energy_operands + metrics.energy_links,
        energy_operands=metrics.energy_operands,
        energy_links=metrics.energy_links,
    )


def _refines(fine: TiledLevel, coarse: TiledLevel) -> bool:
    """Whether every tile of ``fine`` lies inside one tile of ``coarse``."""
    return bool(fine.tile_of.reverse().apply_range(coarse.tile_of).is_single_valued())


def _moments(tiled: TiledLevel, placed: Collection[TiledLevel]) -> TiledLevel:
    """Return the moments of a level (``tiled``) whose tensors sit on the tiles ``placed``
    (their own places or the level's tiles): the tiles of the tensors' tilings that refine
    every other (the finest, when the places nest, as a loop nest's do), else one tile per
    combination of the tensors' tiles that some instance runs in (``docs/memory.md``)."""
    distinct = list({id(p): p for p in placed}.values())
    if len(distinct) <= 1:
        return distinct[0] if distinct else tiled
    by_depth = sorted(distinct, key=lambda p: -p.tile_of.dim(isl.dim_type.out))
    for fine in by_depth:
        if all(other is fine or _refines(fine, other) for other in distinct):
            return fine
    combined = distinct[0].tile_of
    for other in distinct[1:]:
        combined = combined.flat_range_product(other.tile_of)
    name = tiled.tile_of.get_tuple_name(isl.dim_type.out)
    return replace(tiled, tile_of=coalesce(combined.set_tuple_name(isl.dim_type.out, name)))


def _at_moments(
    moments: TiledLevel, placed: TiledLevel, held: isl.Map, per_key: isl.PwQPolynomial
) -> isl.PwQPolynomial:
    """Return a tensor's elements held per key of the level's ``moments``: at each moment,
    every buffer of the tensor (one per PE at a per-PE level) holds its own tile of that
    moment (``placed``: the tensor's tiles, ``held`` its key -> elements, ``per_key`` their
    count), whether or not that PE runs an instance then."""
    if placed is moments:
        return per_key
    to_own = moments.tile_of.reverse().apply_range(placed.tile_of)
    if moments.level.per_pe:
        to_own = neighbours(identity(moments.active_pes), to_own, exclude_self=False)
    return _per_key_count(to_own.apply_range(held))


def _total(shares: Mapping[TensorName, isl.PwQPolynomial]) -> isl.PwQPolynomial | None:
    """Return the sum of the tensors' counts per key of a level's moments (a key that holds
    nothing of a tensor adds nothing for it)."""
    total: isl.PwQPolynomial | None = None
    for per_key in shares.values():
        total = per_key if total is None else total.add(per_key)
    return total


def _summarise(
    levels: tuple[MemoryLevel, ...],
    records: list[LevelTensor],
    footprints: dict[str, int],
    latency_compute: int,
    violations: list[CapacityViolation],
) -> MemoryMetrics:
    def total(level: str, what: str) -> int:
        return sum(getattr(r, what) for r in records if r.level == level)

    position = {level.name: k for k, level in enumerate(levels)}

    def parent(r: LevelTensor) -> str:
        """The nearest level outside ``r.level`` that holds the tensor (bypasses skipped)."""
        k = position[r.level] - 1
        while k > 0 and not levels[k].holds(r.tensor):
            k -= 1
        return levels[k].name

    def total_in(level: str, what: str) -> int:
        return sum(
            getattr(r, what) for r in records if r.level != levels[0].name and parent(r) == level
        )

    summaries: list[LevelSummary] = []
    for level in levels:
        fills, writebacks = total(level.name, "fills"), total(level.name, "writebacks")
        fills_in = total_in(level.name, "reads_parent")
        writebacks_in = total_in(level.name, "writes_parent")
        reads, writes = fills_in + writebacks, fills + writebacks_in
        latency = _time(fills_in, level.read_bandwidth) + _time(
            writebacks_in, level.write_bandwidth
        )
        capacity = level.capacity if not level.split else sum(level.split.values())
        summaries.append(
            LevelSummary(
                level.name,
                footprints[level.name],
                capacity,
                not any(v.level == level.name for v in violations),
                reads,
                writes,
                latency,
                reads * level.energy_read + writes * level.energy_write,
            )
        )
    slowest = max(summaries, key=lambda s: s.latency)
    if slowest.latency > latency_compute:
        latency, bottleneck = slowest.latency, slowest.level
    else:
        latency, bottleneck = Fraction(latency_compute), "compute"
    return MemoryMetrics(
        tuple(records),
        tuple(summaries),
        latency_compute,
        latency,
        bottleneck,
        sum(s.energy for s in summaries),
        tuple(violations),
    )
