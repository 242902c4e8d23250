"""One subtree of the joint search (an array mapping and a choice of kept tensors): its
tilings searched by branch and bound on the lower bounds of :mod:`tenet.dse.joint.bounds`, each
leaf a loop nest with its kept tensors counted exactly by
:func:`tenet.metrics.assessment.assess_problem`.

Below the subtree's root (its bound: the mapping's compute latency and the compulsory traffic)
comes one band per tiled level from the outermost inward (its tile sizes, those of the space's
pool that nest in the band outside, :func:`tenet.mapping.tile_sizes.nested_sizes`: nested
divisors, and with an alignment its multiples, the last tile partial; and the order of its
loops that run more than once: orders of loops of one trip cannot change a figure). Children
are visited best bound first; a node whose bounds of the objective and of the other one (the
energy by latency, else the latency), compared in that order, are not below the best leaf's
figures is pruned with its subtree. The first level's children, in that order, may be searched
in parts (:meth:`Subtree.search`): the parts of a subtree searched one after the other, each
below the best of those before, visit, prune and count exactly what the whole subtree does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import permutations, product
from math import prod

from tenet.dse.joint.bounds import (
    Band,
    Bound,
    BoundContext,
    Share,
    innermost_bounds,
    kept_levels,
    lower_bound,
    lower_shares,
)
from tenet.dse.joint.declared import place_choices, places_apply
from tenet.dse.run.budget import Allowance
from tenet.dse.tiling.sizes import TilingSpace
from tenet.mapping import array_blocks, cuts_array, tiled_nest, to_stamps
from tenet.mapping.tile_sizes import nests_in, size_pool
from tenet.metrics.assessment import Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.vocab import MemoryObjective

__all__ = ["Key", "bound_key", "SubtreeResult", "Subtree", "Tally", "search_subtree", "count_leaf"]

Part = tuple[int, int]
"""Part ``p`` of ``n`` of a subtree: the ``p``-th of ``n`` runs of its first level's children
(best bound first)."""

Key = tuple[Fraction, Fraction]
"""What a search compares, in order: the objective (a leaf's value, or a node's lower bound
of it), then the other objective (the energy by latency, else the latency). A node is pruned
when its key is not below the best leaf's: among leaves of equal value the search keeps the
one of least other objective, and prunes no node that may hold it."""

Order = tuple[Fraction, Fraction, Fraction, Fraction]
"""A node's estimate and bound of the objective, then of the other (the estimate of the
energy: :attr:`Bound.estimate`); siblings are visited in order of the first two (the others
would send a first search among large tiles that do not fit)."""

Child = tuple[Order, tuple[int, ...]]
"""A node's child: its order and its tile sizes."""


def bound_key(bound: Bound, objective: MemoryObjective) -> Key:
    """The :data:`Key` of a node of lower bounds ``bound`` in a search by ``objective``.

    Examples
    --------
    >>> bound_key(Bound(Fraction(8), Fraction(30), "dram"), "latency")
    (Fraction(8, 1), Fraction(30, 1))
    >>> bound_key(Bound(Fraction(8), Fraction(30), "dram"), "energy")
    (Fraction(30, 1), Fraction(8, 1))
    """
    return bound.value(objective), bound.energy if objective == "latency" else bound.latency


def cut_key(best: Key | None, gap: Fraction) -> Key | None:
    """The :data:`Key` below which a node may hold a leaf better than ``best`` by more than
    ``gap`` of the leaf's value: ``best`` itself without a gap, else its value divided by
    1 + ``gap`` (a node of that value or more is cut whatever its other objective: no bound is
    negative). A search that prunes at it proves its best at most ``gap`` above the least
    value of the space.

    Examples
    --------
    >>> cut_key((Fraction(101), Fraction(7)), Fraction(1, 100))
    (Fraction(100, 1), Fraction(0, 1))
    >>> cut_key((Fraction(101), Fraction(7)), Fraction(0))
    (Fraction(101, 1), Fraction(7, 1))
    """
    if best is None or not gap:
        return best
    return best[0] / (1 + gap), Fraction(0)


def _at_least(bound: Bound, node: Bound) -> Bound:
    """Return ``bound`` (a child's) raised to ``node``'s (its parent's) where lower."""
    if bound.latency >= node.latency and bound.energy >= node.energy:
        return bound
    latency, energy = max(bound.latency, node.latency), max(bound.energy, node.energy)
    estimate = None if bound.estimate is None else max(bound.estimate, energy)
    return replace(bound, latency=latency, energy=energy, estimate=estimate)


def _child_order(bound: Bound, objective: MemoryObjective) -> Order:
    """The :data:`Order` of a child of lower bounds ``bound``."""
    other: MemoryObjective = "energy" if objective == "latency" else "latency"
    return (*bound.order(objective), *bound.order(other))


def _key_of(order: Order) -> Key:
    """The :data:`Key` of a node of this :data:`Order`."""
    return order[1], order[3]


@dataclass(frozen=True)
class SubtreeResult:
    """What the search of one subtree found, and what it counted on the way."""

    best: Evaluated | None
    """The best leaf below the incumbent the search started with (None: none)."""
    pruned_bound: Fraction | None
    """The least bound of the nodes it pruned (None: none pruned)."""
    evaluated: int
    """Leaves counted exactly."""
    too_big: int
    """Leaves whose tiles do not fit a level."""
    pruned: int
    """Nodes pruned by their bounds."""
    root_bound: Fraction
    """The subtree's root bound on the objective."""
    left_open: int = 0
    """Nodes not searched once the budget of exact evaluations was spent (their bounds are
    among the pruned ones)."""
    tied: int = 0
    """The cost of searching nodes that could only tie the best value (each node and each
    bound of its children)."""
    ties_open: int = 0
    """Nodes that could only tie, left unsearched once that budget was spent (their bounds,
    the best value, among the pruned ones)."""


@dataclass
class Tally:
    """What a search below one node has counted: leaves evaluated and too big, nodes pruned
    (and the least of their bounds) and left open, and the best leaf (by rank)."""

    evaluated: int = 0
    too_big: int = 0
    pruned: int = 0
    left_open: int = 0
    tied: int = 0
    """What the search of nodes that could only tie the best value (their bound of the
    objective equals it) cost: each node, and each bound of its children."""
    ties_open: int = 0
    """Nodes that could only tie the best value, left unsearched (the budget of ties spent)."""
    pruned_bound: Fraction | None = None
    best: Evaluated | None = None
    best_rank: tuple[Fraction, Fraction, int] | None = None
    needs: dict[tuple[object, ...], bool] = field(default_factory=dict)
    """Whether a level fits, by its tiles, places and kept tensors (counted once)."""

    def prune(self, bound: Fraction) -> None:
        """Count a node pruned (or left open) with its ``bound``."""
        self.pruned += 1
        if self.pruned_bound is None or bound < self.pruned_bound:
            self.pruned_bound = bound


class Subtree:
    """The tilings of ``problem`` (an array mapping) in the checked ``space``, its levels
    keeping the tensors ``keep`` names for them (:func:`tenet.dse.joint.declared.bypass_choices`;
    the others every tensor they may hold), searched for the least ``objective`` (``compute``:
    the array's compute latency, counted when None). With ``places``, when the innermost level
    is per PE and its tiles are single instances, each tensor's copy there may also sit above
    any of the level's loops (:func:`tenet.dse.joint.declared.place_choices`). What does not
    depend on a search (the bound context, the root bound, the first level's children, which
    levels fit) is counted once, for every search of the subtree.
    """

    def __init__(
        self,
        problem: Problem,
        space: TilingSpace,
        keep: Mapping[str, frozenset[str]],
        objective: MemoryObjective,
        compute: int | None = None,
        places: bool = False,
        context: BoundContext | None = None,
        gap: Fraction = Fraction(0),
    ) -> None:
        self.problem = problem
        self.objective = objective
        self.gap = gap
        self.compute = occupancy(problem).latency_compute if compute is None else compute
        self.context = context = context or BoundContext.from_problem(problem)
        self.levels = list(space.levels or ())
        self.constraints = space.constraints
        self.position = {lv.name: k for k, lv in enumerate(context.levels)}
        self.tiled = frozenset(
            range(len(context.dims))
            if space.dims is None
            else (context.dims.index(d) for d in space.dims)
        )
        self.aligned = space.aligned
        # the sizes each loop takes (the untiled ones whole), as the tiling search's
        given: dict[str, Sequence[int]] = {
            d: [] for k, d in enumerate(context.dims) if k not in self.tiled
        }
        given.update(space.sizes or {})
        self.pools = [
            size_pool(e, given.get(d), space.aligned)
            for d, e in zip(context.dims, context.extents, strict=True)
        ]
        self.keeps = dict(keep)
        self.held = kept_levels(context.levels, self.keeps)
        self.root_bound = lower_bound(context, self.compute, [], self.keeps)
        self.root_key = bound_key(self.root_bound, objective)
        self.root = self.root_key[0]
        per_dim = array_blocks(problem.dataflow.space_stamp, problem.workload.domain)
        self.blocks = [per_dim[d] for d in context.dims]
        self.innermost = len(context.levels) - 1
        named = [(lv.name, lv.per_pe) for lv in context.levels]
        self.placing = places and places_apply(named, self.levels)
        self.inner_keeps = self.held[self.innermost]
        self.tensors = [
            f.tensor
            for f in context.tensors
            if self.inner_keeps is None or f.tensor in self.inner_keeps
        ]
        self.needs: dict[tuple[object, ...], bool] = {}
        self._first: tuple[list[Child], int] | None = None

    def search(
        self,
        incumbent: Key | None,
        budget: int | None = None,
        allowance: Allowance | None = None,
        part: Part | None = None,
        ties: int | None = None,
    ) -> SubtreeResult:
        """Return the subtree's best leaf whose :data:`Key` is below ``incumbent`` (None: no
        incumbent yet), the least bound it pruned, and its counts. Ties between leaves go to
        less energy (by latency; else less latency), then less DRAM traffic, then to the first
        visited; a node whose bounds may hold a leaf of the best value and less of the other
        objective is searched, until their cost (each node and each bound of its children)
        reaches ``ties`` (None: no limit; the others are left unsearched,
        :attr:`SubtreeResult.ties_open`). After
        ``budget`` exact evaluations, or once the ``allowance`` of time and CPU has run out
        (None: no limit), the nodes not yet searched are left open, their bounds kept
        as pruned ones. The tiles of levels shared by the PEs do not cut the array's loops
        (:func:`tenet.mapping.array_blocks`), as in a loop nest. A ``part`` searches only its
        share of the first level's children (the first part also bounds the root and counts the
        first level's tiles too big)."""
        walk = _Walk(self, incumbent, budget, allowance or Allowance(), ties)
        first = part is None or part[0] == 0
        if first and walk.worse(self.root_key):
            walk.tally.prune(self.root)
        else:
            walk.visit([], self.root_key, part)
        t = walk.tally
        return SubtreeResult(
            t.best,
            t.pruned_bound,
            t.evaluated,
            t.too_big,
            t.pruned,
            self.root,
            t.left_open,
            t.tied,
            t.ties_open,
        )

    def fits(self, tensor: str, copy: Sequence[int]) -> bool:
        """Whether ``tensor``'s copy of sizes ``copy`` alone may fit the innermost level."""
        capacity = self.context.levels[self.innermost].capacity
        need = _need_bound(
            self.context,
            self.innermost,
            copy,
            frozenset({tensor}),
            self.context.spread,
            {tensor: copy},
        )
        return capacity is None or need <= capacity

    def first_children(
        self, stop: Callable[[], bool] | None = None
    ) -> tuple[list[Child], int] | None:
        """The first level's children, best first, and how many tile sizes of it do not fit
        (counted once); None when ``stop`` said to stop before every child was bounded."""
        if self._first is None:
            counted = Tally()
            first = self.children([], counted, stop, self.root_bound)
            if first is None:
                return None
            self._first = (first, counted.too_big)
        return self._first

    def children(
        self,
        bands: list[Band],
        tally: Tally,
        stop: Callable[[], bool] | None = None,
        node: Bound | None = None,
    ) -> list[Child] | None:
        """The tile sizes of the level below ``bands`` whose tiles may fit, each with its key
        (:data:`Child`), best first; those that do not fit counted in ``tally``. None when
        ``stop`` (asked before each child) said to stop first. ``node``: the bounds of
        ``bands`` when counted already."""
        context, depth = self.context, len(bands)
        level = self.levels[depth]
        where = self.position[level]
        capacity = context.levels[where].capacity
        outside = bands[-1][1] if bands else context.extents
        shared = not context.levels[where].per_pe
        blocks = self.blocks if shared else None
        sized: list[Child] = []
        constraints = self.constraints
        # every leaf below a child is below this node: its bounds hold for the child too
        node = node or lower_bound(context, self.compute, bands, self.keeps)
        for sizes in _sizes(outside, self.pools, self.aligned, blocks, context.extents):
            if stop is not None and stop():
                return None
            if constraints is not None and not constraints.allows_sizes(level, context.dims, sizes):
                continue
            need = _need_bound(context, where, sizes, self.held[where], context.spread)
            if capacity is not None and need > capacity:
                tally.too_big += 1
                continue
            band = Band(level, sizes, ())
            if self.single(depth, sizes):
                # the tensors' copies may span the band's loops
                free = self.placing_bound(bands, band, outside, False, node)
                assert free is not None
                bound = free
            else:
                bound = lower_bound(
                    context, self.compute, [*bands, band], self.keeps, unordered=True, shares=False
                )
            sized.append((_child_order(_at_least(bound, node), self.objective), sizes))
        sized.sort(key=lambda c: c[0][:2])
        return sized

    def windowed(self, depth: int) -> bool:
        """Whether a node ``depth`` bands deep is bounded with rule 16's windows (by energy
        or EDP, above the innermost tiled level's band)."""
        return self.context.refills and 0 < depth == len(self.levels) - 1

    def single(self, depth: int, sizes: Sequence[int]) -> bool:
        """Whether the tensors may be placed in a band of ``sizes`` at ``depth``: the
        innermost tiled level, of single instances."""
        return self.placing and depth == len(self.levels) - 1 and all(s == 1 for s in sizes)

    def placing_bound(
        self, bands: list[Band], band: Band, outside: Sequence[int], ordered: bool, parent: Bound
    ) -> Bound | None:
        """:func:`_placing_bound` of ``band`` below ``bands`` (of bounds ``parent``), inside
        tiles of ``outside``."""
        return _placing_bound(
            self.context,
            parent,
            bands,
            band,
            outside,
            self.keeps,
            self.tensors,
            self.fits,
            ordered,
        )


class _Walk:
    """One search of a :class:`Subtree`: below ``incumbent`` (a :data:`Key`), within
    ``budget`` exact evaluations, ``ties`` of them below nodes that could only tie the best
    value, and while its ``allowance`` lasts, its counts in :attr:`tally`."""

    def __init__(
        self,
        subtree: Subtree,
        incumbent: Key | None,
        budget: int | None,
        allowance: Allowance,
        ties: int | None = None,
    ) -> None:
        self.subtree = subtree
        self.incumbent = incumbent
        self.budget = budget
        self.run_out = allowance.started()
        """Whether the allowance has run out."""
        self.ties = ties
        self.tying = False
        """Whether the node last descended into could only tie the best value."""
        self.tally = Tally(needs=subtree.needs)

    def best(self) -> Key | None:
        """The :data:`Key` of the best found (here or before; None: none)."""
        rank = self.tally.best_rank
        own = None if rank is None else rank[:2]
        found = [k for k in (self.incumbent, own) if k is not None]
        return min(found) if found else None

    def cut(self) -> Key | None:
        """The :data:`Key` below which a node is searched (:func:`cut_key` of the best found
        and the subtree's gap; None: nothing found)."""
        return cut_key(self.best(), self.subtree.gap)

    def worse(self, key: Key) -> bool:
        """Whether a node of this :data:`Key` cannot beat the best found (here or before; by
        more than the subtree's gap)."""
        cut = self.cut()
        return cut is not None and key >= cut

    def descend(self, key: Key) -> bool:
        """Whether to search below a node of this :data:`Key` (else it is pruned or left
        open, its bound of the objective kept)."""
        tally = self.tally
        best = self.best()
        cut = cut_key(best, self.subtree.gap)
        if cut is not None and key >= cut:
            tally.prune(key[0])
            return False
        tying = best is not None and key[0] >= best[0]
        if tying and self.ties is not None and tally.tied >= self.ties:
            tally.prune(key[0])
            tally.ties_open += 1
            return False
        spent = self.budget is not None and tally.evaluated >= self.budget
        if spent or self.run_out():
            self.leave(key)
            return False
        self.tying = tying
        tally.tied += tying
        return True

    def leave(self, key: Key) -> None:
        """Leave a node of this :data:`Key` open: its bound of the objective kept as a pruned
        one."""
        self.tally.prune(key[0])
        self.tally.left_open += 1

    def leaf(self, bands: list[Band], spans: Mapping[str, int] | None = None) -> None:
        """Count the leaf of ``bands`` (with the tensors' ``spans``)."""
        s = self.subtree
        count_leaf(s.problem, s.compute, s.context, bands, s.keeps, s.objective, self.tally, spans)

    def visit(self, bands: list[Band], key: Key, part: Part | None = None) -> None:
        """Search below the node of ``bands`` and :data:`Key` ``key`` (at the root, ``part``
        of its children); left open when the allowance runs out while its children are
        bounded."""
        s = self.subtree
        depth = len(bands)
        tying = self.tying
        if depth == len(s.levels):
            if s.placing and all(size == 1 for size in bands[-1][1]):
                self.placed(bands)
            else:
                self.leaf(bands)
            return
        node = s.root_bound
        if depth:
            strong = None
            if s.windowed(depth):
                # rule 16 with the windows, once the node is reached: its children cost more
                cut = self.cut() if s.objective == "energy" else None
                above = None if cut is None else cut[0]
                strong = lower_bound(
                    s.context, s.compute, bands, s.keeps, chains="windows", above=above
                )
                raised = bound_key(strong, s.objective)
                if self.worse(raised):
                    self.tally.prune(raised[0])
                    return
            # (the bounds below hold for the node; rule 16 adds to its energy only)
            node = strong or lower_bound(s.context, s.compute, bands, s.keeps)
            counted = Tally()
            bounded = s.children(bands, counted, self.run_out, node)
            if bounded is None:
                self.leave(key)
                return
            sized = bounded
            self.tally.too_big += counted.too_big
            self.tally.tied += len(sized) if tying else 0
        else:
            first = s.first_children(self.run_out)
            if first is None:
                self.leave(key)
                return
            sized, too_big = first
            if part is None or part[0] == 0:
                self.tally.too_big += too_big
            if part is not None:
                p, n = part
                sized = sized[p * len(sized) // n : (p + 1) * len(sized) // n]
        for key_sizes, sizes in sized:
            if self.descend(_key_of(key_sizes)):
                self.orders(bands, node, key_sizes, sizes)

    def orders(
        self, bands: list[Band], node: Bound, key_sizes: Order, sizes: tuple[int, ...]
    ) -> None:
        """Search the orders of the band of ``sizes`` below ``bands`` (of bounds ``node``),
        best bound first."""
        s = self.subtree
        depth = len(bands)
        level = s.levels[depth]
        outside = bands[-1][1] if bands else s.context.extents
        single = s.single(depth, sizes)
        fixed = None
        if s.constraints is not None:
            fixed = s.constraints.order(level, range(len(sizes)))
        orders = list(_orders(outside, sizes, fixed))
        self.tally.tied += len(orders) if self.tying else 0
        # with many orders, each is bounded over its places only when it comes up
        lazy = single and len(orders) > _BOUNDED_ORDERS
        # the orders of one innermost running loop are pruned together when its bound is
        # not below the best
        cut: dict[int, Key] = {}
        if not single and len(orders) > 1:
            groups = innermost_bounds(
                s.context, s.compute, [*bands, Band(level, sizes, ())], s.keeps
            )
            for innermost, bound in groups.items():
                key = bound_key(bound, s.objective)
                if self.worse(key):
                    cut[innermost] = key
        running = len(_running(outside, sizes))
        ordered: list[tuple[Order, Band]] = []
        for order in orders:
            band = Band(level, sizes, order)
            innermost = order[running - 1] if running else -1
            if innermost in cut:
                self.tally.prune(cut[innermost][0])
            elif lazy:
                ordered.append((key_sizes, band))
            elif single:
                placing_order = s.placing_bound(bands, band, outside, True, node)
                if placing_order is None:
                    self.tally.too_big += 1
                else:
                    ordered.append((_child_order(placing_order, s.objective), band))
            else:
                # rule 16 waits for the node to be reached (:meth:`visit`)
                bound = lower_bound(
                    s.context, s.compute, [*bands, band], s.keeps, chains=None, shares=False
                )
                ordered.append((_child_order(bound, s.objective), band))
        ordered.sort(key=lambda c: c[0][:2])
        for order_key, band in ordered:
            bound_order = _key_of(order_key)
            if lazy and not self.worse(bound_order):
                placing_order = s.placing_bound(bands, band, outside, True, node)
                if placing_order is None:
                    self.tally.too_big += 1
                    continue
                bound_order = bound_key(placing_order, s.objective)
            if self.descend(bound_order):
                self.visit([*bands, band], bound_order)

    def placed(self, bands: list[Band]) -> None:
        """Search the places of the tensors at the innermost level of a leaf (its tiles are
        single instances) in increasing bound, the leaf's own first among equals."""
        s = self.subtree
        _, sizes, order = bands[-1]
        outside = bands[-2][1] if len(bands) > 1 else s.context.extents
        capacity = s.context.levels[s.innermost].capacity
        choices = []
        # by energy each tensor's share depends on its own place only: bound each span once
        by_span: dict[int, tuple[Share, ...]] = {}
        position = {facts.tensor: k for k, facts in enumerate(s.context.tensors)}
        for spans in place_choices(bands[-1], outside, s.tensors):
            spanned = {
                t: [
                    outside[d] if d in order[len(order) - n :] else sizes[d]
                    for d in range(len(sizes))
                ]
                for t, n in spans.items()
            }
            need = _need_bound(
                s.context, s.innermost, sizes, s.inner_keeps, s.context.spread, spanned
            )
            if capacity is not None and need > capacity:
                self.tally.too_big += 1
                continue
            if s.objective == "energy":
                wanted = {f.tensor: spans.get(f.tensor, 0) for f in s.context.tensors}
                for n in set(wanted.values()) - set(by_span):
                    by_span[n] = lower_shares(
                        s.context, bands, s.keeps, places=dict.fromkeys(s.tensors, n)
                    )
                parts = [by_span[n][position[t]] for t, n in wanted.items()]
                energy = Fraction(sum(x.energy for x in parts))
                estimate = Fraction(sum(x.estimate for x in parts))
                # (the latency is at least the array's compute latency)
                latency = Fraction(s.compute)
                choices.append(((estimate, energy, latency, latency), spans))
                continue
            bound = lower_bound(s.context, s.compute, bands, s.keeps, places=spans)
            choices.append((_child_order(bound, s.objective), spans))
        choices.sort(key=lambda c: c[0][:2])
        for order_key, spans in choices:
            if self.descend(_key_of(order_key)):
                self.leaf(bands, spans)


def search_subtree(
    problem: Problem,
    space: TilingSpace,
    keep: Mapping[str, frozenset[str]],
    objective: MemoryObjective,
    incumbent: Key | None,
    compute: int | None = None,
    budget: int | None = None,
    allowance: Allowance | None = None,
    places: bool = False,
) -> SubtreeResult:
    """Search the tilings of ``problem`` in the checked ``space`` below ``incumbent`` (a
    :data:`Key`; :class:`Subtree` and :meth:`Subtree.search`, the whole subtree).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  {"M": 4, "N": 4, "K": 4})
    >>> found = search_subtree(p, TilingSpace(["glb"]).checked(p), {}, "latency", None)
    >>> found.best.value == found.root_bound, found.left_open
    (True, 0)
    """
    return Subtree(problem, space, keep, objective, compute, places).search(
        incumbent, budget, allowance
    )


def _sizes(
    outside: Sequence[int],
    pools: Sequence[Sequence[int]],
    aligned: int | None = None,
    blocks: Sequence[int] | None = None,
    extents: Sequence[int] = (),
) -> Iterator[tuple[int, ...]]:
    """Yield the tile sizes inside a tile of sizes ``outside``: per dimension, those of its
    ``pools`` (:func:`tenet.mapping.tile_sizes.size_pool`) that nest in it
    (:func:`tenet.mapping.tile_sizes.nests_in`, with ``aligned``); with ``blocks`` (a level
    shared by the PEs) only those that do not cut the array's digits of a loop of ``extents``
    (:func:`tenet.mapping.cuts_array`)."""
    per_dim = [
        [
            size
            for size in pool
            if nests_in(size, o, aligned)
            and (blocks is None or not cuts_array(blocks[d], size, extents[d]))
        ]
        for d, (o, pool) in enumerate(zip(outside, pools, strict=True))
    ]
    yield from product(*per_dim)


def _running(outside: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """The band's loops of more than one trip (tiles of ``sizes`` in tiles of ``outside``)."""
    return [d for d in range(len(outside)) if -(-outside[d] // sizes[d]) > 1]


def _orders(
    outside: Sequence[int], sizes: Sequence[int], fixed: Sequence[int] | None = None
) -> Iterator[tuple[int, ...]]:
    """Yield every order of the band's loops of more than one trip (the others after them,
    in dimension order); with a ``fixed`` order of the loops, that one only."""
    running = _running(outside, sizes)
    rest = tuple(d for d in range(len(outside)) if d not in running)
    if fixed is not None:
        yield tuple(d for d in fixed if d in running) + rest
        return
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
    every tensor it keeps (``keep``; None: all) whose subscripts are sums of loops, each loop
    in one subscript (the others count 0), each tensor's tile with ``spans`` (its sizes
    where its copy spans some of the band's loops); 0 for a level split per tensor. A per-PE
    level needs ``spread`` (per loop, the PEs its values spread over, the array a grid of
    per-loop coordinates): some PE takes at least ``ceil(size / spread)`` values of each
    loop (else 0). The shares add up as in the level's need (each tensor's copy at its own
    place at the same moment, ``docs/memory.md``): every tensor's first tile is held at the
    first moment, in the same PEs. A subscript that sums several loops (a sliding window)
    takes at least the sum of their values less one per extra loop."""
    if context.levels[level].split or (context.levels[level].per_pe and spread is None):
        return 0
    per_pe = spread if context.levels[level].per_pe else None
    need = 0
    for facts in context.tensors:
        if not facts.disjoint or (keep is not None and facts.tensor not in keep):
            continue
        own = (spans or {}).get(facts.tensor, sizes)
        values = [own[d] if per_pe is None else -(-own[d] // per_pe[d]) for d in range(len(own))]
        if not facts.halo:
            need += prod(values[d] for d in facts.loops)
        elif facts.subscripts:
            # a subscript of several loops (ox + rx) takes at least the sum of their values
            # less one per extra loop: a sum of sets of integers
            need += prod(
                sum(values[d] for d, _ in terms) - len(terms) + 1 if terms else 1
                for terms in facts.subscripts
            )
    return need


_BOUNDED_ORDERS = 24
"""Orders of a band of single instances (with places) whose bounds over their places are all
counted before the first is searched; with more (more than 4 running loops), each order's
bound is counted when it comes up."""


def _placing_bound(
    context: BoundContext,
    parent: Bound,
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
    band unless ``ordered`` (None: some tensor fits nowhere with this order), ``parent`` the
    bound of ``bands``. The energy adds each tensor's least share over its own places (the
    shares of a place add up); the latency is the parent's, as with every copy above the band.

    Over every order, a tensor's copy either spans all of the band's loops (it must fit), or
    some loop of its own runs below it: then at least every other loop outside the band
    revisits its blocks, as when its own loops run innermost and the others are spanned."""
    level, sizes, order = band
    least: dict[str, Share] = {}

    def offer(share: Share) -> None:
        held = least.get(share.tensor, share)
        energy, estimate = min(held.energy, share.energy), min(held.estimate, share.estimate)
        least[share.tensor] = Share(share.tensor, energy, estimate)

    position = {facts.tensor: k for k, facts in enumerate(context.tensors)}
    if ordered:
        for n in sorted({n for one in place_choices(band, outside, ["_"]) for n in one.values()}):
            placed = lower_shares(context, [*bands, band], keeps, dict.fromkeys(tensors, n))
            spanned = order[len(order) - n :] if n else ()
            copy = [outside[d] if d in spanned else sizes[d] for d in range(len(sizes))]
            for tensor in tensors:
                if fits(tensor, copy):
                    offer(placed[position[tensor]])
        if len(least) < len(tensors):
            return None
    else:
        running = [d for d in range(len(sizes)) if -(-outside[d] // sizes[d]) > 1]
        rest = [d for d in range(len(sizes)) if d not in running]
        for tensor in tensors:
            if fits(tensor, outside):
                offer(parent.shares[position[tensor]])
            own = context.tensors[position[tensor]].loops
            others = [d for d in running if d not in own]
            first = Band(level, sizes, tuple([d for d in running if d in own] + others + rest))
            spans = {tensor: len(others) + len(rest)} if others else {}
            offer(lower_shares(context, [*bands, first], keeps, spans)[position[tensor]])
    shares = tuple(least.get(share.tensor, share) for share in parent.shares)
    return Bound(
        parent.latency,
        Fraction(sum(x.energy for x in shares)),
        parent.bottleneck,
        Fraction(sum(x.estimate for x in shares)),
        shares,
    )


def count_leaf(
    problem: Problem,
    compute: int,
    context: BoundContext,
    bands: list[Band],
    keep: Mapping[str, frozenset[str]],
    objective: MemoryObjective,
    tally: Tally,
    spans: Mapping[str, int] | None = None,
) -> None:
    """Evaluate the leaf of ``bands`` exactly, its levels keeping the tensors of ``keep``,
    unless a level's tiles do not fit (counted in ``tally``, the best kept there); ``spans``
    places the tensors at the innermost level above some of its band's loops
    (:func:`tenet.dse.joint.declared.place_choices`)."""
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
