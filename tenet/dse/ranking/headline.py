"""The best design point overall against the best that data-centric directives can write (a
rectangular mapping, ``data_centric`` column), and the reduction of the array's latency (what
the search ranks by) between them."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd

from tenet.dse.ranking.objectives import rank
from tenet.vocab import column

__all__ = ["DataCentricComparison", "compare_data_centric"]


@dataclass(frozen=True)
class DataCentricComparison:
    """Best overall and best data-centric design point of one exploration (rows as dicts)."""

    best: dict[str, Any]
    data_centric: dict[str, Any] | None

    @property
    def reduction(self) -> Fraction | None:
        """``1 - latency(best) / latency(best data-centric)``; None without a data-centric
        point."""
        if self.data_centric is None:
            return None
        return 1 - Fraction(
            int(self.best[column("latency")]), int(self.data_centric[column("latency")])
        )

    def lines(self) -> list[str]:
        """Return the comparison as text lines: both dataflows with the array's latency, and
        the reduction."""

        def describe(label: str, row: dict[str, Any]) -> list[str]:
            return [
                f"{label}: {row['name']} (array's latency {int(row[column('latency')])} cycles)",
                f"  space_stamp: {row['space_stamp']}",
                f"  time_stamp:  {row['time_stamp']}",
            ]

        out = describe("best overall", self.best)
        if self.data_centric is None:
            return [*out, "best data-centric: none evaluated"]
        out += describe("best data-centric", self.data_centric)
        reduction = self.reduction
        assert reduction is not None
        return [*out, f"array's latency reduction: {float(reduction):.1%}"]


def compare_data_centric(results: pd.DataFrame, by: str = "latency") -> DataCentricComparison:
    """Return the best row of ``results`` by ``by`` and the best data-centric row.

    Examples
    --------
    >>> t = pd.DataFrame({"index": [0, 1], "status": ["ok"] * 2, "data_centric": [False, True],
    ...     "latency_cycles": [60, 100], "name": ["a", "b"], "space_stamp": ["s", "s"],
    ...     "time_stamp": ["t", "t"]})
    >>> compare_data_centric(t).reduction
    Fraction(2, 5)
    """
    best = rank(results, by, 1)
    centric = rank(results[results["data_centric"].astype(bool)], by, 1)
    return DataCentricComparison(
        best.iloc[0].to_dict(), centric.iloc[0].to_dict() if len(centric) else None
    )
