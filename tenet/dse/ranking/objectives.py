"""Objectives, constraints, ranking and Pareto fronts over tables of evaluated design points.

An objective names a column of the results table and whether less or more is better.
Constraints (``sbw <= bandwidth``, ``utilisation >= 0.5``) compare a column with a number or
with another column. Rankings and fronts use the rows whose status is ``ok`` and break ties by
the design point's index, so they are deterministic.
"""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenet.errors import SpecError
from tenet.vocab import column

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Objective",
    "OBJECTIVES",
    "objective",
    "Constraint",
    "parse_constraint",
    "feasible",
    "constrained",
    "by_source",
    "rank",
    "pareto_front",
]


@dataclass(frozen=True)
class Objective:
    """A figure to optimise: its ``column`` in the results table and its ``sense``."""

    name: str
    column: str
    sense: str
    description: str

    @property
    def ascending(self) -> bool:
        """Whether smaller values are better."""
        return self.sense == "min"


OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        Objective("latency", column("latency"), "min", "latency, cycles"),
        Objective("energy", column("energy"), "min", "energy, in the architecture's energy unit"),
        Objective("edp", column("edp"), "min", "energy-delay product"),
        Objective(
            "sbw", column("bandwidth_scratchpad"), "min", "scratchpad bandwidth, elements/cycle"
        ),
        Objective("ibw", column("bandwidth_pe"), "min", "PE-to-PE bandwidth, elements/cycle"),
        Objective("utilisation", column("utilisation"), "max", "PE utilisation, ratio"),
    )
}
"""The objectives by name."""

ALIASES = {
    **{name: o.column for name, o in OBJECTIVES.items()},
    "bandwidth": "bandwidth_elements_per_cycle",
}
"""Short names usable in constraints, with the column each stands for."""


def objective(name: str) -> Objective:
    """Return the objective ``name``.

    Examples
    --------
    >>> objective("edp").column
    'edp'
    """
    if name not in OBJECTIVES:
        close = difflib.get_close_matches(name, list(OBJECTIVES), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SpecError(f"unknown objective {name!r} (known: {', '.join(OBJECTIVES)}){hint}")
    return OBJECTIVES[name]


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "==": operator.eq,
}


@dataclass(frozen=True)
class Constraint:
    """``column op bound``: ``bound`` is a number or the name of another column."""

    column: str
    op: str
    bound: float | str

    def mask(self, table: pd.DataFrame) -> pd.Series:
        """Return which rows of ``table`` satisfy the constraint."""
        for name in (self.column, self.bound):
            if isinstance(name, str) and name not in table.columns:
                raise SpecError(f"constraint names {name!r}, which the table does not have")
        right = table[self.bound] if isinstance(self.bound, str) else self.bound
        result: pd.Series = _OPERATORS[self.op](table[self.column], right)
        return result.fillna(False).astype(bool)


def parse_constraint(text: str) -> Constraint:
    """Parse ``NAME OP VALUE`` where NAME and VALUE are columns, short names (latency,
    energy, edp, sbw, ibw, utilisation, bandwidth: the scratchpad's elements/cycle) or numbers.

    Examples
    --------
    >>> c = parse_constraint("sbw <= bandwidth")
    >>> c.column, c.op, c.bound
    ('bandwidth_scratchpad_elements_per_cycle', '<=', 'bandwidth_elements_per_cycle')
    >>> parse_constraint("utilisation>=0.5").bound
    0.5
    """
    match = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(<=|>=|==|<|>)\s*(\S+)\s*", text)
    if not match:
        raise SpecError(f"constraint {text!r} is not 'NAME OP VALUE' (OP one of <= >= < > ==)")
    name, op, value = match.groups()
    try:
        bound: float | str = float(value)
    except ValueError:
        bound = ALIASES.get(value, value)
    return Constraint(ALIASES.get(name, name), op, bound)


def feasible(table: pd.DataFrame, constraints: Sequence[Constraint] = ()) -> pd.DataFrame:
    """Return the evaluated rows (status ``ok``) of ``table`` that meet every constraint."""
    keep = table["status"] == "ok"
    for constraint in constraints:
        keep &= constraint.mask(table)
    return table[keep]


def constrained(table: pd.DataFrame, constraints: Sequence[Constraint] = ()) -> pd.DataFrame:
    """Return the rows of ``table`` that meet every constraint, whatever their status."""
    import pandas as pd

    keep = pd.Series(True, index=table.index)
    for c in constraints:
        keep &= c.mask(table)
    return table[keep]


def by_source(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Return the rows of ``tables`` one after the other, each with its key in a column
    ``source`` (where the design points come from)."""
    import pandas as pd

    return pd.concat([table.assign(source=name) for name, table in tables.items()])


def _tie_breaker(table: pd.DataFrame) -> list[str]:
    return [c for c in ("workload", "architecture", "index") if c in table.columns]


def rank(
    table: pd.DataFrame,
    by: str = "latency",
    top: int | None = None,
    constraints: Sequence[Constraint] = (),
) -> pd.DataFrame:
    """Return the feasible rows of ``table``, best first by objective ``by`` (ties: index).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"index": [0, 1, 2], "status": ["ok", "ok", "error"],
    ...                   "latency_cycles": [5, 3, None]})
    >>> rank(t)["index"].tolist()
    [1, 0]
    """
    goal = objective(by)
    rows = feasible(table, constraints)
    keys = [goal.column, *_tie_breaker(rows)]
    ranked = rows.sort_values(keys, ascending=[goal.ascending] + [True] * (len(keys) - 1))
    return ranked if top is None else ranked.head(top)


def pareto_front(
    table: pd.DataFrame,
    x: str = "latency",
    y: str = "energy",
    constraints: Sequence[Constraint] = (),
) -> pd.DataFrame:
    """Return the feasible rows of ``table`` that no other row beats on both objectives
    ``x`` and ``y`` (one row per distinct pair of values, the first by index), ordered by x.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"index": [0, 1, 2, 3], "status": ["ok"] * 4,
    ...                   "latency_cycles": [1, 2, 3, 3], "energy": [9.0, 4.0, 5.0, 1.0]})
    >>> pareto_front(t)["index"].tolist()
    [0, 1, 3]
    """
    first, second = objective(x), objective(y)
    rows = rank(table, x, constraints=constraints)
    sign = 1 if second.ascending else -1
    kept = []
    best: float | None = None
    previous = None
    for position, row in enumerate(rows.itertuples(index=False)):
        value_x = getattr(row, first.column)
        value_y = sign * getattr(row, second.column)
        if best is None or value_y < best:
            if previous is not None and previous[0] == value_x:
                kept.pop()
            kept.append(position)
            best = value_y
            previous = (value_x, value_y)
    return rows.iloc[kept]
