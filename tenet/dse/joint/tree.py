"""The joint search: array mappings, kept tensors, tile sizes and loop orders together, by branch
and bound on sound lower bounds, with its certificate.

Its steps: the declared space and its subtrees (an array mapping and a choice of kept tensors
each, with its root bound, :func:`declare`), the seeds that give a first incumbent
(:mod:`tenet.dse.joint.seeds`), the run of the subtrees on the search's runner
(:mod:`tenet.dse.run.runner`), and the certificate. What depends on the objective (bounds per
placement, one array mapping per placement, probes, local improvement of the seeds) is one
:class:`Policy`.

Each subtree (:mod:`tenet.dse.joint.subtree`), or each part of one when there are few of them,
is one task, sent with the best value found so far and its other objective (the energy by
latency, else the latency); subtrees whose root bounds of both, compared in that order, are not
below them are pruned without a task: of the mappings of the best value, the search returns one
of least other objective. Workers get the specs as JSON text and send back their best leaf and
least pruned bound as JSON; each finished part is stored as it arrives, so a search started
again with the same arguments and store searches only what is missing. The certificate's bound
is the least of the best value, every pruned bound and the root bound of every subtree not
searched whole (a time budget, Ctrl-C): below it, no tiling of the declared space can go.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tenet.api import load_problem, load_specs
from tenet.counting import count
from tenet.dse.constraints import NO_TILING, MappingConstraints, mapping_spread
from tenet.dse.joint.bounds import BoundContext, lower_bound
from tenet.dse.joint.declared import compute_floor, kept_choices, places_apply, space_size
from tenet.dse.joint.seeds import improved_seeds, seed_tilings
from tenet.dse.joint.subtree import Key, Part, Subtree, SubtreeResult, bound_key, cut_key
from tenet.dse.joint.symmetry import stamp_images
from tenet.dse.ranking.certificate import Certificate, Incumbent, status_line
from tenet.dse.run.budget import Allowance, Ends
from tenet.dse.run.engines import Job
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.runner import Interrupted, Runner, Settled, StoredRun, run_parts
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.dse.space.symmetry import automorphisms, permutation_map
from tenet.dse.tiling.constructive import rank_mappings
from tenet.dse.tiling.sizes import TilingSpace
from tenet.errors import CapacityError, TimeBudgetError
from tenet.metrics.assessment import RECORD_FORMAT, Evaluated
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import fraction_text
from tenet.model import Architecture, Dataflow
from tenet.model.problem import Problem
from tenet.model.workload import Workload
from tenet.spec import ArchitectureSpec, ConstraintsSpec, DataflowSpec, Specs, WorkloadSpec
from tenet.vocab import MemoryObjective

__all__ = [
    "Policy",
    "Declared",
    "JointRoot",
    "joint_search",
    "declare",
    "evaluate_subtree",
    "encode_subtree",
    "decode_subtree",
]

SEEDED = 3
"""Array mappings of least root bound, of least compute latency (or its floor) and, of the
design space, those the micro model ranks best, whose constructive tilings seed the search."""

PARTS_TARGET = 32
"""Tasks a search of few subtrees is cut into at least (each subtree in as many parts, at most
:data:`MAX_PARTS`): progress to show, and work for every worker."""

MAX_PARTS = 32
"""The most parts of one subtree."""

DIVE = 24
"""Exact evaluations of the first search of the subtree of least root bound, by latency."""

TIES = 1000
"""What a search spends, in all, looking for less of the other objective among the mappings
of the best value: each node searched that could only tie it (its bound of the objective
equals it) and each bound of its children, by the first search and then by each subtree
searched again for its ties (:func:`_break_ties`; each costs its exact evaluations if more,
and at least one)."""

TELL_SECONDS = 10.0
"""The longest time between two lines of the incumbent, bound and gap while the search runs."""


@dataclass(frozen=True)
class Policy:
    """The choices of a joint search that depend on its objective.

    By energy, the energy of a tiling counts the fills of each level's tiles, keyed by PE for
    a per-PE level, and never the time-stamp: every array mapping of one placement
    (space-stamp) has the same leaves with the same energies, so one (the first, of least
    compute latency or its floor) stands for them all, and its bound for theirs; each is
    seeded, the best seeds improved locally; and each subtree's first leaves are counted, in
    order of root bound, before any is searched whole (one placement's first leaves are
    often near its best, and a good incumbent early prunes the others).

    Examples
    --------
    >>> Policy.of("energy").probe, Policy.of("latency").probe
    (8, None)
    """

    per_pe: bool
    """Bound each placement's subtrees with its own (PE, element) pairs."""
    one_per_placement: bool
    """One array mapping stands for its placement; every placement is seeded."""
    probe: int | None
    """Exact evaluations of each subtree's first leaves before any is searched whole."""
    probe_share: Fraction
    """The share of what is left of each budget (time, CPU) the probes may take."""
    seed_tilings: int
    """Constructive tilings counted per seeded array mapping."""
    improved: int
    """Placements whose best seeds are improved locally."""
    bounded_seeds: bool
    """A seed whose bound is above the best so far is not counted (by energy each placement's
    seed is: the best placements are improved locally)."""
    dive: int | None
    """Exact evaluations of a first search of the subtree of least root bound, before the
    constructive seeds (None: none). By latency its first leaves often attain its root bound,
    the least of all: the search is then done, without the seeds."""

    @classmethod
    def of(cls, objective: MemoryObjective) -> Policy:
        """The policy of a search by ``objective``."""
        energy = objective == "energy"
        return cls(
            per_pe=objective != "latency",
            one_per_placement=energy,
            probe=8 if energy else None,
            probe_share=Fraction(1, 4),
            seed_tilings=1 if energy else 3,
            improved=2 if energy else 0,
            bounded_seeds=not energy,
            dive=DIVE if objective == "latency" else None,
        )


@dataclass(frozen=True)
class JointRoot:
    """The root of one subtree: its position, its array mapping (position among the
    search's), the tensors each middle level keeps, its bound, and its bound of the other
    objective (the energy by latency, else the latency)."""

    index: int
    mapping: int
    keep: Mapping[str, frozenset[str]]
    root: Fraction
    other: Fraction

    @property
    def key(self) -> Key:
        """The root's :data:`~tenet.dse.joint.subtree.Key`."""
        return self.root, self.other


@dataclass(frozen=True)
class Declared:
    """The space a joint search declares and the subtrees it searches."""

    specs: Specs
    """The workload, the architecture and the sizes."""
    objective: MemoryObjective
    mappings: list[DataflowSpec]
    """The array mappings."""
    computes: list[int]
    """A lower bound of each array mapping's compute latency (cycles)."""
    ranked: list[int]
    """The array mappings the micro model ranks best (positions)."""
    choices: list[dict[str, frozenset[str]]]
    """The choices of kept tensors."""
    subtrees: list[JointRoot]
    """The subtrees searched, in order of root bound."""
    declared: int
    """Subtrees of the declared space (array mappings times choices)."""
    leaves: int
    """Leaves of one subtree."""
    context: str
    """The search as JSON text (the workers' context and the store's key)."""
    parts: int
    """Parts each subtree is searched in."""
    constraints: MappingConstraints | None = None
    """What the mappings of the space satisfy."""
    dominated: Mapping[int, int] = field(default_factory=dict)
    """The subtrees that the image of an earlier one under a symmetry of the problem stands
    for (:func:`_dominated`): subtree -> the one searched, of the same figures."""
    gap: Fraction = Fraction(0)
    """The search's tolerance: its best is proven at most this fraction above the least
    value (:func:`~tenet.dse.joint.subtree.cut_key`)."""

    @property
    def searched(self) -> list[JointRoot]:
        """The subtrees searched: those no other stands for."""
        return [t for t in self.subtrees if t.index not in self.dominated]

    def task(self, subtree: int, part: int) -> int:
        """The position of ``part`` of ``subtree`` among the run's parts."""
        return subtree * self.parts + part

    def name(self, tree: JointRoot, part: int) -> str:
        """The name of a part in the store (a subtree's own when subtrees are not cut)."""
        m = self.mappings[tree.mapping]
        name = f"{m.space_stamp} {m.time_stamp} {_keep_text(tree.keep)}"
        return name if self.parts == 1 else f"{name} part {part + 1}/{self.parts}"


def joint_search(
    workload: str | WorkloadSpec,
    arch: str | ArchitectureSpec,
    mappings: Sequence[str | DataflowSpec] | None = None,
    params: Mapping[str, int] | None = None,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    bypass: bool = True,
    seed: bool = True,
    budget: int | None = None,
    places: bool = False,
    execution: ExecutionOptions | None = None,
    constraints: ConstraintsSpec | None = None,
    ties: int | None = TIES,
    dominance: bool = True,
    design: SpaceOptions | None = None,
    gap: float | Fraction = 0,
) -> Certificate:
    """Search array mappings, kept tensors, tile sizes and loop orders of ``workload`` on
    ``arch`` together for the least ``objective``, by branch and bound; return the best and
    its :class:`~tenet.dse.ranking.certificate.Certificate`. Of the mappings of the best
    value, the one of least other objective (the energy by latency, else the latency) is
    searched for among the nodes that could only tie the best value within ``ties`` (their
    count and their children's bounds, :data:`TIES`; None: no limit; the nodes left are
    the certificate's ``ties_open``).

    ``mappings``, ``space``, ``bypass`` and ``places`` declare the space (:func:`declare`);
    ``seed``: whether a first search of the subtree of least root bound (by latency, at most
    :data:`DIVE` exact evaluations) and the constructive tilings of the three mappings of
    least root bound, the three of least compute latency and (design space) the three the
    micro model ranks best start the search (the tilings join the declared space; none is
    counted once the best reaches the least root bound); ``budget`` caps the exact evaluations
    of each subtree, or part of one (None: none; the nodes left open keep their bounds in the
    certificate). Subtrees run on the engine of ``execution`` (None: here) and are kept in
    its store; its time budget stops starting subtrees and leaves the nodes of running ones
    open (a subtree cut short is not stored); its ``tell`` hears the best, bound and gap as
    they change. What depends on the objective is its :class:`Policy`. ``constraints``
    narrow the declared space (the array mappings, kept tensors, tile sizes and loop orders
    each allows; the seeds that break them are dropped). With ``dominance``, by energy, a
    subtree that is the image of an earlier one under a symmetry of the problem is not
    searched (:func:`_dominated`). ``design``: the design space when ``mappings`` is None
    (:class:`~tenet.dse.space.design.SpaceOptions`; None: its defaults). A ``gap`` (0.01
    for 1 %) prunes what cannot beat the best by more (no ties searched,
    :func:`~tenet.dse.joint.subtree.cut_key`): the best is proven at most that far above.

    Raises
    ------
    CapacityError
        No tiling of the declared space fits.
    TimeBudgetError
        The time budget ran out before a tiling that fits was counted.
    SpecError
        Constraints that name what the problem has not, or leave nothing to search.
    Interrupted
        Ctrl-C, with the certificate of what was searched (not complete).

    Examples
    --------
    >>> found = joint_search("gemm", "systolic-levels-8x8", ["gemm-os-systolic"],
    ...                      {"M": 8, "N": 8, "K": 8}, bypass=False)
    >>> found.gap, found.complete
    (Fraction(0, 1), True)
    """
    given = load_specs(workload, arch, params=params)
    policy = Policy.of(objective)
    incumbent = Incumbent(objective)
    tied = _Ties(ties)
    results: dict[int, SubtreeResult] = {}
    broken: dict[int, SubtreeResult] = {}
    seeds: list[Evaluated] = []
    dived = 0
    found: Declared | None = None
    try:
        with Runner(execution) as runner:
            found = declare(
                given,
                mappings,
                space,
                objective,
                bypass,
                places,
                budget,
                runner,
                constraints,
                dominance,
                design,
                _tolerance(gap),
            )
            if seed:
                dived = _dive(found, policy, incumbent, runner, tied)
                seeds += _seed(found, policy, incumbent, runner)
            _run(found, policy, incumbent, runner, results, tied)
            _break_ties(found, incumbent, runner, results, tied, broken)
    except KeyboardInterrupt:
        if found is None or incumbent.best is None:
            raise
        partial = _certify(found, results, incumbent, len(seeds), dived, broken)
        raise Interrupted(partial) from None
    return _certify(found, results, incumbent, len(seeds), dived, broken)


def _tolerance(gap: float | Fraction) -> Fraction:
    """``gap`` as an exact fraction (a float as written: 0.01 is 1/100), checked."""
    tolerance = Fraction(str(gap)) if isinstance(gap, float) else Fraction(gap)
    if tolerance < 0:
        raise ValueError(f"gap: expected a fraction of 0 or more (0.01 for 1 %), got {gap}")
    return tolerance


class _Ties:
    """What is left of a search's budget of ties (:data:`TIES`; None: no limit). With a
    limit, the ties are spent in this process only, in a fixed order (the first search, then
    :func:`_break_ties`), so that the engine and its workers do not change the result; the
    subtrees' tasks spend none."""

    def __init__(self, budget: int | None) -> None:
        self.budget = self.left = budget

    @property
    def limited(self) -> bool:
        """Whether the ties are limited."""
        return self.budget is not None

    @property
    def task(self) -> int | None:
        """The ties a subtree's task may spend (None: no limit)."""
        return None if self.budget is None else 0

    def spend(self, spent: int) -> None:
        """Take ``spent`` from what is left."""
        if self.left is not None:
            self.left = max(0, self.left - spent)

    def spent(self) -> bool:
        """Whether nothing is left."""
        return self.left is not None and self.left <= 0


def declare(
    given: Specs,
    mappings: Sequence[str | DataflowSpec] | None,
    space: TilingSpace | None,
    objective: MemoryObjective,
    bypass: bool,
    places: bool,
    budget: int | None,
    runner: Runner,
    constraints: ConstraintsSpec | None = None,
    dominance: bool = False,
    design: SpaceOptions | None = None,
    gap: Fraction = Fraction(0),
) -> Declared:
    """Return the space of a joint search and its subtrees, best root bound first: the array
    ``mappings`` (dataflow files, zoo names or specs; None: every mapping of the design space),
    the tiled levels, loops and tile sizes of ``space`` (as the tiling search's,
    :func:`tenet.dse.tiling.sizes.size_choices`: nested divisors, its ``sizes`` where given,
    with ``aligned`` also the multiples of it, the last tile partial), the choices of the
    tensors the levels between the outermost and the innermost keep (with ``bypass``: any
    non-empty subset; else the architecture's), and with ``places`` each tensor's copy at a
    per-PE innermost level of single-instance tiles also above any of the level's loops
    (:func:`tenet.dse.joint.declared.place_choices`); ``constraints`` (or those of ``space``)
    narrow each choice; with ``dominance``, the subtrees an earlier one stands for by a
    symmetry of the problem are marked (:func:`_dominated`); ``design``: what the design
    space holds (None: its defaults); ``gap``: the search's tolerance (:func:`joint_search`)."""
    w, a, bound = given.workload, given.architecture, given.bound
    space = space or TilingSpace()
    if constraints is not None:
        workload = Workload.from_spec(w, bound)
        resolved = MappingConstraints.of(constraints, workload, a.levels, space.aligned)
        space = replace(space, constraints=resolved)
    specs, computes, ranked = _mappings_and_floors(given, mappings, space.constraints, design)
    first = load_problem(w, a, specs[0], bound)
    checked = space.checked(first)
    choices = kept_choices(a.levels, list(w.accesses), bypass)
    limits = checked.constraints
    if limits is not None:
        choices = [c for c in choices if limits.keeps(c)] if bypass else [limits.kept(choices[0])]
        if not choices:
            raise limits.nothing_left("no choice of the tensors the levels keep")
    facts = BoundContext.from_problem(first, per_pe=False)
    refills = checked.aligned is None
    subtrees = _roots(given, specs, computes, choices, facts, objective, runner, refills)
    declared = len(specs) * len(choices)
    tiled = list(checked.levels or ())
    placing = places and places_apply([(lv.name, lv.per_pe) for lv in a.levels], tiled)
    allowed = None
    if limits is not None:
        allowed = lambda k, d, size: limits.allows(tiled[k], facts.dims[d], size)  # noqa: E731
    leaves = space_size(
        facts.extents,
        len(tiled),
        None if checked.dims is None else [facts.dims.index(d) for d in checked.dims],
        len(w.accesses) if placing else 0,
        allowed,
        [k for k, level in enumerate(tiled) if limits is not None and level in limits.orders],
        checked.aligned,
        {facts.dims.index(d): v for d, v in (checked.sizes or {}).items()},
    )
    if leaves == 0 and limits is not None:
        raise limits.nothing_left(NO_TILING)
    context = {
        "specs": given.to_json(),
        "space": checked.to_dict(),
        "objective": objective,
        "budget": budget,
        "places": placing,
    }
    if mappings is None and design is not None and design != SpaceOptions():
        context["design"] = design.model_dump(mode="json")
    if gap:
        context["gap"] = fraction_text(gap)
    dominated: dict[int, int] = {}
    # (given sizes may differ between loops that a symmetry swaps)
    symmetric = limits is None and checked.sizes is None and Policy.of(objective).one_per_placement
    if dominance and symmetric:
        dims = None if checked.dims is None else [facts.dims.index(d) for d in checked.dims]
        dominated = _dominated(given, specs, subtrees, facts.extents, dims)
    searched = len(subtrees) - len(dominated)
    parts = min(MAX_PARTS, max(1, -(-PARTS_TARGET // searched)))
    text = json.dumps(context, sort_keys=True)
    return Declared(
        given,
        objective,
        specs,
        computes,
        ranked,
        choices,
        subtrees,
        declared,
        leaves,
        text,
        parts,
        limits,
        dominated,
        gap,
    )


def _roots(
    given: Specs,
    specs: Sequence[DataflowSpec],
    computes: Sequence[int],
    choices: Sequence[Mapping[str, frozenset[str]]],
    facts: BoundContext,
    objective: MemoryObjective,
    runner: Runner,
    refills: bool,
) -> list[JointRoot]:
    """The subtrees of every array mapping and choice of kept tensors in order of root bound
    (ties: less compute, then the mapping's position); by energy, the first of each placement
    and choice only (:class:`Policy`). The energy depends on each PE's own fills: by energy
    and EDP, each placement's roots are bounded with its own (PE, element) pairs, and with
    ``refills`` (nested divisor tiles only) with rule 14."""
    policy = Policy.of(objective)
    placements = list(dict.fromkeys(d.space_stamp for d in specs))
    placement = {d.space_stamp: placements.index(d.space_stamp) for d in specs}
    per_pe = []
    if policy.per_pe:
        w, a, bound = given.workload, given.architecture, given.bound
        for stamp in runner.shown(placements, len(placements), "bounds: placements"):
            spec = next(d for d in specs if d.space_stamp == stamp)
            problem = load_problem(w, a, spec, bound)
            per_pe.append(BoundContext.from_problem(problem, refills=refills))
    roots: dict[tuple[int, int, int], Key] = {}

    def root(m: int, k: int) -> Key:
        where = placement[specs[m].space_stamp] if per_pe else 0
        key = (computes[m], k, where)
        if key not in roots:
            ctx = per_pe[where] if per_pe else facts
            roots[key] = bound_key(lower_bound(ctx, computes[m], [], choices[k]), objective)
        return roots[key]

    subtrees = sorted(
        (
            JointRoot(0, m, keep, *root(m, k))
            for m in range(len(specs))
            for k, keep in enumerate(choices)
        ),
        key=lambda s: (s.root, computes[s.mapping], s.mapping),
    )
    if policy.one_per_placement:
        seen: set[object] = set()
        firsts = []
        for tree in subtrees:
            key = (specs[tree.mapping].space_stamp, frozenset(tree.keep.items()))
            if key not in seen:
                seen.add(key)
                firsts.append(tree)
        subtrees = firsts
    return [JointRoot(k, s.mapping, s.keep, s.root, s.other) for k, s in enumerate(subtrees)]


def _dominated(
    given: Specs,
    specs: Sequence[DataflowSpec],
    subtrees: Sequence[JointRoot],
    extents: Sequence[int],
    tiled: Sequence[int] | None,
) -> dict[int, int]:
    """The subtrees (by energy, one per placement and choice of kept tensors) that an
    earlier one stands for: subtree -> that one. Subtree u stands in for t when, under a loop
    symmetry π of the workload (:func:`tenet.dse.joint.symmetry.loop_symmetries`) that maps
    the ``tiled`` loops (None: all) onto themselves, u's placement is the image of t's (up to
    a symmetry of the array), both keep the same tensors, and their root keys and array
    mappings' compute latencies are equal. Each leaf of u is then the image of a leaf of t
    (its sizes and orders renamed by π), of the same energy (the energy does not depend on
    the time-stamp: :class:`Policy`) and latency: t's best and bounds hold for u."""
    workload = Workload.from_spec(given.workload, given.bound)
    positions = list(dict.fromkeys(t.mapping for t in subtrees))
    stamps = [Dataflow.from_spec(specs[m], given.bound).space_stamp for m in positions]
    arch = Architecture.from_spec(given.architecture, given.bound)
    array = [permutation_map(arch.pe_set, order) for order in automorphisms(arch)[1:]]
    images = stamp_images(workload, extents, stamps, array)
    closed = [
        mapped
        for order, mapped in images
        if tiled is None or sorted(order[d] for d in tiled) == sorted(tiled)
    ]
    where = {m: k for k, m in enumerate(positions)}
    by_root = {(t.mapping, frozenset(t.keep.items())): t for t in subtrees}
    computes: dict[int, int] = {}

    def compute(m: int) -> int:
        if m not in computes:
            problem = load_problem(given.workload, given.architecture, specs[m], given.bound)
            computes[m] = occupancy(problem).latency_compute
        return computes[m]

    dominated: dict[int, int] = {}
    for tree in subtrees:
        if tree.index in dominated:
            continue
        for mapped in closed:
            image = mapped[where[tree.mapping]]
            other = (
                None
                if image is None
                else by_root.get((positions[image], frozenset(tree.keep.items())))
            )
            if other is None or other.index <= tree.index or other.index in dominated:
                continue
            if other.key == tree.key and compute(other.mapping) == compute(tree.mapping):
                dominated[other.index] = tree.index
    return dominated


def _mappings_and_floors(
    given: Specs,
    mappings: Sequence[str | DataflowSpec] | None,
    constraints: MappingConstraints | None = None,
    design: SpaceOptions | None = None,
) -> tuple[list[DataflowSpec], list[int], list[int]]:
    """Return the array mappings searched (those that spread the loops as ``constraints``
    say; ``design``: what the design space holds), a lower bound of each one's compute
    latency (cycles) and the positions of those the micro model ranks best: for the design
    space's mappings
    :func:`~tenet.dse.joint.declared.compute_floor`, without counting them, and
    :func:`tenet.dse.tiling.constructive.rank_mappings`; for mappings given by name or spec
    their exact compute latency, and none ranked."""
    workload, architecture, bound = given.workload, given.architecture, given.bound
    if mappings is None:
        space = DesignSpace(given, design or SpaceOptions())
        candidates = list(space)
        if not candidates:
            raise CapacityError("the design space has no array mapping")
        if constraints is not None:
            candidates = [c for c in candidates if constraints.spreads(mapping_spread(c.mapping))]
            if not candidates:
                raise constraints.nothing_left("no array mapping to search")
        specs = [c.spec() for c in candidates]
        instances = count(load_problem(workload, architecture, specs[0], bound).workload.domain)
        step = space.instances_per_step
        floors = [compute_floor(c.mapping, instances, step) for c in candidates]
        position = {c.index: k for k, c in enumerate(candidates)}
        ranked = [position[c.index] for c in rank_mappings(space, candidates, SEEDED)]
        return specs, floors, ranked
    specs = [load_specs(workload, architecture, m).require_dataflow() for m in mappings]
    problems = [load_problem(workload, architecture, d, bound) for d in specs]
    if constraints is not None:
        kept = [k for k, p in enumerate(problems) if constraints.admits_problem(p)]
        if not kept:
            raise constraints.nothing_left("no array mapping to search")
        specs, problems = [specs[k] for k in kept], [problems[k] for k in kept]
    return specs, [occupancy(p).latency_compute for p in problems], []


def _dive(d: Declared, policy: Policy, incumbent: Incumbent, runner: Runner, ties: _Ties) -> int:
    """Search the subtree of least root bound for at most :attr:`Policy.dive` exact
    evaluations (within the budgets), offering its best to the ``incumbent``; return the
    leaves counted. Its nodes are searched again with the others (its best only prunes)."""
    if policy.dive is None or not d.subtrees:
        return 0
    tree = d.subtrees[0]
    subtree = _subtree(d.context, d.mappings[tree.mapping].model_dump_json(), _keep_text(tree.keep))
    result = subtree.search(incumbent.key, policy.dive, runner.allowance(), ties=ties.left)
    ties.spend(result.tied)
    if result.best is not None:
        _offer(runner, d, incumbent, result.best)
    return result.evaluated


def _seed(d: Declared, policy: Policy, incumbent: Incumbent, runner: Runner) -> list[Evaluated]:
    """Count the seeds of the search (offered to the ``incumbent``): the constructive tilings
    of the seeded array mappings (none whose bound is above the best so far, and none once
    the best reaches the least root bound: nothing can beat it) and, by energy, the best of
    them improved locally; those that break the space's constraints are dropped."""
    least = list(dict.fromkeys(s.mapping for s in d.subtrees))
    fastest = sorted(range(len(d.mappings)), key=lambda m: (d.computes[m], m))[:SEEDED]
    chosen = least if policy.one_per_placement else [*least[:SEEDED], *fastest, *d.ranked]
    seeded = list(dict.fromkeys(chosen))
    floor = min((s.root for s in d.subtrees), default=None)
    w, a, bound = d.specs.workload, d.specs.architecture, d.specs.bound
    problems: dict[int, Problem] = {}
    seeds: list[tuple[int, Evaluated]] = []
    for m in runner.shown(seeded, len(seeded), "seeds: array mappings"):
        if seeds and runner.expired():
            break
        best = incumbent.value
        if floor is not None and best is not None and best <= floor * (1 + d.gap):
            break
        context: BoundContext | None = None
        compute: int | None = None
        if policy.bounded_seeds:  # (the subtrees' search reuses the problem and its facts)
            problems[m], compute, context = _problem(d.context, d.mappings[m].model_dump_json())
        else:
            problems[m] = load_problem(w, a, d.mappings[m], bound)
        found = seed_tilings(
            problems[m],
            d.objective,
            policy.seed_tilings,
            d.constraints,
            context=context,
            compute=compute,
            incumbent=best,
        )
        for point in found:
            if _admitted(d, point):
                seeds.append((m, point))
                _offer(runner, d, incumbent, point)
    if policy.improved:
        improved = improved_seeds(
            problems, seeds, d.objective, d.choices, policy.improved, runner.expired
        )
        total = 2 * policy.improved
        for m, point in runner.shown(improved, total, "seeds: improved locally"):
            if runner.expired():
                break
            if _admitted(d, point):
                seeds.append((m, point))
                _offer(runner, d, incumbent, point)
    return [point for _, point in seeds]


def _admitted(d: Declared, point: Evaluated) -> bool:
    """Whether ``point`` satisfies the constraints of the declared space."""
    return d.constraints is None or not d.constraints.violations(point.mapping)


def _run(
    d: Declared,
    policy: Policy,
    incumbent: Incumbent,
    runner: Runner,
    found: dict[int, SubtreeResult],
    ties: _Ties,
) -> None:
    """Search the subtrees' parts not in the store (with a probe, first each subtree's first
    leaves: those it finished are done), storing each finished one; ``found`` holds every
    result by part as it comes; the parts' tasks spend what ``ties`` lets them."""
    names = {d.task(t.index, p): d.name(t, p) for t in d.searched for p in range(d.parts)}
    arguments: dict[str, Any] = {"search": "joint", "context": d.context, "records": RECORD_FORMAT}
    # the parts stored: the best of each of least other objective among those of equal value
    arguments["ties"] = ties.budget
    # the array mappings searched: searches of other mappings in one store keep apart
    arguments["mappings"] = [f"{m.space_stamp} {m.time_stamp}" for m in d.mappings]
    if d.parts > 1:
        arguments["parts"] = d.parts
    stored = runner.open(arguments, names)
    found.update(stored.results(decode_subtree))
    for result in found.values():
        if result.best is not None:
            incumbent.offer(result.best)
    teller = _Teller(d, incumbent, found, runner)
    if policy.probe is not None:
        _probe(d, policy, incumbent, runner, stored, found, teller, ties)
    todo = [(t, p) for t in d.searched for p in range(d.parts) if d.task(t.index, p) not in found]
    desc = "subtrees" if d.parts == 1 else f"subtree parts ({d.parts} a subtree)"
    jobs = _jobs(d, todo, incumbent, ties, None)

    def kept(result: SubtreeResult) -> str | None:  # a part cut short by the budget: not kept
        return "ok" if not runner.limited or result.left_open == 0 else None

    for index, result in _parts(runner, stored, jobs, kept, len(todo), desc):
        found[index] = result
        teller.heard(result)
    teller.tell()


def _probe(
    d: Declared,
    policy: Policy,
    incumbent: Incumbent,
    runner: Runner,
    stored: StoredRun,
    found: dict[int, SubtreeResult],
    teller: _Teller,
    ties: _Ties,
) -> None:
    """Count each subtree's first leaves (at most :attr:`Policy.probe`), in order of root
    bound, for at most :attr:`Policy.probe_share` of what is left of each budget; a subtree
    finished within its probe is done (stored under its first part, its other parts empty)."""
    todo = [(t, -1) for t in d.searched if d.task(t.index, 0) not in found]
    ends = runner.phase(float(policy.probe_share))
    pruned: set[int] = set()
    jobs = _jobs(d, todo, incumbent, ties, policy.probe, pruned)
    desc = "probes: each subtree's first leaves"
    for index, result in _parts(runner, stored, jobs, lambda _: None, len(todo), desc, ends):
        teller.heard(result)
        if result.left_open > 0:
            continue
        tree = index // d.parts
        for p in range(d.parts):
            task = d.task(tree, p)
            found[task] = result if p == 0 else _EMPTY
            if index not in pruned:  # (a pruning depends on the incumbent: not stored)
                stored.keep(task, encode_subtree(found[task]))


def _parts(
    runner: Runner,
    stored: StoredRun,
    jobs: Iterable[Job | Settled],
    kept: Callable[[SubtreeResult], str | None],
    total: int,
    desc: str,
    ends: Ends | None = None,
) -> Iterator[tuple[int, SubtreeResult]]:
    """Search the subtree parts of ``jobs`` on the runner (:func:`run_parts`, each part
    granted its allowance of the budgets, up to ``ends``: default the search's): each part's
    index and result, stored under ``kept(result)``."""
    return run_parts(
        runner,
        stored,
        evaluate_subtree,
        jobs,
        decode_subtree,
        kept,
        total=total,
        desc=desc,
        ends=ends,
        allowed=True,
    )


_EMPTY = SubtreeResult(None, None, 0, 0, 0, Fraction(0), 0)
"""The result of a part with nothing to search (its subtree pruned at its root, or searched
whole by its probe)."""


def _jobs(
    d: Declared,
    todo: Sequence[tuple[JointRoot, int]],
    incumbent: Incumbent,
    ties: _Ties,
    probe: int | None,
    pruned: set[int] | None = None,
) -> Iterator[tuple[Any, ...] | Settled]:
    """The tasks of the parts ``todo`` (part -1: the whole subtree), each with the best key
    so far when it comes up (:attr:`Incumbent.key`) and the ``ties`` a task may spend; a
    subtree whose root's key is not below it, or whose root could only tie the best value
    when the ties are limited (left to :func:`_break_ties`), is settled here, pruned (its
    other parts empty; the pruned part's position added to ``pruned``)."""
    skipped: set[int] = set()
    for tree, part in todo:
        index = d.task(tree.index, max(part, 0))
        best = incumbent.key
        if tree.index in skipped:
            yield Settled(index, _EMPTY)
            continue
        below = cut_key(best, d.gap)
        beaten = below is not None and tree.key >= below
        tying = best is not None and not beaten and tree.root >= best[0] and ties.limited
        if part <= 0 and (beaten or tying):
            skipped.add(tree.index)
            if pruned is not None:
                pruned.add(index)
            result = SubtreeResult(None, tree.root, 0, 0, 1, tree.root, ties_open=int(tying))
            yield Settled(index, result)
            continue
        mapping = d.mappings[tree.mapping].model_dump_json()
        incumbent_text = None if best is None else [fraction_text(v) for v in best]
        cut = None if part < 0 else [part, d.parts]
        keep = _keep_text(tree.keep)
        yield d.context, index, mapping, keep, incumbent_text, probe, cut, ties.task


def _break_ties(
    d: Declared,
    incumbent: Incumbent,
    runner: Runner,
    found: Mapping[int, SubtreeResult],
    ties: _Ties,
    broken: dict[int, SubtreeResult],
) -> None:
    """Search again, in this process and in order of root, each subtree that left nodes
    open that could only tie the best value (``found``: the results by part), below the
    best's key, while ``ties`` (:data:`TIES`) and the budgets last; ``broken`` holds
    each such search's result by subtree (it stands for its parts' ties, its nodes left open
    among them)."""
    for tree in d.searched:
        best = incumbent.key
        if ties.spent() or runner.expired() or best is None:
            return
        parts = _whole(d, found, tree)
        if parts is None or not sum(r.ties_open for r in parts) or tree.key >= best:
            continue
        mapping = d.mappings[tree.mapping].model_dump_json()
        subtree = _subtree(d.context, mapping, _keep_text(tree.keep))
        result = subtree.search(best, ties.left, runner.allowance(), ties=ties.left)
        ties.spend(max(1, result.tied, result.evaluated))
        broken[tree.index] = result
        if result.best is not None:
            _offer(runner, d, incumbent, result.best)


def _offer(runner: Runner, d: Declared, incumbent: Incumbent, point: Evaluated) -> None:
    """Offer ``point`` to the incumbent, telling a better value."""
    if incumbent.offer(point):
        unit = point.assessment.energy_unit
        runner.tell(f"branch and bound: {status_line(d.objective, point.value, None, unit)}")


class _Teller:
    """Tells the best so far, the bound and the gap of a running search when the best
    improves, and at least every :data:`TELL_SECONDS` while results come."""

    def __init__(
        self,
        d: Declared,
        incumbent: Incumbent,
        found: Mapping[int, SubtreeResult],
        runner: Runner,
    ) -> None:
        self.d, self.incumbent, self.found, self.runner = d, incumbent, found, runner
        self.told = time.monotonic()

    def heard(self, result: SubtreeResult) -> None:
        """Take one part's result; tell if the best improved or it is time."""
        better = result.best is not None and self.incumbent.offer(result.best)
        if better or time.monotonic() - self.told >= TELL_SECONDS:
            self.tell()

    def tell(self) -> None:
        """Tell the best so far, the bound of what is searched and not, and the gap."""
        best = self.incumbent.best
        if best is None:
            return
        self.told = time.monotonic()
        bound = _bound(self.d, self.found, best.value)
        line = status_line(self.d.objective, best.value, bound, best.assessment.energy_unit)
        done = sum(1 for t in self.d.subtrees if _whole(self.d, self.found, t) is not None)
        self.runner.tell(f"branch and bound: {line}; {done}/{len(self.d.subtrees)} subtrees")


def _whole(
    d: Declared, found: Mapping[int, SubtreeResult], tree: JointRoot
) -> list[SubtreeResult] | None:
    """The results of every part of ``tree`` (None: some part not searched); those of the
    subtree that stands for it when it is dominated (its image, of the same figures)."""
    index = d.dominated.get(tree.index, tree.index)
    parts = [found.get(d.task(index, p)) for p in range(d.parts)]
    return None if any(r is None for r in parts) else [r for r in parts if r is not None]


def _bound(d: Declared, found: Mapping[int, SubtreeResult], best: Fraction) -> Fraction:
    """The least of ``best``, every pruned bound and the root bound of every subtree not
    searched whole."""
    bounds = [best]
    for tree in d.subtrees:
        parts = _whole(d, found, tree)
        if parts is None:
            bounds.append(tree.root)
        bounds += [r.pruned_bound for r in parts or () if r.pruned_bound is not None]
    return min(bounds)


def _certify(
    d: Declared,
    found: Mapping[int, SubtreeResult],
    incumbent: Incumbent,
    seeds: int,
    dived: int = 0,
    broken: Mapping[int, SubtreeResult] | None = None,
) -> Certificate:
    """The certificate of the results ``found`` (by part), the ``seeds`` counted, the
    leaves of the first search (``dived``) and the searches of :func:`_break_ties`
    (``broken``, by subtree: their nodes open for ties stand for their parts')."""
    evaluated, too_big, pruned, left_open, ties_open = seeds + dived, 0, 0, 0, 0
    whole = True
    broken = broken or {}
    for tree in d.subtrees:
        if tree.index in d.dominated:  # (pruned: the subtree that stands for it holds its proof)
            whole = whole and _whole(d, found, tree) is not None
            pruned += 1
            continue
        parts = [found.get(d.task(tree.index, p)) for p in range(d.parts)]
        whole = whole and all(r is not None for r in parts)
        again = broken.get(tree.index)
        if again is not None:  # (its parts hold the proof of the bound)
            evaluated += again.evaluated
            ties_open += again.ties_open + again.left_open
        for result in (r for r in parts if r is not None):
            evaluated += result.evaluated
            too_big += result.too_big
            pruned += result.pruned
            left_open += result.left_open
            ties_open += result.ties_open if again is None else 0
            if result.best is not None:
                incumbent.offer(result.best)
    if incumbent.best is None and not (whole and not left_open):
        raise TimeBudgetError("the time budget ran out before a tiling that fits was counted")
    if incumbent.best is None:
        raise CapacityError("no tiling of the declared space fits the memory levels")
    return Certificate(
        incumbent.best,
        d.objective,
        _bound(d, found, incumbent.best.value),
        d.leaves * d.declared + seeds,
        evaluated,
        strategy="joint",
        complete=whole and not left_open,
        too_big=too_big,
        pruned=pruned,
        cpu_to_best=incumbent.found_at,
        improvements=tuple(incumbent.improvements),
        ties_open=ties_open,
    )


def encode_subtree(result: SubtreeResult) -> str:
    """Return ``result`` as JSON text, read back by :func:`decode_subtree`."""
    return json.dumps(
        {
            "best": None if result.best is None else result.best.to_dict(),
            "pruned_bound": None
            if result.pruned_bound is None
            else fraction_text(result.pruned_bound),
            "counts": [
                result.evaluated,
                result.too_big,
                result.pruned,
                result.left_open,
                result.tied,
                result.ties_open,
            ],
            "root": fraction_text(result.root_bound),
        }
    )


def decode_subtree(text: str) -> SubtreeResult:
    """Return the :class:`~tenet.dse.joint.subtree.SubtreeResult` written by
    :func:`encode_subtree`."""
    data = json.loads(text)
    evaluated, too_big, pruned, left_open, tied, ties_open = data["counts"]
    return SubtreeResult(
        None if data["best"] is None else Evaluated.from_dict(data["best"]),
        None if data["pruned_bound"] is None else Fraction(data["pruned_bound"]),
        evaluated,
        too_big,
        pruned,
        Fraction(data["root"]),
        left_open,
        tied,
        ties_open,
    )


def _keep_text(keep: Mapping[str, frozenset[str]]) -> str:
    """The tensors each level keeps as JSON text, read back by :func:`_keep_of`."""
    return json.dumps({level: sorted(tensors) for level, tensors in keep.items()})


def _keep_of(text: str) -> dict[str, frozenset[str]]:
    return {level: frozenset(tensors) for level, tensors in json.loads(text).items()}


@lru_cache(maxsize=16)
def _problem(context: str, mapping: str) -> tuple[Problem, int, BoundContext]:
    c = json.loads(context)
    specs = Specs.from_json(c["specs"])
    problem = load_problem(
        specs.workload,
        specs.architecture,
        DataflowSpec.model_validate_json(mapping),
        specs.bound,
    )
    # rule 14 ranges over nested divisor tiles: not with partial tiles (aligned sizes)
    refills = c["objective"] != "latency" and c["space"].get("aligned") is None
    bounds = BoundContext.from_problem(problem, refills=refills)
    return problem, occupancy(problem).latency_compute, bounds


@lru_cache(maxsize=32)
def _subtree(context: str, mapping: str, keep: str) -> Subtree:
    problem, compute, bounds = _problem(context, mapping)
    c = json.loads(context)
    space = TilingSpace.from_dict(c["space"]).checked(problem)
    places = c.get("places", False)
    gap = Fraction(c.get("gap", 0))
    return Subtree(problem, space, _keep_of(keep), c["objective"], compute, places, bounds, gap)


def evaluate_subtree(
    context: str,
    index: int,
    mapping: str,
    keep: str,
    incumbent: list[str] | None,
    probe: int | None = None,
    part: list[int] | None = None,
    ties: int | None = None,
    allowance: list[float | None] | None = None,
) -> tuple[int, str]:
    """Worker task: search subtree ``index`` (array ``mapping`` as JSON, the tensors each
    level keeps as JSON: level -> tensors) of the search ``context`` (JSON text) below
    ``incumbent`` (its key, :attr:`Incumbent.key`, as ``[p/q, p/q]``; or None) for at most
    ``probe`` exact evaluations (None: the context's budget), only its ``part`` ``[p, n]``
    (None: whole), searching nodes that could only tie the best value within ``ties`` (None:
    no limit), while its ``allowance`` of time and CPU lasts (as
    :meth:`~tenet.dse.run.budget.Allowance.plain` data; None: no limit); return the index and
    the encoded result."""
    start = time.process_time()  # (the subtree made here is part of the job's CPU)
    subtree = _subtree(context, mapping, keep)
    budget = json.loads(context).get("budget")
    limit = budget if probe is None else min(probe, budget or probe)
    cut: Part | None = None if part is None else (part[0], part[1])
    below: Key | None = None
    if incumbent is not None:
        below = (Fraction(incumbent[0]), Fraction(incumbent[1]))
    granted = Allowance.of(allowance).less(time.process_time() - start)
    found = subtree.search(below, limit, granted, cut, ties)
    return index, encode_subtree(found)
