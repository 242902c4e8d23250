"""JSON outputs are strict: no ``NaN`` or ``Infinity`` (``null`` and ``"inf"`` instead)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from tenet.spec.io import strict_json
from tests.test_cli import run

# a GEMM whose clusters need 8 PEs, on hardware with 4: compare reports an error row
MAPPING = """\
Network G { Layer L { Type: GEMM Dimensions { M: 8, N: 8, K: 8 }
  Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; Cluster(8, P); SpatialMap(1,1) K; } } }
"""
HARDWARE = "num_pes: 4\nnoc_bw_cstr: 4\nNoC_NumHops: 1\n"


def _strict_loads(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_strict_json_maps_non_finite_numbers() -> None:
    payload = {
        "a": [float("inf"), -np.inf, np.nan, np.float32(0.5), np.int64(3), Fraction(1, 4)],
        "big": 10**30,
        "flag": True,
    }
    assert _strict_loads(strict_json(payload)) == {
        "a": ["inf", "-inf", None, 0.5, 3, 0.25],
        "big": 10**30,
        "flag": True,
    }


def test_cli_compare_json_with_an_error_row_is_strict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "g.m").write_text(MAPPING)
    (tmp_path / "hw.m").write_text(HARDWARE)
    code, out, err = run(
        capsys, "compare", str(tmp_path / "g.m"), "--hw", str(tmp_path / "hw.m"), "--format", "json"
    )
    assert code == 0, err
    [row] = [r for r in _strict_loads(out) if r["quantity"] == "error"]  # type: ignore[attr-defined]
    assert row["exact"] is None and row["relative_error"] is None
