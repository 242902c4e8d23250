"""A chain on the command line: ``tenet eval -w CHAIN -d FUSED`` against the simulator,
``tenet map -w CHAIN`` and its saved dataflow evaluated to the same figures, the refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet.oracle.fusion import walk_fusion
from tenet.spec.chain import load_chain
from tenet.spec.fused import group_chain
from tests.conftest import ROOT, run

SIZES = ("-p", "CI=1", "-p", "C=2", "-p", "K=1", "-p", "H=4", "-p", "W=2")
BOUND = {"CI": 1, "C": 2, "K": 1, "H": 4, "W": 2}


def _fused(tmp_path: Path, groups: list[dict[str, Any]]) -> str:
    path = tmp_path / "fused.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "groups": groups}))
    return str(path)


def test_eval_chain_agrees_with_the_simulator(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two groups: T goes through DRAM; each group's figures are the simulator's."""
    groups: list[dict[str, Any]] = [
        {"statements": ["S0"], "tiles": {"y": 2}, "resident": ["F"]},
        {"statements": ["S1"], "tiles": {"y": 1}, "halo": "keep", "resident": ["G"]},
    ]
    code, out, err = run(
        capsys,
        "eval",
        "-w",
        "conv-conv",
        "-d",
        _fused(tmp_path, groups),
        *SIZES,
        "--format",
        "json",
    )
    assert code == 0, err
    document = json.loads(out)
    spec = load_chain("conv-conv")
    walks = [
        walk_fusion(
            group_chain(spec, (g["statements"][0],)),
            BOUND,
            {g["statements"][0]: tuple(g["tiles"])},
            tuple(g["tiles"].values()),
            resident=g["resident"],
        )
        for g in groups
    ]
    for tensor, row in document["tensors"].items():
        parts = [w.tensors[tensor] for w in walks if tensor in w.tensors]
        assert row["dram_reads"] == sum(p.dram_reads for p in parts)
        assert row["dram_writes"] == sum(p.dram_writes for p in parts)
        assert row["fills"] == sum(p.fills for p in parts)
        assert row["footprint"] == max(max(p.footprints) for p in parts)
    need = max(
        max(map(sum, zip(*(t.footprints for t in w.tensors.values()), strict=True))) for w in walks
    )
    assert document["headline"]["need"] == need
    assert document["headline"]["fits"] is True  # no architecture: unbounded
    assert document["tensors"]["T"]["dram_writes"] == 2 * 6 * 4  # T: C x (H + 2) x (W + 2)


def test_eval_chain_with_an_architecture_prints_fits_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """conv-conv at 64 channels, 56 x 56, 4 output rows per tile, F and G resident: the first
    tile holds F and G (64 * 64 * 9 = 36864 each), I's rows [0, 8) (8 * 60 * 64 = 30720), T's
    rows [0, 6) (6 * 58 * 64 = 22272) and O's 4 rows (4 * 56 * 64 = 14336): 141056 elements,
    above the global buffer's 110592."""
    fused = str(ROOT / "examples" / "fused" / "conv-conv.yaml")
    code, out, err = run(capsys, "eval", "-w", "conv-conv", "-d", fused, "-a", "systolic-levels")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "fits: no — glb needs 141,056 of 110,592 elements"
    assert any(line.startswith("energy") and "MAC-relative" in line for line in lines)
    code, out, err = run(
        capsys, "eval", "-w", "conv-conv", "-d", fused, "-a", "systolic-levels", "--format", "csv"
    )
    assert code == 0, err
    assert out.splitlines()[0].startswith("fits,level,need,capacity,")


def test_energy_of_a_tiny_chain_by_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """matmul -> matmul, M=2, N=K=P=1, one tile: A 2 + B 1 + D 1 read, E 2 written, fills
    A 2 + B 1 + C 2 + D 1 + E 2 = 8, 4 MACs; systolic-levels: DRAM 200 per access, buffer 6,
    MAC 1: 4 * 200 + 2 * (200 + 6) + 8 * 6 + 4 * 1 = 1264; latency 1 + 1 cycles (64 PEs)."""
    fused = _fused(tmp_path, [{"statements": ["S0", "S1"], "tiles": {"m": 2}}])
    sizes = ("-p", "M=2", "-p", "N=1", "-p", "K=1", "-p", "P=1")
    code, out, err = run(
        capsys,
        "eval",
        "-w",
        "matmul-matmul",
        "-d",
        fused,
        "-a",
        "systolic-levels",
        *sizes,
        "--format",
        "json",
    )
    assert code == 0, err
    head = json.loads(out)["headline"]
    assert (head["energy"], head["energy_unit"], head["latency"]) == (1264, "MAC", 2)


def test_map_saves_a_dataflow_that_eval_counts_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "best.yaml"
    args = ("-w", "conv-conv", "-a", "systolic-levels", *SIZES)
    code, out, err = run(
        capsys,
        "map",
        *args,
        "--objective",
        "dram",
        "--save-dataflow",
        str(saved),
        "--format",
        "json",
    )
    assert code == 0, err
    found = json.loads(out)
    assert found["certificate"]["gap"] == 0 and found["value"] == found["headline"]["dram"]
    code, out, err = run(capsys, "eval", *args, "-d", str(saved), "--format", "json")
    assert code == 0, err
    evaluated = json.loads(out)
    for key in ("headline", "tensors", "statements", "groups"):
        assert evaluated[key] == found[key]
    code, out, err = run(capsys, "map", *args, "--objective", "energy")
    assert code == 0, err
    assert out.splitlines()[1].startswith("exhaustive: proven optimal")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--objective", "edp"), "edp"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "-d", "x"), "--dataflow"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--workers", "2"), "--workers"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--engine", "dask"), "--engine"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--store", "s.db"), "--store"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--time-budget", "5"), "budget"),
        (("map", "-w", "conv-conv", "-a", "systolic-levels", "--gap", "0.01"), "--gap"),
        (("map", "-w", "gemm", "-a", "systolic-levels", "--objective", "dram"), "chain's"),
        (("eval", "-w", "conv-conv", "-a", "systolic-levels"), "-d FUSED.yaml"),
        (("eval", "-w", "conv-conv", "-d", "examples/fused/conv-conv.yaml", "-p", "Q=2"), "Q"),
    ],
)
def test_refusals(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], words: str) -> None:
    code, out, err = run(capsys, *args)
    assert code != 0
    assert words in err
