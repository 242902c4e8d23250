"""Automatic layout: transform the read tensors' layouts while the layout-aware ingress
latency falls.

The moves on a layout of n dimensions are: swap two adjacent dimensions (REORDER),
interleave a dimension by a factor (INTERLEAVE/SPLIT: the outer part moves outermost), and
pad a dimension other than the outermost by one word (bank padding). The cost of a tensor is
(cycles, bank conflicts, transactions, size) over its read accesses, compared
lexicographically; tensors lie in separate regions, so each is searched on its own.
``greedy`` applies the best move while the cost falls; ``exhaustive`` tries every sequence
of up to ``depth`` moves. Both start from the given layout, so the cost never rises.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import islpy as isl

from tenet.counting import count
from tenet.errors import SpecError
from tenet.layout.evaluate import LayoutProblem
from tenet.layout.metrics import fetched_per_step, line_cycles, transfer_figures
from tenet.layout.relation import Layout, build_layout
from tenet.spec.layout import TransformSpec
from tenet.vocab import TensorName

__all__ = ["SEARCHES", "SearchMethod", "TensorChoice", "LayoutSearch", "moves", "search_layout"]

SearchMethod = Literal["greedy", "exhaustive"]
SEARCHES: tuple[SearchMethod, ...] = get_args(SearchMethod)

Cost = tuple[int, int, int, int]
"""(cycles, bank conflicts, transactions, size): compared lexicographically."""


@dataclass(frozen=True)
class TensorChoice:
    """The layout found for one read tensor, with its cost before and after."""

    tensor: TensorName
    before: tuple[TransformSpec, ...]
    after: tuple[TransformSpec, ...]
    cost_before: Cost
    cost_after: Cost

    @property
    def describe_after(self) -> str:
        """The layout found, as text."""
        return " ; ".join(t.describe() for t in self.after) or "row_major"


@dataclass(frozen=True)
class LayoutSearch:
    """What a layout search found: a choice per read tensor and the ingress latencies."""

    method: SearchMethod
    tensors: tuple[TensorChoice, ...]
    latency_ingress_before: int
    """Layout-aware ingress latency with the given layouts, in cycles."""
    latency_ingress_after: int
    """Layout-aware ingress latency with the layouts found, in cycles."""
    evaluations: int
    """Distinct layouts whose cost was counted."""

    def layouts(self) -> dict[TensorName, tuple[TransformSpec, ...]]:
        """Return the transforms found per tensor."""
        return {c.tensor: c.after for c in self.tensors}

    def rows(self) -> list[dict[str, object]]:
        """Return one dict per read tensor: layout found, cycles and conflicts before/after."""
        return [
            {
                "tensor": c.tensor,
                "layout": c.describe_after,
                "cycles_before": c.cost_before[0],
                "cycles_after": c.cost_after[0],
                "conflicts_bank_before": c.cost_before[1],
                "conflicts_bank_after": c.cost_after[1],
                "transactions_before": c.cost_before[2],
                "transactions_after": c.cost_after[2],
                "size_before": c.cost_before[3],
                "size_after": c.cost_after[3],
            }
            for c in self.tensors
        ]


def moves(layout: Layout, factors: Sequence[int] = (2, 4, 8, 16)) -> Iterator[TransformSpec]:
    """Yield the one-step transforms of ``layout``: adjacent swaps, interleaves by each
    factor below the dimension's extent, and a one-word pad of each inner dimension.

    Examples
    --------
    >>> from tenet.layout.relation import Box
    >>> [m.describe() for m in moves(build_layout(Box("A", (0, 0), (3, 4))), (2,))]
    ['permute(1, 0)', 'interleave(0, 2)', 'interleave(1, 2)', 'pad(1, 1)']
    """
    n = len(layout.dims)
    for k in range(n - 1):
        order = list(range(n))
        order[k], order[k + 1] = order[k + 1], order[k]
        yield TransformSpec(op="permute", order=tuple(order))
    for k, dim in enumerate(layout.dims):
        for factor in factors:
            if 1 < factor < dim.extent:
                yield TransformSpec(op="interleave", dim=k, factor=factor)
    for k in range(1, n):
        yield TransformSpec(op="pad", dim=k, by=1)


class _Costs:
    """Cost of a tensor's layout, memoised by its address expression."""

    def __init__(self, lp: LayoutProblem, tensor: TensorName) -> None:
        self.lp = lp
        self.box = lp.layouts[tensor].box
        problem = lp.problem
        self.fetched: list[isl.Map] = [
            fetched_per_step(problem, a)
            for a in problem.accesses
            if a.tensor == tensor and a.access == "read"
        ]
        self.sizes = [count(f) for f in self.fetched]
        self.line_cycles = line_cycles(problem, lp.scratchpad)
        self.known: dict[tuple[str, int], Cost] = {}

    def layout(self, transforms: Sequence[TransformSpec]) -> Layout:
        return build_layout(self.box, transforms, location=f"search.{self.box.tensor}")

    def __call__(self, layout: Layout) -> Cost:
        key = (layout.address_text, layout.size)
        if key not in self.known:
            figures = [
                transfer_figures(f, layout, self.lp.scratchpad, self.line_cycles, fetched_count=n)
                for f, n in zip(self.fetched, self.sizes, strict=True)
            ]
            self.known[key] = (
                sum(f.cycles for f in figures),
                sum(f.conflicts_bank for f in figures),
                sum(f.transactions for f in figures),
                layout.size,
            )
        return self.known[key]


def _greedy(
    costs: _Costs, start: tuple[TransformSpec, ...], factors: Sequence[int], steps: int
) -> tuple[TransformSpec, ...]:
    current = start
    best = costs(costs.layout(current))
    for _ in range(steps):
        found: tuple[TransformSpec, ...] | None = None
        for move in moves(costs.layout(current), factors):
            candidate = (*current, move)
            cost = costs(costs.layout(candidate))
            if cost < best:
                found, best = candidate, cost
        if found is None:
            break
        current = found
    return current


def _exhaustive(
    costs: _Costs,
    start: tuple[TransformSpec, ...],
    factors: Sequence[int],
    depth: int,
    limit: int,
) -> tuple[TransformSpec, ...]:
    frontier = [start]
    best, best_cost = start, costs(costs.layout(start))
    tried = 1
    for _ in range(depth):
        following = []
        for sequence in frontier:
            for move in moves(costs.layout(sequence), factors):
                candidate = (*sequence, move)
                tried += 1
                if tried > limit:
                    raise SpecError(
                        f"the exhaustive search of {costs.box.tensor} passes {limit} layouts; "
                        "lower the depth or use the greedy search",
                        location="depth",
                    )
                cost = costs(costs.layout(candidate))
                if cost < best_cost:
                    best, best_cost = candidate, cost
                following.append(candidate)
        frontier = following
    return best


def search_layout(
    lp: LayoutProblem,
    method: SearchMethod = "greedy",
    *,
    factors: Sequence[int] = (2, 4, 8, 16),
    depth: int = 2,
    steps: int = 8,
    limit: int = 5000,
) -> LayoutSearch:
    """Search layouts of the read tensors of ``lp`` that lower the layout-aware ingress
    latency (``greedy``: at most ``steps`` moves; ``exhaustive``: every sequence of up to
    ``depth`` moves, at most ``limit`` per tensor).

    Examples
    --------
    >>> from tenet.layout.evaluate import load_layout_problem
    >>> from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
    >>> from tenet.spec.layout import ScratchpadSpec
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i, j]: 0 <= i < 3 and "
    ...     "0 <= j < 4}", "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 3}"})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i, j] -> PE[i]}",
    ...     "time_stamp": "{S[i, j] -> T[j]}"})
    >>> lp = load_layout_problem(w, a, d, scratchpad=ScratchpadSpec(banks=4))
    >>> found = search_layout(lp)
    >>> found.latency_ingress_before, found.latency_ingress_after
    (12, 4)
    """
    if method not in SEARCHES:
        raise SpecError(
            f"unknown search {method!r} (expected one of {', '.join(SEARCHES)})",
            location="method",
        )
    problem = lp.problem
    read = [
        t for t in lp.layouts if any(a.tensor == t and a.access == "read" for a in problem.accesses)
    ]
    choices = []
    evaluations = 0
    for tensor in read:
        costs = _Costs(lp, tensor)
        start = lp.layouts[tensor].transforms
        if method == "greedy":
            found = _greedy(costs, start, factors, steps)
        else:
            found = _exhaustive(costs, start, factors, depth, limit)
        choices.append(
            TensorChoice(
                tensor, start, found, costs(costs.layout(start)), costs(costs.layout(found))
            )
        )
        evaluations += len(costs.known)
    latency = problem.architecture.latency

    def ingress(cycles: int) -> int:
        return cycles + latency - 1 if cycles else 0

    return LayoutSearch(
        method,
        tuple(choices),
        ingress(sum(c.cost_before[0] for c in choices)),
        ingress(sum(c.cost_after[0] for c in choices)),
        evaluations,
    )
