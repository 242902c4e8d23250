"""``Metrics.original`` (the original tool's report) equals its exact figures
(``tenet-reference.csv``), on TENET's experiments given by zoo names
(``tests/zoo/tenet_experiments.yaml``)."""

from __future__ import annotations

import csv
import math

import pytest

from tenet import analyze
from tests.conftest import REFERENCE
from tests.tenet_files import EXPERIMENTS


def _rows() -> dict[tuple[str, str], list[dict[str, str]]]:
    path = REFERENCE / "tenet-reference.csv"
    grouped: dict[tuple[str, str], list[dict[str, str]]] = {}
    with path.open() as f:
        for row in csv.DictReader(f):
            grouped.setdefault((row["experiment_dir"], row["experiment"]), []).append(row)
    return grouped


ROWS = _rows()
INTS = ["IngressDelay", "EgressDelay", "ComputationDelay", "Delay", "MacNum", "Energy"]
RATIOS = ["ReuseFactor", "TemporalReuseVolume", "SpatialReuseVolume"]


@pytest.mark.parametrize("key", sorted(ROWS), ids=lambda k: f"{k[0]}/{k[1]}")
def test_reference_original_report_equals_exact_columns(key: tuple[str, str]) -> None:
    rows = ROWS[key]
    workload, params, architecture, dataflow = EXPERIMENTS[f"{key[0]}/{key[1]}"]
    report = analyze(workload, architecture, dataflow, params=params).original
    first = rows[0]
    for name in INTS:
        assert getattr(report, name) == int(first[f"exact_{name}"]), name
    assert report.ActivePENum == int(first["ActivePENum"])
    assert report.PENum == int(first["PENum"])
    assert report.TotalTime == int(first["TotalTime"])
    assert math.isclose(report.AverageActivePENum, float(first["AverageActivePENum"]), rel_tol=1e-9)
    assert report.MacNum == int(first["exact_DomainSize"])
    assert sorted(report.tensors) == sorted(r["tensor"] for r in rows)
    for row in rows:
        tensor = report.tensors[row["tensor"]]
        assert tensor.access == row["access"]
        assert tensor.TotalVolume == int(row["exact_TotalVolume"])
        assert tensor.UniqueVolume == int(row["exact_UniqueVolume"])
        for name in RATIOS:
            assert math.isclose(
                getattr(tensor, name), float(row[f"exact_{name}"]), rel_tol=1e-9, abs_tol=1e-12
            ), (row["tensor"], name)


def test_reference_covers_27_experiments() -> None:
    assert len(ROWS) == 27
