"""The command line starts without the heavy libraries; the lazy re-exports still work."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tenet


def test_command_line_imports_no_heavy_library():
    code = (
        "import sys, tenet.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'matplotlib', 'dask', 'distributed'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_reexport_is_the_function():
    from tenet.dse.explore import explore

    assert tenet.explore is explore
    assert "explore" in tenet.__all__


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        tenet.nothing  # noqa: B018
