"""Space-time diagram data and utilisation over time of the worked example, derived by hand."""

from __future__ import annotations

import pytest

from tenet.errors import SpecError
from tenet.model import Problem
from tenet.report import space_time_table, utilisation_table
from tests.paper_example import MULTICAST, UNSKEWED, problem


def worked_example() -> dict[tuple[str, str, str], tuple[str, str | None, str | None]]:
    """(PE, time, element) -> (reuse, from PE, from time), by hand.

    PE[i,j] at time t holds A[i, t-i-j], B[t-i-j, j], C[i, j] for 0 <= k = t-i-j < 4.
    A moves right (PE[i,0] at t-1 held A[i,k] when j = 1), B moves down (PE[0,j] at t-1 held
    B[k,j] when i = 1), C stays (PE[i,j] at t-1 held C[i,j] when k >= 1).
    """
    held = {}
    for i in range(2):
        for j in range(2):
            for k in range(4):
                t = i + j + k
                pe, time = f"PE[{i}, {j}]", f"T[{t}]"
                held[(pe, time, f"A[{i}, {k}]")] = (
                    ("spatial", f"PE[{i}, 0]", f"T[{t - 1}]") if j == 1 else ("none", None, None)
                )
                held[(pe, time, f"B[{k}, {j}]")] = (
                    ("spatial", f"PE[0, {j}]", f"T[{t - 1}]") if i == 1 else ("none", None, None)
                )
                held[(pe, time, f"C[{i}, {j}]")] = (
                    ("temporal", pe, f"T[{t - 1}]") if k >= 1 else ("none", None, None)
                )
    return held


WORKED_EXAMPLE = worked_example()


def test_space_time_table_holds_exactly_the_worked_example(skewed: Problem) -> None:
    table = space_time_table(skewed)
    got = {
        (r.pe, r.time, r.element): (
            r.reuse,
            r.from_pe if isinstance(r.from_pe, str) else None,
            r.from_time if isinstance(r.from_time, str) else None,
        )
        for r in table.itertuples()
    }
    assert len(table) == len(WORKED_EXAMPLE) == 48  # 16 points x 3 tensors
    assert got == WORKED_EXAMPLE


def test_space_time_table_orders_pes_and_time_stamps_lexicographically(skewed: Problem) -> None:
    table = space_time_table(skewed)
    pes = table.drop_duplicates("pe_index").sort_values("pe_index")["pe"].tolist()
    times = table.drop_duplicates("step").sort_values("step")["time"].tolist()
    assert pes == ["PE[0, 0]", "PE[0, 1]", "PE[1, 0]", "PE[1, 1]"]
    assert times == [f"T[{t}]" for t in range(6)]  # t = i + j + k in 0..5


def test_space_time_table_multicast_brings_data_at_the_same_step() -> None:
    table = space_time_table(problem(UNSKEWED, MULTICAST))
    # T[k]: PE[i,1] gets A[i,k] from PE[i,0] over a wire in the same step k
    row = table[(table.pe == "PE[0, 1]") & (table.element == "A[0, 2]")].iloc[0]
    assert (row.time, row.reuse, row.from_pe, row.from_time) == (
        "T[2]",
        "spatial",
        "PE[0, 0]",
        "T[2]",
    )


def test_space_time_table_refuses_too_many_points(skewed: Problem) -> None:
    with pytest.raises(SpecError, match=r"too large to draw: 16 space-time points \(at most 10\)"):
        space_time_table(skewed, max_points=10)


def test_space_time_table_refuses_too_many_elements(skewed: Problem) -> None:
    with pytest.raises(SpecError, match=r"too large to draw: 48 \(point, element\) pairs"):
        space_time_table(skewed, max_elements=40)


def test_utilisation_table_counts_active_pes_per_time_stamp(skewed: Problem) -> None:
    table = utilisation_table(skewed)
    # PE[0,0] busy at t = 0..3, PE[0,1] and PE[1,0] at 1..4, PE[1,1] at 2..5
    assert table["active_pes"].tolist() == [1, 3, 4, 4, 3, 1]
    assert table["time"].tolist() == [f"T[{t}]" for t in range(6)]
    assert table["utilisation"].tolist() == [0.25, 0.75, 1.0, 1.0, 0.75, 0.25]
    assert (table["pe_count"] == 4).all()


def test_utilisation_table_of_multi_dimensional_time_stamps() -> None:
    tiled = {
        "name": "tiled",
        "space_stamp": "{S[i, j, k] -> PE[i, 0]}",
        "time_stamp": "{S[i, j, k] -> T[j, k + i]}",
    }
    table = utilisation_table(problem(tiled))
    # for each j: T[j, t] with t = k + i in 0..4; PE[0,0] busy at t 0..3, PE[1,0] at 1..4
    assert table["time"].tolist() == [f"T[{j}, {t}]" for j in range(2) for t in range(5)]
    assert table["active_pes"].tolist() == [1, 2, 2, 2, 1] * 2


def test_utilisation_table_refuses_too_many_time_stamps(skewed: Problem) -> None:
    with pytest.raises(SpecError, match=r"too large to draw: 6 occupied time-stamps"):
        utilisation_table(skewed, max_timestamps=5)
