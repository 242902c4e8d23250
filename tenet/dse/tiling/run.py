"""The tiling search on an engine and in a results store: each choice of tile sizes (with all
its loop orders) is one task; workers of an engine get the specs as JSON text, never isl
objects, and send their results back as JSON (without an engine, the choices are searched in
this process on the problem at hand); each finished choice is stored as it arrives (its best
tiling and exact figures as JSON), so that a search started again with the same arguments and
store counts only what is missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import factorial
from typing import Any, Literal

from tenet.api import load_specs
from tenet.dse.run.engines import Engine, make_engine
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.store import ResultStore, run_key
from tenet.dse.tiling.constructive import construct_tilings
from tenet.dse.tiling.rtile import box_extents
from tenet.dse.tiling.search import (
    SizesResult,
    TilingSearch,
    TilingSpace,
    array_cutter,
    combine,
    loop_extents,
    search_sizes,
    size_choices,
)
from tenet.errors import SpecError
from tenet.mapping.tile_sizes import nested_sizes
from tenet.metrics.assessment import RECORD_FORMAT, Evaluated
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import fraction_text
from tenet.model.problem import Problem
from tenet.model.tiles import tile_stamps
from tenet.model.workload import Workload
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec, load_architecture
from tenet.vocab import MemoryObjective, Strategy

__all__ = [
    "run_tiling",
    "check_tiling",
    "check_tile_levels",
    "MAX_TILED_EXTENT",
    "tile_mappings",
    "evaluate_sizes",
    "encode",
    "decode",
]


def encode(result: SizesResult) -> str:
    """Return ``result`` as JSON text (fractions as ``p/q``), read back by :func:`decode`."""
    best = None if result.best is None else result.best.to_dict()
    rank = None if result.rank is None else [fraction_text(result.rank[0]), *result.rank[1:]]
    return json.dumps(
        {
            "best": best,
            "rank": rank,
            "counts": [result.candidates, result.fitting, result.evaluated],
            "needs": result.needs,
        }
    )


def decode(text: str) -> SizesResult:
    """Return the :class:`SizesResult` written by :func:`encode`."""
    data = json.loads(text)
    best = None if data["best"] is None else Evaluated.from_dict(data["best"])
    rank = data["rank"]
    candidates, fitting, evaluated = data["counts"]
    return SizesResult(
        best,
        None if rank is None else (Fraction(rank[0]), rank[1], rank[2]),
        candidates,
        fitting,
        evaluated,
        data["needs"],
    )


@lru_cache(maxsize=4)
def _problem(context: str) -> tuple[Problem, int]:
    problem = Problem.from_specs(Specs.from_json(json.loads(context)["specs"]))
    return problem, occupancy(problem).latency_compute


def evaluate_sizes(context: str, position: int, chosen: list[list[int]]) -> tuple[int, str]:
    """Worker task: search the loop orders of the tile sizes ``chosen`` (choice number
    ``position``) in the search ``context`` (JSON text); return the position and the encoded
    :class:`SizesResult`."""
    problem, compute = _problem(context)
    c = json.loads(context)
    found = search_sizes(
        problem, compute, TilingSpace(**c["space"]), chosen, c["objective"], position
    )
    return position, encode(found)


MAX_TILED_EXTENT = 2**16
"""The longest loop whose tile sizes are searched (iterations): its divisors are listed."""


def check_tiling(problem: Problem, space: TilingSpace | None = None) -> TilingSpace:
    """Return ``space`` checked for ``problem`` (:meth:`TilingSpace.checked`), before any
    search: a level to tile, the dataflow's own tile stamps (as ``tenet eval`` checks them)
    and loops short enough to list their tile sizes.

    Raises
    ------
    SpecError
        An architecture without a level inside the outermost, a tiled loop longer than
        :data:`MAX_TILED_EXTENT`, or a level or loop the problem has not.
    DomainNotCoveredError, NotAFunctionError
        A tile stamp of the dataflow that misses an instance or gives one two tiles.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 4, "N": 4, "K": 4})
    >>> check_tiling(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: systolic-2d-8x8: no memory level inside the outermost to tile ...
    """
    tile_stamps(problem)
    levels = [level.name for level in problem.architecture.levels]
    checked = (space or TilingSpace()).checked(problem)
    if not checked.levels:
        raise SpecError(
            f"no memory level inside the outermost to tile (levels: {', '.join(levels)})",
            source=problem.architecture.name,
        )
    _refuse_long_loops(*loop_extents(problem), checked.dims)
    return checked


def _refuse_long_loops(
    names: Sequence[str], extents: Sequence[int], dims: Sequence[str] | None
) -> None:
    """Refuse a loop of ``dims`` (None: every loop) longer than :data:`MAX_TILED_EXTENT`."""
    for name, extent in zip(names, extents, strict=True):
        if extent > MAX_TILED_EXTENT and (dims is None or name in dims):
            raise SpecError(
                f"loop {name!r} runs {extent} iterations; tile sizes are searched for loops "
                f"of at most {MAX_TILED_EXTENT}: give smaller sizes, or --dim without {name!r}",
                source="--param",
            )


TILING_AUTO_LIMIT = 500
"""With strategy ``auto``, the most candidates (tile sizes times loop orders) of the default
space searched exhaustively; a larger one is built constructively."""


def _counts(problem: Problem, space: TilingSpace) -> tuple[int, int]:
    """Return the choices of tile sizes of the checked ``space`` and the loop orders of each,
    counted without listing the choices (those of each loop multiply)."""
    names, extents = loop_extents(problem)
    tiled = space.dims if space.dims is not None else names
    levels = len(space.levels or ())
    sizes = 1
    cuts = array_cutter(problem, space)
    for name, extent in zip(names, extents, strict=True):
        own = (space.sizes or {}).get(name)
        pool = list(own) if own is not None else None if name in tiled else []
        restrict = None if pool is None else {0: pool}
        sizes *= sum(
            1
            for chain in nested_sizes([extent], levels, restrict, space.aligned)
            if not cuts([name], chain)
        )
    return sizes, factorial(len(tiled)) ** (levels + 1)


def _strategy(
    strategy: Strategy, space: TilingSpace | None, candidates: int
) -> Literal["exhaustive", "constructive"]:
    """Resolve ``strategy`` for a space (None: the default) of ``candidates`` tilings."""
    default = space is None or space == TilingSpace()
    if strategy == "constructive" and not default:
        raise SpecError(
            "the constructive strategy builds the tiles of every level and loop: give no "
            "level, loop or alignment, or --strategy exhaustive",
            source="--strategy",
        )
    if strategy == "auto":
        return "constructive" if default and candidates > TILING_AUTO_LIMIT else "exhaustive"
    return strategy


def check_tile_levels(
    architecture: ArchitectureSpec,
    levels: Sequence[str],
    workload: WorkloadSpec | None = None,
    params: Mapping[str, int] | None = None,
) -> None:
    """Refuse, naming ``--tile``, a level of ``levels`` that is not inside the outermost memory
    level of ``architecture`` and, given the ``workload`` and its sizes ``params``, a loop
    too long to search its tile sizes (checked before a search whose best mappings are then
    tiled).

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_workload
    >>> check_tile_levels(load_architecture("simba"), ["l9"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --tile: simba has no memory level 'l9' to tile ...
    >>> check_tile_levels(load_architecture("simba"), ["glb"], load_workload("gemm"),
    ...                   {"M": 10**12})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --param: loop 'i' runs 1000000000000 iterations; ...
    """
    inner = [level.name for level in architecture.levels][1:]
    for name in levels:
        if name not in inner:
            raise SpecError(
                f"{architecture.name} has no memory level {name!r} to tile (levels inside the "
                f"outermost: {', '.join(inner) or 'none'})",
                source="--tile",
            )
    if workload is not None:
        bound = Workload.from_spec(
            workload, Specs(workload, architecture, None, dict(params or {})).bound
        )
        _refuse_long_loops(*box_extents(bound), None)


def _identity(items: Iterable[Any], total: int | None = None) -> Iterable[Any]:
    return items


def run_tiling(
    workload: str | WorkloadSpec,
    arch: str | ArchitectureSpec,
    dataflow: str | DataflowSpec,
    params: Mapping[str, int] | None = None,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    execution: ExecutionOptions | None = None,
    strategy: Strategy = "exhaustive",
    top_k: int = 10,
    report: Callable[[str], object] | None = None,
) -> TilingSearch:
    """Search the tilings in ``space`` of ``workload`` on ``arch`` with ``dataflow`` (files
    or zoo names) as :func:`tenet.dse.tiling.search.search_tiling` does, each choice of tile sizes
    evaluated on the engine of ``execution`` (:class:`ExecutionOptions`; None: in this
    process, nothing stored) and kept in its store (a SQLite file or :class:`ResultStore`),
    from which a new run resumes. Its time budget, batch and cache are not used.

    ``strategy`` ``constructive`` builds the tilings of every level and loop instead
    (:func:`tenet.dse.tiling.constructive.construct_tilings`, the ``top_k`` first evaluated
    exactly, in this process); ``auto`` does so when ``space`` is the default one and holds
    more than :data:`TILING_AUTO_LIMIT` candidates. ``report`` (if given) is called once
    with a line saying how many candidates the space holds and how they are searched.

    Examples
    --------
    >>> found = run_tiling("gemm", "simba", "gemm-os-systolic",
    ...                    {"M": 4, "N": 4, "K": 4}, TilingSpace(["glb"], dims=["k"]))
    >>> found.candidates  # the divisors 1, 2, 4 of K = 4, one loop order each
    3
    """
    specs = load_specs(workload, arch, dataflow, params)
    problem = Problem.from_specs(specs)
    given = space
    space = check_tiling(problem, space)
    sizes, orders = _counts(problem, space)
    how = _strategy(strategy, given, sizes * orders)
    if report is not None:
        report(
            f"{sizes} choices of tile sizes × {orders} loop orders = {sizes * orders} "
            "candidates: "
            + (
                "evaluated exhaustively"
                if how == "exhaustive"
                else f"built constructively, at most {top_k} evaluated exactly "
                "(--strategy exhaustive for all)"
            )
        )
    if how == "constructive":
        built = construct_tilings(problem, top_k=top_k, objective=objective)
        return TilingSearch(built[0], len(built), len(built), len(built))
    arguments = {
        "specs": specs.to_json(),
        "space": space.to_dict(),
        "objective": objective,
    }
    context = json.dumps(arguments, sort_keys=True)
    choices = size_choices(problem, space)
    search = _Search(problem, space, objective, context)
    results = _resume_and_run(search, choices, execution or ExecutionOptions(None))
    return combine(problem, results)


@dataclass(frozen=True)
class _Search:
    """One tiling search: its problem and space in this process, and the same as JSON text
    for the workers of an engine and the key of its run in a store."""

    problem: Problem
    space: TilingSpace
    objective: MemoryObjective
    context: str


def _resume_and_run(
    search: _Search,
    choices: list[tuple[tuple[int, ...], ...]],
    execution: ExecutionOptions,
) -> list[SizesResult]:
    store = execution.store
    own = store is not None and not isinstance(store, ResultStore)
    db = store if store is None or isinstance(store, ResultStore) else ResultStore(store)
    progress = execution.progress or _identity
    context = search.context
    arguments = {"search": "tiling", "context": context, "records": RECORD_FORMAT}
    run = run_key(arguments)
    names = {k: json.dumps(chosen) for k, chosen in enumerate(choices)}
    found: dict[int, SizesResult] = {}
    try:
        if isinstance(db, ResultStore):
            db.resume(run, arguments, names)
            found = {k: decode(text) for k, text in db.reasons(run).items()}
        todo = [k for k in range(len(choices)) if k not in found]
        for position, result in progress(
            _evaluate(search, choices, todo, execution),
            total=len(todo),
        ):
            found[position] = result
            if isinstance(db, ResultStore):
                status = "ok" if result.best is not None else "too-big"
                row = {
                    "idx": position,
                    "name": names[position],
                    "status": status,
                    "reason": encode(result),
                }
                db.add(run, [row])
    finally:
        if own and isinstance(db, ResultStore):
            db.close()
    return [found[k] for k in sorted(found)]


def _evaluate(
    search: _Search,
    choices: list[tuple[tuple[int, ...], ...]],
    todo: list[int],
    execution: ExecutionOptions,
) -> Iterator[tuple[int, SizesResult]]:
    engine = execution.engine
    if engine is None:
        problem, space, objective = search.problem, search.space, search.objective
        compute = occupancy(problem).latency_compute if todo else 0
        for k in todo:
            yield k, search_sizes(problem, compute, space, choices[k], objective, k)
        return
    jobs = ((search.context, k, [list(s) for s in choices[k]]) for k in todo)
    if isinstance(engine, Engine):
        for position, text in engine.run(evaluate_sizes, jobs):
            yield position, decode(text)
        return
    with make_engine(engine, execution.workers, execution.address) as running:
        for position, text in running.run(evaluate_sizes, jobs):
            yield position, decode(text)


def tile_mappings(
    workload: str | WorkloadSpec,
    arch: str,
    mappings: Sequence[Mapping[str, Any]],
    params: Mapping[str, int] | None,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    execution: ExecutionOptions | None = None,
) -> list[tuple[str, TilingSearch]]:
    """Search the tilings of ``levels`` for each array mapping of ``mappings`` (rows of a
    design space exploration: ``name``, ``space_stamp``, ``time_stamp``); return each
    mapping's name and its search; the other arguments are those of :func:`run_tiling`.

    A space of nested divisors (no ``sizes``, no ``aligned``) is searched by the branch and
    bound of :func:`tenet.dse.joint.run.joint_search` (the architecture's kept tensors, no
    constructive seeds): the same best value, with ``candidates`` the distinct tilings and
    ``fitting`` and ``evaluated`` the exact evaluations; other spaces tiling by tiling."""
    from tenet.dse.joint.run import joint_search

    if space is not None and space.levels is not None:
        check_tile_levels(load_architecture(arch), space.levels)
    found = []
    for row in mappings:
        dataflow = DataflowSpec(
            name=str(row["name"]),
            space_stamp=str(row["space_stamp"]),
            time_stamp=str(row["time_stamp"]),
        )
        if space is None or (space.sizes is None and space.aligned is None):
            certificate = joint_search(
                workload,
                arch,
                [dataflow],
                params,
                space,
                objective=objective,
                bypass=False,
                seed=False,
                execution=execution,
            )
            search = TilingSearch(
                certificate.best,
                certificate.space,
                certificate.evaluated,
                certificate.evaluated,
                certificate.bound,
            )
        else:
            search = run_tiling(
                workload, arch, dataflow, params, space, objective=objective, execution=execution
            )
        found.append((dataflow.name, search))
    return found
