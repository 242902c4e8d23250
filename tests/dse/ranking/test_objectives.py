"""Objectives, constraints, ranking and Pareto fronts on small hand-made tables."""

from __future__ import annotations

import pandas as pd
import pytest

from tenet.dse.ranking.objectives import objective, pareto_front, parse_constraint, rank
from tenet.errors import SpecError

TABLE = pd.DataFrame(
    {
        "index": [0, 1, 2, 3, 4],
        "status": ["ok", "ok", "ok", "ok", "illegal"],
        "latency_cycles": [10, 20, 10, 30, 1],
        "energy": [5.0, 2.0, 4.0, 1.0, 0.0],
        "utilisation": [0.5, 1.0, 0.25, 0.75, 1.0],
        "bandwidth_scratchpad_elements_per_cycle": [8.0, 2.0, 3.0, 1.0, 0.0],
        "bandwidth_elements_per_cycle": [4.0] * 5,
    }
)


def test_rank_breaks_ties_by_index_and_skips_illegal():
    assert rank(TABLE, "latency")["index"].tolist() == [0, 2, 1, 3]


def test_rank_maximises_utilisation():
    assert rank(TABLE, "utilisation", top=2)["index"].tolist() == [1, 3]


def test_rank_with_bandwidth_constraint():
    # SBW <= 4 elements/cycle drops point 0 (8 elements/cycle)
    kept = rank(TABLE, "latency", constraints=[parse_constraint("sbw <= bandwidth")])
    assert kept["index"].tolist() == [2, 1, 3]


def test_pareto_front_latency_energy():
    # (10, 4) beats (10, 5); (20, 2) and (30, 1) trade latency for energy
    assert pareto_front(TABLE, "latency", "energy")["index"].tolist() == [2, 1, 3]


def test_objective_unknown_suggests():
    with pytest.raises(SpecError, match="did you mean 'latency'"):
        objective("latncy")


def test_constraint_malformed():
    with pytest.raises(SpecError, match="NAME OP VALUE"):
        parse_constraint("sbw bandwidth")


def test_constraint_unknown_column():
    with pytest.raises(SpecError, match="'power'"):
        rank(TABLE, constraints=[parse_constraint("power < 3")])
