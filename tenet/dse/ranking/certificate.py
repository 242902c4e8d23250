"""The answer of every tiling search: the best mapping it found, a lower bound of the objective
over the space it declares, the gap between them, and what it looked at; and the incumbent, the
best so far while it runs.

The exhaustive search counts every candidate (its bound is its best once it has counted them
all), the constructive one builds a few and proves nothing (no bound), the joint search's
branch and bound proves its bound from the bounds of the nodes it pruned
(:mod:`tenet.dse.joint.tree`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tenet.metrics.assessment import Evaluated
from tenet.metrics.row import bound_field
from tenet.vocab import ENERGY_UNIT_LABELS, MemoryObjective

__all__ = ["Certificate", "Incumbent", "status_line", "unit_of"]


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True)
class Certificate:
    """What a search found and proved: the best tiling, a lower bound of the objective over
    the declared space, and how much of the space it looked at.

    Examples
    --------
    >>> from tenet.dse.tiling.exhaustive import search_tiling
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic",
    ...                  {"M": 4, "N": 4, "K": 4})
    >>> found = search_tiling(p)
    >>> found.complete, found.gap, found.space >= found.fitting >= found.evaluated
    (True, Fraction(0, 1), True)
    >>> found.status() == f"best {found.best.value} cycles, bound {found.bound}, gap 0 (0.0%)"
    True
    """

    best: Evaluated
    """The best tiling (a loop nest with its kept tensors), its figures and value."""
    objective: MemoryObjective
    bound: Fraction | None
    """No mapping of the declared space has a smaller objective (None: nothing proved, the
    tilings were built, or a time budget stopped an exhaustive count)."""
    space: int
    """Leaves of the declared space (tilings, times kept tensors and array mappings for the
    joint search)."""
    evaluated: int
    """Leaves counted exactly."""
    strategy: str = "exhaustive"
    """The strategy that searched (:mod:`tenet.dse.strategies`)."""
    complete: bool = True
    """The whole declared space was searched: the best is its optimum (a built search: every
    tiling built was counted)."""
    fitting: int | None = None
    """Of the leaves, those whose tiles fit every level (None: not counted, a branch and bound
    leaves them below pruned nodes)."""
    too_big: int = 0
    """Nodes and leaves left out because a level's tiles do not fit."""
    pruned: int = 0
    """Nodes (subtrees included) pruned by their bound."""
    cpu_to_best: float = 0.0
    """CPU seconds of this process from the start of the search to the best's arrival (the
    workers' own time not included)."""
    improvements: tuple[tuple[float, Fraction], ...] = ()
    """Each better value as it arrived: (CPU seconds as :attr:`cpu_to_best`, value)."""
    ties_open: int = 0
    """Nodes that could hold a mapping of the best value with less of the other objective
    (the energy by latency, else the latency), left unsearched once the search's budget of
    ties was spent (0, the search complete: the best has the least other objective of the
    mappings of its value)."""

    @property
    def energy_unit(self) -> str:
        """The architecture's energy unit."""
        return self.best.assessment.energy_unit

    def cpu_to_reach(self, value: float | Fraction) -> float | None:
        """CPU seconds (as :attr:`cpu_to_best`) until the best so far was at most ``value``
        (None: never)."""
        return next((at for at, found in self.improvements if found <= value), None)

    @property
    def gap(self) -> Fraction:
        """Best value minus the bound (0: the best is optimal in the declared space; the
        best's value when nothing is proved)."""
        floor = Fraction(0) if self.bound is None else self.bound
        return max(Fraction(0), self.best.value - floor)

    @property
    def relative_gap(self) -> Fraction:
        """The gap as a fraction of the best value."""
        return self.gap / self.best.value if self.best.value else Fraction(0)

    def row(self) -> dict[str, Any]:
        """Return the JSON row of the best: its :meth:`~tenet.metrics.assessment.Assessment.row`
        (the memory-aware figures and the full dataflow: stamps, tiles, places, kept tensors),
        the bound, then the certificate."""
        bound = {} if self.bound is None else bound_field(self.objective, self.bound)
        return {
            **self.best.assessment.row(),
            **bound,
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

    def status(self) -> str:
        """One line: the best value, the bound and the gap, with the objective's unit
        (:func:`status_line`)."""
        return status_line(self.objective, self.best.value, self.bound, self.energy_unit)


def status_line(
    objective: MemoryObjective, best: Fraction, bound: Fraction | None, energy_unit: str
) -> str:
    """``best V unit, bound B, gap G (P%)`` of a search by ``objective`` (no bound: the best
    alone).

    Examples
    --------
    >>> status_line("latency", Fraction(1200), Fraction(1000), "pJ")
    'best 1,200 cycles, bound 1,000, gap 200 (16.7%)'
    >>> status_line("energy", Fraction(5, 2), None, "pJ")
    'best 2.5 pJ'
    """
    line = f"best {_figure(best)} {unit_of(objective, energy_unit)}"
    if bound is None:
        return line
    gap = max(Fraction(0), best - bound)
    share = float(gap / best) if best else 0.0
    return f"{line}, bound {_figure(bound)}, gap {_figure(gap)} ({share:.1%})"


def _figure(value: Fraction) -> str:
    """``value`` with thousands separators (an integer, or rounded to 4 significant digits)."""
    if value.denominator == 1:
        return f"{int(value):,}"
    return f"{float(value):,.4g}"


class Incumbent:
    """The best record of a search so far by ``objective`` (:meth:`Evaluated.rank`), when it
    came (``clock()``: CPU seconds from the start) and each better value as it came.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.dse.tiling.exhaustive import search_tiling
    >>> sizes = {"M": 4, "N": 4, "K": 4}
    >>> best = search_tiling(load_problem("gemm", "simba", "gemm-os-systolic", sizes)).best
    >>> incumbent = Incumbent("latency", clock=lambda: 1.5)
    >>> incumbent.offer(best), incumbent.improvements == [(1.5, best.value)]
    (True, True)
    >>> incumbent.offer(best)  # not better than itself
    False
    """

    def __init__(
        self, objective: MemoryObjective, clock: Callable[[], float] | None = None
    ) -> None:
        self.objective = objective
        start = time.process_time()
        self.clock = clock or (lambda: time.process_time() - start)
        self.best: Evaluated | None = None
        self.found_at = 0.0
        self.improvements: list[tuple[float, Fraction]] = []

    @property
    def value(self) -> Fraction | None:
        """The best value so far (None: nothing counted yet)."""
        return None if self.best is None else self.best.value

    @property
    def key(self) -> tuple[Fraction, Fraction] | None:
        """The best value so far, then its other objective's (the energy by latency, else
        the latency), as a branch and bound compares them (None: nothing counted yet)."""
        if self.best is None:
            return None
        value, other, _ = self.best.rank(self.objective)
        return value, other

    def offer(self, point: Evaluated) -> bool:
        """Keep ``point`` if it ranks before the best so far; return whether its value is
        better (an improvement worth telling)."""
        if self.best is not None and point.rank(self.objective) >= self.best.rank(self.objective):
            return False
        better = self.best is None or point.value < self.best.value
        self.best, self.found_at = point, self.clock()
        if better:
            self.improvements.append((self.found_at, point.value))
        return better


def unit_of(objective: MemoryObjective, energy_unit: str) -> str:
    """The unit of a value of ``objective`` in text (cycles, the energy's unit, or their
    product).

    Examples
    --------
    >>> unit_of("edp", "pJ")
    'pJ x cycles'
    """
    energy = ENERGY_UNIT_LABELS.get(energy_unit, energy_unit)
    return {"latency": "cycles", "energy": energy}.get(objective, f"{energy} x cycles")
