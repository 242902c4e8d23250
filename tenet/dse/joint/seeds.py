"""Where the joint search starts: constructive tilings of a few array mappings counted exactly
(:func:`tenet.dse.tiling.constructive.construct_tilings`), by energy the best of them improved
locally (:func:`tenet.dse.joint.local.improve`); and the constructive search with the bound of
the whole declared space (:func:`constructive_certificate`), the gap telling how far its best
may be from the optimum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction

from tenet.api import load_problem
from tenet.counting import count
from tenet.dse.constraints import MappingConstraints
from tenet.dse.joint.bounds import BoundContext, bands_of, lower_bound
from tenet.dse.joint.declared import compute_floor, kept_choices, root_bound, space_size
from tenet.dse.joint.local import improve
from tenet.dse.ranking.certificate import Certificate, Incumbent
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.dse.tiling.constructive import construct_tilings, rank_mappings
from tenet.dse.tiling.rtile import box_extents
from tenet.errors import CapacityError, SpecError
from tenet.mapping import LoopNest
from tenet.metrics.assessment import Evaluated
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.spec import ArchitectureSpec, Specs, WorkloadSpec, load_architecture, load_workload
from tenet.vocab import MemoryObjective

__all__ = ["seed_tilings", "improved_seeds", "constructive_certificate"]


def seed_tilings(
    problem: Problem,
    objective: MemoryObjective,
    top_k: int = 3,
    constraints: MappingConstraints | None = None,
    *,
    context: BoundContext | None = None,
    compute: int | None = None,
    incumbent: Fraction | None = None,
) -> list[Evaluated]:
    """Return the first ``top_k`` constructive tilings of ``problem`` (the architecture's kept
    tensors) within ``constraints``, evaluated exactly (none when none fits); ``compute`` is
    the array's compute latency (cycles; None: counted). With a bound ``context`` (of
    ``problem``), a tiling whose lower bound (:func:`tenet.dse.joint.bounds.lower_bound`) is
    above ``incumbent`` or above the best of those counted before it is not counted: it
    cannot come first.

    Examples
    --------
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  {"M": 8, "N": 8, "K": 8})
    >>> len(seed_tilings(p, "latency", top_k=2))
    2
    """
    compute = occupancy(problem).latency_compute if compute is None else compute
    bound = None if context is None else _tiling_bound(context, compute, objective)
    try:
        return construct_tilings(
            problem,
            top_k=top_k,
            objective=objective,
            compute=compute,
            bound=bound,
            incumbent=incumbent,
            constraints=constraints,
        )
    except (CapacityError, SpecError):
        return []


def _tiling_bound(
    context: BoundContext, compute: int, objective: MemoryObjective
) -> Callable[[LoopNest], Fraction]:
    """The lower bound of ``objective`` of a tiling (its bands and kept tensors) in
    ``context`` with the array's ``compute`` latency (cycles)."""

    def bound(nest: LoopNest) -> Fraction:
        keeps = {lv.level: lv.keep for lv in nest.levels if lv.keep is not None}
        return lower_bound(context, compute, bands_of(nest), keeps).value(objective)

    return bound


def improved_seeds(
    problems: Mapping[int, Problem],
    seeds: Sequence[tuple[int, Evaluated]],
    objective: MemoryObjective,
    choices: Sequence[Mapping[str, frozenset[str]]],
    placements: int,
    expired: Callable[[], bool] = lambda: False,
) -> Iterator[tuple[int, Evaluated]]:
    """Yield the best seeds of the ``placements`` placements whose seeds are best, each
    improved by :func:`tenet.dse.joint.local.improve`; then for each, its tiling counted with
    every other choice of kept tensors of ``choices``, the best that fits improved again
    (``problems``: each seeded array mapping's problem, by its position); none after
    ``expired`` says a budget (time, CPU) has run out."""
    best: dict[str, tuple[int, Evaluated]] = {}
    for m, point in sorted(seeds, key=lambda s: s[1].rank(objective)):
        best.setdefault(problems[m].dataflow.space_stamp.to_str(), (m, point))
    improved = []
    for m, seed in list(best.values())[:placements]:
        if expired():
            return
        found = improve(problems[m], seed, objective, expired=expired)
        improved.append((m, found))
        yield m, found
    for m, found in improved:
        if expired():
            return
        compute = occupancy(problems[m]).latency_compute
        own = {lv.level: lv.keep for lv in found.mapping.levels if lv.keep is not None}
        starts = [
            Evaluated.of(problems[m], found.mapping.keeping(keep), objective, compute)
            for keep in choices
            if keep != own
        ]
        fitting = [start for start in starts if start.memory.fits]
        if fitting:
            start = min(fitting, key=lambda s: s.rank(objective))
            yield m, improve(problems[m], start, objective, expired=expired)


def constructive_certificate(
    workload: str | WorkloadSpec,
    arch: str | ArchitectureSpec,
    params: Mapping[str, int] | None = None,
    *,
    objective: MemoryObjective = "latency",
    top_k: int = 3,
    top_tilings: int = 3,
    options: SpaceOptions | None = None,
) -> Certificate:
    """Return the best of the constructive search (the ``top_k`` array mappings of least
    :func:`~tenet.dse.joint.declared.compute_floor` and the ``top_k`` of the micro model, each
    with its first ``top_tilings`` constructed tilings counted exactly, until one attains the
    bound) with the bound of :func:`~tenet.dse.joint.declared.space_bound` over the whole
    design space (each mapping's compute latency at least its floor), every tiling and every
    choice of kept tensors: the gap says how far the constructive best may be from the
    optimum.

    Examples
    --------
    >>> found = constructive_certificate("gemm", "systolic-levels-8x8",
    ...                                  {"M": 16, "N": 16, "K": 16}, top_k=1)
    >>> found.bound <= found.best.value, found.strategy
    (True, 'constructive')
    """
    w = workload if isinstance(workload, WorkloadSpec) else load_workload(workload)
    a = arch if isinstance(arch, ArchitectureSpec) else load_architecture(arch)
    given = Specs(w, a, None, params or {})
    bound = given.bound
    space = DesignSpace(given, options or SpaceOptions())
    candidates = list(space)
    first = load_problem(w, a, candidates[0].spec(), bound)
    instances = count(first.workload.domain)
    floors = {
        c.index: compute_floor(c.mapping, instances, space.instances_per_step) for c in candidates
    }
    context = BoundContext.from_problem(first, per_pe=False)
    tensors = list(first.workload.tensors)
    floor = root_bound(context, tensors, objective, True, min(floors.values()))
    fastest = sorted(candidates, key=lambda c: (floors[c.index], c.index))[:top_k]
    chosen = {c.index: c for c in [*fastest, *rank_mappings(space, candidates, top_k)]}
    incumbent = Incumbent(objective, float)
    evaluated = 0
    for candidate in chosen.values():
        if incumbent.value is not None and incumbent.value <= floor:
            break
        problem = load_problem(w, a, candidate.spec(), bound)
        compute = occupancy(problem).latency_compute

        def tiling_bound(nest: LoopNest, compute: int = compute) -> Fraction:
            return lower_bound(context, compute, bands_of(nest)).value(objective)

        try:
            built = construct_tilings(
                problem,
                top_k=top_tilings,
                objective=objective,
                compute=compute,
                bound=tiling_bound,
                incumbent=incumbent.value,
            )
        except CapacityError:
            continue
        evaluated += len(built)
        for point in built:
            incumbent.offer(point)
    if incumbent.best is None:
        raise CapacityError("no constructed tiling fits the memory levels")
    levels = len(a.levels) - 1
    leaves = space_size(box_extents(first.workload)[1], levels) if levels else 1
    best = incumbent.best.value
    return Certificate(
        incumbent.best,
        objective,
        min(floor, best),
        leaves * len(candidates) * len(kept_choices(a.levels, list(w.accesses), True)),
        evaluated,
        strategy="constructive",
        complete=floor >= best,
    )
