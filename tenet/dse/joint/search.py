"""The joint search: over array mappings, the tensors each level keeps (bypass), the tile sizes
of every tiled level and the loop order of every band, by branch and bound on the lower bounds
of :mod:`tenet.dse.joint.bounds`, each leaf a loop nest with its kept tensors counted exactly by
:func:`tenet.metrics.assessment.assess_problem`.

The tree: a subtree per array mapping and choice of kept tensors (its root bound: the mapping's
compute latency and the compulsory traffic), then one band per tiled level from the outermost
inward (its tile sizes, nested divisors of the band outside, and the order of its loops that
run more than once: orders of loops of one trip cannot change a figure). Children are visited
best bound first; a node whose bound is not below the best found is pruned with its subtree.
The certificate is the best found, the least bound of every pruned node (and of every node not
visited when the search stops early), and their gap: 0 when the search finishes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations, permutations, product
from math import factorial, prod

from tenet.dse.joint.bounds import Band, Bound, BoundContext, Share, kept_levels, lower_bound
from tenet.dse.tiling.search import TilingSpace
from tenet.mapping import array_blocks, cuts_array, tiled_nest, to_stamps
from tenet.mapping.tile_sizes import divisors
from tenet.metrics.assessment import Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.vocab import MemoryObjective

__all__ = [
    "SubtreeResult",
    "bypass_choices",
    "search_subtree",
    "space_size",
    "place_choices",
    "places_apply",
]


@dataclass(frozen=True)
class SubtreeResult:
    """What the search of one subtree found: its best leaf below the incumbent it started
    with (None: none), the least bound of the nodes it pruned (None: none pruned), and
    counts of leaves evaluated, leaves too big for a level, nodes pruned and nodes left open
    (not searched once the budget of exact evaluations was spent; their bounds are among the
    pruned ones)."""

    best: Evaluated | None
    pruned_bound: Fraction | None
    evaluated: int
    too_big: int
    pruned: int
    root_bound: Fraction
    left_open: int = 0


def bypass_choices(
    levels: Sequence[str],
    tensors: Sequence[str],
    held: Mapping[str, Collection[str]] | None = None,
) -> list[dict[str, frozenset[str]]]:
    """Return every choice of the tensors each of ``levels`` (names, outermost first) keeps,
    as a nest's kept tensors per level: the innermost level keeps every tensor it may hold
    (it feeds the MACs), each level between it and the outermost any non-empty subset of the
    ``tensors`` it may hold (``held``: per level that may hold only some, those; every
    tensor first).

    Examples
    --------
    >>> choices = bypass_choices(["dram", "glb", "rf"], ["A", "B", "C"])
    >>> len(choices), sorted(choices[-1]["glb"])  # 7 non-empty subsets, the last one tensor
    (7, ['C'])
    >>> len(bypass_choices(["dram", "glb", "rf"], ["A", "B", "C"], {"glb": ["A", "B"]}))
    3
    """
    per_level = []
    for level in levels[1:-1]:
        may = sorted(t for t in tensors if held is None or level not in held or t in held[level])
        subsets = [frozenset(c) for n in range(len(may), 0, -1) for c in combinations(may, n)]
        per_level.append(subsets or [frozenset()])
    middle = levels[1:-1]
    return [dict(zip(middle, combo, strict=True)) for combo in product(*per_level)]


@dataclass
class _Tally:
    evaluated: int = 0
    too_big: int = 0
    pruned: int = 0
    left_open: int = 0
    pruned_bound: Fraction | None = None
    best: Evaluated | None = None
    best_rank: tuple[Fraction, Fraction, int] | None = None
    needs: dict[tuple[object, ...], bool] = field(default_factory=dict)

    def prune(self, bound: Fraction) -> None:
        self.pruned += 1
        if self.pruned_bound is None or bound < self.pruned_bound:
            self.pruned_bound = bound


def _tiled_dims(space: TilingSpace, dims: Sequence[str]) -> frozenset[int]:
    return frozenset(
        range(len(dims)) if space.dims is None else (dims.index(d) for d in space.dims)
    )


def _sizes(
    outside: Sequence[int],
    tiled: frozenset[int],
    blocks: Sequence[int] | None = None,
    extents: Sequence[int] = (),
) -> Iterator[tuple[int, ...]]:
    """Yield the tile sizes inside a tile of sizes ``outside``: every nested divisor of the
    tiled dimensions (the others whole); with ``blocks`` (a level shared by the PEs) only
    those that do not cut the array's digits of a loop of ``extents``
    (:func:`tenet.mapping.cuts_array`)."""
    per_dim = [
        [
            size
            for size in (divisors(o) if d in tiled else [o])
            if blocks is None or not cuts_array(blocks[d], size, extents[d])
        ]
        for d, o in enumerate(outside)
    ]
    yield from product(*per_dim)


def _orders(outside: Sequence[int], sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Yield every order of the band's loops of more than one trip (the others after them,
    in dimension order)."""
    running = [d for d in range(len(outside)) if outside[d] // sizes[d] > 1]
    rest = tuple(d for d in range(len(outside)) if d not in running)
    for order in permutations(running):
        yield tuple(order) + rest


def _need_bound(
    context: BoundContext,
    level: int,
    sizes: Sequence[int],
    keep: frozenset[str] | None,
    spread: Sequence[int] | None = None,
    spans: Mapping[str, Sequence[int]] | None = None,
) -> int:
    """Return a lower bound on the need of ``level`` with these sizes: the data tile of
    every tensor it keeps (``keep``; None: all) whose subscripts are one loop each (the
    others count 0), each tensor's tile with ``spans`` (its sizes where its copy spans some
    of the band's loops); 0 for a level split per tensor. A per-PE level needs ``spread``
    (per loop, the PEs its values spread over, the array a grid of per-loop coordinates):
    some PE takes at least ``ceil(size / spread)`` values of each loop (else 0). The shares
    add up as in the level's need (each tensor's copy at its own place at the same moment,
    ``docs/memory.md``): every tensor's first tile is held at the first moment, in the same
    PEs."""
    if context.levels[level].split or (context.levels[level].per_pe and spread is None):
        return 0
    per_pe = spread if context.levels[level].per_pe else None
    need = 0
    for facts in context.tensors:
        if not facts.disjoint or facts.halo or (keep is not None and facts.tensor not in keep):
            continue
        own = (spans or {}).get(facts.tensor, sizes)
        need += prod(own[d] if per_pe is None else -(-own[d] // per_pe[d]) for d in facts.loops)
    return need


def search_subtree(
    problem: Problem,
    space: TilingSpace,
    keep: Mapping[str, frozenset[str]],
    objective: MemoryObjective,
    incumbent: Fraction | None,
    compute: int | None = None,
    budget: int | None = None,
    until: float | None = None,
    places: bool = False,
) -> SubtreeResult:
    """Search the tilings of ``problem`` (an array mapping), its levels keeping the tensors
    ``keep`` names for them (:func:`bypass_choices`; the others every tensor they may hold),
    in the checked ``space`` by branch and bound: return its best leaf whose ``objective`` is
    below ``incumbent`` (None: no incumbent yet), the least bound it pruned, and its counts.
    Ties between leaves go to less energy (by latency; else less latency), then less DRAM
    traffic, then to the first visited. After ``budget``
    exact evaluations, or once the clock (``time.time()``, seconds) passes ``until`` (None: no
    limit), the nodes not yet searched are left open, their bounds kept as pruned ones. The
    tiles of levels shared by the PEs do not cut the array's loops
    (:func:`tenet.mapping.array_blocks`), as in a loop nest. With ``places``, when the
    innermost level is per PE and its tiles are single instances, each tensor's copy there may
    also sit above any of the level's loops (:func:`place_choices`)."""
    compute = occupancy(problem).latency_compute if compute is None else compute
    context = BoundContext.from_problem(problem)
    levels = list(space.levels or ())
    position = {lv.name: k for k, lv in enumerate(context.levels)}
    tiled = _tiled_dims(space, context.dims)
    tally = _Tally()
    keeps = dict(keep)
    held = kept_levels(context.levels, keeps)
    root = lower_bound(context, compute, [], keeps).value(objective)
    space_stamp, domain = problem.dataflow.space_stamp, problem.workload.domain
    per_dim = array_blocks(space_stamp, domain)
    blocks = [per_dim[d] for d in context.dims]
    spread = context.spread

    def worse(bound: Fraction) -> bool:
        own = None if tally.best is None else tally.best.value
        found = [v for v in (incumbent, own) if v is not None]
        return bool(found) and bound >= min(found)

    def descend(bound: Fraction) -> bool:
        """Whether to search below a node of this bound (else it is pruned or left open)."""
        if worse(bound):
            tally.prune(bound)
            return False
        if (budget is not None and tally.evaluated >= budget) or (
            until is not None and time.time() >= until
        ):
            tally.prune(bound)
            tally.left_open += 1
            return False
        return True

    innermost = len(context.levels) - 1
    placing = places and places_apply([(lv.name, lv.per_pe) for lv in context.levels], levels)
    inner_keeps = held[innermost]
    tensors = [f.tensor for f in context.tensors if inner_keeps is None or f.tensor in inner_keeps]

    def fits(tensor: str, copy: Sequence[int]) -> bool:
        """Whether ``tensor``'s copy of sizes ``copy`` alone may fit the innermost level."""
        capacity = context.levels[innermost].capacity
        need = _need_bound(context, innermost, copy, frozenset({tensor}), spread, {tensor: copy})
        return capacity is None or need <= capacity

    def placed(bands: list[Band]) -> None:
        """Search the places of the tensors at the innermost level of a leaf (its tiles are
        single instances) in increasing bound, the leaf's own first among equals."""
        _, sizes, order = bands[-1]
        outside = bands[-2][1] if len(bands) > 1 else context.extents
        capacity = context.levels[innermost].capacity
        choices = []
        for spans in place_choices(bands[-1], outside, tensors):
            spanned = {
                t: [
                    outside[d] if d in order[len(order) - n :] else sizes[d]
                    for d in range(len(sizes))
                ]
                for t, n in spans.items()
            }
            need = _need_bound(context, innermost, sizes, inner_keeps, spread, spanned)
            if capacity is not None and need > capacity:
                tally.too_big += 1
                continue
            bound = lower_bound(context, compute, bands, keeps, places=spans)
            choices.append((bound.order(objective), spans))
        choices.sort(key=lambda c: c[0])
        for (_, bound_places), spans in choices:
            if descend(bound_places):
                _leaf(problem, compute, context, bands, keeps, objective, tally, spans)

    def visit(bands: list[Band]) -> None:
        depth = len(bands)
        if depth == len(levels):
            if placing and all(size == 1 for size in bands[-1][1]):
                placed(bands)
            else:
                _leaf(problem, compute, context, bands, keeps, objective, tally)
            return
        level = levels[depth]
        capacity = context.levels[position[level]].capacity
        outside = bands[-1][1] if bands else context.extents
        sized: list[tuple[tuple[Fraction, Fraction], tuple[int, ...]]] = []
        shared = not context.levels[position[level]].per_pe
        for sizes in _sizes(outside, tiled, blocks if shared else None, context.extents):
            need = _need_bound(context, position[level], sizes, held[position[level]], spread)
            if capacity is not None and need > capacity:
                tally.too_big += 1
                continue
            band = Band(level, sizes, ())
            if placing and depth == len(levels) - 1 and all(size == 1 for size in sizes):
                # the tensors' copies may span the band's loops
                free = _placing_bound(
                    context, compute, bands, band, outside, keeps, tensors, fits, False
                )
                assert free is not None
                bound = free
            else:
                bound = lower_bound(context, compute, [*bands, band], keeps, unordered=True)
            sized.append((bound.order(objective), sizes))
        sized.sort(key=lambda c: c[0])
        for key_sizes, sizes in sized:
            if not descend(key_sizes[1]):
                continue
            ordered: list[tuple[tuple[Fraction, Fraction], Band]] = []
            single = placing and depth == len(levels) - 1 and all(size == 1 for size in sizes)
            orders = list(_orders(outside, sizes))
            # with many orders, each is bounded over its places only when it comes up
            lazy = single and len(orders) > _BOUNDED_ORDERS
            for order in orders:
                band = Band(level, sizes, order)
                if single and not lazy:
                    placing_order = _placing_bound(
                        context, compute, bands, band, outside, keeps, tensors, fits, True
                    )
                    if placing_order is None:
                        tally.too_big += 1
                    else:
                        ordered.append((placing_order.order(objective), band))
                    continue
                if lazy:
                    ordered.append((key_sizes, band))
                    continue
                bound = lower_bound(context, compute, [*bands, band], keeps)
                ordered.append((bound.order(objective), band))
            ordered.sort(key=lambda c: c[0])
            for (_, bound_order), band in ordered:
                if lazy and not worse(bound_order):
                    placing_order = _placing_bound(
                        context, compute, bands, band, outside, keeps, tensors, fits, True
                    )
                    if placing_order is None:
                        tally.too_big += 1
                        continue
                    bound_order = placing_order.value(objective)
                if descend(bound_order):
                    visit([*bands, band])

    if worse(root):
        tally.prune(root)
    else:
        visit([])
    return SubtreeResult(
        tally.best,
        tally.pruned_bound,
        tally.evaluated,
        tally.too_big,
        tally.pruned,
        root,
        tally.left_open,
    )


_BOUNDED_ORDERS = 24
"""Orders of a band of single instances (with places) whose bounds over their places are all
counted before the first is searched; with more (more than 4 running loops), each order's
bound is counted when it comes up."""


def places_apply(levels: Sequence[tuple[str, bool]], tiled: Sequence[str]) -> bool:
    """Whether the tensors may be placed (:func:`place_choices`): the innermost of ``levels``
    ((name, per PE), outermost first) is per PE and the last of the ``tiled`` levels."""
    return bool(levels) and bool(tiled) and levels[-1][1] and tiled[-1] == levels[-1][0]


def place_choices(
    band: Band, extents: Sequence[int], tensors: Sequence[str]
) -> Iterator[dict[str, int]]:
    """Yield every choice of how many of ``band``'s loops (from the innermost) each of
    ``tensors`` spans at the band's level, stored above them: none, or up to and including
    each loop of more than one trip (spanning a loop of one trip changes nothing), under
    ``extents`` the tile outside the band (the leaf's own choice, none, first).

    Examples
    --------
    >>> len(list(place_choices(("rf", (1, 1, 1), (0, 2, 1)), (4, 1, 2), ["A", "B"])))  # 3²
    9
    """
    level, sizes, order = band
    running = [k for k, d in enumerate(order) if -(-extents[d] // sizes[d]) > 1]
    spans = [0, *(len(order) - k for k in reversed(running))]
    for combo in product(spans, repeat=len(tensors)):
        yield dict(zip(tensors, combo, strict=True))


def _placing_bound(
    context: BoundContext,
    compute: int,
    bands: list[Band],
    band: Band,
    outside: Sequence[int],
    keeps: Mapping[str, frozenset[str]],
    tensors: Sequence[str],
    fits: Callable[[str, Sequence[int]], bool],
    ordered: bool,
) -> Bound | None:
    """Return a lower bound over every place (:func:`place_choices`) of ``tensors`` at the
    level of the innermost ``band`` (single instances, below ``bands``, inside tiles of sizes
    ``outside``) whose copies ``fits`` (tensor, sizes of its copy), over every order of the
    band unless ``ordered`` (None: some tensor fits nowhere with this order). The energy adds
    each tensor's least share over its own places (the shares of a place add up); the latency
    is the one with every copy above the band.

    Over every order, a tensor's copy either spans all of the band's loops (it must fit), or
    some loop of its own runs below it: then at least every other loop outside the band
    revisits its blocks, as when its own loops run innermost and the others are spanned."""
    parent = lower_bound(context, compute, bands, keeps)
    level, sizes, order = band
    least: dict[str, Share] = {}

    def offer(share: Share) -> None:
        held = least.get(share.tensor, share)
        energy, estimate = min(held.energy, share.energy), min(held.estimate, share.estimate)
        least[share.tensor] = Share(share.tensor, energy, estimate)

    position = {facts.tensor: k for k, facts in enumerate(context.tensors)}
    if ordered:
        for n in sorted({n for one in place_choices(band, outside, ["_"]) for n in one.values()}):
            node = lower_bound(
                context, compute, [*bands, band], keeps, places=dict.fromkeys(tensors, n)
            )
            spanned = order[len(order) - n :] if n else ()
            copy = [outside[d] if d in spanned else sizes[d] for d in range(len(sizes))]
            for tensor in tensors:
                if fits(tensor, copy):
                    offer(node.shares[position[tensor]])
        if len(least) < len(tensors):
            return None
    else:
        running = [d for d in range(len(sizes)) if outside[d] // sizes[d] > 1]
        rest = [d for d in range(len(sizes)) if d not in running]
        for tensor in tensors:
            if fits(tensor, outside):
                offer(parent.shares[position[tensor]])
            own = context.tensors[position[tensor]].loops
            others = [d for d in running if d not in own]
            first = Band(level, sizes, tuple([d for d in running if d in own] + others + rest))
            spans = {tensor: len(others) + len(rest)} if others else {}
            node = lower_bound(context, compute, [*bands, first], keeps, places=spans)
            offer(node.shares[position[tensor]])
    shares = tuple(least.get(share.tensor, share) for share in parent.shares)
    return Bound(
        parent.latency,
        sum((x.energy for x in shares), Fraction(0)),
        parent.bottleneck,
        sum((x.estimate for x in shares), Fraction(0)),
        shares,
    )


def _leaf(
    problem: Problem,
    compute: int,
    context: BoundContext,
    bands: list[Band],
    keep: Mapping[str, frozenset[str]],
    objective: MemoryObjective,
    tally: _Tally,
    spans: Mapping[str, int] | None = None,
) -> None:
    """Evaluate the leaf of ``bands`` exactly, its levels keeping the tensors of ``keep``,
    unless a level's tiles do not fit; ``spans`` places the tensors at the innermost level
    above some of its band's loops (:func:`place_choices`)."""
    outer = context.levels[0].name
    order = tuple(range(len(context.dims)))
    nest = tiled_nest(context.dims, context.extents, outer, bands, order)
    level = bands[-1].level
    above = {t: {level: nest.boundary(level) - n} for t, n in (spans or {}).items() if n}
    if above:
        nest = replace(nest, above=above)
    nest = nest.keeping(keep)
    texts = to_stamps(nest)
    keys = {
        name: (
            name,
            text,
            tuple(sorted(texts.places.get(name, {}).items())),
            texts.keep.get(name),
        )
        for name, text in texts.tiles.items()
    }
    if any(tally.needs.get(key) is False for key in keys.values()):
        tally.too_big += 1
        return
    for name, key in keys.items():
        # a level's need depends on its own tiles, places and kept tensors only: count it
        # once for them
        if key not in tally.needs:
            found = assess_problem(problem, nest, figures=["needs"], levels=[name])
            tally.needs[key] = found.needs.fits
        if not tally.needs[key]:
            tally.too_big += 1
            return
    point = Evaluated.of(problem, nest, objective, compute)
    tally.evaluated += 1
    rank = point.rank(objective)
    if tally.best_rank is None or rank < tally.best_rank:
        tally.best, tally.best_rank = point, rank


def space_size(
    extents: Sequence[int], levels: int, tiled: Sequence[int] | None = None, placed: int = 0
) -> int:
    """Return the number of leaves of one subtree: tilings of ``levels`` nested levels over
    loops of ``extents`` (``tiled``: the positions of the tiled loops; None: all), each band
    with every order of its loops of more than one trip; with ``placed`` tensors, each also
    placed above any of the innermost band's running loops when its tiles are single
    instances (:func:`place_choices`).

    Examples
    --------
    >>> space_size([4], 1)  # sizes 1, 2, 4: one order each
    3
    >>> space_size([2, 2], 1)  # (1,1): 2 running loops, 2 orders; (1,2), (2,1): 1; (2,2): 1
    5
    >>> space_size([2, 2], 1, placed=1)  # (1,1): each order with 3 places of the tensor
    9
    """
    tiled_set = set(range(len(extents)) if tiled is None else tiled)
    counts: dict[tuple[int, ...], int] = {(0,) * levels + (1,): 1}
    for d, extent in enumerate(extents):
        chains: list[tuple[int, ...]] = [()]
        for _ in range(levels):
            chains = [
                c + (s,)
                for c in chains
                for s in (divisors(c[-1] if c else extent) if d in tiled_set else [extent])
            ]
        step: dict[tuple[int, ...], int] = {}
        for chain in chains:
            outside = (extent, *chain[:-1])
            running = tuple(int(o // s > 1) for o, s in zip(outside, chain, strict=True))
            points = int(not chain or chain[-1] == 1)
            for state, n in counts.items():
                key = (
                    *(a + b for a, b in zip(state[:-1], running, strict=True)),
                    state[-1] * points,
                )
                step[key] = step.get(key, 0) + n
        counts = step
    return sum(
        n
        * prod(factorial(r) for r in state[:-1])
        * ((state[-2] + 1) ** placed if placed and levels and state[-1] else 1)
        for state, n in counts.items()
    )
