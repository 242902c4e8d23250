"""Shared fixtures: the test data in the repository (``tests/data/``, TENET's experiments
written from the zoo), where ``../shared`` (the original tools' own files) lives, and the
paper's worked example (``tests/paper_example.py``) as a Problem and as spec files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

from tenet.model import Problem
from tests.paper_example import GEMM, MULTICAST, SKEWED, SYSTOLIC, UNSKEWED, problem
from tests.tenet_files import write_tenet_data

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
REFERENCE = DATA / "reference"
SHARED = ROOT.parent / "shared"
TENET_DATA = SHARED / "tenet-data"
"""The original TENET's files: read only by tests marked ``shared`` (``make test-shared``)."""

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=40)
settings.load_profile("ci")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``tenet ARGS`` in this process; return the exit code, stdout and stderr."""
    from tenet.cli import main

    with pytest.raises(SystemExit) as stop:
        main(list(args))
    out, err = capsys.readouterr()
    return int(stop.value.code or 0), out, err


PEERS = ROOT / ".peers" / "bin" / "python"
"""The peers' environment made by ``make peers`` (tests marked ``peers``)."""


@pytest.fixture(scope="session")
def peers_python() -> str:
    """The Python of the peers' environment: ``TENET_PEERS_PYTHON``, else ``.peers/`` (made
    by ``make peers``); the test is skipped without one."""
    given = os.environ.get("TENET_PEERS_PYTHON")
    if given:
        return given
    if PEERS.is_file():
        return str(PEERS)
    pytest.skip("no peers environment: make peers, or set TENET_PEERS_PYTHON")


def need_shared() -> None:
    """Skip when ``../shared`` is not beside the repository (tests marked ``shared`` only)."""
    if not TENET_DATA.is_dir():
        pytest.skip("../shared/tenet-data is not beside the repository")


@pytest.fixture(scope="session")
def tenet_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TENET's experiments as TENET text files written from zoo names, at the original's
    relative paths (``tests/tenet_files.py``)."""
    return write_tenet_data(tmp_path_factory.mktemp("tenet-data"))


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
