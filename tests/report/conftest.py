"""Fixtures of the paper's worked example (``tests/paper_example.py``): the Problem, and its
specs as files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tenet.model import Problem
from tests.paper_example import GEMM, MULTICAST, SKEWED, SYSTOLIC, UNSKEWED, problem


@pytest.fixture
def skewed() -> Problem:
    return problem(SKEWED)


@pytest.fixture
def spec_files(tmp_path: Path) -> dict[str, Path]:
    """The example's specs as YAML files, plus a designs file listing three design points."""
    files = {}
    for key, data in {
        "workload": GEMM,
        "systolic": SYSTOLIC,
        "multicast": MULTICAST,
        "skewed": SKEWED,
        "unskewed": UNSKEWED,
    }.items():
        files[key] = tmp_path / "specs" / f"{data['name']}.yaml"
        files[key].parent.mkdir(exist_ok=True)
        files[key].write_text(yaml.safe_dump(data))
    designs = {
        "designs": [
            {
                "workload": "specs/gemm-2x2x4.yaml",
                "architecture": f"specs/{a}.yaml",
                "dataflow": f"specs/{d}.yaml",
            }
            for a, d in [
                ("systolic-2x2", "os-skewed"),
                ("systolic-2x2", "os-unskewed"),
                ("multicast-2x2", "os-unskewed"),
            ]
        ]
    }
    files["designs"] = tmp_path / "designs.yaml"
    files["designs"].write_text(yaml.safe_dump(designs))
    return files
