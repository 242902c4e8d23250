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
tiles, so the bound over the fixed bands holds below the node. A level's capacity also
forces fills and writebacks whatever the tiling (:mod:`tenet.dse.joint.pebbles`), added at
every node; by energy, the register file's traffic is at least its least over every tile and
single order of the loops above it (rule 14), and below a buffer's fixed band its least over
chains of the copies' tiles (rule 16). The derivation is in ``docs/dse.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from itertools import permutations, product
from math import prod
from typing import Literal, NamedTuple

import islpy as isl

from tenet.counting import count
from tenet.dse.joint.pebbles import capacity_traffic, slice_factor
from tenet.dse.tiling.rtile import box_extents
from tenet.mapping import LoopNest, array_coverage, array_spread
from tenet.mapping.tile_sizes import divisors
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
    "innermost_bounds",
    "lower_bound",
    "lower_shares",
    "kept_levels",
    "bands_of",
]

ENERGY_SLACK = Fraction(1, 10**9)
"""Relative margin taken off the energy bound: the exact energies are sums of floats."""
_KEPT = 1 - ENERGY_SLACK
"""What an energy bound keeps of itself (:data:`ENERGY_SLACK` off)."""


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
    subscripts: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per subscript, its loops and their coefficients (a separable access without
    divisions; empty: unknown)."""

    @cached_property
    def indexed(self) -> frozenset[int]:
        """Positions of the loops its data depends on: its :attr:`loops` and its subscripts'."""
        return self.loops | {e for terms in self.subscripts for e, _ in terms}


def _subscripts(
    relations: Sequence[isl.Map], extents: Sequence[int]
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Return per subscript of the one access relation in ``relations`` its loops (of extent
    more than 1) and their integer coefficients, when :func:`_separable` holds; else ()."""
    if _separable(relations, extents) is None:
        return ()
    relation = next(r for r in relations if not r.is_empty())
    functions = relation.as_pw_multi_aff()
    out = []
    for j in range(relation.dim(isl.dim_type.out)):
        aff = functions.get_pw_aff(j).get_pieces()[0][1]
        terms = []
        for k in range(len(extents)):
            if extents[k] > 1 and aff.involves_dims(isl.dim_type.in_, k, 1):
                value = aff.get_coefficient_val(isl.dim_type.in_, k)
                if not value.is_int():
                    return ()
                terms.append((k, int(value.to_python())))
        out.append(tuple(terms))
    return tuple(out)


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
    pes: int = 0
    """The PEs the array mapping uses (0: not counted)."""
    coverage: tuple[Mapping[int, int], ...] | None = None
    """Per loop and per aligned range of its values (a size dividing its extent), the fewest
    distinct PE coordinates the range takes (:func:`tenet.mapping.array_coverage`; None:
    unknown)."""
    linked: bool = False
    """The array has links: a per-PE fill may come from a neighbour instead of the parent."""
    slicing: int | None = None
    """The Loomis–Whitney factor of the three tensors' subscripts
    (:func:`tenet.dse.joint.pebbles.slice_factor`; None: not derived)."""
    refills: bool = False
    """Bound the register file's traffic over every tile and order of the loops above it
    (rule 14, :func:`_register_floor`: a search by energy or EDP, where it pays for its
    cost)."""

    @cached_property
    def forced(self) -> dict[int, int]:
        """Per level (position) whose capacity forces more fills and writebacks (rule 13,
        :func:`tenet.dse.joint.pebbles.capacity_traffic`; summed over its PEs, when it holds
        the three tensors) than the first fill of every element read and writeback of every
        element written, those it forces."""
        out: dict[int, int] = {}
        for k, level in enumerate(self.levels):
            buffers = self.pes if level.per_pe else 1
            if k and self.slicing is not None and level.capacity is not None and buffers:
                if not level.split:
                    instances = prod(self.extents)
                    traffic = capacity_traffic(instances, buffers, level.capacity, self.slicing)
                    # each element read is filled, and each written written back, once at least
                    firsts = sum(
                        max(f.read_only, f.pe_read_only) + max(f.written, f.pe_written)
                        for f in self.tensors
                    )
                    if traffic > firsts:
                        out[k] = traffic
        return out

    @cached_property
    def register_candidates(self) -> tuple[_Candidate, ...]:
        """What rule 14 (:func:`_register_floor`) takes the least of, counted once: per set
        of whole tensors, each tile maximal among those whose first PE holds their shares
        (and an element of every other tensor) within the innermost level's capacity, with
        its single orders and each tensor's energy per level that may serve it (empty: the
        rule does not apply)."""
        k = _register_level(self)
        if k is None:
            return ()
        assert self.spread is not None and self.coverage is not None
        level, extents = self.levels[k], self.extents
        assert level.capacity is not None
        n, dims = len(self.tensors), range(len(extents))
        held, cut = self.pes * level.capacity, 1 << len(self.tensors)
        sizes, spreads, bigger = self.size_tables
        serving = [
            [j for j in range(k) if j == 0 or self.levels[j].holds(f.tensor)] for f in self.tensors
        ]
        loops = [f.loops for f in self.tensors]
        tables, own = self._register_shares, self._share_loops
        out = []
        for mask in range(1, cut):
            whole = [t for t in range(n) if mask >> t & 1]
            room = level.capacity - (n - len(whole))
            mine = sorted(frozenset().union(*(loops[t] for t in whole)))

            def fits(tile: list[int], whole: list[int] = whole, room: int = room) -> bool:
                return sum(tables[t][tuple([tile[d] for d in own[t]])] for t in whole) <= room

            ways = [
                [(t, sum(1 << u for u in order[:i])) for i, t in enumerate(order)]
                + [(t, cut) for t in range(n) if not mask >> t & 1]
                for order in permutations(whole)
            ]
            for tile in _maximal_tiles(extents, mine, sizes, bigger, fits):
                costs: list[dict[tuple[int, int], int | Fraction]] = [{} for _ in range(n)]
                for way in ways:
                    for t, key in way:
                        others = every = frozenset(dims) - loops[t]
                        if key != cut:
                            others = (
                                frozenset().union(*(loops[u] for u in range(n) if key >> u & 1))
                                & every
                            )
                        visits = prod(extents[d] // tile[d] for d in others)
                        taking = prod(spreads[d][tile[d]] for d in others)
                        for j in serving[t]:
                            if (j, key) not in costs[t]:
                                costs[t][j, key] = _refill_energy(
                                    self.tensors[t], self.levels[j], level, visits, taking, held
                                )
                out.append(_Candidate(ways, costs))
        return tuple(out)

    @cached_property
    def size_tables(
        self,
    ) -> tuple[list[list[int]], list[dict[int, int]], list[dict[int, list[int]]]]:
        """:func:`_size_tables` of the loops (rules 14 and 16), counted once."""
        assert self.coverage is not None
        return _size_tables(self.extents, self.coverage)

    def register_share(self, tile: Sequence[int], t: int) -> int:
        """The elements of tensor ``t``'s share of a ``tile`` that the first PE holds when it
        keeps it whole (each subscript: its loops' ranges per PE summed, less the overlaps)."""
        key = tuple([tile[d] for d in self._share_loops[t]])
        return self._register_shares[t][key]

    @cached_property
    def _share_loops(self) -> tuple[tuple[int, ...], ...]:
        """Per tensor, its loops in order: the key of :meth:`register_share`'s table."""
        return tuple(tuple(sorted(f.loops)) for f in self.tensors)

    @cached_property
    def _register_shares(self) -> tuple[dict[tuple[int, ...], int], ...]:
        """Per tensor, :meth:`register_share` by the sizes of its loops, counted once."""
        assert self.spread is not None
        spread, (sizes, _, _) = self.spread, self.size_tables
        out = []
        for f, own in zip(self.tensors, self._share_loops, strict=True):
            table = {}
            for chosen in product(*[sizes[d] for d in own]):
                size = dict(zip(own, chosen, strict=True))
                table[chosen] = prod(
                    sum(-(-size[d] // spread[d]) for d, _ in terms) - len(terms) + 1
                    for terms in f.subscripts
                )
            out.append(table)
        return tuple(out)

    @cached_property
    def chains(self) -> dict[tuple[object, ...], tuple[Fraction | None, bool]]:
        """Rule 16's bounds (:meth:`chain`) by kept tensors and loops above the register
        file's band, counted so far, each with whether a cap cut it (cleared when it holds
        :data:`_HOPS_HELD`)."""
        return {}

    def chain(
        self,
        keeps: Sequence[frozenset[str] | None],
        outer: Sequence[tuple[int, int]],
        windows: bool = False,
        cap: int | Fraction | None = None,
    ) -> Fraction | None:
        """:func:`_register_chain` of the context, ``keeps`` (per level, the tensors it
        keeps; None: every one), the loops ``outer`` above the register file's band,
        ``windows`` and ``cap``, counted once (again only for a higher cap)."""
        key = (tuple(keeps), tuple(outer), windows)
        found = self.chains.get(key)
        if found is not None:
            value, capped = found
            if not capped:
                return value
            if cap is not None and value is not None and cap <= value:
                return Fraction(cap)
        if len(self.chains) >= _HOPS_HELD:
            self.chains.clear()
        value = _register_chain(self, keeps, outer, windows, cap)
        self.chains[key] = value, cap is not None and value is not None and value >= cap
        return value

    @cached_property
    def floors(self) -> dict[tuple[frozenset[str] | None, ...], Fraction | None]:
        """The register-file floor (:func:`_register_floor`) per choice of kept tensors,
        counted once."""
        return {}

    @cached_property
    def chip_floor(self) -> Fraction | None:
        """Rule 15's bound on DRAM's energy (:func:`_chip_floor`), counted once."""
        return _chip_floor(self)

    @cached_property
    def rates(self) -> tuple[tuple[int, int, int], ...]:
        """Per level, ints ``(r, w, s)``: reading ``x`` elements and writing ``y`` takes
        ``(x * r + y * w) / s`` cycles at its bandwidths (0 when unlimited)."""
        out = []
        for level in self.levels:
            read = Fraction(level.read_bandwidth or 0)
            write = Fraction(level.write_bandwidth or 0)
            r, w = read.numerator or 1, write.numerator or 1  # (cycles per element: q / p)
            out.append(
                (read.denominator * w if read else 0, write.denominator * r if write else 0, r * w)
            )
        return tuple(out)

    @cached_property
    def hops(self) -> dict[tuple[object, ...], _Hop]:
        """The bounded hops (:func:`_hop`) counted so far, by their arguments (cleared when
        it holds :data:`_HOPS_HELD`)."""
        return {}

    @cached_property
    def degrees(self) -> tuple[int, ...]:
        """Per tensor, the most PEs that take one element of its data: its loops alone in a
        subscript are fixed by the element, every other loop spreads it over its coordinates
        (each PE axis a function of one loop); all the PEs used otherwise."""
        out = []
        for facts in self.tensors:
            if self.coverage is None or not facts.subscripts:
                out.append(max(1, self.pes))
                continue
            alone = {terms[0][0] for terms in facts.subscripts if len(terms) == 1}
            n = len(self.extents)
            out.append(prod(self.coverage[d][self.extents[d]] for d in range(n) if d not in alone))
        return tuple(out)

    @classmethod
    def from_problem(
        cls, problem: Problem, per_pe: bool = True, refills: bool = False
    ) -> BoundContext:
        """Count the facts of ``problem`` (a box domain from 0, see
        :func:`tenet.dse.tiling.rtile.box_extents`); with ``per_pe``, also the (PE, element)
        pairs of its array mapping: every PE fills each element it reads at least once into
        a per-PE level, and writes back each it writes (without, the bounds hold for every
        array mapping); with ``refills``, rule 14 (:attr:`refills`)."""
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
                    _subscripts([read, write], extents),
                )
            )
        links = problem.architecture.links
        short = all(link.delay <= 1 for link in links)
        spread, coverage, used = None, None, 0
        if per_pe:
            space, domain = problem.dataflow.space_stamp, problem.workload.domain
            spreads = array_spread(space, domain)
            used = count(space.intersect_domain(domain).range())
            if prod(spreads.values()) == used:
                spread = tuple(spreads[d] for d in dims)
                covered = array_coverage(space, domain)
                if covered is not None:
                    coverage = tuple(covered[d] for d in dims)
        slicing = slice_factor([f.subscripts for f in facts], extents)
        return cls(
            dims,
            extents,
            tuple(facts),
            problem.architecture.levels,
            short,
            spread,
            used,
            coverage,
            bool(links),
            slicing,
            refills,
        )


@dataclass(frozen=True)
class Share:
    """One tensor's part of a node's energy bound (its operand accesses, fills, writebacks
    and the accesses that serve them), and of its estimate."""

    tensor: TensorName
    energy: int | Fraction
    estimate: int | Fraction


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
    the energy is at least their sum (more when the tensors kept whole at a per-PE level
    must fit it together)."""

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


def _new_data(
    context: BoundContext,
    facts: TensorFacts,
    loops: Sequence[tuple[int, int]],
    free: Sequence[tuple[int, int]],
    choices: Sequence[int | None],
) -> list[int]:
    """Return, for each of the ``choices`` of the innermost loop of ``free``, the elements of
    ``facts``' data that each tile of the perfect tile sequence ``loops`` ((dimension,
    trips), outermost first), then the loops ``free`` of a band in an unknown order but for
    that innermost loop (None: unknown too), holds and the tile before it does not, summed
    over the tiles: every tile's data less its overlap with the previous tile, the overlap
    depending only on the loop that advances (sliding windows included; a step of a free
    loop other than the innermost is taken to overlap wholly); 0 when the access is not
    separable. What does not depend on the choice is counted once."""
    if not facts.subscripts:
        return [0] * len(choices)
    extents = context.extents
    # (a loop of one trip neither moves the tile nor repeats it)
    loops = [(d, n) for d, n in loops if n > 1]
    free = [(d, n) for d, n in free if n > 1]
    steps, tile = [], list(extents)
    for d, n in [*loops, *free]:
        tile[d] //= n
        steps.append(tile[d])
    boxes = [tuple((a, tile[e]) for e, a in terms) for terms in facts.subscripts]

    def overlap(shift: Sequence[int]) -> int:
        return prod(
            _values(box, sum(a * shift[e] for e, a in terms))
            for box, terms in zip(boxes, facts.subscripts, strict=True)
        )

    total = prod(_values(box, 0) for box in boxes)
    inner = prod(n for _, n in free)
    new = prod(n for _, n in loops) * inner * total
    outer = 1
    sequence = [*loops, *free]
    for i, (d, n) in enumerate(loops):
        shift = [0] * len(extents)
        shift[d] += steps[i]
        for k in range(i + 1, len(sequence)):
            e, m = sequence[k]
            shift[e] -= (m - 1) * steps[k]
        new -= (n - 1) * outer * overlap(shift)
        outer *= n
    if inner == 1:
        return [new] * len(choices)
    trips, found = dict(free), []
    for innermost in choices:
        n = 1 if innermost is None else trips.get(innermost, 1)
        last = 0
        if n > 1:
            assert innermost is not None
            shift = [0] * len(extents)
            shift[innermost] = tile[innermost]
            last = (n - 1) * (inner // n) * overlap(shift)
        found.append(new - outer * (last + (inner // n - 1) * total))
    return found


@lru_cache(maxsize=4096)
def _values(terms: tuple[tuple[int, int], ...], shift: int) -> int:
    """Return how many values ``sum(a * v)`` (``terms``: coefficient ``a`` and the number of
    consecutive values ``v`` takes) the box takes that it also takes shifted by ``shift``
    (shift 0: how many it takes)."""
    values = {0}
    for a, size in terms:
        values = {x + a * v for x in values for v in range(size)}
    if not shift:
        return len(values)
    return len(values & {x + shift for x in values})


def _replication(
    context: BoundContext, facts: TensorFacts, loops: Sequence[tuple[int, int]], perfect: bool
) -> tuple[int, int]:
    """Return the visits of each block of ``facts``' data by the tile sequence ``loops`` (as
    :func:`_visits`) and the fewest PEs that take each element of a block during one visit
    (per-PE runs: each visit's (PE, element) pairs are filled again); (1, 1) when unknown."""
    visits = _visits(facts, loops, perfect)
    if context.coverage is None or not perfect or not facts.disjoint or facts.halo:
        return visits, 1
    running = [(d, n) for d, n in loops if n > 1]
    last = max((k for k, (d, _) in enumerate(running) if d in facts.loops), default=-1)
    ranges = list(context.extents)
    for d, n in running[: last + 1]:
        ranges[d] //= n
    pes = prod(context.coverage[d][ranges[d]] for d in range(len(ranges)) if d not in facts.loops)
    return visits, pes


def _tile_pes(context: BoundContext, facts: TensorFacts, loops: Sequence[tuple[int, int]]) -> int:
    """Return the fewest PEs that take each element of ``facts``' data in one tile of the
    sequence ``loops`` (the loops it does not depend on spread it over their coordinates in
    the tile); 1 when unknown."""
    if context.coverage is None:
        return 1
    tile = list(context.extents)
    for d, n in loops:
        tile[d] //= n
    return prod(context.coverage[d][tile[d]] for d in range(len(tile)) if d not in facts.loops)


def _widest(context: BoundContext, loops: Sequence[tuple[int, int]]) -> int:
    """Return the most PEs that take part in one tile of the perfect sequence ``loops``: a
    tile's values of a loop take at most as many coordinates as there are values (and at
    most those of the loop's whole extent, :attr:`BoundContext.coverage`), and the array
    mapping uses at most :attr:`BoundContext.pes`."""
    tile = list(context.extents)
    for d, n in loops:
        tile[d] //= n
    if context.coverage is None:
        most = prod(tile)
    else:
        whole = [context.coverage[d][e] for d, e in enumerate(context.extents)]
        most = prod(min(t, w) for t, w in zip(tile, whole, strict=True))
    return min(most, context.pes) if context.pes else most


def lower_bound(
    context: BoundContext,
    compute: int,
    bands: Sequence[Band],
    kept: Mapping[str, frozenset[str]] | None = None,
    *,
    unordered: bool = False,
    places: Mapping[str, int] | None = None,
    chains: CopyChains = "copies",
    above: Fraction | None = None,
    shares: bool = True,
) -> Bound:
    """Return lower bounds on the memory-aware latency and energy of every tiling whose outer
    bands are ``bands`` (a prefix of the levels inside the outermost, outermost first), with
    ``compute`` the array mapping's compute latency (cycles) and ``kept`` the tensors each
    named level keeps (others: the architecture's). With ``unordered`` the last band's order
    is not fixed: the bound is the least over the choices of its innermost running loop.
    ``places`` gives, per tensor, how many of the last band's loops (from the innermost) its
    copy at the band's level spans, stored above them (none: 0, under every loop).
    ``chains`` says how rule 16 bounds a node whose bands above the register file's are
    fixed: not at all (None), over chains of copies, or with their windows too (slower);
    rule 16 stops once it shows the energy bound above ``above`` (a node worse than the best
    so far: its bound is then above ``above``, if less than it would be); without
    ``shares``, the bound has none (:attr:`Bound.shares` empty; a child's key needs none).

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
    node = _sequences(context, bands, kept, unordered, places)
    return _least(context, _bound(context, compute, node, chains, above), shares)


def innermost_bounds(
    context: BoundContext,
    compute: int,
    bands: Sequence[Band],
    kept: Mapping[str, frozenset[str]] | None = None,
) -> dict[int, Bound]:
    """Return, per running loop of the last band of ``bands`` (its order not fixed), the
    bounds of :func:`lower_bound` over the orders whose innermost running loop it is (none
    when the band has no running loop)."""
    node = _sequences(context, bands, kept, True, None)
    found = _bound(context, compute, node, None)
    return {
        c: _least(context, [b]) for c, b in zip(node.choices, found, strict=True) if c is not None
    }


def _least(context: BoundContext, found: Sequence[Bound], shares: bool = True) -> Bound:
    """Return the least of the bounds ``found`` (the energies less :data:`ENERGY_SLACK`),
    with the tensors' shares or (``shares`` False) none."""
    slowest = min(found, key=lambda b: b.latency)
    least = (
        tuple(
            Share(
                facts.tensor,
                min(b.shares[t].energy for b in found) * _KEPT,
                min(b.shares[t].estimate for b in found),
            )
            for t, facts in enumerate(context.tensors)
        )
        if shares
        else ()
    )
    return Bound(
        slowest.latency,
        min(b.energy for b in found) * _KEPT,
        slowest.bottleneck,
        min(b.estimate or b.energy for b in found),
        least,
    )


class _Sequences(NamedTuple):
    """The tile sequences of a node (:func:`_sequences`)."""

    keeps: list[frozenset[str] | None]
    """Per level, the tensors it keeps (None: every one)."""
    loops: list[list[tuple[int, int]]]
    """Per level, the fixed loops (dimension, trips) above its tiles, outermost first."""
    perfect: list[bool]
    """Per level, whether its tile sequence is perfect (every fixed size divides)."""
    free: list[tuple[int, int]]
    """The loops of the last band when its order is not fixed."""
    last: int
    """The level of the last fixed band."""
    grid: list[bool]
    """Per level, whether rule 3's runs hold on its sequence."""
    tile: Sequence[int]
    """The sizes of the last fixed band's tiles."""
    choices: list[int | None]
    """The choices of the free band's innermost loop ([None]: no free band)."""
    own: dict[str, list[tuple[int, int]]]
    """The tile sequences of the tensors stored at the last level above some of its loops."""


def _sequences(
    context: BoundContext,
    bands: Sequence[Band],
    kept: Mapping[str, frozenset[str]] | None,
    unordered: bool,
    places: Mapping[str, int] | None,
) -> _Sequences:
    """Return the tile sequences of the node of ``bands`` (see :func:`lower_bound`)."""
    levels = context.levels
    keeps = kept_levels(levels, kept)
    position = {name: k for k, name in enumerate(lv.name for lv in levels)}
    fixed: dict[int, Band] = {position[b[0]]: b for b in bands}
    loops: list[list[tuple[int, int]]] = [[] for _ in levels]
    free: list[tuple[int, int]] = []
    perfect = [True for _ in levels]
    # rule 3's runs hold when every fixed band of a level's sequence but its innermost is
    # perfect: that one's tiles, partial or not, are at least ceil(outside / size) a tile
    # outside it (docs/dse.md, "Partial tiles")
    grid = [True for _ in levels]
    outside = context.extents
    running: list[tuple[int, int]] = []
    ok, outer, complete = True, True, True
    last = position[bands[-1][0]] if bands else 0
    for k in range(1, len(levels)):
        band = fixed.get(k) if complete else None
        complete = band is not None
        if band is not None:
            _, sizes, order = band
            outer = ok
            ok = ok and all(o % s == 0 for o, s in zip(outside, sizes, strict=True))
            trips = [(d, -(-outside[d] // sizes[d])) for d in range(len(sizes))]
            if unordered and k == last:
                free = trips
            else:
                running = running + [trips[d] for d in order]
            outside = sizes
        loops[k] = list(running)
        perfect[k] = ok and (context.short_links or not levels[k].per_pe)
        grid[k] = outer and (context.short_links or not levels[k].per_pe)
    inner: list[int | None] = [d for d, n in free if n > 1] or [None]
    own = {
        tensor: loops[last][: len(loops[last]) - spans]
        for tensor, spans in (places or {}).items()
        if spans
    }
    return _Sequences(list(keeps), loops, perfect, free, last, grid, outside, inner, own)


def lower_shares(
    context: BoundContext,
    bands: Sequence[Band],
    kept: Mapping[str, frozenset[str]] | None = None,
    places: Mapping[str, int] | None = None,
) -> tuple[Share, ...]:
    """Return the tensors' shares of :func:`lower_bound` of the node of ordered ``bands``
    with their ``places`` alone (each tensor's own hops, the rules that couple them left
    out: faster)."""
    node = _sequences(context, bands, kept, False, places)
    return tuple(
        Share(facts.tensor, energy * _KEPT, max(energy, estimate))
        for facts, energy, estimate in _energies(_plan(context, node))
    )


CopyChains = Literal["copies", "windows"] | None
"""How rule 16 bounds a node (:func:`lower_bound`)."""


def _bound(
    context: BoundContext,
    compute: int,
    node: _Sequences,
    chains: CopyChains = "copies",
    above: Fraction | None = None,
) -> list[Bound]:
    """Return the bounds of :func:`lower_bound` of the ``node``'s tile sequences, one for
    each choice of the free band's innermost loop (the hops outside it counted once), rule
    16 cut at ``above``."""
    levels = context.levels
    register = _register_level(context)
    planned = _plan(context, node)
    keeps, loops, perfect, free, last = node.keeps, node.loops, node.perfect, node.free, node.last
    inner = [k for k, lv in enumerate(levels) if k > last and lv.per_pe]
    held = sum(1 for f in context.tensors if inner and _holds(keeps[inner[0]], f.tensor))
    capacity = _capacity(context, last)
    # rule 14 holds over nested divisor tiles (the declared space)
    floor = _floor(context, keeps) if register is not None and all(perfect) else None
    if chains and floor is not None and register is not None and 0 < last == register - 1:
        # the bands above the register file's are fixed and ordered (rule 16)
        chained = None
        if not free:
            cap = None if above is None else _cap(planned, register, above)
            chained = context.chain(keeps, loops[register], chains == "windows", cap)
        floor = floor if chained is None else max(floor, chained)
    chip = context.chip_floor if all(perfect) else None
    floors = _whole(floor), _whole(chip)  # (ints add and compare faster)
    return [
        _choice_bound(context, compute, planned, i, *floors, capacity, held, register)
        for i in range(len(node.choices))
    ]


def _cap(planned: Sequence[_Planned], register: int, above: Fraction) -> int | Fraction:
    """Return the least register-file floor at which the energy bound of an ordered node of
    ``planned`` tensors is above ``above`` (:func:`_choice_bound`: the shares, and the floor
    less their register-file traffic)."""
    refills = sum(
        hops[0][0]
        for _, _, _, steps in planned
        for _, child, hops, _, _ in steps
        if child == register
    )
    separate = sum(energy for _, energy, _ in _energies(planned))
    return (above / _KEPT - separate + refills) // 1 + 1


def _plan(context: BoundContext, node: _Sequences) -> list[_Planned]:
    """Return per tensor of the ``node`` (its tile sequences) its operand accesses' energy,
    whether DRAM serves them, and per hop its levels, its bounds per choice of the free
    band's innermost loop and, the first time its share may stay resident in a per-PE level
    inside the last fixed band, its need there and its bounds as if it did not."""
    levels, tile, last, choices = context.levels, node.tile, node.last, node.choices
    planned = []
    for t, facts in enumerate(context.tensors):
        holders = [k for k in range(len(levels)) if k == 0 or _holds(node.keeps[k], facts.tensor)]
        nearest = levels[holders[-1]]
        energy = facts.reads * _exact(nearest.energy_read)
        energy += facts.writes * _exact(nearest.energy_write)
        hops = []
        resident = False
        for parent, child in zip(holders, holders[1:], strict=False):
            inside = node.free if child >= last else ()
            sequence = node.loops[child]
            if child == last:
                sequence = node.own.get(facts.tensor, sequence)
            below = child > last and _overflows(context, facts, levels[child], tile)
            perfect = node.perfect[child]
            step: _Step = (context, facts, levels, parent, child, sequence, perfect, inside)
            runs = node.grid[child]  # (rule 3 on a partial innermost band)
            ways = choices if inside else [None]
            each = _hops_of(t, step, ways, below, tile, child > last, runs)
            need = _resident_need(context, facts, levels[child], tile)
            moved = None
            if child > last and not below and need is not None and not resident:
                resident = True  # (as if it overflowed)
                moved = _hops_of(t, step, ways, True, tile, True, runs)
            hops.append((parent, child, each, need, moved))
        planned.append((facts, len(holders) == 1, energy, hops))
    return planned


def _energies(
    planned: Sequence[_Planned],
) -> Iterator[tuple[TensorFacts, int | Fraction, int | Fraction]]:
    """Yield per ``planned`` tensor of an ordered node its bounded energy and estimate."""
    for facts, _, energy, hops in planned:
        estimate = energy
        for _, _, (hop,), _, _ in hops:
            energy += hop[0]
            estimate += hop[1]
        yield facts, energy, estimate


def _choice_bound(
    context: BoundContext,
    compute: int,
    planned: Sequence[_Planned],
    i: int,
    floor: int | Fraction | None,
    chip: int | Fraction | None,
    capacity: int | None,
    held: int,
    register: int | None,
) -> Bound:
    """Return the bound of :func:`_bound` for its ``i``-th choice of innermost loop, from the
    tensors' ``planned`` hops, rule 14's (or 16's) ``floor``, rule 15's ``chip`` floor,
    the ``capacity`` of the per-PE level inside the last band holding ``held`` tensors."""
    levels = context.levels
    reads_in = [0] * len(levels)
    writes_in = [0] * len(levels)
    shares = []
    # a per-PE level whose band is not fixed: the tensors whose share of the last fixed tile
    # it may keep whole (resident) must fit it together; the others are revisited by every
    # fixed loop they do not depend on
    choices: list[tuple[int, Fraction]] = []
    # per level, the bounded fills and writebacks of each tensor it holds (rule 13)
    transfers: list[list[_Transfer]] = [[] for _ in levels]
    forced = context.forced
    # (sums of ints while the energies per access are whole: fractions cost)
    refills: int | Fraction = 0  # the tensors' bounded traffic into and out of the register file
    dram: int | Fraction = 0  # the tensors' bounded DRAM traffic
    dram_read, dram_write = _exact(levels[0].energy_read), _exact(levels[0].energy_write)
    for t, (facts, alone, energy, hops) in enumerate(planned):
        if alone:
            dram += energy  # its operands at DRAM
        estimate = energy
        for parent, child, each, need, moved in hops:
            hop = each[i] if len(each) > 1 else each[0]
            reads_in[parent] += hop[2]
            writes_in[parent] += hop[3]
            energy += hop[0]
            estimate += hop[1]
            if child == register:
                refills += hop[0]
            if parent == 0:
                dram += hop[2] * dram_read + hop[3] * dram_write
            if child in forced:
                transfers[child] += _transfers(context, t, levels[parent], levels[child], hop)
            if moved is not None and need is not None:
                other = moved[i] if len(moved) > 1 else moved[0]
                choices.append((need, Fraction(max(0, other[0] - hop[0]))))
        shares.append(Share(facts.tensor, energy, max(energy, estimate)))
    resident = _least_extra(choices, capacity, held)
    beyond = max(resident, _forced(context, transfers) if forced else 0)
    separate = sum(x.energy for x in shares)
    coupled = separate + max(
        beyond,
        0 if floor is None else floor - refills,
        0 if chip is None else chip - dram,
    )
    # the slowest of compute and each level's reads and writes, as fractions of ints
    (cycles, per), bottleneck = (compute, 1), "compute"
    for k, (read, write, scale) in enumerate(context.rates):
        time = reads_in[k] * read + writes_in[k] * write
        if time * per > cycles * scale:
            (cycles, per), bottleneck = (time, scale), levels[k].name
    return Bound(
        Fraction(cycles, per),
        Fraction(coupled),
        bottleneck,
        Fraction(max(separate + beyond, sum(x.estimate for x in shares))),
        tuple(shares),
    )


_Hop = tuple[int | Fraction, int | Fraction, int, int, int, int]
"""A bounded hop (:func:`_hop`): energy, estimate, the parent's reads and writes, the
child's fills and writebacks."""

_Planned = tuple[
    TensorFacts,
    bool,
    int | Fraction,
    list[tuple[int, int, list[_Hop], int | None, list[_Hop] | None]],
]
"""One tensor in :func:`_bound`: its facts, whether DRAM serves its operands, their
energy, and per hop its parent, child, bounds per choice, resident need and bounds as if
not resident."""


_HOPS_HELD = 200_000
"""The most hops a context remembers (:attr:`BoundContext.hops`)."""


_Step = tuple[
    BoundContext,
    TensorFacts,
    Sequence[MemoryLevel],
    int,
    int,
    Sequence[tuple[int, int]],
    bool,
    Sequence[tuple[int, int]],
]
"""The first arguments of :func:`_hop`: context, tensor, levels, parent, child, the child's
tile sequence, whether it is perfect, and the free band's loops."""


def _hops_of(
    t: int,
    step: _Step,
    choices: Sequence[int | None],
    below: bool,
    tile: Sequence[int],
    unfixed: bool,
    grid: bool,
) -> list[_Hop]:
    """Return :func:`_hops` of ``step`` (the context's tensor ``t``) and the rest, each hop
    counted once: the children of a node share the hops of the levels outside their band."""
    context, facts, _, parent, child, sequence, perfect, inside = step
    trips = _sequence_key(context, facts, sequence)
    common = (t, parent, child, trips, perfect, _inside_key(facts, inside), below)
    rest = (tuple(tile) if below or unfixed else None, unfixed, grid)
    # (an innermost loop none of its data depends on bounds it as any other such)
    keys = [
        (*common, (c if c in facts.indexed else -1) if inside else None, *rest) for c in choices
    ]
    hops = context.hops
    missing = {key: c for key, c in zip(keys, choices, strict=True) if key not in hops}
    if missing:
        if len(hops) + len(missing) > _HOPS_HELD:
            hops.clear()
            missing = dict(zip(keys, choices, strict=True))
        found = _hops(*step, list(missing.values()), below, tile, unfixed, grid)
        hops.update(zip(missing, found, strict=True))
    return [hops[key] for key in keys]


def _sequence_key(
    context: BoundContext, facts: TensorFacts, sequence: Sequence[tuple[int, int]]
) -> tuple[object, ...]:
    """What a hop of ``facts`` (:func:`_hops`) takes of its tile ``sequence``: without a
    window, per loop the product of its trips up to the tensor's innermost running own loop
    (:func:`_visits`, :func:`_replication`) and of all its trips (:func:`_widest`); with one,
    the sequence (:func:`_new_data`)."""
    if facts.halo:
        return tuple(sequence)
    running = [(d, n) for d, n in sequence if n > 1]
    last = max((k for k, (d, _) in enumerate(running) if d in facts.loops), default=-1)
    outer, whole = [1] * len(context.extents), [1] * len(context.extents)
    for k, (d, n) in enumerate(running):
        whole[d] *= n
        if k <= last:
            outer[d] *= n
    return tuple(outer), tuple(whole)


def _inside_key(facts: TensorFacts, inside: Sequence[tuple[int, int]]) -> tuple[object, ...]:
    """What a hop of ``facts`` (:func:`_hops`) takes of the free band's loops ``inside``:
    without a window, the trips of the loops its data does not depend on and which of its
    own loops run (:func:`_visits`); with one, every trip (:func:`_new_data`)."""
    if facts.halo:
        return tuple(inside)
    others = tuple((d, n) for d, n in inside if n > 1 and d not in facts.loops)
    return others, tuple(d for d, n in inside if n > 1 and d in facts.loops)


def _hops(
    context: BoundContext,
    facts: TensorFacts,
    levels: Sequence[MemoryLevel],
    parent: int,
    child: int,
    sequence: Sequence[tuple[int, int]],
    perfect: bool,
    inside: Sequence[tuple[int, int]],
    choices: Sequence[int | None],
    below: bool,
    tile: Sequence[int],
    unfixed: bool = False,
    grid: bool = False,
) -> list[_Hop]:
    """Return, for each of the ``choices`` of the free band's innermost loop, the bounded
    energy and estimate of ``facts``' traffic from level ``parent`` into level ``child`` over
    the tile ``sequence`` (see :func:`_bound`; with ``grid``, the runs of a sequence whose
    innermost band only is not ``perfect``), the elements read out of and written into the
    parent, and the child's bounded fills and writebacks (summed over its PEs)."""
    news = [0] * len(choices)
    if facts.halo and facts.read_only and perfect:
        # a sliding window: each tile brings what the one before it lacks
        news = _new_data(context, facts, sequence, inside, choices)
    per_pe = levels[child].per_pe
    runs, pes, tile_pes, widest = 1, 1, 1, None
    if per_pe:
        # per-PE runs over the fixed, ordered loops (a free band refines them)
        runs, pes = _replication(context, facts, sequence, perfect)
        if any(news):
            tile_pes = _tile_pes(context, facts, [*sequence, *inside])
        if perfect and not context.linked:
            widest = _widest(context, sequence)
    capacity = levels[child].capacity
    limited = unfixed and perfect and facts.subscripts and context.pes and capacity is not None
    pairs_in = array_in = 0
    if per_pe and limited:
        # each last fixed tile: a PE holds at most its capacity when the tile starts, and
        # brings (or sends back) the rest of what it takes there
        assert capacity is not None
        tiles = prod(e // t for e, t in zip(context.extents, tile, strict=True))
        data = prod(_values(tuple((a, tile[d]) for d, a in terms), 0) for terms in facts.subscripts)
        held = context.pes * capacity
        pairs_in = max(0, data * _pes_of(context, facts, tile) - held) * tiles
        array_in = max(0, data - held) * tiles
    spread = None
    if per_pe and below and perfect and facts.disjoint and not facts.halo:
        spread = _pes_of(context, facts, tile)
    return [
        _hop(
            facts,
            levels[parent],
            levels[child],
            _visits(facts, sequence, perfect or grid, inside, innermost, below and perfect),
            new,
            (runs, pes, tile_pes, spread, pairs_in, array_in, widest) if per_pe else None,
        )
        for innermost, new in zip(choices, news, strict=True)
    ]


def _hop(
    facts: TensorFacts,
    parent: MemoryLevel,
    child: MemoryLevel,
    visits: int,
    new: int,
    per_pe: tuple[int, int, int, int | None, int, int, int | None] | None,
) -> _Hop:
    """Return one hop of :func:`_hops` from its ``visits`` of each block, the ``new``
    elements its windows bring and, into a ``per_pe`` level, its runs, the PEs that take
    each element per run and per tile, the spread of a tensor that overflows the level
    (None: it does not), the pairs and elements its capacity forces in, and the most PEs
    of one of the level's tiles (:func:`_widest`; None: not counted)."""
    into = visits * facts.read_only + (visits - 1) * facts.written
    if new:
        into = max(into, new)
    out = visits * facts.written
    served = into * _exact(parent.energy_read)
    served += out * _exact(parent.energy_write)
    write, read = _exact(child.energy_write), _exact(child.energy_read)
    if per_pe is None:
        energy = served + into * write + out * read
        return energy, energy, into, out, into, out
    runs, pes, tile_pes, spread, pairs_in, array_in, widest = per_pe
    pe_into = (runs * facts.read_only + (runs - 1) * facts.written) * pes
    pe_out = runs * facts.written * pes
    if new:
        # each new element of a tile is new to every PE that takes it there
        pe_into = max(pe_into, new * tile_pes)
    if spread is not None:
        # every last fixed tile brings the tensor's share again, to every PE that takes it
        pe_into = max(pe_into, into * spread)
        pe_out = max(pe_out, out * spread)
    if pairs_in or array_in:
        if facts.read_only:
            pe_into = max(pe_into, pairs_in)
            if array_in > into:
                served += (array_in - into) * _exact(parent.energy_read)
                into = array_in
        elif facts.written:
            pe_out = max(pe_out, pairs_in)
            if array_in > out:
                served += (array_in - out) * _exact(parent.energy_write)
                out = array_in
    if widest is not None:
        # one access of the parent serves the PEs of one tile at most (with multicast or
        # reduction; else one PE)
        fills = max(into, facts.pe_read_only, pe_into)
        reads = -(-fills // widest) if child.multicast else fills
        if reads > into:
            served += (reads - into) * _exact(parent.energy_read)
            into = reads
        sent = max(out, facts.pe_written, pe_out)
        writes = -(-sent // widest) if child.reduction else sent
        if writes > out:
            served += (writes - out) * _exact(parent.energy_write)
            out = writes
    energy = served + max(into, facts.pe_read_only, pe_into) * write
    energy += max(out, facts.pe_written, pe_out) * read
    # the estimate: every visit fills the PEs' own pairs
    pairs = facts.pe_read_only or facts.read_only, facts.pe_written or facts.written
    estimate = served + (visits * pairs[0] + (visits - 1) * pairs[1]) * write
    estimate += visits * pairs[1] * read
    pe_fills, pe_writebacks = (
        max(into, facts.pe_read_only, pe_into),
        max(out, facts.pe_written, pe_out),
    )
    return energy, estimate, into, out, pe_fills, pe_writebacks


class _Transfer(NamedTuple):
    """One tensor's fills (or writebacks) at a level, as a node's bound counts them: at least
    ``bound`` over the level's PEs, each ``child`` energy, and the parent serves at least
    ``served`` of them and at least one per ``degree`` of them, each ``parent`` energy."""

    bound: int
    served: int
    degree: int
    child: int | Fraction
    parent: int | Fraction


def _transfers(
    context: BoundContext,
    tensor: int,
    parent: MemoryLevel,
    child: MemoryLevel,
    hop: _Hop,
) -> list[_Transfer]:
    """Return the fills and writebacks of the context's ``tensor`` (position) at ``child``
    as :func:`_hop` bounded them (``hop``). A parent's access serves one element to the PEs
    that take it in one tile (at most :attr:`BoundContext.degrees`, with multicast or
    reduction; else one); a fill may come from a linked PE instead."""
    _, _, into, out, fills, writebacks = hop
    taking = context.degrees[tensor] if child.per_pe else 1
    read = 0 if context.linked and child.per_pe else _exact(parent.energy_read)
    return [
        _Transfer(fills, into, taking if child.multicast else 1, _exact(child.energy_write), read),
        _Transfer(
            writebacks,
            out,
            taking if child.reduction else 1,
            _exact(child.energy_read),
            _exact(parent.energy_write),
        ),
    ]


def _forced(context: BoundContext, transfers: Sequence[Sequence[_Transfer]]) -> Fraction:
    """Return the least energy, beyond the tensors' shares, of the fills and writebacks that
    each level's capacity forces (:func:`tenet.dse.joint.pebbles.capacity_traffic`) at a
    level that holds the three tensors: the transfers beyond their bounds, cheapest first
    (a fill beyond ``degree · served`` costs a parent access per ``degree``)."""
    total = Fraction(0)
    for k, forced in context.forced.items():
        kinds = transfers[k]
        if len(kinds) != 2 * len(context.tensors):
            continue
        need = forced - sum(t.bound for t in kinds)
        if need <= 0:
            continue
        pieces: list[tuple[Fraction, int | None]] = []
        for t in kinds:
            if t.degree * t.served > t.bound:
                pieces.append((Fraction(t.child), t.degree * t.served - t.bound))
            pieces.append((t.child + Fraction(t.parent) / t.degree, None))
        for cost, length in sorted(pieces, key=lambda p: p[0]):
            if need <= 0:
                break
            take = need if length is None else min(need, length)
            total += take * cost
            need -= take
    return total


class _Candidate(NamedTuple):
    """One tile of rule 14 (:attr:`BoundContext.register_candidates`) for one set of whole
    tensors: its single orders (per tensor, the bit mask of the tensors whose last own loop
    comes before its own, or one past every mask when it is cut) and per tensor its energy
    per (serving level, key)."""

    ways: list[list[tuple[int, int]]]
    costs: list[dict[tuple[int, int], int | Fraction]]


def _size_tables(
    extents: Sequence[int], coverage: Sequence[Mapping[int, int]]
) -> tuple[list[list[int]], list[dict[int, int]], list[dict[int, list[int]]]]:
    """Return per loop its tile sizes (the divisors of its extent), per size the least, over
    the sizes dividing it, of the trips times the fewest PE coordinates a range of that size
    takes (at most the size's own, and non-increasing in the size), and per size the next
    sizes (its multiples with none between)."""
    sizes = [divisors(e) for e in extents]
    spreads = [
        {s: min(e // m * coverage[d][m] for m in sizes[d] if s % m == 0) for s in sizes[d]}
        for d, e in enumerate(extents)
    ]
    return sizes, spreads, _next_sizes(sizes)


def _fitting_tiles(
    extents: Sequence[int],
    mine: Sequence[int],
    sizes: Sequence[Sequence[int]],
    fits: Callable[[list[int]], bool],
) -> Iterator[list[int]]:
    """Yield the tiles (the loops ``mine`` of one of their ``sizes``, ascending, the others
    ``extents``) that ``fits`` (a smaller tile fits where a larger does)."""
    tile = list(extents)

    def chosen(i: int) -> Iterator[list[int]]:
        if i == len(mine):
            yield list(tile)
            return
        d = mine[i]
        for size in sizes[d]:
            tile[d] = size
            if not fits(tile):
                break
            yield from chosen(i + 1)
        tile[d] = sizes[d][0]

    for d in mine:
        tile[d] = sizes[d][0]
    if fits(tile):
        yield from chosen(0)


def _maximal_tiles(
    extents: Sequence[int],
    mine: Sequence[int],
    sizes: Sequence[Sequence[int]],
    bigger: Sequence[Mapping[int, Sequence[int]]],
    fits: Callable[[list[int]], bool],
) -> Iterator[list[int]]:
    """Yield the tiles of :func:`_fitting_tiles` that no next size (``bigger``) of one loop
    keeps fitting (the last loop's sizes taken in one pass)."""
    if not mine:
        if fits(list(extents)):
            yield list(extents)
        return
    *outer, last = mine
    base = list(extents)
    base[last] = sizes[last][0]
    for tile in _fitting_tiles(base, outer, sizes, fits):
        fitting = []
        for size in sizes[last]:
            tile[last] = size
            if not fits(tile):
                break
            fitting.append(size)
        room = set(fitting)
        for size in fitting:
            if not any(m in room for m in bigger[last][size]):
                tile[last] = size
                if not any(
                    fits([m if e == d else tile[e] for e in range(len(tile))])
                    for d in outer
                    for m in bigger[d][tile[d]]
                ):
                    yield list(tile)


def _next_sizes(sizes: Sequence[Sequence[int]]) -> list[dict[int, list[int]]]:
    """Return per loop and per tile size the next sizes (its multiples with none between)."""
    return [
        {
            s: [
                m
                for m in options
                if m > s
                and m % s == 0
                and not any(s < x < m and x % s == 0 and m % x == 0 for x in options)
            ]
            for s in options
        }
        for options in sizes
    ]


def _register_level(context: BoundContext) -> int | None:
    """Return the position of the level rule 14 bounds: the innermost, per PE, of a capacity
    (not split), under a known grid of PEs whose links (if any) take one tile at most, every
    tensor's subscripts known (a written tensor without a window); None when it does not
    apply."""
    k = len(context.levels) - 1
    level = context.levels[k]
    if not context.refills or k == 0 or not level.per_pe or level.capacity is None:
        return None
    if level.split:
        return None
    if context.spread is None or context.coverage is None or not context.pes:
        return None
    if context.linked and not context.short_links:
        return None
    if not _separable_tensors(context):
        return None
    return k


def _separable_tensors(context: BoundContext) -> bool:
    """Whether every tensor's subscripts are known sums of loops and its blocks disjoint (a
    written tensor without a window): what rules 14 and 15 count visits of."""
    return all(f.subscripts and f.disjoint and not (f.halo and f.written) for f in context.tensors)


def _refill_energy(
    facts: TensorFacts,
    parent: MemoryLevel,
    level: MemoryLevel,
    visits: int,
    taking: int,
    held: int,
    new: int = 0,
) -> int | Fraction:
    """Return the least energy of ``facts``' traffic between the register file ``level``
    and its ``parent`` when each of its blocks is visited ``visits`` times, the visits
    filling at least ``taking`` PEs per element in all (a tensor with a window, whose tiles
    overlap, reads at least all but the ``held`` elements the array holds from the parent
    in every visit after the first, and at least ``new`` elements, each filling ``taking``
    PEs: what its tiles hold that the tile before does not)."""
    write, read = _exact(level.energy_write), _exact(level.energy_read)
    if facts.halo:
        # every visit touches every element; an element read fills at least one PE
        into = max(new, facts.read_only + (visits - 1) * max(0, facts.read_only - held))
        filled = max(into, facts.pe_read_only, new * taking)
        return into * _exact(parent.energy_read) + filled * write
    into = visits * facts.read_only + (visits - 1) * facts.written
    out = visits * facts.written
    energy = into * _exact(parent.energy_read) + out * _exact(parent.energy_write)
    refilled = taking * facts.read_only + Fraction(taking * (visits - 1), visits) * facts.written
    fills: Fraction = max(refilled, Fraction(max(into, facts.pe_read_only)))
    writebacks = max(taking * facts.written, out, facts.pe_written)
    return energy + fills * write + writebacks * read


def _register_floor(
    context: BoundContext, keeps: Sequence[frozenset[str] | None]
) -> Fraction | None:
    """Return rule 14's bound on the energy of the traffic between the register file and
    its parents, over every tiling and place of the tensors (None: the rule does not apply).

    For a tiling, let τ be the tile below the outermost copy of a tensor in the register
    file (its tile; with places, the copy above the most loops), the *loops above* all
    bands' loops over it. A tensor kept *whole* holds τ's share; one *cut* (a place under a
    loop of its own inside τ) holds at least one element. Each tensor's blocks are visited
    at least the product of the trips of the loops it does not index that run above the
    last loop above of its own; order the loops above by their last occurrence: no tensor
    is visited more, so the least over single orders bounds every nest of bands. In a
    single order, the tensors come in order of their last own loop, each visited by the
    loops of those before it it does not index; a cut tensor's last own loop is inside τ,
    below every loop above. Each visit reads its block from the parent and fills every PE
    that takes it in τ; a tensor with a window brings all but what the array holds. The
    first PE holds the share of every whole tensor and an element of every other at the
    first instance: within the capacity."""
    k = _register_level(context)
    if k is None or any(not _holds(keeps[k], f.tensor) for f in context.tensors):
        return None
    parents = [
        max(j for j in range(k) if j == 0 or _holds(keeps[j], f.tensor)) for f in context.tensors
    ]
    least: int | Fraction | None = None
    for ways, costs in context.register_candidates:
        for way in ways:
            energy = sum((costs[t][parents[t], key] for t, key in way), Fraction(0))
            if least is None or energy < least:
                least = energy
    return None if least is None else Fraction(least)


class _ChainCosts:
    """Rule 16's energy of each tensor by its tile τ_t (:func:`_register_chain`) below the
    loops ``outer``, counted once."""

    def __init__(
        self,
        context: BoundContext,
        keeps: Sequence[frozenset[str] | None],
        outer: Sequence[tuple[int, int]],
        windows: bool,
    ) -> None:
        k = len(context.levels) - 1
        self.context, self.windows, self.level = context, windows, context.levels[k]
        assert self.level.capacity is not None
        self.held = context.pes * self.level.capacity
        self.parents = [
            max(j for j in range(k) if j == 0 or _holds(keeps[j], f.tensor))
            for f in context.tensors
        ]
        self.inside = list(context.extents)
        for d, trips in outer:
            self.inside[d] //= trips
        self.running = [(d, m) for d, m in outer if m > 1]
        dims = range(len(context.extents))
        self.others = [[d for d in dims if d not in f.loops] for f in context.tensors]
        self.costs: dict[tuple[int, tuple[int, ...]], int | Fraction] = {}

    def cost(self, t: int, tile: Sequence[int]) -> int | Fraction:
        """Tensor ``t``'s energy when its τ_t is ``tile`` (i)."""
        others = self.others[t]
        key = (t, tuple([tile[d] for d in others]))
        if key not in self.costs:
            context, facts = self.context, self.context.tensors[t]
            spreads = context.size_tables[1]
            visits = prod(context.extents[d] // tile[d] for d in others)
            taking = prod(spreads[d][tile[d]] for d in others)
            parent = context.levels[self.parents[t]]
            self.costs[key] = _refill_energy(facts, parent, self.level, visits, taking, self.held)
        return self.costs[key]

    def swept(self, t: int, tile: Sequence[int]) -> int | Fraction:
        """Tensor ``t``'s energy when its τ_t is ``tile``: a tensor with a window also
        brings, over the loops above τ_t, what each of its tiles holds that the one before
        does not (iv)."""
        if not (self.windows and self.context.tensors[t].halo):
            return self.cost(t, tile)
        key = (-1 - t, tuple(tile))
        if key not in self.costs:
            context, facts, inside = self.context, self.context.tensors[t], self.inside
            free = [(d, inside[d] // s) for d, s in enumerate(tile) if inside[d] // s > 1]
            lasts: list[int | None] = [d for d, _ in free if d in facts.loops]
            new = min(_new_data(context, facts, self.running, free, lasts or [None]))
            visits = prod(context.extents[d] // tile[d] for d in self.others[t])
            pes = _tile_pes(context, facts, [*self.running, *free])
            parent = context.levels[self.parents[t]]
            self.costs[key] = _refill_energy(facts, parent, self.level, visits, pes, self.held, new)
        return self.costs[key]


def _register_chain(
    context: BoundContext,
    keeps: Sequence[frozenset[str] | None],
    outer: Sequence[tuple[int, int]],
    windows: bool = False,
    cap: int | Fraction | None = None,
) -> Fraction | None:
    """Return rule 16's bound on the energy of the traffic between the register file and
    its parents, over every tiling whose loops above the register file's band are ``outer``
    ((dimension, trips), outermost first) and every place of the tensors (None: rule 14
    does not apply), or ``cap`` when it is not below it (the search stops there).

    In a tiling, take for each tensor the position right below its last own loop above its
    copy in the register file (the top when none) and its tile τ_t there. (i) Its blocks
    are visited at least the trips of the loops above that position that it does not index,
    ``E_d / τ_t[d]`` along each such loop ``d`` (rule 14's visits, with its PE fills for
    those ranges). (ii) Its copy's tile has τ_t's sizes along its own loops (the loops
    between are not its own), so at the first instance the first PE holds every tensor's
    share of its τ_t: within the capacity. (iii) The positions lie in one sequence of
    loops: the τ_t form a chain, each dividing the one above it. A tensor whose last own
    loop is in ``outer`` has the tile below that loop, with the sizes of S (the tile inside
    ``outer``) along its own loops; the others lie in the band, their τ_t dividing S, in a
    chain in some order: each takes, along the loops it does not index, the sizes of the
    one above it (S for the first: the largest allowed), and along its own loops any sizes
    dividing those (the last, its least: its own sizes serve only those below it)."""
    k = _register_level(context)
    if k is None or any(not _holds(keeps[k], f.tensor) for f in context.tensors):
        return None
    level, extents, tensors = context.levels[k], context.extents, context.tensors
    assert level.capacity is not None
    n, dims = len(tensors), range(len(extents))
    sizes = context.size_tables[0]
    loops = [f.loops for f in tensors]
    costs = _ChainCosts(context, keeps, outer, windows)
    cost, swept, inside, running = costs.cost, costs.swept, costs.inside, costs.running
    fixed = []  # per tensor, τ_t when its last own loop is in ``outer``
    for t in range(n):
        last = max((i for i, (d, _) in enumerate(running) if d in loops[t]), default=-1)
        tile = list(extents)
        for d, m in running[: last + 1]:
            tile[d] //= m
        fixed.append(tile)
    least_share = [context.register_share([1] * len(extents), t) for t in range(n)]
    best: int | Fraction | None = cap
    fits_some = False  # (none fits: no tiling below, the rule says nothing)

    def place(chain: Sequence[int], above: list[int], spent: int | Fraction, room: int) -> None:
        """Search the sizes of the tensors of ``chain`` in tiles dividing ``above``, with
        ``room`` elements left for their shares."""
        nonlocal best
        t, rest = chain[0], chain[1:]
        # every later tensor's sizes divide ``above``: its cost is at least there
        if best is not None and spent + sum(cost(u, above) for u in chain) >= best:
            return
        halo = windows and bool(tensors[t].halo)
        if not rest and not halo:
            best = spent + cost(t, above)
            return
        # a tensor with a window pays for its own sizes too (iv)
        mine = sorted(d for d in loops[t] if halo or any(d not in loops[u] for u in rest))
        options = [[s for s in sizes[d] if above[d] % s == 0] for d in dims]
        start = list(above)
        for d in loops[t]:
            start[d] = 1
        later = sum(least_share[u] for u in rest)

        def fits(tile: list[int]) -> bool:
            return context.register_share(tile, t) + later <= room

        for tile in _fitting_tiles(start, mine, options, fits):
            paid = spent + (swept(t, tile) if halo else cost(t, above))
            if rest:
                place(rest, tile, paid, room - context.register_share(tile, t))
            elif best is None or paid < best:
                best = paid

    for mask in range(1 << n):
        outside = [t for t in range(n) if mask >> t & 1]
        chained = [t for t in range(n) if not mask >> t & 1]
        room = level.capacity - sum(context.register_share(inside, t) for t in outside)
        if room < sum(least_share[t] for t in chained):
            continue
        fits_some = True
        spent: int | Fraction = sum(swept(t, fixed[t]) for t in outside)
        if not chained:
            best = spent if best is None else min(best, spent)
            continue
        for chain in permutations(chained):
            place(chain, inside, spent, room)
    return None if best is None or not fits_some else Fraction(best)


def _chip_floor(context: BoundContext) -> Fraction | None:
    """Return rule 15's bound on the energy of DRAM's traffic, over every tiling and place
    of the tensors (None: the rule does not apply).

    Rule 14 with the register file replaced by every level inside DRAM together: τ is the
    tile of the outermost copy on chip, a tensor is whole when its outermost copy's tile
    has τ's sizes along its own loops, else cut; each visit of a block reads it from DRAM
    (a written tensor: writes it back, and reads its partial sums again after the first);
    at the first instance the levels hold τ's data of every whole tensor and an element of
    every cut one, within the sum of their capacities (a per-PE level's times the PEs)."""
    inner = context.levels[1:]
    if not context.refills or not inner or not context.short_links:
        return None
    if any(lv.capacity is None or lv.split for lv in inner):
        return None
    if any(lv.per_pe for lv in inner) and not context.pes:
        return None
    if not _separable_tensors(context):
        return None
    held = tuple(sorted((lv.capacity or 0) * (context.pes if lv.per_pe else 1) for lv in inner))
    dram = context.levels[0]
    # (what it reads of the tensors does not depend on the array mapping)
    tensors = tuple(replace(f, pe_read_only=0, pe_written=0) for f in context.tensors)
    least = _least_chip_traffic(
        context.extents, tensors, held, _exact(dram.energy_read), _exact(dram.energy_write)
    )
    return None if least is None else Fraction(least)


@lru_cache(maxsize=64)
def _least_chip_traffic(
    extents: tuple[int, ...],
    tensors: tuple[TensorFacts, ...],
    held: tuple[int, ...],
    read: int | Fraction,
    write: int | Fraction,
) -> int | Fraction | None:
    """Return the least DRAM energy of :func:`_chip_floor` over every tile τ maximal among
    those whose whole tensors' data fits the levels (``held``: each level's elements, a
    per-PE level's over its PEs; each whole tensor's outermost copy in one of them), set of
    whole tensors and single order of the loops above τ (counted once per problem and
    capacities: it does not depend on the array mapping)."""
    n, dims = len(tensors), range(len(extents))
    sizes = [divisors(e) for e in extents]
    bigger = _next_sizes(sizes)
    loops = [f.loops for f in tensors]

    own = [sorted(x) for x in loops]
    # per tensor, its data in a tile by the sizes of its loops
    known: list[dict[tuple[int, ...], int]] = []
    for t, f in enumerate(tensors):
        table = {}
        for chosen in product(*[sizes[d] for d in own[t]]):
            size = dict(zip(own[t], chosen, strict=True))
            table[chosen] = prod(
                max(1, sum(size[d] for d, _ in terms) - len(terms) + 1) for terms in f.subscripts
            )
        known.append(table)

    def data(tile: Sequence[int], t: int) -> int:
        return known[t][tuple([tile[d] for d in own[t]])]

    def cost(t: int, visits: int) -> int | Fraction:
        f = tensors[t]
        if f.halo:
            return (f.read_only + (visits - 1) * max(0, f.read_only - sum(held))) * read
        into = visits * f.read_only + (visits - 1) * f.written
        return into * read + visits * f.written * write

    least: int | Fraction | None = None
    for mask in range(1, 1 << n):
        whole = [t for t in range(n) if mask >> t & 1]
        mine = sorted(frozenset().union(*(loops[t] for t in whole)))

        def fits(tile: list[int], whole: list[int] = whole) -> bool:
            return _packs(sorted((data(tile, t) for t in whole), reverse=True), list(held))

        for tile in _maximal_tiles(extents, mine, sizes, bigger, fits):
            trips = [extents[d] // tile[d] for d in dims]
            cut = sum(
                cost(t, prod(trips[d] for d in dims if d not in loops[t]))
                for t in range(n)
                if not mask >> t & 1
            )
            for order in permutations(whole):
                energy, before = cut, frozenset[int]()
                for t in order:
                    before |= loops[t]
                    energy += cost(t, prod(trips[d] for d in before - loops[t]))
                if least is None or energy < least:
                    least = energy
    return least


def _packs(items: Sequence[int], room: list[int]) -> bool:
    """Whether ``items`` go into the bins of ``room`` (each whole into one)."""
    if not items:
        return True
    first, rest = items[0], items[1:]
    for k, left in enumerate(room):
        if first <= left:
            room[k] -= first
            if _packs(rest, room):
                room[k] += first
                return True
            room[k] += first
    return False


def _floor(context: BoundContext, keeps: Sequence[frozenset[str] | None]) -> Fraction | None:
    """Return :func:`_register_floor` of ``context`` and ``keeps``, counted once."""
    key = tuple(keeps)
    if key not in context.floors:
        context.floors[key] = _register_floor(context, keeps)
    return context.floors[key]


def _pes_of(context: BoundContext, facts: TensorFacts, sizes: Sequence[int]) -> int:
    """Return the fewest PEs that take each element of ``facts``' data in a tile of ``sizes``
    (aligned); 1 when unknown."""
    if context.coverage is None:
        return 1
    return prod(context.coverage[d][sizes[d]] for d in range(len(sizes)) if d not in facts.loops)


def _resident_need(
    context: BoundContext, facts: TensorFacts, level: MemoryLevel, tile: Sequence[int]
) -> int | None:
    """Return the elements of ``facts``' share of a ``tile`` that some PE keeps in a per-PE
    ``level`` (with a capacity) when it keeps it whole; None when not counted."""
    if not level.per_pe or level.capacity is None or context.spread is None:
        return None
    if not facts.disjoint or facts.halo:
        return None
    return prod(-(-tile[d] // context.spread[d]) for d in facts.loops)


def _capacity(context: BoundContext, last: int) -> int | None:
    """Return the capacity of the per-PE level inside ``last`` (None: none or unbounded)."""
    inner = [lv for k, lv in enumerate(context.levels) if k > last and lv.per_pe]
    return inner[0].capacity if len(inner) == 1 else None


def _least_extra(
    choices: Sequence[tuple[int, Fraction]], capacity: int | None, held: int
) -> Fraction:
    """Return the least extra energy over the sets of tensors kept whole at a per-PE level
    of ``capacity`` holding ``held`` tensors: each choice is a tensor's need when kept whole
    and the extra energy when not. At the first moment the first PE holds the whole share
    of each tensor kept whole and at least one element of every other (its first instance
    reads or writes it): together within the capacity."""
    if capacity is None or not choices:
        return Fraction(0)
    least: Fraction | None = None
    for mask in range(1 << len(choices)):
        kept = [c[0] for k, c in enumerate(choices) if mask >> k & 1]
        need = sum(kept) + held - len(kept)
        if need <= capacity:
            extra = sum((c[1] for k, c in enumerate(choices) if not mask >> k & 1), Fraction(0))
            least = extra if least is None else min(least, extra)
    return least if least is not None else Fraction(0)


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


def _whole(value: Fraction | None) -> int | Fraction | None:
    """Return ``value`` as an int when it is whole."""
    return value.numerator if value is not None and value.denominator == 1 else value


def _holds(keep: frozenset[str] | None, tensor: str) -> bool:
    return keep is None or tensor in keep
