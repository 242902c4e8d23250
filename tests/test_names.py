"""One name per thing: no public class or function name is defined at the top level of two
modules of the package (two homes for one concept, or one name for two things)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tenet"


def test_names_public_defined_once() -> None:
    homes: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
                homes[node.name].add(str(path.relative_to(PACKAGE.parent)))
    twice = {name: sorted(places) for name, places in homes.items() if len(places) > 1}
    assert not twice, f"defined in more than one module: {twice}"
