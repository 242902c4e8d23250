"""The space the joint search declares, before any search: the choices of the tensors each
middle level keeps (bypass), the places of the tensors at a per-PE innermost level, the number
of leaves of one subtree, and floors of the objective over every array mapping (a compute
latency no mapping goes under, the least root bound of the whole space).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import combinations, product
from math import factorial, prod

from tenet.counting import count
from tenet.dse.joint.bounds import Band, BoundContext, lower_bound
from tenet.dse.space.mapping import AffineMapping
from tenet.mapping.tile_sizes import size_chains
from tenet.model.hierarchy import MemoryLevel
from tenet.model.problem import Problem
from tenet.spec.architecture import LevelSpec
from tenet.vocab import MemoryObjective

__all__ = [
    "bypass_choices",
    "kept_choices",
    "places_apply",
    "place_choices",
    "space_size",
    "compute_floor",
    "space_bound",
    "root_bound",
]


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


def kept_choices(
    levels: Sequence[LevelSpec | MemoryLevel], tensors: Sequence[str], bypass: bool
) -> list[dict[str, frozenset[str]]]:
    """Return the choices of kept tensors of the search (:func:`bypass_choices`; without
    ``bypass``, one: each level keeps every tensor it may hold)."""
    if not bypass:
        return [{}]
    held = {lv.name: lv.tensors for lv in levels if lv.tensors is not None}
    return bypass_choices([lv.name for lv in levels], tensors, held)


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


def space_size(
    extents: Sequence[int],
    levels: int,
    tiled: Sequence[int] | None = None,
    placed: int = 0,
    allowed: Callable[[int, int, int], bool] | None = None,
    fixed: Collection[int] = (),
    aligned: int | None = None,
    sizes: Mapping[int, Sequence[int]] | None = None,
) -> int:
    """Return the number of leaves of one subtree: tilings of ``levels`` nested levels over
    loops of ``extents`` (``tiled``: the positions of the tiled loops; None: all; nested
    divisors, with ``aligned`` also its multiples, ``sizes`` restricting some loops' sizes by
    position, as :func:`tenet.mapping.tile_sizes.nested_sizes`), each band
    with every order of its loops of more than one trip; with ``placed`` tensors, each also
    placed above any of the innermost band's running loops when its tiles are single
    instances (:func:`place_choices`). With constraints, ``allowed(level, loop, size)`` says
    whether a level (position among the tiled ones) may have tiles of ``size`` along a loop
    (position), and the bands of the ``fixed`` levels have one order.

    Examples
    --------
    >>> space_size([4], 1)  # sizes 1, 2, 4: one order each
    3
    >>> space_size([2, 2], 1)  # (1,1): 2 running loops, 2 orders; (1,2), (2,1): 1; (2,2): 1
    5
    >>> space_size([2, 2], 1, placed=1)  # (1,1): each order with 3 places of the tensor
    9
    >>> space_size([6], 2, aligned=4)  # 1, 2, 3, 4, 6; inside 6: 5 of them, 4: 1 2 4, 3: 1 3, ...
    13
    """
    tiled_set = set(range(len(extents)) if tiled is None else tiled)
    given: dict[int, Sequence[int]] = {d: [] for d in range(len(extents)) if d not in tiled_set}
    given.update(sizes or {})
    counts: dict[tuple[int, ...], int] = {(0,) * levels + (1,): 1}
    for d, extent in enumerate(extents):
        at = None if allowed is None else lambda k, s, d=d: allowed(k, d, s)
        chains = size_chains(extent, levels, given.get(d), aligned, at)
        step: dict[tuple[int, ...], int] = {}
        for chain in chains:
            outside = (extent, *chain[:-1])
            running = tuple(int(-(-o // s) > 1) for o, s in zip(outside, chain, strict=True))
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
        * prod(1 if k in fixed else factorial(r) for k, r in enumerate(state[:-1]))
        * ((state[-2] + 1) ** placed if placed and levels and state[-1] else 1)
        for state, n in counts.items()
    )


def compute_floor(mapping: AffineMapping, instances: int, instances_per_step: int = 1) -> int:
    """Return a lower bound on the compute latency of an array ``mapping`` (cycles) without
    counting it: every occupied time-stamp takes a cycle, and the time-stamps are at least as
    many as the values of each loop's widest kept outer digit, times the inner loop's extent
    (a box domain runs every combination); and no step runs more than the used PEs times
    ``instances_per_step`` of the ``instances``.

    Examples
    --------
    >>> from tenet.dse.space.design import DesignSpace
    >>> space = DesignSpace.build("gemm", "systolic-levels-8x8", {"M": 64, "N": 64, "K": 64})
    >>> c = next(iter(space))
    >>> c.name, compute_floor(c.mapping, 64**3)
    ('PE[floor(i/8), i % 8] T[j, k]', 4096)
    """
    widest: dict[int, int] = {}
    for digit in mapping.outer:
        widest[digit.loop] = max(widest.get(digit.loop, 1), digit.extent)
    steps = prod(widest.values()) * (mapping.inner.extent if mapping.inner is not None else 1)
    used = prod(d.extent for d in mapping.spatial_digits) * instances_per_step
    return max(steps, -(-instances // max(used, 1)))


def space_bound(
    problem: Problem,
    objective: MemoryObjective = "latency",
    *,
    bypass: bool = True,
    instances_per_step: int = 1,
    compute: int | None = None,
) -> Fraction:
    """Return a lower bound of ``objective`` over every array mapping of ``problem``'s
    workload and architecture whose compute latency is at least ``compute`` (None: the
    instances over the PEs times ``instances_per_step``), every tiling and, with ``bypass``,
    every choice of kept tensors: the least root bound of
    :func:`tenet.dse.joint.bounds.lower_bound`.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  params={"M": 64, "N": 64, "K": 64})
    >>> space_bound(p)  # 64³ MACs on 64 PEs
    Fraction(4096, 1)
    """
    if compute is None:
        instances = count(problem.workload.domain)
        pes = count(problem.architecture.pe_set) * instances_per_step
        compute = -(-instances // pes)
    context = BoundContext.from_problem(problem, per_pe=False)
    return root_bound(context, list(problem.workload.tensors), objective, bypass, compute)


def root_bound(
    context: BoundContext,
    tensors: Sequence[str],
    objective: MemoryObjective,
    bypass: bool,
    compute: int,
) -> Fraction:
    """Return the least root bound of ``objective`` over the choices of kept tensors."""
    choices = kept_choices(context.levels, tensors, bypass)
    return min(lower_bound(context, compute, [], keep).value(objective) for keep in choices)
