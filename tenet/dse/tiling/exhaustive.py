"""The exhaustive tiling search: every tiling of the space (:mod:`tenet.dse.tiling.sizes`) under
the capacities, each counted exactly (:func:`tenet.metrics.assessment.assess_problem`, one
:class:`~tenet.metrics.assessment.Evaluated` record each), for the least memory latency (or
energy, or their product).

Each choice of tile sizes (with all its loop orders) is one part of the run
(:mod:`tenet.dse.run.runner`): tile sizes whose tiles do not fit are checked once, before any
order; the orders are counted in a worker on the specs as JSON text, and the part's best comes
back as JSON, stored as it arrives, so that a search started again with the same arguments and
store counts only what is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from tenet.dse.ranking.certificate import Certificate
from tenet.dse.run.runner import Interrupted, Runner, run_parts
from tenet.dse.tiling.sizes import TilingSpace, size_choices, sized_tilings
from tenet.errors import CapacityError, TimeBudgetError
from tenet.mapping import tiling_key
from tenet.metrics.assessment import RECORD_FORMAT, Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import fraction_text
from tenet.model.problem import Problem
from tenet.spec import Specs
from tenet.vocab import MemoryObjective

__all__ = [
    "SizesResult",
    "search_sizes",
    "combine",
    "search_tiling",
    "encode_sizes",
    "decode_sizes",
    "evaluate_sizes",
    "exhaustive_tiling",
]


@dataclass(frozen=True)
class SizesResult:
    """The best tiling of one choice of tile sizes, over its loop orders."""

    best: Evaluated | None
    """None when the tiles do not fit."""
    rank: tuple[Fraction, int, int] | None
    """Objective value, DRAM traffic, and index of the best among all candidates."""
    candidates: int
    fitting: int
    evaluated: int
    needs: dict[str, int]
    """Elements each level needs for these tile sizes."""


def search_sizes(
    problem: Problem,
    compute: int,
    space: TilingSpace,
    chosen: Sequence[Sequence[int]],
    objective: MemoryObjective,
    position: int = 0,
) -> SizesResult:
    """Return the best loop orders for the tile sizes ``chosen`` (one tuple per level of the
    checked ``space``, see :meth:`TilingSpace.checked`); ``compute`` is the compute latency in
    cycles, ``position`` the index of ``chosen`` in :func:`size_choices` (ties go to the first
    enumerated candidate)."""
    tilings_ = list(sized_tilings(problem, space, chosen))
    first = position * len(tilings_)
    found = assess_problem(problem, tilings_[0], figures=["needs"]).needs
    if not found.fits:
        return SizesResult(None, None, len(tilings_), 0, 0, dict(found.needs))
    done: dict[tuple[tuple[int, ...], ...], Evaluated] = {}
    best: tuple[tuple[Fraction, int, int], Evaluated] | None = None
    for index, tiling in enumerate(tilings_, start=first):
        key = tiling_key(tiling)
        if key not in done:
            done[key] = Evaluated.of(problem, tiling, objective, compute)
        result = done[key]
        # ties go to the first enumerated: the tiling ``result`` was counted for
        rank = (result.value, result.memory.traffic_dram, index)
        if best is None or rank < best[0]:
            best = (rank, result)
    assert best is not None
    needs = dict(found.needs)
    return SizesResult(best[1], best[0], len(tilings_), len(tilings_), len(done), needs)


def combine(
    problem: Problem,
    objective: MemoryObjective,
    results: Iterable[SizesResult],
    complete: bool = True,
) -> Certificate:
    """Return the best of the per-sizes ``results`` and the counts of the whole search, its
    bound the best value when the search is ``complete`` (none otherwise).

    Raises
    ------
    CapacityError
        No tiling fits; the message names the level and its smallest need.
    """
    smallest: dict[str, int] = {}
    best: SizesResult | None = None
    candidates = fitting = evaluated = 0
    for result in results:
        candidates += result.candidates
        fitting += result.fitting
        evaluated += result.evaluated
        for level, need in result.needs.items():
            smallest[level] = min(smallest.get(level, need), need)
        if result.rank is not None and (best is None or result.rank < _rank(best)):
            best = result
    if best is None or best.best is None:
        raise CapacityError(_nothing_fits(problem, smallest))
    return Certificate(
        best.best,
        objective,
        best.best.value if complete else None,
        candidates,
        evaluated,
        complete=complete,
        fitting=fitting,
        too_big=candidates - fitting,
    )


def _rank(result: SizesResult) -> tuple[Fraction, int, int]:
    assert result.rank is not None
    return result.rank


def _nothing_fits(problem: Problem, smallest: Mapping[str, int]) -> str:
    for level in problem.architecture.levels[1:]:
        need = smallest.get(level.name)
        if need is not None and level.capacity is not None and need > level.capacity:
            return (
                f"no tiling fits: the smallest tile of {level.name} needs {need} elements, "
                f"{level.name} holds {level.capacity}"
            )
    return "no tiling fits"  # pragma: no cover


def search_tiling(
    problem: Problem,
    space: TilingSpace | None = None,
    *,
    objective: MemoryObjective = "latency",
) -> Certificate:
    """Return the tiling of ``problem`` in ``space`` (see :class:`TilingSpace`) that fits
    every level and minimises ``objective`` (ties: less DRAM traffic, then the first
    enumerated), searched in this process.

    Raises
    ------
    CapacityError
        No tiling fits; the message names the level and its smallest need.
    SpecError
        A level or loop that is not the problem's.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "simba", "gemm-os-systolic", {"M": 4, "N": 4, "K": 4})
    >>> found = search_tiling(p, TilingSpace(["glb"], dims=["k"]))
    >>> found.space  # the divisors 1, 2, 4 of K = 4, one loop order each
    3
    """
    space = (space or TilingSpace()).checked(problem)
    compute = occupancy(problem).latency_compute
    results = (
        search_sizes(problem, compute, space, chosen, objective, position)
        for position, chosen in enumerate(size_choices(problem, space))
    )
    return combine(problem, objective, results)


def encode_sizes(result: SizesResult) -> str:
    """Return ``result`` as JSON text (fractions as ``p/q``), read back by
    :func:`decode_sizes`."""
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


def decode_sizes(text: str) -> SizesResult:
    """Return the :class:`SizesResult` written by :func:`encode_sizes`."""
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
        problem, compute, TilingSpace.from_dict(c["space"]), chosen, c["objective"], position
    )
    return position, encode_sizes(found)


def exhaustive_tiling(
    problem: Problem,
    specs: Specs,
    space: TilingSpace,
    objective: MemoryObjective,
    runner: Runner,
) -> Certificate:
    """Search every tiling of the checked ``space`` of ``problem`` (built from ``specs``) on
    the ``runner``: each choice of tile sizes a part, stored as it finishes; a time budget
    stops the search where it is (the certificate then proves no bound).

    Raises
    ------
    CapacityError
        No tiling fits.
    TimeBudgetError
        The time budget ran out before a tiling that fits was counted.
    Interrupted
        Ctrl-C, with the certificate of the choices counted so far (when one fits).
    """
    arguments = {"specs": specs.to_json(), "space": space.to_dict(), "objective": objective}
    context = json.dumps(arguments, sort_keys=True)
    choices = size_choices(problem, space)
    names = {k: json.dumps(chosen) for k, chosen in enumerate(choices)}
    stored = runner.open({"search": "tiling", "context": context, "records": RECORD_FORMAT}, names)
    found = stored.results(decode_sizes)
    todo = [k for k in range(len(choices)) if k not in found]
    jobs = ((context, k, [list(s) for s in choices[k]]) for k in todo)
    try:
        for position, result in run_parts(
            runner,
            stored,
            evaluate_sizes,
            jobs,
            decode_sizes,
            lambda r: "ok" if r.best is not None else "too-big",
            total=len(todo),
            desc="tile sizes",
        ):
            found[position] = result
    except KeyboardInterrupt:
        partial = _partial(problem, objective, found)
        if partial is None:
            raise
        raise Interrupted(partial) from None
    complete = len(found) == len(choices)
    if not complete and not any(r.best is not None for r in found.values()):
        raise TimeBudgetError("the time budget ran out before a tiling that fits was counted")
    return combine(problem, objective, (found[k] for k in sorted(found)), complete)


def _partial(
    problem: Problem, objective: MemoryObjective, found: Mapping[int, SizesResult]
) -> Certificate | None:
    """The certificate of the choices counted before an interruption (None: none fits)."""
    if not any(r.best is not None for r in found.values()):
        return None
    return combine(problem, objective, (found[k] for k in sorted(found)), complete=False)
