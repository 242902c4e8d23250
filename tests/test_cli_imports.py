"""The command line is thin: each module of ``tenet/cli/`` parses options, calls the library's
public entry points and renders, so it imports only from the short lists below (read with
``ast``: every import of the module, at its top, in a function or for type hints)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CLI = ROOT / "tenet" / "cli"

PUBLIC = frozenset(
    {
        # the top-level API: load_problem, analyze, assess, check, explore, evaluate
        "tenet",
        # what every layer shares: the error classes, names and units, files written whole
        "tenet.errors",
        "tenet.vocab",
        "tenet.files",
        # the renderers: tables, plots, figure files, text of results
        "tenet.report",
        # the front door of each package a command drives, never a module inside it
        "tenet.spec",
        "tenet.zoo",
        "tenet.dse",
        "tenet.mapping",
        "tenet.layout",
        "tenet.maestro",
        "tenet.schedule",
        "tenet.peers",
        "tenet.networks",
        "tenet.designs",
    }
)
"""The library modules a command module may import, besides ``tenet.cli`` and its modules."""

THIRD_PARTY = frozenset({"click", "tqdm"})
"""Libraries a command module may import besides the standard library: the command parser and
the progress bar (tables and plots come from :mod:`tenet.report`)."""

TYPE_HINTS = frozenset({"pandas", "matplotlib"})
"""Libraries named only in type hints (under ``if TYPE_CHECKING:``): the types of what the
library returns and the command renders."""


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Return the line numbers inside ``if TYPE_CHECKING:`` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """Return (line, module imported, for type hints only) of every import of ``path``; a
    module of ``tenet`` imported by name (``from tenet import report``) counts as itself."""
    tree = ast.parse(path.read_text(), filename=str(path))
    hints = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, node.lineno in hints) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}:{node.lineno}: relative import"
            module = node.module or ""
            for alias in node.names:
                named = f"{module}.{alias.name}"
                is_module = module == "tenet" and (
                    (ROOT / "tenet" / alias.name).is_dir()
                    or (ROOT / "tenet" / f"{alias.name}.py").is_file()
                )
                found.append((node.lineno, named if is_module else module, node.lineno in hints))
    return found


def _allowed(module: str, hint_only: bool) -> bool:
    if module in PUBLIC or module == "tenet.cli" or module.startswith("tenet.cli."):
        return True
    root = module.partition(".")[0]
    if root == "tenet":
        return False
    return (
        root == "__future__"
        or root in sys.stdlib_module_names
        or root in THIRD_PARTY
        or (hint_only and root in TYPE_HINTS)
    )


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_cli_imports_only_public_entry_points(path: Path) -> None:
    wrong = [
        f"{path.name}:{line}: {module}"
        for line, module, hint_only in _imports(path)
        if not _allowed(module, hint_only)
    ]
    assert not wrong, "imports outside the public entry points:\n" + "\n".join(wrong)


def test_cli_imports_check_catches_a_deep_import(tmp_path: Path) -> None:
    module = tmp_path / "command.py"
    module.write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import pandas\n"
        "from tenet import analyze, metrics\n"
        "from tenet.dse.run.store import ResultStore\n"
        "if TYPE_CHECKING:\n"
        "    import pandas as pd\n"
    )
    wrong = [(line, m) for line, m, hint in _imports(module) if not _allowed(m, hint)]
    assert wrong == [(3, "pandas"), (4, "tenet.metrics"), (5, "tenet.dse.run.store")]
