"""The strategies of the searches, in one registry: how the design-space search chooses the array
mappings it counts (``--strategy`` of ``tenet dse`` and ``tenet sweep``, :func:`tenet.dse.sweep`)
and how the tiling search finds the tiles of an array mapping (``--strategy`` of ``tenet tile``,
:func:`run_tiling`; ``tenet dse --tile`` picks one by its space, :func:`tile_mappings`).

A strategy is a :class:`Strategy`: its name, the searches it serves, and what it does in each.
The command line offers the names of :data:`tenet.vocab.SpaceStrategy` and
:data:`tenet.vocab.TilingStrategy`, which a test checks against :data:`STRATEGIES`. Every
tiling strategy answers with a :class:`~tenet.dse.ranking.certificate.Certificate` and runs on
the kernel of :mod:`tenet.dse.run.runner` (its engine, store, time budget and progress).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from tenet.api import load_specs
from tenet.dse.constraints import MappingConstraints
from tenet.dse.joint.tree import joint_search
from tenet.dse.ranking.certificate import Certificate
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.runner import Runner
from tenet.dse.space.design import Candidate, DesignSpace
from tenet.dse.tiling.constructive import construct_tilings, rank_mappings
from tenet.dse.tiling.exhaustive import exhaustive_tiling
from tenet.dse.tiling.sizes import TilingSpace, check_tile_levels, check_tiling, count_tilings
from tenet.errors import SpecError
from tenet.model.problem import Problem
from tenet.spec import (
    ArchitectureSpec,
    ConstraintsSpec,
    DataflowSpec,
    Specs,
    WorkloadSpec,
    load_architecture,
    load_constraints,
)
from tenet.vocab import MemoryObjective

__all__ = [
    "Search",
    "TilingRequest",
    "Strategy",
    "STRATEGIES",
    "AUTO_LIMIT",
    "TILING_AUTO_LIMIT",
    "find_strategy",
    "strategy_names",
    "resolve",
    "run_tiling",
    "tile_mappings",
]

Search = Literal["mappings", "tilings"]
"""The searches a strategy may serve: the array mappings of a design space, or the tilings of
an array mapping."""

AUTO_LIMIT = 500
"""Above this many design points, ``auto`` builds the array mappings instead of counting
every one."""

TILING_AUTO_LIMIT = 500
"""With strategy ``auto``, the most candidates (tile sizes times loop orders) of the default
space searched exhaustively; a larger one is built constructively."""


@dataclass(frozen=True)
class TilingRequest:
    """What a tiling search is asked: the ``specs`` of one problem (with its array mapping),
    the tiling ``space`` (None: every level and loop, nested divisors), the ``objective``,
    and the options of the strategies that take them: ``top_k`` tilings built and counted
    (constructive), ``bypass`` and ``places`` (joint: the tensors the middle levels keep,
    where the copies sit), ``seed`` (joint: start from constructive tilings), ``report`` (a
    callable told one line of how the space is searched) and ``constraints`` (what the
    mappings searched must satisfy)."""

    specs: Specs
    space: TilingSpace | None = None
    objective: MemoryObjective = "latency"
    top_k: int = 10
    bypass: bool = True
    places: bool = False
    seed: bool = True
    report: Callable[[str], object] | None = None
    constraints: ConstraintsSpec | None = None

    def constrained(self, problem: Problem) -> TilingSpace | None:
        """The space of the request with its constraints checked against ``problem``.

        Raises
        ------
        SpecError
            Constraints that name what the problem has not, or whose spread the array
            mapping of ``problem`` does not have.
        """
        if self.constraints is None:
            return self.space
        space = self.space or TilingSpace()
        levels = problem.architecture.levels
        limits = MappingConstraints.of(self.constraints, problem.workload, levels, space.aligned)
        refused = limits.spread_error(problem)
        if refused is not None:
            raise refused
        return replace(space, constraints=limits)


class Strategy(Protocol):
    """A way of searching, looked up by its name in :data:`STRATEGIES`."""

    @property
    def name(self) -> str:
        """The name the command line and the functions take."""
        ...

    @property
    def searches(self) -> frozenset[Search]:
        """The searches it serves."""
        ...

    def choose(
        self, space: DesignSpace, candidates: Sequence[Candidate], top_k: int
    ) -> tuple[str, list[Candidate]]:
        """The design points of ``space`` to count (of ``candidates``, every one kept), with
        the name the results store records."""
        ...

    def tile(self, request: TilingRequest, execution: ExecutionOptions) -> Certificate:
        """Search the tilings of ``request`` on the kernel of ``execution``."""
        ...


def _plan(problem: Problem, space: TilingSpace, request: TilingRequest, built: bool) -> None:
    """Tell ``request.report`` how many candidates the checked ``space`` holds and how they
    are searched."""
    if request.report is None:
        return
    sizes, orders = count_tilings(problem, space)
    how = (
        f"built constructively, at most {request.top_k} evaluated exactly "
        "(--strategy exhaustive for all)"
        if built
        else "evaluated exhaustively"
    )
    request.report(
        f"{sizes} choices of tile sizes × {orders} loop orders = {sizes * orders} candidates: {how}"
    )


@dataclass(frozen=True)
class _Exhaustive:
    """Every design point counted; every tiling of the space counted."""

    name: str = "exhaustive"
    searches: frozenset[Search] = frozenset({"mappings", "tilings"})

    def choose(
        self, space: DesignSpace, candidates: Sequence[Candidate], top_k: int
    ) -> tuple[str, list[Candidate]]:
        return self.name, list(candidates)

    def tile(self, request: TilingRequest, execution: ExecutionOptions) -> Certificate:
        problem = Problem.from_specs(request.specs)
        space = check_tiling(problem, request.constrained(problem))
        _plan(problem, space, request, built=False)
        with Runner(execution) as runner:
            return exhaustive_tiling(problem, request.specs, space, request.objective, runner)


@dataclass(frozen=True)
class _Constructive:
    """The ``top_k`` design points the micro model ranks best; the ``top_k`` first tilings
    built from the workload's reuse (:mod:`tenet.dse.tiling.constructive`), counted."""

    name: str = "constructive"
    searches: frozenset[Search] = frozenset({"mappings", "tilings"})

    def choose(
        self, space: DesignSpace, candidates: Sequence[Candidate], top_k: int
    ) -> tuple[str, list[Candidate]]:
        return f"{self.name}:{top_k}", rank_mappings(space, candidates, top_k, links=True)

    def tile(self, request: TilingRequest, execution: ExecutionOptions) -> Certificate:
        if request.space not in (None, TilingSpace()):
            raise SpecError(
                "the constructive strategy builds the tiles of every level and loop: give no "
                "level, loop or alignment, or --strategy exhaustive",
                source="--strategy",
            )
        problem = Problem.from_specs(request.specs)
        space = check_tiling(problem, request.constrained(problem))
        _plan(problem, space, request, built=True)
        with Runner(execution) as runner:
            built = construct_tilings(
                problem,
                top_k=request.top_k,
                objective=request.objective,
                runner=runner,
                constraints=space.constraints,
            )
        n = len(built)
        return Certificate(
            built[0], request.objective, None, n, n, self.name, complete=True, fitting=n
        )


@dataclass(frozen=True)
class _Joint:
    """The branch and bound over the tiling and the tensors each level keeps, with a proven
    bound and its gap (:mod:`tenet.dse.joint`)."""

    name: str = "joint"
    searches: frozenset[Search] = frozenset({"tilings"})

    def choose(
        self, space: DesignSpace, candidates: Sequence[Candidate], top_k: int
    ) -> tuple[str, list[Candidate]]:
        raise SpecError("the joint strategy searches tilings, not array mappings")

    def tile(self, request: TilingRequest, execution: ExecutionOptions) -> Certificate:
        s = request.specs
        # the space a tiling search takes, checked before the branch and bound starts
        problem = Problem.from_specs(s)
        check_tiling(problem, request.constrained(problem))
        return joint_search(
            s.workload,
            s.architecture,
            [s.require_dataflow()],
            s.params,
            request.space or TilingSpace(),
            objective=request.objective,
            bypass=request.bypass,
            seed=request.seed,
            places=request.places,
            execution=execution,
            constraints=request.constraints,
        )


@dataclass(frozen=True)
class _Auto:
    """Exhaustive up to a size, constructive above it (:data:`AUTO_LIMIT` design points;
    :data:`TILING_AUTO_LIMIT` candidates of the default tiling space)."""

    name: str = "auto"
    searches: frozenset[Search] = frozenset({"mappings", "tilings"})

    def choose(
        self, space: DesignSpace, candidates: Sequence[Candidate], top_k: int
    ) -> tuple[str, list[Candidate]]:
        chosen = resolve(self.name, "mappings", len(candidates))
        return chosen.choose(space, candidates, top_k)

    def tile(self, request: TilingRequest, execution: ExecutionOptions) -> Certificate:
        default = request.space in (None, TilingSpace())
        size = 0
        if default:
            problem = Problem.from_specs(request.specs)
            space = check_tiling(problem, request.constrained(problem))
            sizes, orders = count_tilings(problem, space)
            size = sizes * orders
        return resolve(self.name, "tilings", size, default).tile(request, execution)


STRATEGIES: dict[str, Strategy] = {
    s.name: s for s in (_Auto(), _Exhaustive(), _Constructive(), _Joint())
}
"""Every strategy by name, in the order the command line lists them."""


def strategy_names(search: Search) -> tuple[str, ...]:
    """The names of the strategies of ``search``.

    Examples
    --------
    >>> strategy_names("mappings"), strategy_names("tilings")[-1]
    (('auto', 'exhaustive', 'constructive'), 'joint')
    """
    return tuple(name for name, s in STRATEGIES.items() if search in s.searches)


def find_strategy(name: str, search: Search) -> Strategy:
    """Return the strategy ``name`` of ``search``.

    Raises
    ------
    SpecError
        No strategy of that name serves ``search``.

    Examples
    --------
    >>> find_strategy("joint", "mappings")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --strategy: no strategy 'joint' for the array mappings (known: ...)
    """
    found = STRATEGIES.get(name)
    if found is None or search not in found.searches:
        what = "array mappings" if search == "mappings" else "tilings"
        known = ", ".join(strategy_names(search))
        raise SpecError(
            f"no strategy {name!r} for the {what} (known: {known})", source="--strategy"
        )
    return found


def resolve(name: str, search: Search, size: int, default: bool = True) -> Strategy:
    """Return the strategy ``name`` of ``search``, ``auto`` resolved for a space of ``size``
    design points or candidate tilings (``default``: the tiling space is the default one,
    the only one built constructively).

    Examples
    --------
    >>> resolve("auto", "mappings", 500).name, resolve("auto", "mappings", 501).name
    ('exhaustive', 'constructive')
    >>> resolve("auto", "tilings", 10**6, default=False).name
    'exhaustive'
    """
    if name != "auto":
        return find_strategy(name, search)
    limit = AUTO_LIMIT if search == "mappings" else TILING_AUTO_LIMIT
    built = size > limit and (search == "mappings" or default)
    return STRATEGIES["constructive" if built else "exhaustive"]


def run_tiling(
    workload: str | WorkloadSpec,
    arch: str | ArchitectureSpec,
    dataflow: str | DataflowSpec,
    params: Mapping[str, int] | None = None,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    execution: ExecutionOptions | None = None,
    strategy: str = "exhaustive",
    top_k: int = 10,
    bypass: bool = True,
    places: bool = False,
    seed: bool = True,
    report: Callable[[str], object] | None = None,
    constraints: str | ConstraintsSpec | None = None,
) -> Certificate:
    """Search the tilings in ``space`` of ``workload`` on ``arch`` with ``dataflow`` (files
    or zoo names) for the least ``objective`` with the tiling strategy ``strategy`` of
    :data:`STRATEGIES` (``auto``: constructive when ``space`` is the default one and holds
    more than :data:`TILING_AUTO_LIMIT` candidates, else exhaustive), on the kernel of
    ``execution`` (:class:`ExecutionOptions`; None: in this process, nothing stored): each
    part of the search counted on its engine, kept in its store (from which a new run
    resumes), within its time budget. ``constraints`` (a file or spec) narrow the space; the
    other options are those of :class:`TilingRequest`.

    Examples
    --------
    >>> found = run_tiling("gemm", "simba", "gemm-os-systolic",
    ...                    {"M": 4, "N": 4, "K": 4}, TilingSpace(["glb"], dims=["k"]))
    >>> found.space, found.strategy  # the divisors 1, 2, 4 of K = 4, one loop order each
    (3, 'exhaustive')
    """
    specs = load_specs(workload, arch, dataflow, params)
    limits = None if constraints is None else load_constraints(constraints)
    request = TilingRequest(specs, space, objective, top_k, bypass, places, seed, report, limits)
    return find_strategy(strategy, "tilings").tile(request, execution or ExecutionOptions(None))


def tile_mappings(
    workload: str | WorkloadSpec,
    arch: str,
    mappings: Sequence[Mapping[str, Any]],
    params: Mapping[str, int] | None,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
    execution: ExecutionOptions | None = None,
    constraints: str | ConstraintsSpec | None = None,
) -> list[tuple[str, Certificate]]:
    """Search the tilings of ``space`` for each array mapping of ``mappings`` (rows of a
    design space exploration: ``name``, ``space_stamp``, ``time_stamp``); return each
    mapping's name and its certificate; the other arguments are those of :func:`run_tiling`.

    A space of nested divisors (no ``sizes``, no ``aligned``) is searched by the ``joint``
    strategy (the architecture's kept tensors, no constructive seeds): the same best value
    with a proven bound, found sooner; other spaces by the ``exhaustive`` one."""
    if space is not None and space.levels is not None:
        check_tile_levels(load_architecture(arch), space.levels)
    divisors = space is None or (space.sizes is None and space.aligned is None)
    strategy = find_strategy("joint" if divisors else "exhaustive", "tilings")
    limits = None if constraints is None else load_constraints(constraints)
    found = []
    for row in mappings:
        dataflow = DataflowSpec(
            name=str(row["name"]),
            space_stamp=str(row["space_stamp"]),
            time_stamp=str(row["time_stamp"]),
        )
        specs = load_specs(workload, arch, dataflow, params)
        request = TilingRequest(
            specs, space, objective, bypass=False, seed=False, constraints=limits
        )
        found.append((dataflow.name, strategy.tile(request, execution or ExecutionOptions(None))))
    return found
