"""``tenet tile``: the best tiling of a small GEMM, JSON keys, and the nothing-fits error."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run
from tests.memory import HERE, LINE4, gemm_tiled_on

TILE_IK = ("tile", *gemm_tiled_on(LINE4), "-l", "glb", "--dim", "i", "--dim", "k")
"""The glb tiles of i and k (j runs over the four PEs, PE[j % 4]: a shared level takes it
whole)."""


def test_cli_tile_prints_the_best_tiling(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *TILE_IK,
    )
    assert code == 0
    assert "tiles:" in out and 'glb: "{S[i, j, k] -> GLB[' in out
    assert "bottleneck" in out


def test_cli_tile_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *TILE_IK,
        "--objective",
        "energy",
        "--format",
        "json",
    )
    assert code == 0
    data = json.loads(out)
    # i and k in tiles of 1, 2 or 4 (j whole): 3 x 3 sizes x 2! x 2! orders (band, points).
    assert data["candidates"] == 36
    assert {"level", "tensor", "footprint", "fills", "writebacks", "capacity", "fits"} <= set(
        data["levels"][0]
    )


def test_cli_tile_nothing_fits_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "tile",
        "-w",
        "gemm",
        "-a",
        str(HERE / "small-glb.yaml"),
        "-d",
        "gemm-os-1d:pes=1",
        "-p",
        "M=2",
        "-p",
        "N=2",
        "-p",
        "K=2",
    )
    assert code == 2 and not out
    assert err.strip().count("\n") == 0
    assert "smallest tile of glb needs 3 elements, glb holds 2" in err
