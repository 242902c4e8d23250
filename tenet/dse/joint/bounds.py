"""Sound lower bounds on the memory-aware latency and energy of every tiling below a node of
the joint search tree: an array mapping (its compute latency), the tensors each level keeps,
and the bands of some levels fixed (tile sizes and loop order, outermost first).

Per level and tensor, the traffic is bounded below by the *runs* of the tile sequence: a run
is a maximal stretch of consecutive tiles over which the tensor's data tile does not change.
On a perfect nest (every size divides the one outside it) of a box domain, a tensor whose
blocks of tiles hold disjoint data (each loop in one subscript, and no loop that shares its
subscript with another, as ``ox`` in ``ox + rx``, cut into several tiles) has
``runs / blocks`` visits of each block, and each visit starts by bringing in (pure input) or
ends by sending back (written tensor) the block's whole data; otherwise (halos, partial tiles)
every element still crosses once (compulsory traffic). The bands not yet fixed only refine the
tiles, so the bound over the fixed bands holds below the node. The derivation is in
``docs/dse.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import prod
from typing import NamedTuple

import islpy as isl

from tenet.counting import count
from tenet.dse.tiling.rtile import box_extents
from tenet.mapping import LoopNest, array_spread
from tenet.metrics.memory import tensor_relations
from tenet.model.hierarchy import MemoryLevel
from tenet.model.problem import Problem
from tenet.model.tiles import loop_indices
from tenet.vocab import MemoryObjective, TensorName

__all__ = [
    "ENERGY_SLACK",
    "Band",
    "TensorFacts",
    "BoundContext",
    "Bound",
    "Share",
    "lower_bound",
    "kept_levels",
    "bands_of",
]

ENERGY_SLACK = Fraction(1, 10**9)
"""Relative margin taken off the energy bound: the exact energies are sums of floats."""


class Band(NamedTuple):
    """A fixed band of a node of the search: the level whose tiles it loops over, that
    level's tile sizes, and the loop order over its tiles (dimension positions, outermost
    first), as :func:`tenet.mapping.tiled_nest` takes them."""

    level: str
    sizes: tuple[int, ...]
    order: tuple[int, ...]


@dataclass(frozen=True)
class TensorFacts:
    """What the bounds need of one tensor: its loops, whether its blocks hold disjoint data,
    its distinct elements read (pure inputs) and written, and its operand accesses."""

    tensor: TensorName
    loops: frozenset[int]
    """Positions of the loops its subscripts involve."""
    disjoint: bool
    """Blocks of a rectangular tiling over its loops hold disjoint data while no
    :attr:`halo` loop runs."""
    halo: frozenset[int]
    """Positions of the loops that share a subscript with another loop (``ox + rx``)."""
    read_only: int
    """Distinct elements read, for a tensor never written; else 0."""
    written: int
    """Distinct elements written."""
    reads: int
    """(instance, element) read pairs: the operand reads of the MACs."""
    writes: int
    """(instance, element) write pairs."""
    pe_read_only: int = 0
    """Distinct (PE, element) pairs read, for a tensor never written (0: not counted)."""
    pe_written: int = 0
    """Distinct (PE, element) pairs written (0: not counted)."""


def _separable(relations: Sequence[isl.Map], extents: Sequence[int]) -> frozenset[int] | None:
    """Return the loops that share a subscript with another loop (halo loops) when the one
    access relation in ``relations`` is affine without divisions and has every loop in at most
    one subscript; None otherwise. Loops of extent 1 never change and are left out.

    Blocks of a rectangular tiling whose running loops are not halo loops then hold disjoint
    data: two blocks differ in a loop that alone makes a subscript."""
    distinct = [r for r in relations if not r.is_empty()]
    if not distinct or any(not r.is_equal(distinct[0]) for r in distinct[1:]):
        return None
    relation = distinct[0]
    if not relation.is_single_valued():
        return None
    functions = relation.as_pw_multi_aff()
    if functions.n_piece() != 1:
        return None
    used: set[int] = set()
    halo: set[int] = set()
    for j in range(relation.dim(isl.dim_type.out)):
        pieces = functions.get_pw_aff(j).get_pieces()
        if len(pieces) != 1 or pieces[0][1].dim(isl.dim_type.div):
            return None
        aff = pieces[0][1]
        loops = {
            k
            for k in range(len(extents))
            if extents[k] > 1 and aff.involves_dims(isl.dim_type.in_, k, 1)
        }
        if loops & used:
            return None
        used |= loops
        if len(loops) > 1:
            halo |= loops
    return frozenset(halo)


@dataclass(frozen=True)
class BoundContext:
    """The figures of a problem that the bounds use, counted once (elements, pairs)."""

    dims: tuple[str, ...]
    extents: tuple[int, ...]
    tensors: tuple[TensorFacts, ...]
    levels: tuple[MemoryLevel, ...]
    short_links: bool
    """Every link of the array has a delay of at most one tile."""
    spread: tuple[int, ...] | None = None
    """Per loop, the PEs its values spread over (:func:`tenet.mapping.array_spread`) when
    the used PEs form a grid of per-loop coordinates: some PE takes at least
    ``ceil(size / spread)`` of ``size`` values of each loop (None: unknown, or the bounds
    hold for every array mapping)."""

    @classmethod
    def from_problem(cls, problem: Problem, per_pe: bool = True) -> BoundContext:
        """Count the facts of ``problem`` (a box domain from 0, see
        :func:`tenet.dse.tiling.rtile.box_extents`); with ``per_pe``, also the (PE, element)
        pairs of its array mapping: every PE fills each element it reads at least once into
        a per-PE level, and writes back each it writes (without, the bounds hold for every
        array mapping)."""
        dims, extents = box_extents(problem.workload)
        indices = loop_indices(problem)
        facts = []
        place = problem.theta_space.reverse()
        for tensor, (read, write) in tensor_relations(problem).items():
            halo = _separable([read, write], extents)
            pairs = (
                (
                    count(place.apply_range(read)) if write.is_empty() else 0,
                    count(place.apply_range(write)),
                )
                if per_pe
                else (0, 0)
            )
            facts.append(
                TensorFacts(
                    tensor,
                    frozenset(dims.index(d) for d in indices.get(tensor, ())),
                    halo is not None,
                    halo or frozenset(),
                    count(read.range()) if write.is_empty() else 0,
                    count(write.range()),
                    count(read),
                    count(write),
                    *pairs,
                )
            )
        links = problem.architecture.links
        short = all(link.delay <= 1 for link in links)
        spread = None
        if per_pe:
            space, domain = problem.dataflow.space_stamp, problem.workload.domain
            spreads = array_spread(space, domain)
            if prod(spreads.values()) == count(space.intersect_domain(domain).range()):
                spread = tuple(spreads[d] for d in dims)
        return cls(dims, extents, tuple(facts), problem.architecture.levels, short, spread)


@dataclass(frozen=True)
class Share:
    """One tensor's part of a node's energy bound (its operand accesses, fills, writebacks
    and the accesses that serve them), and of its estimate."""

    tensor: TensorName
    energy: Fraction
    estimate: Fraction


@dataclass(frozen=True)
class Bound:
    """Lower bounds of one node: memory-aware latency (cycles) and energy (the architecture's
    energy unit), with the level that attains the latency bound (or ``compute``)."""

    latency: Fraction
    energy: Fraction
    bottleneck: str
    estimate: Fraction | None = None
    """An estimate of the energy (not a bound): each PE fills the (PE, element) pairs of a
    per-PE level once per visit of their block, as when the PEs take the same elements on
    every visit. It orders the children of a node (the search visits likelier ones first)."""
    shares: tuple[Share, ...] = ()
    """Each tensor's part of :attr:`energy` and :attr:`estimate`, in the context's order:
    the energy is their sum."""

    def value(self, objective: MemoryObjective) -> Fraction:
        """Return the bound of ``objective``: cycles, energy, or their product."""
        if objective == "latency":
            return self.latency
        if objective == "energy":
            return self.energy
        return self.latency * self.energy

    def order(self, objective: MemoryObjective) -> tuple[Fraction, Fraction]:
        """Return the key that orders nodes by ``objective``: its estimate (the bound with
        the energy :attr:`estimate`), then the bound."""
        energy = self.energy if self.estimate is None else self.estimate
        estimate = {"latency": self.latency, "energy": energy}.get(objective)
        return (self.latency * energy if estimate is None else estimate, self.value(objective))


def kept_levels(
    levels: Sequence[MemoryLevel], kept: Mapping[str, frozenset[str]] | None
) -> list[frozenset[str] | None]:
    """Return per level the tensors it keeps: ``kept`` (a mapping's) where it names the
    level, else those the level may hold (None: every tensor)."""
    out: list[frozenset[str] | None] = []
    for level in levels:
        if kept is not None and level.name in kept:
            out.append(kept[level.name])
        else:
            out.append(None if level.tensors is None else frozenset(level.tensors))
    return out


def bands_of(nest: LoopNest) -> list[Band]:
    """Return the bands of a rectangular tiling (as :func:`tenet.mapping.tiled_nest` builds
    it): per level inside the outermost, its tile sizes and the order of the loops over its
    tiles (in the level outside).

    Examples
    --------
    >>> from tenet.mapping import tiled_nest
    >>> bands_of(tiled_nest(("i", "j"), (8, 8), "dram", [("glb", (4, 2), (1, 0))], (0, 1)))
    [Band(level='glb', sizes=(4, 2), order=(1, 0))]
    """
    return [
        Band(
            inner.level,
            nest.tile_sizes(inner.level),
            tuple(nest.dims.index(x.dim) for x in outer.loops),
        )
        for outer, inner in zip(nest.levels, nest.levels[1:], strict=False)
    ]


def _visits(
    facts: TensorFacts,
    loops: Sequence[tuple[int, int]],
    perfect: bool,
    free: Sequence[tuple[int, int]] = (),
    innermost: int | None = None,
    below: bool = False,
) -> int:
    """Return a lower bound on how many times each block of ``facts``' data is visited by the
    tile sequence of ``loops`` ((dimension, trips), outermost first), then the loops ``free``
    of a band whose order is not fixed but for its ``innermost`` loop, and (``below``) one of
    the tensor's own loops below them all; 1 when the runs cannot be told.

    The blocks are those of the loops that alone make a subscript (a halo loop, as ``ox`` in
    ``ox + rx``, only moves the data within its block): a run of one block ends when the
    innermost of them advances, so each loop the tensor does not depend on outside it starts
    the block's every run again."""
    running = [(d, n) for d, n in loops if n > 1]
    inside = [(d, n) for d, n in free if n > 1]
    if not perfect or not facts.disjoint:
        return 1
    if below:
        if any(d in facts.halo for d, _ in running + inside):
            return 1
        return prod(n for d, n in running + inside if d not in facts.loops)
    blocks = facts.loops - facts.halo
    if any(d in blocks for d, _ in inside):
        outer = prod(n for d, n in running if d not in facts.loops)
        if innermost in blocks:
            return outer * prod(n for d, n in inside if d not in facts.loops)
        return outer
    last = max((k for k, (d, _) in enumerate(running) if d in blocks), default=-1)
    return prod(n for d, n in running[: last + 1] if d not in facts.loops)


def lower_bound(
    context: BoundContext,
    compute: int,
    bands: Sequence[Band],
    kept: Mapping[str, frozenset[str]] | None = None,
    *,
    unordered: bool = False,
    places: Mapping[str, int] | None = None,
) -> Bound:
    """Return lower bounds on the memory-aware latency and energy of every tiling whose outer
    bands are ``bands`` (a prefix of the levels inside the outermost, outermost first), with
    ``compute`` the array mapping's compute latency (cycles) and ``kept`` the tensors each
    named level keeps (others: the architecture's). With ``unordered`` the last band's order
    is not fixed: the bound is the least over the choices of its innermost running loop.
    ``places`` gives, per tensor, how many of the last band's loops (from the innermost) its
    copy at the band's level spans, stored above them (none: 0, under every loop).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  params={"M": 64, "N": 64, "K": 64})
    >>> c = BoundContext.from_problem(p)
    >>> lower_bound(c, 0, []).latency  # A and B cross DRAM once (4/cycle), C once back
    Fraction(3072, 1)
    >>> b = lower_bound(c, 4096, [Band("glb", (8, 8, 64), (0, 1, 2))])
    >>> b.latency, b.bottleneck  # A once, B once per i-block (8), C once
    (Fraction(10240, 1), 'dram')
    """
    levels = context.levels
    keeps = kept_levels(levels, kept)
    position = {name: k for k, name in enumerate(lv.name for lv in levels)}
    fixed: dict[int, Band] = {position[b[0]]: b for b in bands}
    loops: list[list[tuple[int, int]]] = [[] for _ in levels]
    free: list[tuple[int, int]] = []
    perfect = [True for _ in levels]
    outside = context.extents
    running: list[tuple[int, int]] = []
    ok, complete = True, True
    last = position[bands[-1][0]] if bands else 0
    for k in range(1, len(levels)):
        band = fixed.get(k) if complete else None
        complete = band is not None
        if band is not None:
            _, sizes, order = band
            ok = ok and all(o % s == 0 for o, s in zip(outside, sizes, strict=True))
            trips = [(d, outside[d] // sizes[d]) for d in range(len(sizes))]
            if unordered and k == last:
                free = trips
            else:
                running = running + [trips[d] for d in order]
            outside = sizes
        loops[k] = list(running)
        perfect[k] = ok and (context.short_links or not levels[k].per_pe)
    inner: list[int | None] = [d for d, n in free if n > 1] or [None]
    own = {
        tensor: loops[last][: len(loops[last]) - spans]
        for tensor, spans in (places or {}).items()
        if spans
    }
    found = [
        _bound(context, compute, keeps, loops, perfect, free, last, choice, own, outside)
        for choice in inner
    ]
    slowest = min(found, key=lambda b: b.latency)
    shares = tuple(
        Share(
            facts.tensor,
            min(b.shares[t].energy for b in found) * (1 - ENERGY_SLACK),
            min(b.shares[t].estimate for b in found),
        )
        for t, facts in enumerate(context.tensors)
    )
    return Bound(
        slowest.latency,
        min(b.energy for b in found) * (1 - ENERGY_SLACK),
        slowest.bottleneck,
        min(b.estimate or b.energy for b in found),
        shares,
    )


def _bound(
    context: BoundContext,
    compute: int,
    keeps: Sequence[frozenset[str] | None],
    loops: Sequence[Sequence[tuple[int, int]]],
    perfect: Sequence[bool],
    free: Sequence[tuple[int, int]],
    last: int,
    innermost: int | None,
    own: Mapping[str, Sequence[tuple[int, int]]],
    tile: Sequence[int],
) -> Bound:
    """Return the bounds of :func:`lower_bound` for the tile sequences ``loops`` per level,
    the unordered band's loops ``free`` (at level ``last`` and inside) with ``innermost``,
    the tile sequences ``own`` of the tensors stored at level ``last`` above some of its
    band's loops, and ``tile`` the sizes of the last fixed band's tiles."""
    levels = context.levels
    reads_in = [0] * len(levels)
    writes_in = [0] * len(levels)
    shares = []
    for facts in context.tensors:
        holders = [k for k in range(len(levels)) if k == 0 or _holds(keeps[k], facts.tensor)]
        nearest = levels[holders[-1]]
        energy = facts.reads * _exact(nearest.energy_read)
        energy += facts.writes * _exact(nearest.energy_write)
        estimate = energy
        for parent, child in zip(holders, holders[1:], strict=False):
            inside = free if child >= last else ()
            sequence = own.get(facts.tensor, loops[child]) if child == last else loops[child]
            below = child > last and _overflows(context, facts, levels[child], tile)
            visits = _visits(facts, sequence, perfect[child], inside, innermost, below)
            into = visits * facts.read_only + (visits - 1) * facts.written
            out = visits * facts.written
            reads_in[parent] += into
            writes_in[parent] += out
            served = into * _exact(levels[parent].energy_read)
            served += out * _exact(levels[parent].energy_write)
            write, read = _exact(levels[child].energy_write), _exact(levels[child].energy_read)
            if levels[child].per_pe:
                energy += served + max(into, facts.pe_read_only) * write
                energy += max(out, facts.pe_written) * read
                # the estimate: every visit fills the PEs' own pairs
                pairs = facts.pe_read_only or facts.read_only, facts.pe_written or facts.written
                estimate += served + (visits * pairs[0] + (visits - 1) * pairs[1]) * write
                estimate += visits * pairs[1] * read
            else:
                energy += served + into * write + out * read
                estimate += served + into * write + out * read
        shares.append(Share(facts.tensor, Fraction(energy), Fraction(max(energy, estimate))))
    latency, bottleneck = Fraction(compute), "compute"
    for k, level in enumerate(levels):
        time = _time(reads_in[k], level.read_bandwidth) + _time(writes_in[k], level.write_bandwidth)
        if time > latency:
            latency, bottleneck = time, level.name
    return Bound(
        latency,
        sum((x.energy for x in shares), Fraction(0)),
        bottleneck,
        sum((x.estimate for x in shares), Fraction(0)),
        tuple(shares),
    )


def _overflows(
    context: BoundContext, facts: TensorFacts, level: MemoryLevel, tile: Sequence[int]
) -> bool:
    """Whether ``facts``' share of a ``tile`` cannot fit a per-PE ``level`` whose band is not
    fixed: some PE takes more of its elements than the level holds. Then, whatever the
    tilings and places inside, one of the tensor's own loops runs below its copy there, so
    every other fixed loop revisits its blocks (a tensor whose blocks are not disjoint, or
    an unknown spread, never overflows)."""
    if not level.per_pe or level.capacity is None or context.spread is None:
        return False
    if not facts.disjoint or facts.halo:
        return False
    need = prod(-(-tile[d] // context.spread[d]) for d in facts.loops)
    return need > level.capacity


@lru_cache(maxsize=256)
def _exact(energy: float) -> int | Fraction:
    """Return a level's energy per element exactly: an int when it is whole (cheaper to
    add), else a fraction."""
    return int(energy) if float(energy).is_integer() else Fraction(energy)


def _holds(keep: frozenset[str] | None, tensor: str) -> bool:
    return keep is None or tensor in keep


def _time(elements: int, bandwidth: Fraction | None) -> Fraction:
    return Fraction(0) if bandwidth is None or not elements else elements / bandwidth
