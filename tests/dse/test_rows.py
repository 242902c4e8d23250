"""Every command that reports a mapping prints its row (:func:`tenet.metrics.row.mapping_row`):
``tenet eval`` of the row's dataflow (space and time stamps, tile stamps) gives its memory-aware
latency and energy again, and the same mapping has the same latency in ``eval``, ``dse``,
``sweep`` and ``tile`` (eval reproduces the tile --strategy joint row, the dse and sweep rows,
tiled or not)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run

ARCH = "systolic-levels-8x8"
GEMM = ("gemm", ("-p", "M=32", "-p", "N=32", "-p", "K=32"))
CONV = ("conv2d", tuple(f"-p{k}={v}" for k, v in dict(K=8, C=4, OX=4, OY=4, RX=3, RY=3).items()))
SEARCH = ("--workers", "1", "--top", "2", "--format", "json")


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return json.loads(out)


def _dataflow(row: dict[str, Any], path: Path) -> str:
    """Write the mapping of ``row`` as a dataflow file; return its path."""
    spec = {"version": 1, "name": "row", **{k: row[k] for k in ("space_stamp", "time_stamp")}}
    for key in ("tiles", "places", "keep"):
        if row.get(key):
            spec[key] = row[key]
    path.write_text(yaml.safe_dump(spec))
    return str(path)


def _reproduced(
    capsys: pytest.CaptureFixture[str], problem: tuple[str, ...], row: dict[str, Any], path: Path
) -> None:
    """``tenet eval`` of the row's dataflow gives its latency, bottleneck and energy, in JSON
    (the memory figures and the row) and in CSV (the row's figures on every tensor's line)."""
    dataflow = _dataflow(row, path)
    evaluated = _json(capsys, "eval", *problem, "-d", dataflow, "--format", "json")
    assert evaluated["memory"]["latency"] == row["latency_cycles"]
    assert evaluated["memory"]["bottleneck"] == row["bottleneck"]
    assert evaluated["memory"]["energy"] == pytest.approx(row["energy"])
    for key in ("latency_cycles", "bottleneck", "traffic_dram_elements", "tiles", "fits"):
        assert evaluated["row"][key] == row[key], key
    code, out, _ = run(capsys, "eval", *problem, "-d", dataflow, "--format", "csv")
    assert code == 0
    table = list(csv.DictReader(io.StringIO(out)))
    assert {line["latency_cycles"] for line in table} == {str(row["latency_cycles"])}
    assert {line["bottleneck"] for line in table} == {row["bottleneck"]}


@pytest.mark.parametrize(("workload", "sizes"), [GEMM, pytest.param(*CONV, marks=pytest.mark.slow)])
def test_every_row_reproduced_by_eval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workload: str, sizes: tuple[str, ...]
) -> None:
    problem = ("-w", workload, "-a", ARCH, *sizes)
    plain = _json(capsys, "dse", *problem, *SEARCH)[0]
    assert plain["memory_model"] == "untiled" and plain["tiles"] == {}
    assert plain["latency_cycles"] >= plain["latency_compute_cycles"]
    tiled = _json(capsys, "dse", *problem, *SEARCH, "--tile", "glb")[0]
    assert tiled["memory_model"] == "tiled" and set(tiled["tiles"]) == {"glb"}
    assert tiled["bound_latency_cycles"] == tiled["latency_cycles"]  # the search is complete
    swept = _json(capsys, "sweep", *problem, *SEARCH)[0]
    built = _json(capsys, "sweep", *problem, *SEARCH, "--strategy", "constructive")[0]
    # the same mapping, untiled, in dse and sweep
    stamps = ("space_stamp", "time_stamp")
    assert [swept[k] for k in stamps] == [plain[k] for k in stamps]
    assert swept["latency_cycles"] == plain["latency_cycles"]
    # tile: the dse --tile row's array mapping, its glb tiled jointly (every loop, as dse
    # --tile does), and along k only exhaustively and jointly
    mapping = _dataflow({**tiled, "tiles": {}}, tmp_path / "mapping.yaml")
    tile = ("tile", *problem, "-d", mapping, "-l", "glb", "--format", "json")
    joint = _json(capsys, *tile, "--strategy", "joint", "--no-bypass")
    assert joint["latency_cycles"] == tiled["latency_cycles"]
    assert joint["gap"] == 0 and joint["complete"]
    exhaustive = _json(capsys, *tile, "--dim", "k", "--strategy", "exhaustive")
    along_k = _json(capsys, *tile, "--dim", "k", "--strategy", "joint", "--no-bypass")
    assert exhaustive["latency_cycles"] == along_k["latency_cycles"] >= joint["latency_cycles"]
    assert exhaustive["bound_latency_cycles"] == exhaustive["latency_cycles"]
    for name, row in {
        "dse": plain,
        "dse-tile": tiled,
        "sweep": swept,
        "sweep-constructive": built,
        "tile-exhaustive": exhaustive,
        "tile-joint": joint,
    }.items():
        _reproduced(capsys, problem, row, tmp_path / f"{name}.yaml")


def test_joint_row_with_its_kept_tensors_reproduced_by_eval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # without seeds, the joint search's best is a leaf of a subtree, its nest keeping the
    # tensors of that subtree's choice at glb; by energy, glb bypasses some tensor. The row
    # carries the kept tensors (``keep``), and eval of the row's dataflow counts glb with
    # them: the same energy, less than with glb keeping every tensor.
    from tenet.dse.joint.tree import joint_search

    sizes = {"M": 8, "N": 8, "K": 8}
    found = joint_search("gemm", ARCH, ["gemm-os-systolic"], sizes, seed=False, objective="energy")
    row = found.row()
    assert set(row["keep"]) == {"glb"} and 0 < len(row["keep"]["glb"]) < 3
    problem = ("-w", "gemm", "-a", ARCH, *(f"-p{k}={v}" for k, v in sizes.items()))
    _reproduced(capsys, problem, row, tmp_path / "joint.yaml")
    every = _dataflow({**row, "keep": {}}, tmp_path / "every.yaml")
    evaluated = _json(capsys, "eval", *problem, "-d", every, "--format", "json")
    assert evaluated["memory"]["energy"] > row["energy"]


def test_row_without_memory_levels_is_the_array(capsys: pytest.CaptureFixture[str]) -> None:
    # systolic-2d-8x8 has DRAM only: the row keeps the array's latency and energy, no
    # bottleneck and no tiles; DRAM sends A and B and takes C, 8 * 8 elements each, once
    problem = ("-w", "gemm", "-a", "systolic-2d-8x8", "-p", "M=8", "-p", "N=8", "-p", "K=8")
    row = _json(capsys, "dse", *problem, *SEARCH)[0]
    assert row["memory_model"] == "array" and row["bottleneck"] is None and row["tiles"] == {}
    assert row["latency_cycles"] == row["latency_array_cycles"] == 47
    assert row["energy"] == row["energy_array"]
    assert row["traffic_dram_elements"] == 3 * 64
