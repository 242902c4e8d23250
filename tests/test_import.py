"""Using tenet over plain islpy (without barvinok's counting) fails with the fix (importing the
package alone imports no isl: its entry points are imported on first use)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_import_without_barvinok_says_which_wheel(tmp_path: Path) -> None:
    fake = tmp_path / "islpy"
    fake.mkdir()
    # an islpy whose Set has no card(): what the plain islpy wheel provides
    (fake / "__init__.py").write_text("class Set:\n    pass\n")
    path = os.pathsep.join([str(tmp_path), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-c", "import tenet; tenet.load_problem"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )
    assert done.returncode != 0
    assert "pip install islpy-barvinok" in done.stderr


def test_version_is_the_installed_distribution_version() -> None:
    from importlib.metadata import version

    import tenet

    assert tenet.__version__ == version("tenet")
