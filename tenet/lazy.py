"""Re-exports imported on first use: the ``__getattr__`` of a package whose front door names
things from modules that are slow to import (pandas), so that importing the package stays
fast; and the names a module exports, read without importing it, for a package that
re-exports all of them."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["exported", "lazy_exports"]


def exported(module: str) -> list[str]:
    """Return the names ``module`` exports, its ``__all__`` list, read from its source file
    without importing it (a package that re-exports a whole module lists its names once, there).

    Examples
    --------
    >>> exported("tenet.lazy")
    ['exported', 'lazy_exports']
    """
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no source file for module {module!r}")
    for node in ast.parse(Path(spec.origin).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            names: list[str] = ast.literal_eval(node.value)
            return names
    raise AttributeError(f"module {module!r} has no __all__ list")


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` for ``package``: each name of ``homes`` is imported
    from the module ``homes[name]`` (relative to ``package``) the first time it is read, then
    kept in the package.

    Examples
    --------
    >>> get = lazy_exports("tenet", {"ExecutionOptions": "dse.run.execution"})
    >>> get("ExecutionOptions").__name__
    'ExecutionOptions'
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{homes[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
