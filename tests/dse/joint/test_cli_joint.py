"""``tenet tile --strategy joint``: a bad level is one line on stderr; the per-layer table's row
is reproduced by ``tenet eval`` and bettered by the joint search (``tests/dse/test_rows.py``:
every command's row reproduced by ``tenet eval``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run

PROBLEM = ("-w", "gemm", "-a", "systolic-levels-8x8", "-p", "M=16", "-p", "N=16", "-p", "K=16")


def test_joint_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "tile", *PROBLEM, "-d", "gemm-os-systolic", "--strategy", "joint", "-l", "l3"
    )
    assert code == 2
    assert "l3" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_sweep_layer_row_reproduced_by_eval_and_bettered_by_joint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    net = Path(__file__).parent.parent / "tiling" / "tiny-net.yaml"
    code, out, err = run(
        capsys,
        *("sweep", "-n", str(net), "-a", "systolic-levels-8x8"),
        *("--strategy", "constructive", "--top-k", "3", "--workers", "1"),
        *("--layers-plot", str(tmp_path / "layers.png"), "--format", "json"),
    )
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["bound_latency_cycles"] <= row["latency_cycles"]
    dataflow = tmp_path / "layer.yaml"
    spec = {"version": 1, "name": "layer", "space_stamp": row["space_stamp"]}
    spec.update(time_stamp=row["time_stamp"], tiles=row["tiles"])
    dataflow.write_text(yaml.safe_dump(spec))
    problem = ("-w", "gemm", "-a", "systolic-levels-8x8", "-p", "M=16", "-p", "N=16", "-p", "K=16")
    code, out, _ = run(capsys, "eval", *problem, "-d", str(dataflow), "--format", "json")
    assert code == 0
    memory = json.loads(out)["memory"]
    assert memory["latency"] == row["latency_cycles"]
    assert memory["bottleneck"] == row["bottleneck"]
    code, out, _ = run(
        capsys, "tile", *problem, "-d", str(dataflow), "--strategy", "joint", "--format", "json"
    )
    assert code == 0
    assert json.loads(out)["latency_cycles"] <= row["latency_cycles"]
