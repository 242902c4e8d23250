"""One name per thing: no public name is defined at the top level of two modules of the package
(two homes for one concept, or one name for two things): classes, functions, and the names a
module assigns (``Name = ...``, ``Name: T = ...``: constants, type aliases)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tenet"


def _defined(node: ast.stmt) -> Iterator[str]:
    """The names a top-level statement defines."""
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node.name
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    yield name.id
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        yield node.target.id


def test_names_public_defined_once() -> None:
    homes: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            for name in _defined(node):
                if not name.startswith("_"):
                    homes[name].add(str(path.relative_to(PACKAGE.parent)))
    twice = {name: sorted(places) for name, places in homes.items() if len(places) > 1}
    assert not twice, f"defined in more than one module: {twice}"
