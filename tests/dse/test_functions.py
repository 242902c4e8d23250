"""Small functions in the searches: no function of ``tenet.dse`` (nested ones included) is
longer than :data:`MOST_LINES` lines, its docstring and decorators counted."""

from __future__ import annotations

import ast
from pathlib import Path

DSE = Path(__file__).resolve().parents[2] / "tenet" / "dse"
MOST_LINES = 100


def test_no_function_of_the_searches_over_100_lines() -> None:
    long = {}
    for path in sorted(DSE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - first + 1
                if lines > MOST_LINES:
                    long[f"{path.relative_to(DSE.parents[1])}:{node.name}"] = lines
    assert not long, f"functions over {MOST_LINES} lines: {long}"
