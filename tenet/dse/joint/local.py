"""Local improvement of a leaf of the joint search: from a tiling (a constructive seed), move to
a neighbouring tiling of the same array mapping and kept tensors while one is better, counted
exactly. A neighbour changes one or two tile sizes of one band (nested divisors; a level shared
by the PEs never cuts the array's loops) or swaps two adjacent loops of a band's order; its
bound (:func:`tenet.dse.joint.bounds.lower_bound`) must be below the current value, and the
neighbours are counted in order of their estimate, the first better one taken.

The moves stay in the joint search's space, so a better seed only prunes more; it never
changes the certificate's bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations

from tenet.dse.joint.bounds import Band, BoundContext, bands_of, lower_bound
from tenet.dse.joint.subtree import Tally, count_leaf
from tenet.mapping import array_blocks, cuts_array
from tenet.mapping.tile_sizes import divisors
from tenet.metrics.assessment import Evaluated
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.vocab import MemoryObjective

__all__ = ["improve"]


def improve(
    problem: Problem,
    point: Evaluated,
    objective: MemoryObjective,
    evaluations: int = 48,
    expired: Callable[[], bool] = lambda: False,
) -> Evaluated:
    """Return the best leaf reached from ``point`` (a tiling of ``problem`` without places,
    with its kept tensors) by moving to a better neighbour while one exists, after at most
    ``evaluations`` exact counts (leaves too big for a level included), or when
    ``expired`` says a budget (time, CPU) has run out."""
    if point.mapping.above:
        return point
    context = BoundContext.from_problem(problem)
    compute = occupancy(problem).latency_compute
    dims = len(context.dims)
    bands = [Band(lv, sizes, _whole(order, dims)) for lv, sizes, order in bands_of(point.mapping)]
    per_dim = array_blocks(problem.dataflow.space_stamp, problem.workload.domain)
    blocks = [per_dim[d] for d in context.dims]
    shared = {lv.name: not lv.per_pe for lv in context.levels}
    keeps = {lv.level: lv.keep for lv in point.mapping.levels if lv.keep is not None}
    tally = Tally(best=point, best_rank=point.rank(objective))
    seen = {_key(bands)}
    spent = 0
    while spent < evaluations:
        current = tally.best
        assert current is not None
        moves = []
        for move in _neighbours(context, bands, blocks, shared):
            if _key(move) in seen:
                continue
            seen.add(_key(move))
            bound = lower_bound(context, compute, move, keeps)
            if bound.value(objective) < current.value:
                moves.append((bound.order(objective), move))
        moves.sort(key=lambda m: m[0])
        for _, move in moves[: evaluations - spent]:
            if expired():
                return current
            spent += 1
            count_leaf(problem, compute, context, move, keeps, objective, tally)
            if tally.best is not current:
                bands = move
                break
        else:
            break
    assert tally.best is not None
    return tally.best


def _whole(order: Sequence[int], dims: int) -> tuple[int, ...]:
    """Return ``order`` with the dimensions it lacks (loops of one trip) after it."""
    return (*order, *(d for d in range(dims) if d not in order))


def _key(bands: Sequence[Band]) -> tuple[Band, ...]:
    return tuple(bands)


def _neighbours(
    context: BoundContext,
    bands: list[Band],
    blocks: Sequence[int],
    shared: dict[str, bool],
) -> Iterator[list[Band]]:
    """Yield the tilings one move from ``bands``: one or two sizes of a band changed (nested
    divisors, a shared level's not cutting the array's ``blocks``), or two adjacent loops of a
    band's order swapped."""
    outside = [context.extents, *(sizes for _, sizes, _ in bands)]
    for k, (level, sizes, order) in enumerate(bands):
        inner = bands[k + 1][1] if k + 1 < len(bands) else (1,) * len(sizes)
        choices = [
            [
                size
                for size in divisors(outside[k][d])
                if size % inner[d] == 0
                and size != sizes[d]
                and not (shared[level] and cuts_array(blocks[d], size, context.extents[d]))
            ]
            for d in range(len(sizes))
        ]

        def changed(new: dict[int, int], k: int = k) -> list[Band]:
            level, sizes, order = bands[k]
            moved = tuple(new.get(d, s) for d, s in enumerate(sizes))
            return [*bands[:k], Band(level, moved, order), *bands[k + 1 :]]

        for d, sizes_d in enumerate(choices):
            for size in sizes_d:
                yield changed({d: size})
        for a, b in combinations(range(len(sizes)), 2):
            for size_a in choices[a]:
                for size_b in choices[b]:
                    yield changed({a: size_a, b: size_b})
        for p in range(len(order) - 1):
            swapped = list(order)
            swapped[p], swapped[p + 1] = swapped[p + 1], swapped[p]
            yield [*bands[:k], Band(level, sizes, tuple(swapped)), *bands[k + 1 :]]
