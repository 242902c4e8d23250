"""Explore a design space: enumerate its candidates, evaluate them in parallel (workers get spec
text), stream the rows into a results store as they finish, and rank them.

The order of the results is that of the design space (a row's ``index``), whatever the order in
which the workers finish; a run started again with the same arguments and store resumes where
it stopped and ends with the same rows.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenet.api import SymbolicKeywords
from tenet.dse.constraints import MappingConstraints, mapping_spread
from tenet.dse.ranking.objectives import Constraint, objective, pareto_front, rank
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.runner import Runner, StoredRun
from tenet.dse.run.worker import METRIC_COLUMNS, Context, Task, evaluate_tasks
from tenet.dse.space.design import Candidate, DesignSpace, SpaceOptions, SpaceSizes
from tenet.dse.strategies import find_strategy
from tenet.errors import SpecError
from tenet.metrics.design import CUTOFF_OBJECTIVES, Cutoff
from tenet.spec import (
    ArchitectureSpec,
    ConstraintsSpec,
    Specs,
    WorkloadSpec,
    load_architecture,
    load_workload,
)
from tenet.spec.params import check_param_names, check_sizes, param_names
from tenet.vocab import Neighbourhood, Source, SpaceStrategy

if TYPE_CHECKING:
    import pandas as pd
    from typing_extensions import Unpack

__all__ = [
    "NOT_SEARCHED",
    "Exploration",
    "ExecutionOptions",
    "SearchArguments",
    "Sweep",
    "explore",
    "sweep",
]


class SearchArguments(SymbolicKeywords, total=False):
    """The keyword arguments of :func:`sweep` (and :func:`explore`), described there: the
    problem's (``params``, ``neighbourhood``) and the search's."""

    options: SpaceOptions | None
    reductions: Sequence[str] | None
    execution: ExecutionOptions | None
    best: tuple[str, int] | None
    strategy: SpaceStrategy
    top_k: int
    constraints: ConstraintsSpec | None


NOT_SEARCHED = "not searched (time budget)"
"""The ``name`` and ``status`` of the row that stands for what a time budget left out."""


@dataclass(frozen=True)
class Exploration:
    """The outcome of exploring one workload on one architecture."""

    workload: str
    architecture: str
    sizes: SpaceSizes | None
    """Sizes of the design space; None when the time budget ran out before it was built."""
    results: pd.DataFrame
    """One row per evaluated design point, in the space's order."""
    complete: bool
    """Whether every design point has a row (False after a time budget ran out)."""
    planned: int | None = None
    """Design points the search was to evaluate (None: not known, the space was not built)."""
    specs: Specs | None = None
    """The workload, the architecture and the size parameters explored (None: not built)."""

    def ranked(
        self, by: str = "latency", top: int | None = None, constraints: Sequence[Constraint] = ()
    ) -> pd.DataFrame:
        """Return the feasible design points, best first by objective ``by``."""
        if self.sizes is None:
            return self.results
        return rank(self.results, by, top, constraints)

    def mapping_rows(
        self, by: str = "latency", top: int | None = None, constraints: Sequence[Constraint] = ()
    ) -> pd.DataFrame:
        """Return :meth:`ranked` with each design point's mapping row beside its array figures
        (:func:`tenet.dse.rows.with_mapping_rows`, untiled)."""
        from tenet.dse.rows import untiled_figures, with_mapping_rows

        ranked = self.ranked(by, top, constraints)
        if self.specs is None:
            return ranked
        s = self.specs
        return with_mapping_rows(ranked, untiled_figures(s.workload, s.architecture, s.bound))

    def unsearched(self) -> pd.DataFrame:
        """Return one row standing for the design points a time budget left out, named and
        with status :data:`NOT_SEARCHED` and saying how many (none when complete)."""
        import pandas as pd

        if self.complete:
            return pd.DataFrame()
        left = (
            "every design point"
            if self.planned is None
            else (f"{self.planned - len(self.results)} of {self.planned} design points")
        )
        return pd.DataFrame(
            [
                {
                    "workload": self.workload,
                    "architecture": self.architecture,
                    "name": f"{NOT_SEARCHED}: {left}",
                    "status": NOT_SEARCHED,
                }
            ]
        )

    def pareto(
        self, x: str = "latency", y: str = "energy", constraints: Sequence[Constraint] = ()
    ) -> pd.DataFrame:
        """Return the Pareto front of objectives ``x`` and ``y``."""
        return pareto_front(self.results, x, y, constraints)


@dataclass(frozen=True)
class Sweep:
    """Explorations of several workloads on several architectures."""

    explorations: tuple[Exploration, ...]

    @property
    def results(self) -> pd.DataFrame:
        """Every row of every exploration."""
        import pandas as pd

        return pd.concat([e.results for e in self.explorations], ignore_index=True)

    @property
    def complete(self) -> bool:
        """Whether every exploration is complete."""
        return all(e.complete for e in self.explorations)

    def ranked(
        self,
        by: str = "latency",
        top: int | None = None,
        constraints: Sequence[Constraint] = (),
        mapping_rows: bool = False,
    ) -> pd.DataFrame:
        """Return the best ``top`` design points of each exploration by objective ``by`` (with
        ``mapping_rows``, each with its mapping row: :meth:`Exploration.mapping_rows`), each
        followed by its :meth:`Exploration.unsearched` row when a time budget left some
        out."""
        import pandas as pd

        parts = []
        for e in self.explorations:
            shown = e.mapping_rows if mapping_rows else e.ranked
            parts += [shown(by, top, constraints)] if e.sizes is not None else []
            parts += [] if e.complete else [e.unsearched()]
        if not parts:
            return pd.DataFrame()
        counts = {c for part in parts for c, kind in part.dtypes.items() if kind.kind in "iu"}
        table = pd.concat(parts, ignore_index=True)
        # the rows of what was not searched have no figures: counts stay integers beside them
        return table.astype({c: "Int64" for c in counts if table[c].dtype.kind == "f"})

    def best(self, by: str = "latency", constraints: Sequence[Constraint] = ()) -> pd.DataFrame:
        """Return the best design point of each (workload, architecture) by objective ``by``."""
        rows = [e.ranked(by, 1, constraints) for e in self.explorations]
        import pandas as pd

        return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def _metadata(candidate: Candidate) -> dict[str, Any]:
    space_stamp, time_stamp = candidate.mapping.stamp_texts
    return {
        "idx": candidate.index,
        "name": candidate.name,
        "space_stamp": space_stamp,
        "time_stamp": time_stamp,
        "data_centric": candidate.data_centric,
        "scratchpad": ",".join(candidate.scratchpad),
        "movement": ",".join(f"{t}:{m}" for t, m in candidate.movement),
    }


class _Threshold:
    """The value a design point must beat to enter the best ``top`` by ``objective``, from
    the rows evaluated so far (None: prune nothing)."""

    def __init__(self, best: tuple[str, int] | None) -> None:
        usable = best is not None and best[0] in CUTOFF_OBJECTIVES
        self.goal = objective(best[0]) if best is not None and usable else None
        self.top = best[1] if best is not None else 0
        self.worst_kept: list[float] = []
        """The best ``top`` values so far, negated (a heap: the worst of them first)."""

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        if self.goal is None:
            return
        for row in rows:
            if row["status"] == "ok":
                heapq.heappush(self.worst_kept, -row[self.goal.column])
                if len(self.worst_kept) > self.top:
                    heapq.heappop(self.worst_kept)

    def bound(self) -> Cutoff | None:
        if self.goal is None or len(self.worst_kept) < self.top:
            return None
        return (self.goal.name, -self.worst_kept[0])


def _batches(
    context: str,
    candidates: Sequence[Candidate],
    size: int,
    threshold: _Threshold,
    cache: str | None,
) -> Iterator[tuple[str, list[Task], Cutoff | None, str | None]]:
    for start in range(0, len(candidates), size):
        chunk = candidates[start : start + size]
        yield (
            context,
            [(c.index, c.name, *c.mapping.stamp_texts) for c in chunk],
            threshold.bound(),
            cache,
        )


def _stream(
    runner: Runner,
    stored: StoredRun,
    context: str,
    todo: Sequence[Candidate],
    batch: int,
    threshold: _Threshold,
) -> Iterator[dict[str, Any]]:
    known = {c.index: _metadata(c) for c in todo}
    jobs = _batches(context, todo, batch, threshold, runner.cache)
    for rows in runner.run(evaluate_tasks, jobs):
        threshold.add(rows)
        merged = [{**known[row["index"]], **row} for row in rows]
        stored.add(merged)
        yield from merged


def _explore(
    runner: Runner,
    specs: Specs,
    options: SpaceOptions,
    reductions: Sequence[str] | None,
    neighbourhood: Neighbourhood,
    label: str | None,
    best: tuple[str, int] | None = None,
    strategy: SpaceStrategy = "exhaustive",
    top_k: int = 10,
    constraints: ConstraintsSpec | None = None,
) -> Exploration:
    workload, architecture = specs.workload, specs.architecture
    space = DesignSpace(specs, options)
    every = list(space)
    if constraints is not None:
        limits = MappingConstraints.of(constraints, space.workload, space.architecture.levels)
        every = [c for c in every if limits.spreads(mapping_spread(c.mapping))]
        if not every:
            raise limits.nothing_left(
                f"no array mapping of {workload.name} on {architecture.name} to search"
            )
    how, candidates = find_strategy(strategy, "mappings").choose(space, every, top_k)
    chosen = tuple(workload.reductions if reductions is None else reductions)
    context = Context.make(specs, chosen, neighbourhood)
    arguments: dict[str, Any] = {
        "context": context.text,
        # without blocks, the arguments of the stores written before blocks existed
        "options": options.model_dump(mode="json", exclude=None if options.blocks else {"blocks"}),
    }
    if how != "exhaustive":
        arguments["strategy"] = how
    if constraints is not None:
        arguments["spatial"] = dict(constraints.spatial)
    if label is not None:  # a network's layers each have their run, repeated ones too
        arguments["label"] = label
    recorded = {
        "workload": workload.name,
        "architecture": architecture.name,
        "label": label or workload.name,
        "params": specs.bound,
        "strategy": how,
    }
    stored = runner.open(
        arguments if best is None else {**arguments, "best": list(best)},
        {c.index: c.name for c in candidates},
        recorded,
    )
    done = stored.done()
    todo = [c for c in candidates if c.index not in done]
    threshold = _Threshold(best)
    if best is not None and done:
        threshold.add(stored.rows().to_dict(orient="records"))
    rows = _stream(runner, stored, context.text, todo, runner.execution.batch, threshold)
    for _ in runner.shown(rows, len(todo), "design points"):
        pass
    results = stored.rows()
    if (results["status"] == "pruned").any():
        # pruned rows have no figures: keep the counts integers beside them (nullable int64
        # where they fit; counts beyond 64 bits stay Python ints)
        for column, kind in METRIC_COLUMNS.items():
            values = results[column].dropna()
            if kind == "INTEGER" and all(-(2**63) <= int(v) < 2**63 for v in values):
                results[column] = results[column].astype("Int64")
    results.insert(0, "architecture", architecture.name)
    results.insert(0, "workload", label or workload.name)
    results["bandwidth_elements_per_cycle"] = architecture.bandwidth / architecture.bits_per_element
    return Exploration(
        label or workload.name,
        architecture.name,
        space.sizes,
        results,
        len(results) == len(candidates),
        len(candidates),
        specs,
    )


def _not_searched(label: str | None, workload: WorkloadSpec, architecture: str) -> Exploration:
    """The exploration of a workload on an array that a time budget left out entirely."""
    import pandas as pd

    return Exploration(label or workload.name, architecture, None, pd.DataFrame(), False)


def explore(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    **search: Unpack[SearchArguments],
) -> Exploration:
    """Evaluate every candidate of the design space of ``workload`` on ``architecture``; the
    keyword arguments are those of :func:`sweep`.

    Examples
    --------
    >>> result = explore("gemm", "systolic-2d-8x8", params={"M": 8, "N": 8, "K": 8},
    ...                  execution=ExecutionOptions(workers=1))
    >>> result.complete, len(result.results) == result.sizes.kept
    (True, True)
    >>> best = result.ranked("latency", top=1)
    >>> best["name"].tolist(), best["latency_cycles"].tolist()
    (['PE[i, j] T[i + j + k]'], [47])

    The skewed (systolic) dataflow wins: A and B enter once and move one PE per step, through
    a port of 64/16 = 4 elements per cycle with a latency of 16: ceil(128 / 4) + 16 - 1 = 47
    cycles, more than its 22 cycles of compute. Unskewed, every PE of a row needs A[i, k] in
    the same step, which a registered link cannot deliver.
    """
    return sweep([load_workload(workload)], [architecture], **search).explorations[0]


def sweep(
    workloads: Sequence[
        Source | WorkloadSpec | tuple[str, Source | WorkloadSpec, Mapping[str, int]]
    ],
    architectures: Sequence[Source | ArchitectureSpec],
    *,
    params: Mapping[str, int] | None = None,
    options: SpaceOptions | None = None,
    reductions: Sequence[str] | None = None,
    neighbourhood: Neighbourhood = "links",
    execution: ExecutionOptions | None = None,
    best: tuple[str, int] | None = None,
    strategy: SpaceStrategy = "exhaustive",
    top_k: int = 10,
    constraints: ConstraintsSpec | None = None,
) -> Sweep:
    """Explore every workload on every architecture with one engine and one store.

    A workload is a source or a ``(label, source, params)`` triple (e.g. a network layer).
    The time budget covers the whole sweep: past it, no design point starts, those running
    are dropped, and what was left out is told by :meth:`Sweep.ranked` (a row named
    :data:`NOT_SEARCHED` per workload and array).

    Parameters
    ----------
    params
        Size parameters (over the workload's defaults) of every workload, under each triple's
        own.
    options
        What the design space holds (:class:`SpaceOptions`).
    reductions
        Tensors whose updates may be reordered (default: each workload's ``reductions``).
    neighbourhood
        Where a PE finds data without fetching it (:data:`tenet.vocab.Neighbourhood`); the
        default ``"links"`` counts only what the array delivers (the previous step, or a link
        at its delay), so that skewed systolic dataflows are told from unskewed ones.
    execution
        Where and how the candidates are evaluated (:class:`ExecutionOptions`: engine,
        workers, results store, time budget, batch, progress, count cache); a run found in
        its store is resumed. Default: ``ExecutionOptions()``.
    best
        ``(objective, top)``: count fully only the candidates that may enter the best
        ``top`` by ``objective`` (``latency``, ``energy`` or ``edp``); the others are left
        with status ``pruned`` once a sound lower bound of their objective exceeds the
        ``top``-th best value found so far. The ranking by that objective is that of full
        evaluation. None (the default): every figure of every candidate.
    strategy, top_k
        A strategy of :data:`tenet.dse.strategies.STRATEGIES`: ``exhaustive`` evaluates every
        candidate; ``constructive`` only the ``top_k`` that the micro model of
        :mod:`tenet.dse.tiling.constructive` ranks best; ``auto`` does so above
        :data:`~tenet.dse.strategies.AUTO_LIMIT` candidates.
    constraints
        Mapping constraints (:class:`~tenet.spec.ConstraintsSpec`) of which only ``spatial``
        applies: the array mappings searched spread each loop it names over that many PEs.

    Raises
    ------
    SpecError
        Constraints of memory levels (a sweep searches no tiling), or whose spread no array
        mapping of a workload on an array has.

    Examples
    --------
    >>> s = sweep([("small", "gemm", {"M": 8, "N": 8, "K": 8})], ["systolic-2d-8x8"],
    ...           execution=ExecutionOptions(workers=1))
    >>> s.best("latency")[["workload", "architecture", "latency_cycles"]].values.tolist()
    [['small', 'systolic-2d-8x8', 47]]
    """
    items = [item if isinstance(item, tuple) else (None, item, {}) for item in workloads]
    loaded = [load_workload(source) for _, source, _ in items]
    arrays = [load_architecture(arch) for arch in architectures]
    _check_sizes(params or {}, items, loaded, arrays)
    if constraints is not None and constraints.levels:
        raise SpecError(
            "constraints of memory levels apply to tilings: the array mappings are searched "
            "by the spread of their loops alone (spatial)",
            source=constraints.source,
            location="levels",
        )
    runner = Runner(execution or ExecutionOptions())
    done: list[Exploration] = []
    try:
        for (label, _, own), spec in zip(items, loaded, strict=True):
            for array in arrays:
                # past the budget, a space is not even built (but the first, for its sizes)
                if done and runner.expired():
                    done.append(_not_searched(label, spec, array.name))
                    continue
                specs = Specs(spec, array, None, {**(params or {}), **own})
                how = (options or SpaceOptions(), reductions, neighbourhood, label, best)
                done.append(_explore(runner, specs, *how, strategy, top_k, constraints))
    except BaseException as failure:
        runner.close(failure)
        raise
    result = Sweep(tuple(done))
    # past the budget, the points still running are dropped rather than waited for
    runner.close(None if result.complete else TimeoutError("the time budget ran out"))
    return result


def _check_sizes(
    params: Mapping[str, int],
    items: Sequence[tuple[str | None, Any, Mapping[str, int]]],
    workloads: Sequence[WorkloadSpec],
    arrays: Sequence[ArchitectureSpec],
) -> None:
    """Refuse sizes that are not integers >= 1 and names that no workload (or array) has."""
    for sizes in (params, *(own for _, _, own in items)):
        check_sizes(sizes, source=None)
    if params:
        what = " or ".join(dict.fromkeys(s.name for s in workloads))
        check_param_names(params, param_names(*workloads, *arrays), what, source=None)
    for (label, _, own), spec in zip(items, workloads, strict=True):
        check_param_names(own, param_names(spec), label or spec.name, source=None)
