"""The joint search on an engine and in a results store, with its certificate.

Each subtree (an array mapping and a choice of kept tensors, :mod:`tenet.dse.joint.search`) is
one task, sent with the best value found so far; subtrees whose root bound is not below it are
pruned without a task. Workers get the specs as JSON text and send back their best leaf and
least pruned bound as JSON; each finished subtree is stored as it arrives, so a search started
again with the same arguments and store searches only what is missing. The certificate's bound
is the least of the best value, every pruned bound and the root bound of every subtree not
searched (a time budget): below it, no tiling of the declared space can go.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import prod
from typing import Any

from tenet.api import load_problem, load_specs
from tenet.counting import count
from tenet.dse.joint.bounds import BoundContext, bands_of, lower_bound
from tenet.dse.joint.local import improve
from tenet.dse.joint.search import (
    SubtreeResult,
    bypass_choices,
    places_apply,
    search_subtree,
    space_size,
)
from tenet.dse.run.engines import Engine, make_engine
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.store import ResultStore, run_key
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.dse.space.mapping import AffineMapping
from tenet.dse.tiling.constructive import construct_tilings, rank_mappings
from tenet.dse.tiling.rtile import box_extents
from tenet.dse.tiling.search import TilingSpace
from tenet.errors import CapacityError
from tenet.mapping import LoopNest
from tenet.metrics.assessment import RECORD_FORMAT, Evaluated
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import fraction_text
from tenet.metrics.row import bound_field
from tenet.model.hierarchy import MemoryLevel
from tenet.model.problem import Problem
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    Specs,
    WorkloadSpec,
    load_architecture,
    load_workload,
)
from tenet.spec.architecture import LevelSpec
from tenet.vocab import MemoryObjective

__all__ = [
    "Certificate",
    "joint_search",
    "evaluate_subtree",
    "space_bound",
    "compute_floor",
    "constructive_certificate",
]


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True)
class Certificate:
    """The answer of a joint search: the best mapping and tiling found, a proven lower bound
    of the objective over the whole declared space, and what the search looked at."""

    best: Evaluated
    """The best tiling (a loop nest with its kept tensors), its figures and value."""
    mapping: DataflowSpec
    """The array mapping of the best (space and time stamps)."""
    objective: MemoryObjective
    bound: Fraction
    """No mapping, tiling and bypass of the declared space has a smaller objective."""
    space: int
    """Leaves of the declared space (distinct tilings × kept tensors × array mappings)."""
    evaluated: int
    """Leaves counted exactly (constructive seeds included)."""
    too_big: int
    """Nodes and leaves left out because a level's tiles do not fit."""
    pruned: int
    """Nodes (subtrees included) pruned by their bound."""
    complete: bool
    """Every subtree was searched: the best is the optimum of the space."""
    energy_unit: str
    """The architecture's energy unit."""
    cpu_to_best: float = 0.0
    """CPU seconds of this process from the start of the search to the best's arrival (the
    workers' own time not included)."""
    improvements: tuple[tuple[float, Fraction], ...] = ()
    """Each better value as it arrived: (CPU seconds as :attr:`cpu_to_best`, value)."""

    def cpu_to_reach(self, value: float | Fraction) -> float | None:
        """CPU seconds (as :attr:`cpu_to_best`) until the best so far was at most ``value``
        (None: never)."""
        return next((at for at, found in self.improvements if found <= value), None)

    @property
    def gap(self) -> Fraction:
        """Best value minus the bound (0: the best is optimal in the declared space)."""
        return max(Fraction(0), self.best.value - self.bound)

    @property
    def relative_gap(self) -> Fraction:
        """The gap as a fraction of the best value."""
        return self.gap / self.best.value if self.best.value else Fraction(0)

    def row(self) -> dict[str, Any]:
        """Return the JSON row of the best: its :meth:`~tenet.metrics.assessment.Assessment.row`
        (the memory-aware figures and the full dataflow: stamps, tiles, places, kept tensors),
        the bound, then the certificate."""
        return {
            **self.best.assessment.row(),
            **bound_field(self.objective, self.bound),
            "tiling": self.best.mapping.describe(),
            "objective": self.objective,
            "gap": _number(self.gap),
            "relative_gap": float(self.relative_gap),
            "complete": self.complete,
            "space": self.space,
            "evaluated": self.evaluated,
            "pruned": self.pruned,
            "cpu_to_best_seconds": self.cpu_to_best,
        }


def _encode(result: SubtreeResult) -> str:
    return json.dumps(
        {
            "best": None if result.best is None else result.best.to_dict(),
            "pruned_bound": None
            if result.pruned_bound is None
            else fraction_text(result.pruned_bound),
            "counts": [result.evaluated, result.too_big, result.pruned, result.left_open],
            "root": fraction_text(result.root_bound),
        }
    )


def _decode(text: str) -> SubtreeResult:
    data = json.loads(text)
    evaluated, too_big, pruned, left_open = data["counts"]
    return SubtreeResult(
        None if data["best"] is None else Evaluated.from_dict(data["best"]),
        None if data["pruned_bound"] is None else Fraction(data["pruned_bound"]),
        evaluated,
        too_big,
        pruned,
        Fraction(data["root"]),
        left_open,
    )


@lru_cache(maxsize=8)
def _problem(context: str, mapping: str) -> tuple[Problem, int]:
    specs = Specs.from_json(json.loads(context)["specs"])
    problem = load_problem(
        specs.workload,
        specs.architecture,
        DataflowSpec.model_validate_json(mapping),
        specs.bound,
    )
    return problem, occupancy(problem).latency_compute


def _keep_text(keep: Mapping[str, frozenset[str]]) -> str:
    """The tensors each level keeps as JSON text, read back by :func:`_keep_of`."""
    return json.dumps({level: sorted(tensors) for level, tensors in keep.items()})


def _keep_of(text: str) -> dict[str, frozenset[str]]:
    return {level: frozenset(tensors) for level, tensors in json.loads(text).items()}


def evaluate_subtree(
    context: str,
    index: int,
    mapping: str,
    keep: str,
    incumbent: str | None,
    until: float | None = None,
    probe: int | None = None,
) -> tuple[int, str]:
    """Worker task: search subtree ``index`` (array ``mapping`` as JSON, the tensors each
    level keeps as JSON: level -> tensors) of the search ``context`` (JSON text) below
    ``incumbent`` (``p/q``, or None) until the clock (``time.time()``) passes ``until``
    (None: to the end), after at most ``probe`` exact evaluations (None: the context's
    budget); return the index and the encoded result."""
    problem, compute = _problem(context, mapping)
    c = json.loads(context)
    space = TilingSpace(**c["space"]).checked(problem)
    limit = None if incumbent is None else Fraction(incumbent)
    found = search_subtree(
        problem,
        space,
        _keep_of(keep),
        c["objective"],
        limit,
        compute,
        c.get("budget") if probe is None else min(probe, c.get("budget") or probe),
        until,
        c.get("places", False),
    )
    return index, _encode(found)


@dataclass(frozen=True)
class _Subtree:
    index: int
    mapping: int
    keep: Mapping[str, frozenset[str]]
    root: Fraction


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
) -> Certificate:
    """Search array mappings, kept tensors, tile sizes and loop orders of ``workload`` on
    ``arch`` together for the least ``objective``, by branch and bound; return the best and
    its :class:`Certificate`.

    ``mappings`` are the array mappings (dataflow files, zoo names or specs; None: every
    mapping of the design space), ``space`` the tiled levels and loops (nested divisors;
    its ``sizes`` and ``aligned`` are not used), ``bypass`` whether the levels between the
    outermost and the innermost may keep only some tensors (else the architecture's), and
    ``seed`` whether the constructive tilings of the three mappings of least root bound, the
    three of least compute latency and (design space) the three the micro model ranks best
    start the search (they join the declared space). ``budget`` caps the exact evaluations of
    each subtree (None: none; the nodes left open keep their bounds in the certificate). With
    ``places`` each tensor's copy at a per-PE innermost level of single-instance tiles may
    also sit above any of the level's loops (:func:`tenet.dse.joint.search.place_choices`).
    Subtrees run on the engine of ``execution`` (None: in this process) and are kept in its
    store; its time budget stops starting subtrees and leaves the nodes of running ones open
    (a subtree cut short is not stored).

    By energy, one array mapping stands for each placement (:func:`_placements`), each is
    seeded (the best seeds of :data:`_IMPROVED` placements improved by
    :func:`tenet.dse.joint.local.improve`), and each subtree's first :data:`_PROBE` leaves
    are counted, in order of root bound, before any is searched whole (for at most
    :data:`_PROBE_SHARE` of the time budget).

    Examples
    --------
    >>> found = joint_search("gemm", "systolic-levels-8x8", ["gemm-os-systolic"],
    ...                      {"M": 8, "N": 8, "K": 8}, bypass=False)
    >>> found.gap, found.complete
    (Fraction(0, 1), True)
    """
    execution = execution or ExecutionOptions(None)
    start, cpu_start = time.monotonic(), time.process_time()
    w = workload if isinstance(workload, WorkloadSpec) else load_workload(workload)
    a = arch if isinstance(arch, ArchitectureSpec) else load_architecture(arch)
    given = Specs(w, a, None, params or {})
    bound = given.bound
    specs, computes, ranked = _mappings_and_floors(given, mappings)
    first = load_problem(w, a, specs[0], bound)
    checked = (space or TilingSpace()).checked(first)
    choices = _choices(a.levels, list(w.accesses), bypass)
    facts = BoundContext.from_problem(first, per_pe=False)
    # the energy depends on each PE's own fills: bound them per placement (space-stamp)
    placements = list(dict.fromkeys(d.space_stamp for d in specs))
    placement = {d.space_stamp: placements.index(d.space_stamp) for d in specs}
    per_pe = (
        [
            BoundContext.from_problem(
                load_problem(w, a, next(d for d in specs if d.space_stamp == stamp), bound)
            )
            for stamp in placements
        ]
        if objective != "latency"
        else []
    )
    roots: dict[tuple[int, int, int], Fraction] = {}

    def root(m: int, k: int) -> Fraction:
        where = placement[specs[m].space_stamp] if per_pe else 0
        key = (computes[m], k, where)
        if key not in roots:
            ctx = per_pe[where] if per_pe else facts
            roots[key] = lower_bound(ctx, computes[m], [], choices[k]).value(objective)
        return roots[key]

    subtrees = sorted(
        (
            _Subtree(0, m, keep, root(m, k))
            for m in range(len(specs))
            for k, keep in enumerate(choices)
        ),
        key=lambda s: (s.root, computes[s.mapping], s.mapping),
    )
    declared = len(subtrees)
    if objective == "energy":
        subtrees = _placements(
            subtrees, lambda s: (specs[s.mapping].space_stamp, frozenset(s.keep.items()))
        )
    subtrees = [_Subtree(k, s.mapping, s.keep, s.root) for k, s in enumerate(subtrees)]
    probing = objective == "energy"
    least = list(dict.fromkeys(s.mapping for s in subtrees))
    fastest = sorted(range(len(specs)), key=lambda m: (computes[m], m))[:_SEEDED]
    # by energy, one mapping per placement: seed each
    chosen = least if probing else [*least[:_SEEDED], *fastest, *ranked]
    seeded = list(dict.fromkeys(chosen)) if seed else []
    state = _State([], objective, lambda: time.process_time() - cpu_start)
    problems = {m: load_problem(w, a, specs[m], bound) for m in seeded}
    seeds = []
    for m in seeded:
        for point in _seeds(problems[m], objective, 1 if probing else 3):
            seeds.append((m, point))
            state.offer(point, m)

    for m, point in _improved(problems, seeds, objective, choices) if probing else ():
        seeds.append((m, point))
        state.offer(point, m)
    tiled = list(checked.levels or ())
    placing = places and places_apply([(lv.name, lv.per_pe) for lv in a.levels], tiled)
    leaves = space_size(
        facts.extents,
        len(checked.levels or ()),
        None if checked.dims is None else [facts.dims.index(d) for d in checked.dims],
        len(w.accesses) if placing else 0,
    )
    context = json.dumps(
        {
            "specs": given.to_json(),
            "space": checked.to_dict(),
            "objective": objective,
            "budget": budget,
            "places": placing,
        },
        sort_keys=True,
    )
    results = _resume_and_run(
        context,
        specs,
        subtrees,
        state,
        execution,
        None if execution.time_budget is None else start + execution.time_budget,
        _PROBE if probing else None,
    )
    bounds = [state.best_value()] if state.best is not None else []
    evaluated, too_big, pruned, left_open = len(seeds), 0, 0, 0
    for tree in subtrees:
        result = results.get(tree.index)
        if result is None or result is _PRUNED:
            bounds.append(tree.root)
            pruned += result is _PRUNED
            continue
        evaluated += result.evaluated
        too_big += result.too_big
        pruned += result.pruned
        left_open += result.left_open
        if result.pruned_bound is not None:
            bounds.append(result.pruned_bound)
        if result.best is not None:
            state.offer(result.best, tree.mapping)
    if state.best is None:
        raise CapacityError("no tiling of the declared space fits the memory levels")
    complete = not left_open and all(t.index in results for t in subtrees)
    return Certificate(
        state.best,
        specs[state.mapping],
        objective,
        min([state.best_value(), *bounds]),
        leaves * declared + len(seeds),
        evaluated,
        too_big,
        pruned,
        complete,
        a.energy.unit,
        state.found_at,
        tuple(state.improvements),
    )


def _placements(
    subtrees: Sequence[_Subtree], group: Callable[[_Subtree], object]
) -> list[_Subtree]:
    """Return the first of ``subtrees`` (in order of root bound) of each ``group``: a
    placement (space-stamp) and its kept tensors. The energy of a tiling counts the fills
    of each level's tiles, keyed by PE for a per-PE level, and never the time-stamp: every
    array mapping of one placement has the same leaves with the same energies, so the first
    (of least compute latency, or its floor) stands for all of them, and its bound for
    theirs."""
    seen: set[object] = set()
    first = []
    for tree in subtrees:
        key = group(tree)
        if key not in seen:
            seen.add(key)
            first.append(tree)
    return first


_PROBE = 8
"""Exact evaluations of each subtree's first leaves (best bound first) before any subtree is
searched whole, by energy: one placement's first leaves are often near its best, and a good
incumbent early prunes the others."""

_PROBE_SHARE = Fraction(1, 4)
"""The share of a time budget the probes may take."""

_SEEDED = 3
"""Array mappings of least root bound, of least compute latency (or its floor) and, of the
design space, those the micro model ranks best, whose constructive tilings seed the
search."""


def _mappings_and_floors(
    given: Specs, mappings: Sequence[str | DataflowSpec] | None
) -> tuple[list[DataflowSpec], list[int], list[int]]:
    """Return the array mappings searched, a lower bound of each one's compute latency
    (cycles) and the positions of those the micro model ranks best: for the design space's
    mappings :func:`compute_floor`, without counting them, and
    :func:`tenet.dse.tiling.constructive.rank_mappings`; for mappings given by name or spec
    their exact compute latency, and none ranked."""
    workload, architecture, bound = given.workload, given.architecture, given.bound
    if mappings is None:
        space = DesignSpace(given, SpaceOptions())
        candidates = list(space)
        if not candidates:
            raise CapacityError("the design space has no array mapping")
        specs = [c.spec() for c in candidates]
        instances = count(load_problem(workload, architecture, specs[0], bound).workload.domain)
        step = space.instances_per_step
        floors = [compute_floor(c.mapping, instances, step) for c in candidates]
        position = {c.index: k for k, c in enumerate(candidates)}
        ranked = [position[c.index] for c in rank_mappings(space, candidates, _SEEDED)]
        return specs, floors, ranked
    specs = [load_specs(workload, architecture, m).require_dataflow() for m in mappings]
    problems = [load_problem(workload, architecture, d, bound) for d in specs]
    return specs, [occupancy(p).latency_compute for p in problems], []


def _choices(
    levels: Sequence[LevelSpec | MemoryLevel], tensors: Sequence[str], bypass: bool
) -> list[dict[str, frozenset[str]]]:
    """The choices of kept tensors of the search (:func:`bypass_choices`; without
    ``bypass``, each level keeps every tensor it may hold)."""
    if not bypass:
        return [{}]
    held = {lv.name: lv.tensors for lv in levels if lv.tensors is not None}
    return bypass_choices([lv.name for lv in levels], tensors, held)


def _improved(
    problems: Mapping[int, Problem],
    seeds: Sequence[tuple[int, Evaluated]],
    objective: MemoryObjective,
    choices: Sequence[Mapping[str, frozenset[str]]],
) -> Iterator[tuple[int, Evaluated]]:
    """Yield the best seeds of the :data:`_IMPROVED` placements whose seeds are best, each
    improved by :func:`tenet.dse.joint.local.improve`; then for each, its tiling counted with
    every other choice of kept tensors of ``choices``, the best that fits improved again
    (``problems``: each seeded array mapping's problem)."""
    best: dict[str, tuple[int, Evaluated]] = {}
    for m, point in sorted(seeds, key=lambda s: s[1].rank(objective)):
        best.setdefault(problems[m].dataflow.space_stamp.to_str(), (m, point))
    improved = []
    for m, seed in list(best.values())[:_IMPROVED]:
        found = improve(problems[m], seed, objective)
        improved.append((m, found))
        yield m, found
    for m, found in improved:
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
            yield m, improve(problems[m], start, objective)


_IMPROVED = 2
"""By energy, the placements whose best seeds are improved locally."""


def _seeds(problem: Problem, objective: MemoryObjective, top_k: int = 3) -> list[Evaluated]:
    """Return the first ``top_k`` constructive tilings of ``problem`` (the architecture's kept
    tensors), evaluated exactly."""
    try:
        return construct_tilings(problem, top_k=top_k, objective=objective)
    except CapacityError:
        return []


class _State:
    """The best leaf so far by ``objective`` (:meth:`Evaluated.rank`), its array mapping and
    when it came (``clock()``, seconds)."""

    def __init__(
        self,
        seeds: Sequence[tuple[int, Evaluated]],
        objective: MemoryObjective,
        clock: Callable[[], float] = float,
    ) -> None:
        self.best: Evaluated | None = None
        self.objective = objective
        self.mapping = 0
        self.clock = clock
        self.found_at = 0.0
        self.improvements: list[tuple[float, Fraction]] = []
        for mapping, point in seeds:
            self.offer(point, mapping)

    def offer(self, point: Evaluated, mapping: int) -> None:
        if self.best is None or point.rank(self.objective) < self.best.rank(self.objective):
            better = self.best is None or point.value < self.best.value
            self.best, self.mapping, self.found_at = point, mapping, self.clock()
            if better:
                self.improvements.append((self.found_at, point.value))

    def best_value(self) -> Fraction:
        assert self.best is not None
        return self.best.value


_PRUNED = SubtreeResult(None, None, 0, 0, 0, Fraction(0), 0)
"""The result of a subtree pruned by its root bound, without a task."""


def _identity(items: Iterable[Any], total: int | None = None) -> Iterable[Any]:
    return items


def _resume_and_run(
    context: str,
    specs: Sequence[DataflowSpec],
    subtrees: Sequence[_Subtree],
    state: _State,
    execution: ExecutionOptions,
    deadline: float | None,
    probe: int | None = None,
) -> dict[int, SubtreeResult]:
    """Search ``subtrees`` not in the store (with a ``probe``, first each one's first leaves:
    those it finished are done) and store each finished one; return every result."""
    store = execution.store
    own = store is not None and not isinstance(store, ResultStore)
    db = store if store is None or isinstance(store, ResultStore) else ResultStore(store)
    arguments = {"search": "joint", "context": context, "records": RECORD_FORMAT}
    run = run_key(arguments)
    names = {
        t.index: f"{specs[t.mapping].space_stamp} {specs[t.mapping].time_stamp} "
        f"{_keep_text(t.keep)}"
        for t in subtrees
    }
    found: dict[int, SubtreeResult] = {}
    by_index = {t.index: t for t in subtrees}
    try:
        if isinstance(db, ResultStore):
            db.resume(run, arguments, names)
            found = {k: _decode(text) for k, text in db.reasons(run).items()}
        for tree in subtrees:
            stored = found.get(tree.index)
            if stored is not None and stored.best is not None:
                state.offer(stored.best, tree.mapping)
        todo = [t for t in subtrees if t.index not in found]
        progress = execution.progress or _identity
        passes = [] if probe is None else [probe]
        for budget in [*passes, None]:
            until = deadline
            if budget is not None and deadline is not None:
                until = time.monotonic() + (deadline - time.monotonic()) * _PROBE_SHARE
            stream = _evaluate(context, specs, todo, state, execution, until, budget)
            for index, result in progress(stream, total=len(todo)):
                tree = by_index[index]
                if result.best is not None:
                    state.offer(result.best, tree.mapping)
                if budget is not None and result.left_open > 0:
                    continue
                found[index] = result
                _keep(db, run, names[index], index, result, deadline)
            todo = [t for t in todo if t.index not in found]
    finally:
        if own and isinstance(db, ResultStore):
            db.close()
    return found


def _keep(
    db: ResultStore | None,
    run: str,
    name: str,
    index: int,
    result: SubtreeResult,
    deadline: float | None,
) -> None:
    """Store the ``result`` of a finished subtree (not one pruned without a task, nor one
    cut short by the time budget)."""
    cut = deadline is not None and result.left_open > 0
    if isinstance(db, ResultStore) and result is not _PRUNED and not cut:
        row = {"idx": index, "name": name, "status": "ok", "reason": _encode(result)}
        db.add(run, [row])


def _evaluate(
    context: str,
    specs: Sequence[DataflowSpec],
    todo: Sequence[_Subtree],
    state: _State,
    execution: ExecutionOptions,
    deadline: float | None,
    probe: int | None = None,
) -> Iterator[tuple[int, SubtreeResult]]:
    """Yield each subtree's result as it finishes: pruned by its root bound against the best
    so far when it comes up, else searched (below the best so far, for at most ``probe``
    exact evaluations) on the engine."""
    pruned: list[int] = []

    def jobs() -> Iterator[tuple[Any, ...]]:
        for tree in todo:
            best = None if state.best is None else state.best.value
            if best is not None and tree.root >= best:
                pruned.append(tree.index)
                continue
            mapping = specs[tree.mapping].model_dump_json()
            keep = _keep_text(tree.keep)
            incumbent = None if best is None else fraction_text(best)
            until = None if deadline is None else time.time() + deadline - time.monotonic()
            yield context, tree.index, mapping, keep, incumbent, until, probe

    engine = execution.engine
    if engine is None:
        stream: Iterable[tuple[int, str]] = (
            evaluate_subtree(*job)
            for job in jobs()
            if deadline is None or time.monotonic() < deadline
        )
        yield from _decoded(stream, pruned)
        return
    if isinstance(engine, Engine):
        yield from _decoded(engine.run(evaluate_subtree, jobs(), deadline), pruned)
        return
    with make_engine(engine, execution.workers, execution.address) as running:
        yield from _decoded(running.run(evaluate_subtree, jobs(), deadline), pruned)


def _decoded(
    stream: Iterable[tuple[int, str]], pruned: list[int]
) -> Iterator[tuple[int, SubtreeResult]]:
    for index, text in stream:
        while pruned:
            yield pruned.pop(0), _PRUNED
        yield index, _decode(text)
    while pruned:
        yield pruned.pop(0), _PRUNED


def compute_floor(mapping: AffineMapping, instances: int, instances_per_step: int = 1) -> int:
    """Return a lower bound on the compute latency of an array ``mapping`` (cycles) without
    counting it: every occupied time-stamp takes a cycle, and the time-stamps are at least as
    many as the values of each loop's widest kept outer digit, times the inner loop's extent
    (a box domain runs every combination); and no step runs more than the used PEs times
    ``instances_per_step`` of the ``instances``.

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_workload
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
    return _root_bound(context, list(problem.workload.tensors), objective, bypass, compute)


def _root_bound(
    context: BoundContext,
    tensors: Sequence[str],
    objective: MemoryObjective,
    bypass: bool,
    compute: int,
) -> Fraction:
    """Return the least root bound of ``objective`` over the choices of kept tensors."""
    choices = _choices(context.levels, tensors, bypass)
    return min(lower_bound(context, compute, [], keep).value(objective) for keep in choices)


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
    :func:`compute_floor` and the ``top_k`` of the micro model, each with its first
    ``top_tilings`` constructed tilings counted exactly, until one attains the bound) with the
    bound of :func:`space_bound` over the whole design space (each mapping's compute latency
    at least its :func:`compute_floor`), every tiling and every choice of kept tensors: the
    gap says how far the constructive best may be from the optimum."""
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
    floor = _root_bound(
        context, list(first.workload.tensors), objective, True, min(floors.values())
    )
    fastest = sorted(candidates, key=lambda c: (floors[c.index], c.index))[:top_k]
    chosen = {c.index: c for c in [*fastest, *rank_mappings(space, candidates, top_k)]}
    specs = [c.spec() for c in chosen.values()]
    state: _State | None = None
    evaluated = 0
    for k, spec in enumerate(specs):
        if state is not None and state.best_value() <= floor:
            break
        problem = load_problem(w, a, spec, bound)
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
                incumbent=None if state is None else state.best_value(),
            )
        except CapacityError:
            continue
        evaluated += len(built)
        if state is None:
            state = _State([(k, point) for point in built], objective)
        for point in built:
            state.offer(point, k)
    if state is None or state.best is None:
        raise CapacityError("no constructed tiling fits the memory levels")
    problem = first
    levels = len(a.levels) - 1
    leaves = space_size(box_extents(problem.workload)[1], levels) if levels else 1
    return Certificate(
        state.best,
        specs[state.mapping],
        objective,
        min(floor, state.best_value()),
        leaves * len(candidates) * len(_choices(a.levels, list(w.accesses), True)),
        evaluated,
        0,
        0,
        floor >= state.best_value(),
        a.energy.unit,
    )
