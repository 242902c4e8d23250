"""The command line starts without the heavy libraries: ``tenet --help`` imports no command's
module (nor isl, pydantic or pandas), and each command imports what it uses; the lazy
re-exports still work."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

import tenet
from tenet.cli import cli
from tenet.cli.app import COMMANDS, _shortened


def _imported(code: str) -> list[str]:
    """The heavy modules imported by running ``code`` in a fresh interpreter."""
    listing = (
        "import sys; print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', "
        "'matplotlib', 'dask', 'distributed', 'islpy', 'pydantic'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\n{listing}"], capture_output=True, text=True, check=True
    )
    return list(eval(out.stdout.strip().splitlines()[-1]))  # noqa: S307  (our own print)


def _running(*args: str) -> str:
    """The code running ``tenet ARGS`` (its exit caught)."""
    caught = "except SystemExit:\n    pass"
    return f"from tenet.cli import main\ntry:\n    main({list(args)!r})\n{caught}"


def test_command_line_imports_no_heavy_library() -> None:
    assert _imported("import tenet.cli") == []
    assert _imported(_running("--help")) == []
    assert _imported("import tenet") == []


def test_a_command_imports_what_it_uses_only() -> None:
    assert "pandas" not in _imported(_running("zoo", "archs"))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listing_says_what_each_command_says(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    module, text = COMMANDS[name]
    for width in (30, 45, 80, 400):
        assert _shortened(text, width) == command.get_short_help_str(width)
    assert command.callback is not None
    assert command.callback.__module__ == f"tenet.cli.{module}"


def test_lazy_reexport_is_the_function() -> None:
    from tenet.dse.explore import explore

    assert tenet.explore is explore
    assert "explore" in tenet.__all__
    assert all(getattr(tenet, name) is not None for name in tenet.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        tenet.nothing  # noqa: B018


def test_exported_reads_a_module_without_importing_it() -> None:
    code = "from tenet.lazy import exported\nprint(exported('tenet.report.plots'))"
    assert _imported(code) == []
    from tenet.lazy import exported
    from tenet.report import plots

    assert exported("tenet.report.plots") == plots.__all__
    with pytest.raises(AttributeError, match="'tenet.oracle' has no __all__ list"):
        exported("tenet.oracle")
    with pytest.raises(ModuleNotFoundError, match="no source file for module 'tenet.nothing'"):
        exported("tenet.nothing")
