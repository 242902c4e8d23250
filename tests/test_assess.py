"""One assessment holds what analyze, check and the memory evaluation give on the same inputs."""

from __future__ import annotations

from pathlib import Path

import tenet
from tenet.api import analyze, analyze_experiment, assess, assess_experiment, check, load_problem
from tenet.metrics.memory import evaluate_memory
from tenet.spec import DataflowSpec, load_architecture

MEMORY = Path(__file__).parent / "memory"
LINE4 = str(MEMORY / "line4.yaml")
GEMM_TILED = str(MEMORY / "gemm-tiled.yaml")
SIZES = {"M": 4, "N": 4, "K": 4}
EXPERIMENT = Path(__file__).parents[1] / "examples/tenet/experiment/experiment_1"


def test_assess_equals_analyze_check_and_memory() -> None:
    a = assess("gemm", LINE4, GEMM_TILED, params=SIZES)
    assert a.metrics == analyze("gemm", LINE4, GEMM_TILED, params=SIZES)
    assert a.legality == check("gemm", LINE4, GEMM_TILED, params=SIZES)
    assert a.memory == evaluate_memory(load_problem("gemm", LINE4, GEMM_TILED, params=SIZES))
    assert [s.level for s in a.memory.levels] == ["dram", "glb", "rf"]
    assert a.legal and a.fits


def test_assess_reports_capacity_violations() -> None:
    line4 = load_architecture(LINE4)
    small = line4.model_copy(
        update={
            "levels": tuple(
                lv.model_copy(update={"capacity": 11}) if lv.name == "glb" else lv
                for lv in line4.levels
            )
        }
    )
    a = assess("gemm", small, GEMM_TILED, params=SIZES)
    # capacity is not legality: the dependences and the placement hold, the tiles do not fit
    assert a.legality.legal and a.legal and not a.fits
    assert a.memory == evaluate_memory(load_problem("gemm", small, GEMM_TILED, params=SIZES))
    data = a.to_dict()
    [violation] = data["capacity"]
    assert data["legality"] == []
    assert violation == {"kind": "capacity", "message": a.memory.violations[0].message}
    # the headline says so first: the need against the capacity, without the witness
    assert list(data)[0] == "headline"
    need = a.memory.violations[0].need
    assert data["headline"]["fits"] is False
    assert data["headline"]["overflow"] == f"glb needs {need} of 11 elements"


def test_assess_reports_collisions_without_raising() -> None:
    sizes = {"M": 2, "N": 2, "K": 2}
    flat = DataflowSpec.from_mapping(
        {
            "name": "flat",
            "space_stamp": "{S[i,j,k] -> PE[i, j]}",
            "time_stamp": "{S[i,j,k] -> T[0]}",
        }
    )
    a = assess("gemm", "systolic-2d-8x8", flat, params=sizes, reductions=["C"])
    assert a.legality == check("gemm", "systolic-2d-8x8", flat, params=sizes, reductions=["C"])
    assert [v.kind for v in a.legality.violations] == ["collision"]
    assert a.metrics == analyze("gemm", "systolic-2d-8x8", flat, params=sizes)
    assert a.to_dict()["legality"] == [
        {"kind": v.kind, "message": v.message} for v in a.legality.violations
    ]


def test_assess_experiment_equals_analyze_experiment() -> None:
    a = assess_experiment(EXPERIMENT)
    assert a.metrics == analyze_experiment(EXPERIMENT)
    assert a.metrics.name == str(EXPERIMENT)


def test_assess_is_public() -> None:
    assert tenet.assess is assess and tenet.assess_experiment is assess_experiment
    assert isinstance(assess("gemm", LINE4, GEMM_TILED, params=SIZES), tenet.Assessment)
