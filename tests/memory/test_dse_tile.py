"""``tenet dse --tile LEVEL``: the array mapping and the tiling searched together give what
brute force over (best mappings x every tiling) gives."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tenet.api import load_problem
from tenet.dse.explore import sweep
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.strategies import tile_mappings
from tenet.dse.tiling.sizes import TilingSpace, tilings
from tenet.isl_utils import parse_map
from tenet.mapping import to_stamps
from tenet.metrics.latency import occupancy
from tenet.metrics.memory import evaluate_memory
from tenet.spec import DataflowSpec, load_workload
from tests.conftest import run

PARAMS = {"M": 2, "N": 4, "K": 4}


def _brute_force(
    row: dict[str, object], params: dict[str, int], dims: list[str] | None
) -> Fraction:
    """The least latency of any fitting tiling of glb for one array mapping."""
    dataflow = DataflowSpec(
        name=str(row["name"]),
        space_stamp=str(row["space_stamp"]),
        time_stamp=str(row["time_stamp"]),
    )
    problem = load_problem("gemm", "simba", dataflow, params)
    compute = occupancy(problem).latency_compute
    best = None
    for tiling in tilings(problem, TilingSpace(["glb"], dims)):
        stamps = [(level, parse_map(text)) for level, text in to_stamps(tiling).tiles.items()]
        metrics = evaluate_memory(problem, compute, stamps)
        if metrics.fits and (best is None or metrics.latency < best):
            best = metrics.latency
    assert best is not None
    return best


@pytest.mark.parametrize(
    ("params", "dims", "top"),
    [
        ({"M": 2, "N": 2, "K": 4}, ["j", "k"], 3),
        pytest.param(PARAMS, None, 4, marks=pytest.mark.slow),
    ],
)
def test_mappings_and_tilings_together_match_brute_force(
    params: dict[str, int], dims: list[str] | None, top: int
) -> None:
    workload = load_workload("gemm")
    exploration = sweep(
        [workload], ["simba"], params=params, execution=ExecutionOptions(workers=1)
    ).explorations[0]
    rows = exploration.ranked("latency", top, []).to_dict("records")
    found = tile_mappings(workload, "simba", rows, params, TilingSpace(["glb"], dims))
    assert [name for name, _ in found] == [row["name"] for row in rows]
    expected = [_brute_force(row, params, dims) for row in rows]
    assert [search.best.memory.latency for _, search in found] == expected
    assert min(search.best.memory.latency for _, search in found) == min(expected)


def test_cli_dse_tile(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["dse", "-w", "gemm", "-a", "simba", "--top", "2", "--tile", "glb", "--workers", "1"]
    sizes = [f"-p{k}={v}" for k, v in PARAMS.items()]
    code, out, err = run(capsys, *args, *sizes)
    assert code == 0, err
    assert "each with its best tiling of glb" in out
    assert "best together:" in out
    code, out, err = run(capsys, *args, *sizes, "--format", "csv")
    assert code == 0, err
    header, *rows = out.strip().splitlines()
    assert len(rows) == 2 and "bound_latency_cycles" in header.split(",")


def test_cli_dse_tile_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["dse", "-w", "gemm", "-a", "simba", "--top", "1", "--tile", "l9", "--workers", "1"]
    code, _, err = run(capsys, *args, "-pM=2", "-pN=2", "-pK=2")
    assert code == 2
    assert "no memory level 'l9'" in err
