"""The tiling search on an engine and in a results store gives what the search in this process
gives; a search started again with the same store counts nothing new."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tenet.api import load_problem
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.strategies import run_tiling
from tenet.dse.tiling.exhaustive import decode_sizes, encode_sizes, search_tiling
from tenet.dse.tiling.sizes import TilingSpace
from tenet.errors import SpecError
from tests.conftest import run

ARGS = ("gemm", "simba", "gemm-os")
PARAMS = {"M": 4, "N": 4, "K": 4}
GLB = TilingSpace(["glb"])


def test_engine_and_store_match_in_process(tmp_path: Path) -> None:
    expected = search_tiling(load_problem(*ARGS, PARAMS), GLB)
    store = tmp_path / "tiles.db"
    execution = ExecutionOptions(engine="local", workers=2, store=store)
    first = run_tiling(*ARGS, PARAMS, GLB, execution=execution)
    assert first.best == expected.best
    assert (first.space, first.fitting, first.evaluated) == (
        expected.space,
        expected.fitting,
        expected.evaluated,
    )
    totals: list[int] = []

    def seen(items: Any, total: int, desc: str) -> Any:
        totals.append(total)
        return list(items)

    again = run_tiling(*ARGS, PARAMS, GLB, execution=ExecutionOptions(store=store, progress=seen))
    assert totals == [0]  # every choice of tile sizes was stored: nothing is counted again
    assert again.best == expected.best
    assert again.evaluated == expected.evaluated


def test_encode_round_trip() -> None:
    from tenet.dse.tiling.exhaustive import search_sizes
    from tenet.dse.tiling.sizes import size_choices
    from tenet.metrics.latency import occupancy

    problem = load_problem(*ARGS, PARAMS)
    compute = occupancy(problem).latency_compute
    for position, chosen in enumerate(size_choices(problem, GLB)[:4]):
        found = search_sizes(problem, compute, GLB, chosen, "edp", position)
        assert decode_sizes(encode_sizes(found)) == found


def test_cli_workers_and_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = str(tmp_path / "tiles.db")
    base = ["tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "-l", "glb", "--format", "json"]
    base += [f"-p{k}={v}" for k, v in PARAMS.items()]
    outputs = []
    for extra in ([], ["--workers", "2", "--store", store], ["--store", store]):
        code, out, err = run(capsys, *base, *extra)
        assert code == 0, err
        outputs.append({k: v for k, v in json.loads(out).items() if k != "cpu_seconds"})
    assert outputs[0] == outputs[1] == outputs[2]


def test_cli_address_needs_dask(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "--address", "tcp://x:1"
    )
    assert code == 2
    assert "--address needs --engine dask" in err


def test_cli_store_not_a_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite at all, just text " * 40)
    code, _, err = run(
        capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "--store", str(bad)
    )
    assert code == 2
    assert "not a tenet results store" in err


@pytest.mark.parametrize(
    "space",
    [
        TilingSpace(),
        GLB,
        TilingSpace(["glb"], dims=["k"]),
        TilingSpace(["glb", "pe_buffer"], aligned=3),
        TilingSpace(["glb"], dims=["i"], sizes={"j": [2]}),
    ],
)
def test_counts_match_the_listed_tilings(space: TilingSpace) -> None:
    from tenet.dse.tiling.sizes import check_tiling, count_tilings, size_choices, tilings

    problem = load_problem(*ARGS, PARAMS)
    checked = check_tiling(problem, space)
    sizes, orders = count_tilings(problem, checked)
    assert sizes == len(size_choices(problem, checked))
    assert sizes * orders == sum(1 for _ in tilings(problem, space))


def test_default_space_above_the_limit_is_built(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    found = run_tiling(*ARGS, {"M": 8, "N": 8, "K": 8}, strategy="auto", report=lines.append)
    # M = N = K = 8, glb and pe_buffer: 10 nested divisor pairs for k; i and j run over the
    # 4x4 array (PE[i % 4, j % 4]) so the shared glb takes 8 or 4 of them, not 2 or 1: 4 + 3
    # pairs; 3!^3 orders
    assert lines == [
        "490 choices of tile sizes × 216 loop orders = 105840 candidates: built "
        "constructively, at most 10 evaluated exactly (--strategy exhaustive for all)"
    ]
    assert found.evaluated <= 10
    code, out, err = run(
        capsys, "tile", "-w", "gemm", "-a", "simba", "-d", "gemm-os", "-p", "M=8", "-p", "N=8",
        "-p", "K=8",
    )  # fmt: skip
    assert code == 0 and "105840 candidates" in err


def test_constructive_strategy_needs_the_default_space() -> None:
    with pytest.raises(SpecError, match="--strategy: the constructive strategy builds"):
        run_tiling(*ARGS, PARAMS, GLB, strategy="constructive")
