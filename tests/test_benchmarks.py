"""Every benchmark script loads: its imports resolve against today's package (the scripts run
only in CI's bench step, so a renamed module would otherwise surface there alone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))

LOAD = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
for path in sys.argv[2:]:
    runpy.run_path(path, run_name="loaded")
"""


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_benchmark_script_loads(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(script.parent), str(script)],
        capture_output=True,
        text=True,
        cwd=script.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr
