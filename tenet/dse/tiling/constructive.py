"""Constructive search: instead of evaluating every design point exactly, build the few that a
Roller-style micro model ranks best and evaluate only those.

**Scale out (array mapping).** A candidate of the design space (:mod:`tenet.dse.space.design`) cuts
each loop into a part inside the array tile (its spatial digits and the inner time-stamp) and
outer time digits. The array tile is an rTile (:mod:`tenet.dse.tiling.rtile`): along each loop, the
smallest stride of its outer digits (the whole extent when it has none). The micro model
estimates

- ``steps``: the product of the outer digits' extents times the inner time-stamp's span (the
  inner extent plus, per skewed PE dimension, the largest coordinate the mapping uses on it);
- ``traffic``: Σ over tensors of (tiles / r) · |data tile| (twice for an output: stored and
  loaded back), where the data tile is the exact image of the rTile (isl) and r the extent of
  the innermost outer digits that do not index the tensor (the tensor stays in the array while
  they run); a tensor the array cannot pass on (fed from the scratchpad, see
  :mod:`tenet.dse.space.movement`) moves once per instance;
- ``latency``: ``max(steps, traffic / bandwidth)`` with the array's port in elements per cycle;

and ranks by latency, then fewer reduction loops spread over the array (a reduction kept
within one PE or one row needs no partial sums between PEs), then higher utilisation.

The design-space search ranks by the *links* model instead, which counts the traffic as its
exact evaluation does (a point finds an element only at the same PE at the previous time-stamp
or at a linked PE, :mod:`tenet.metrics.design`): per tensor, the points that find it at no
neighbour along the reuse steps the mapping keeps in the array (:func:`linked_share`), read
and written elements each through the port, ``latency = max(steps, reads / bandwidth, writes
/ bandwidth)``, ties to fewer steps. A tensor does not stay in the array across outer digits
when the time-stamp has an inner dimension: a PE's previous time-stamp is then the end of the
last span. The top K distinct programs (candidates the model cannot tell apart count once) are
evaluated exactly by the exploration engine.

**Scale up (memory levels).** :func:`construct_tilings` builds tile sizes per memory level from
the innermost level outward: start from the level inside's tile (the array's tile for the
innermost), grow along the axis of best reuse score ``-ΔQ/ΔF`` to its next aligned size
(aligned to the PE array, the feeding level's transactions, the banks and the tensor shape:
:mod:`tenet.dse.tiling.alignment`) until the level's capacity is reached or the traffic per MAC
falls under what its bandwidth feeds at the array's peak; every tile met on the way is a
candidate. The loop order of each band puts innermost the loop that indexes the largest data
tile least. The top K are evaluated exactly (:func:`tenet.metrics.assessment.assess_problem`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import ceil, lcm, prod

from tenet.counting import count
from tenet.dse.constraints import MappingConstraints
from tenet.dse.run.runner import Runner
from tenet.dse.space.design import Candidate, DesignSpace
from tenet.dse.space.mapping import AffineMapping, Digit
from tenet.dse.space.movement import Step, captured_steps
from tenet.dse.tiling.alignment import (
    EPSILON,
    LevelAlignment,
    growth_sizes,
    level_alignment,
    output_loops,
    padded_footprint,
    pe_units,
)
from tenet.dse.tiling.rtile import RTile, box_extents, reuse_score, traffic
from tenet.dse.tiling.sizes import TilingSpace, array_cutter
from tenet.errors import CapacityError, SpecError
from tenet.mapping import LoopNest, tiled_nest, tiling_key
from tenet.metrics.assessment import Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.model import Workload
from tenet.model.problem import Problem
from tenet.spec.layout import ScratchpadSpec
from tenet.vocab import MemoryObjective

__all__ = [
    "Estimate",
    "micro_estimate",
    "linked_share",
    "rank_mappings",
    "build_tilings",
    "construct_tilings",
]


@dataclass(frozen=True)
class Estimate:
    """The micro model's figures for one candidate (cycles and elements)."""

    steps: int
    traffic: Fraction
    latency: Fraction
    spread_reductions: int
    """Reduction loops with a digit on the array."""
    utilisation: Fraction


def _tile_sizes(mapping: AffineMapping, extents: Sequence[int]) -> tuple[int, ...]:
    sizes = list(extents)
    for digit in mapping.outer:
        sizes[digit.loop] = min(sizes[digit.loop], digit.stride)
    return tuple(sizes)


def _last_coordinate(terms: Sequence[tuple[Digit, int]]) -> int:
    """The largest coordinate a PE dimension reaches under its ``terms`` (0 when none: the
    skew of a PE dimension the mapping does not use adds nothing)."""
    return sum(weight * (digit.extent - 1) for digit, weight in terms)


def _data_sizes(
    workload: Workload, dims: Sequence[str], sizes: Sequence[int], cache: dict[object, object]
) -> dict[str, int]:
    key = ("data", tuple(sizes))
    if key not in cache:
        cache[key] = RTile(workload, dict(zip(dims, sizes, strict=True))).data_sizes()
    found = cache[key]
    assert isinstance(found, dict)
    return found


def micro_estimate(
    space: DesignSpace,
    candidate: Candidate,
    cache: dict[object, object] | None = None,
    links: bool = False,
) -> Estimate:
    """Return the micro model's estimate of ``candidate`` (see the module docstring); with
    ``links``, the traffic is that of the links model (:func:`linked_share`), read and written
    elements each through the port: ``latency = max(steps, reads / bandwidth, writes /
    bandwidth)``, as the exact evaluation of the design space counts it."""
    cache = {} if cache is None else cache
    mapping = candidate.mapping
    dims, extents = space.loops, space.extents
    sizes = _tile_sizes(mapping, extents)
    tiles = prod(ceil(e / s) for e, s in zip(extents, sizes, strict=True))
    span = 1
    if mapping.has_inner:
        span = (mapping.inner.extent if mapping.inner is not None else 1) + sum(
            abs(s) * _last_coordinate(terms)
            for s, terms in zip(mapping.skew, mapping.space, strict=True)
        )
    steps = prod(d.extent for d in mapping.outer) * span
    if "indices" not in cache:
        cache["indices"] = _indices(space.workload, dims)
    indices = cache["indices"]
    assert isinstance(indices, dict)
    fed = set(candidate.scratchpad)
    if "instances" not in cache:
        cache["instances"] = count(space.workload.domain)
    instances = cache["instances"]
    assert isinstance(instances, int)
    reads, writes = Fraction(0), Fraction(0)
    for tensor, size in _data_sizes(space.workload, dims, sizes, cache).items():
        stay: list[Digit] = []
        for digit in reversed(mapping.outer):
            if dims[digit.loop] in indices[tensor]:
                break
            stay.append(digit)
        written = tensor in space.workload.writes
        if links:
            found = captured_steps(mapping, space.directions[tensor], space.links)
            moved = instances * linked_share(mapping, found, () if mapping.has_inner else stay)
            writes += moved if written else 0
            reads += moved if tensor in space.workload.reads else 0
        elif tensor in fed:
            reads += instances
        else:
            reads += Fraction(tiles * size * (2 if written else 1), prod(d.extent for d in stay))
    arch = space.specs.architecture
    bandwidth = Fraction(arch.bandwidth, arch.bits_per_element)
    latency = max(Fraction(steps), reads / bandwidth, writes / bandwidth)
    reductions = set(space.specs.workload.reductions)
    reduced = {
        dims[k]
        for k in range(len(dims))
        if all(dims[k] not in indices[t] for t in reductions if t in indices)
    }
    spread = len({dims[d.loop] for d in mapping.spatial_digits} & reduced) if reductions else 0
    used = prod(d.extent for d in mapping.spatial_digits)
    utilisation = Fraction(used, prod(space.pe_sizes) or 1)
    return Estimate(steps, reads + writes, latency, spread, utilisation)


def linked_share(
    mapping: AffineMapping, steps: Sequence[Step], stay: Sequence[Digit] = ()
) -> Fraction:
    """Return the share of the space-time points of ``mapping`` at which a tensor is not found
    at a neighbour (the same PE at the previous time-stamp, a linked PE): each such point brings
    its element from the scratchpad (reads) or sends it there (writes).

    ``steps`` are the tensor's reuse steps that the mapping keeps in the array
    (:func:`~tenet.dse.space.movement.captured_steps`); ``stay`` the innermost outer time
    digits that do not index the tensor when the time-stamp has no inner dimension (each of
    their steps is one time-stamp, the element stays on its PE throughout). A point is
    counted over the box of each loop's least significant digit (those in ``stay`` make one
    coordinate of their product's length, with a unit step): it finds the element at a
    neighbour when, for some step, the point one step back is in the box. By
    inclusion-exclusion over the steps (the points one step back of every step of a set make
    a box again), the share is exact when the digits divide their loops.

    Examples
    --------
    A stationary output along a loop of 4 values on one PE (the inner time-stamp runs it):
    each run of 4 points sends one result.

    >>> from tenet.dse.space.mapping import AffineMapping, Digit
    >>> m = AffineMapping("S", ("i", "k"), (((Digit(0, 1, None, 8), 1),),), (), (1,),
    ...                   Digit(1, 1, None, 4), ())
    >>> linked_share(m, [(0, 1)])
    Fraction(1, 4)
    """
    lengths = {digit.loop: digit.extent for digit in mapping.lowest.values()}
    for digit in stay:
        if mapping.lowest[digit.loop] == digit:
            lengths[digit.loop] = 1  # its unit steps are those of the coordinate of ``stay``
    run = prod(d.extent for d in stay)
    moves = [dict(zip(range(len(s)), s, strict=True)) for s in steps]
    if run > 1:
        moves.append({-1: 1})
    lengths[-1] = run
    alone = 0  # points of the box with no neighbour holding the element
    for size in range(len(moves) + 1):
        for chosen in combinations(moves, size):
            part = (-1) ** size
            for loop, length in lengths.items():
                back = [m.get(loop, 0) for m in chosen]
                part *= max(length - max([0, *back]) + min([0, *back]), 0)
            alone += part
    return Fraction(alone, prod(lengths.values()))


def _indices(workload: Workload, dims: Sequence[str]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for tensor, _, relation in workload.accesses:
        used = frozenset().union(*output_loops(relation, dims))
        out[tensor] = out.get(tensor, frozenset()) | used
    return out


def rank_mappings(
    space: DesignSpace, candidates: Sequence[Candidate], top_k: int, links: bool = False
) -> list[Candidate]:
    """Return the ``top_k`` candidates the micro model ranks best, in the space's order.

    Candidates alike to the model (same array placement, skew, array tile and micro_estimate: they
    differ only in how the outer time digits are split or ordered among equals) count once
    until every distinct program is in; the rest fill what is left. ``links``: by the traffic
    the exact evaluation of the design space counts (:func:`micro_estimate`)."""
    cache: dict[object, object] = {}
    scored = []
    for c in candidates:
        e = micro_estimate(space, c, cache, links)
        sizes = _tile_sizes(c.mapping, space.extents)
        group = (c.mapping.space, c.mapping.skew, sizes, e.latency, e.traffic)
        # under the links model candidates bound by the port tie often: fewer steps first
        rank = (e.latency, e.steps if links else 0, e.spread_reductions, -e.utilisation, c.index)
        scored.append((rank, group, c))
    scored.sort(key=lambda item: item[0])
    chosen: list[Candidate] = []
    groups: set[object] = set()
    rest: list[Candidate] = []
    for _, group, c in scored:
        if group in groups:
            rest.append(c)
        elif len(chosen) < top_k:
            groups.add(group)
            chosen.append(c)
    chosen += rest[: top_k - len(chosen)]
    return sorted(chosen, key=lambda c: c.index)


# -- scale up: tiles per memory level ----------------------------------------------------------


def _order(workload: Workload, dims: Sequence[str], sizes: Sequence[int]) -> tuple[int, ...]:
    """Loop order of a band: innermost the loop that the largest data tile does not use, so
    that tile stays while it runs (the others in the workload's order)."""
    data = RTile(workload, dict(zip(dims, sizes, strict=True))).data_sizes()
    indices = loop_indices_of(workload, dims)
    largest = max(data, key=lambda t: (data[t], t))
    free = [k for k, d in enumerate(dims) if d not in indices[largest]]
    inner = free[-1] if free else len(dims) - 1
    return (*[k for k in range(len(dims)) if k != inner], inner)


def loop_indices_of(workload: Workload, dims: Sequence[str]) -> dict[str, frozenset[str]]:
    """Return, per tensor, the loop dimensions its accesses depend on."""
    return _indices(workload, dims)


def _grow(
    workload: Workload,
    dims: Sequence[str],
    start: Sequence[int],
    extents: Sequence[int],
    capacity: int | None,
    alignment: LevelAlignment,
    bound: Fraction | None,
    share: Sequence[int],
    allowed: Sequence[Sequence[int] | None] = (),
) -> list[tuple[int, ...]]:
    """Return the tiles met growing from ``start`` (the level inside's tile) along the best
    reuse score, each size aligned (:func:`tenet.dse.tiling.alignment.growth_sizes` of the unit
    times the start's size), until the footprint with its bank padding would pass
    ``capacity`` or the traffic per MAC falls under ``bound``. When the aligned first tile
    does not fit, the units are dropped (the sizes are multiples of the start's).

    ``share`` divides each size before the footprint, the traffic and the score are counted:
    the PEs a per-PE level's tile spreads over along each dimension (all 1 for a shared
    level), so that they are those of one PE's tile (each PE moves its own data: its traffic
    over its instances, summed over the PEs, is the share's traffic over every instance).
    ``allowed`` gives, per dimension, the only sizes it may take (None: any), each a multiple
    of the start's size or the whole extent; none left: no tile (an empty list)."""

    def held(sizes: Sequence[int]) -> RTile:
        return RTile(workload, {d: -(-s // p) for d, s, p in zip(dims, sizes, share, strict=True)})

    piece = held(start)

    def need(sizes: Sequence[int]) -> int:
        return padded_footprint(held(sizes), piece, alignment)

    def choices(units: Sequence[int]) -> list[list[int]]:
        grown = [
            growth_sizes(e, lcm(s, u), alignment.epsilon)
            for e, s, u in zip(extents, start, units, strict=True)
        ]
        for k, only in enumerate(allowed):
            if only is not None:
                grown[k] = [a for a in only if a % start[k] == 0 or a == extents[k]]
        return grown

    sizes = choices(alignment.units)
    if not all(sizes):
        return []
    current = [c[0] for c in sizes]
    if capacity is not None and need(current) > capacity:
        sizes = choices([1] * len(dims))
        current = [c[0] for c in sizes]
    path = [tuple(current)]
    transaction = alignment.transaction
    instances = count(workload.domain)
    while True:
        tile = held(current)
        if bound is not None and Fraction(traffic(tile, transaction).total, instances) <= bound:
            return path
        best: tuple[Fraction, int, int] | None = None
        for k, d in enumerate(dims):
            larger = [s for s in sizes[k] if s > current[k]]
            if not larger:
                continue
            grown = [*current[:k], larger[0], *current[k + 1 :]]
            if capacity is not None and need(grown) > capacity:
                continue
            score = reuse_score(tile, d, -(-larger[0] // share[k]), transaction)
            value = score if score is not None else Fraction(0)
            if best is None or value > best[0]:
                best = (value, k, larger[0])
        if best is None:
            return path
        current[best[1]] = best[2]
        path.append(tuple(current))


def build_tilings(
    problem: Problem,
    start: Sequence[int] | None = None,
    compute: int | None = None,
    *,
    scratchpad: ScratchpadSpec | None = None,
    epsilon: Fraction = EPSILON,
    constraints: MappingConstraints | None = None,
) -> list[LoopNest]:
    """Build tilings of every level inside the outermost, innermost first, in the order they
    are worth evaluating (none evaluated): the end of every level's growth first, with the
    band orders of :func:`_orders`, then each level's earlier tiles; each level keeps what
    the dataflow keeps.

    ``start`` is the innermost tile (default: one instance); ``compute`` the array's compute
    latency (default: counted from the dataflow). Each level's tile is aligned as
    :func:`tenet.dse.tiling.alignment.level_alignment` says: ``scratchpad`` gives the banks and the
    transaction width of the level that feeds the array, ``epsilon`` the padding allowed on
    a size that does not divide its extent (0: divisors only). With ``constraints``, each
    level's tiles take only the sizes they allow, its band their order, and the levels keep
    what they say.

    Raises
    ------
    SpecError
        Constraints that leave a level no tile size it can grow to from the level inside.
    """
    workload = problem.workload
    domain = workload.domain
    dims, extents = box_extents(workload)
    n = len(dims)
    levels = list(problem.architecture.levels[1:])
    if not levels:
        raise SpecError("the architecture has no memory level inside the outermost to tile")
    compute = occupancy(problem).latency_compute if compute is None else compute
    peak = Fraction(count(domain), max(compute, 1))
    paths: list[list[tuple[int, ...]]] = []
    base = tuple(start) if start is not None else (1,) * n
    outer_levels = problem.architecture.levels
    for position in range(len(levels), 0, -1):
        level, feeding = outer_levels[position], outer_levels[position - 1].read_bandwidth
        bound = None if feeding is None else Fraction(feeding) / peak
        alignment = level_alignment(problem, position, dims, scratchpad, epsilon)
        share = pe_units(problem, dims) if level.per_pe else (1,) * n
        allowed = [
            None if constraints is None else constraints.sizes.get(level.name, {}).get(d)
            for d in dims
        ]
        grown = _grow(
            workload, dims, base, extents, level.capacity, alignment, bound, share, allowed
        )
        if not grown:
            assert constraints is not None  # growth sizes are never empty
            raise constraints.nothing_left(
                f"no tile size of {level.name} that the level inside fits in (--strategy "
                "exhaustive searches every size)"
            )
        paths.append(grown)
        base = grown[-1]
    paths.reverse()
    seen: set[tuple[object, ...]] = set()
    out: list[LoopNest] = []
    keep = dict(problem.dataflow.keep)
    fixed: list[tuple[int, ...] | None] = [None] * len(levels)
    if constraints is not None:
        keep = constraints.kept(keep)
        fixed = [constraints.order(level.name, range(n)) for level in levels]
    for choice in _nested(paths, extents):
        for built in _orders(workload, dims, choice):
            orders = [b if f is None else f for b, f in zip(built, fixed, strict=True)]
            bands = [
                (level.name, sizes, order)
                for level, sizes, order in zip(levels, choice, orders, strict=True)
            ]
            tiling = tiled_nest(dims, extents, outer_levels[0].name, bands, tuple(range(n)))
            tiling = tiling.keeping(keep)
            if tiling_key(tiling) not in seen:
                seen.add(tiling_key(tiling))
                out.append(tiling)
    return out


def construct_tilings(
    problem: Problem,
    start: Sequence[int] | None = None,
    top_k: int = 10,
    objective: MemoryObjective = "latency",
    *,
    compute: int | None = None,
    bound: Callable[[LoopNest], Fraction] | None = None,
    incumbent: Fraction | None = None,
    runner: Runner | None = None,
    constraints: MappingConstraints | None = None,
) -> list[Evaluated]:
    """Return the first ``top_k`` fitting tilings of :func:`build_tilings` whose levels shared
    by the PEs do not cut the array's loops (:func:`tenet.dse.tiling.sizes.array_cutter`),
    each evaluated exactly, best first by ``objective`` (ties: less DRAM traffic);
    ``compute`` is the array's compute latency (default: counted from the dataflow).

    ``bound`` (a lower bound of ``objective`` for a tiling) leaves out, among those
    ``top_k``, every tiling that cannot come first: they are evaluated in the order of their
    bounds (least first), and one whose bound is above the best value so far (``incumbent``,
    found elsewhere, or one evaluated here) is not evaluated. The first result is then the
    same, unless ``incumbent`` is better (none returned: an empty list).

    On a ``runner``, the exact evaluations are shown as its progress and none starts past its
    time budget (the first always runs). ``constraints`` narrow the tilings built
    (:func:`build_tilings`).

    Raises
    ------
    CapacityError
        No constructed tiling fits.
    """
    compute = occupancy(problem).latency_compute if compute is None else compute
    inner = [lv.name for lv in problem.architecture.levels[1:]]
    cuts = array_cutter(problem, TilingSpace(inner))
    dims = box_extents(problem.workload)[0]
    fitting: list[LoopNest] = []
    for tiling in build_tilings(problem, start, compute, constraints=constraints):
        if cuts(dims, [tiling.tile_sizes(level) for level in inner]):
            continue
        if assess_problem(problem, tiling, figures=["needs"]).needs.fits:
            fitting.append(tiling)
            if len(fitting) >= top_k:
                break
    if not fitting:
        raise CapacityError("no constructed tiling fits the memory levels")
    bounds = [Fraction(0) if bound is None else bound(tiling) for tiling in fitting]
    results: list[Evaluated] = []
    best = incumbent
    order: Iterable[int] = sorted(range(len(fitting)), key=lambda k: bounds[k])
    if runner is not None:
        order = runner.shown(order, len(fitting), "constructed tilings counted exactly")
    for k in order:
        if runner is not None and results and runner.expired():
            break
        if best is not None and bounds[k] > best:
            continue
        results.append(Evaluated.of(problem, fitting[k], objective, compute))
        if best is None or results[-1].value < best:
            best = results[-1].value
    return sorted(results, key=lambda r: (r.value, r.memory.traffic_dram))


def _orders(
    workload: Workload, dims: Sequence[str], choice: Sequence[tuple[int, ...]]
) -> list[tuple[tuple[int, ...], ...]]:
    """Band orders to try for the tile sizes ``choice``: first every band with the loop the
    largest data tile does not use innermost, then each band with each other loop innermost."""
    first = tuple(_order(workload, dims, sizes) for sizes in choice)
    out = [first]
    for k in range(len(choice)):
        for inner in range(len(dims)):
            order = (*[d for d in range(len(dims)) if d != inner], inner)
            if order != first[k]:
                out.append((*first[:k], order, *first[k + 1 :]))
    return out


def _nested(
    paths: list[list[tuple[int, ...]]], extents: Sequence[int]
) -> list[tuple[tuple[int, ...], ...]]:
    """Tilings from the paths, outermost level first: the end of every path first, then each
    level's earlier tiles with the others at their ends (each outer tile a multiple of the
    inner one, or the whole extent)."""
    ends = tuple(p[-1] for p in paths)
    out = [ends]
    for k, path in enumerate(paths):
        for tile in reversed(path[:-1]):
            choice = list(ends)
            choice[k] = tile
            if _nests(choice, extents):
                out.append(tuple(choice))
    return out


def _nests(choice: Sequence[tuple[int, ...]], extents: Sequence[int]) -> bool:
    pairs = zip(choice, choice[1:], strict=False)
    return all(
        o % i == 0 or o == e
        for outer, inner in pairs
        for o, i, e in zip(outer, inner, extents, strict=True)
    )
