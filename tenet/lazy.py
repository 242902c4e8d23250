"""Re-exports imported on first use: the ``__getattr__`` of a package whose front door names
things from modules that are slow to import (pandas), so that importing the package stays
fast."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


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
