"""The figures of design points kept by the canonical text of their relations.

Two design points with the same bound domain, accesses, dependences, stamps, PE set, links,
architecture figures and neighbourhood have the same row of figures, whatever their names, the
network layer or the exploration they belong to (repeated layers of a network, the same
candidate reached twice): :class:`RowCache` counts each such point once per worker process and,
given a folder, keeps its row there for later runs and other workers (one JSON file per key,
written through a temporary file). A row left ``pruned`` is kept with the bound it was pruned
against and given again only under a bound as tight (same objective, a value as low or lower:
the point's objective is above it too); under a looser bound the point is counted again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tenet.files import KeyedFiles
from tenet.metrics.cache import problem_key
from tenet.metrics.design import Cutoff
from tenet.model.legality import Dependence
from tenet.model.problem import Problem

__all__ = ["RowCache", "row_key", "worker_cache"]

#: Bumped when the figures of a design point or their counting change.
ROW_VERSION = 1

#: Rows a worker keeps in memory (the least recently used go first).
MEMORY_ROWS = 20_000

#: The outcomes that do not depend on a bound.
CACHED_STATUSES = ("ok", "illegal")

#: The field of a kept ``pruned`` row holding its bound.
PRUNED_UNDER = "pruned_under"


def row_key(problem: Problem, found: Sequence[Dependence]) -> str:
    """Return a hash of the canonical text of the relations of a design point: those of
    ``problem`` (:func:`tenet.metrics.cache.problem_key`) and the dependences ``found`` its
    legality is checked against.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> a = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 8})
    >>> b = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 8})
    >>> row_key(a, ()) == row_key(b, ()), row_key(a, ()) == problem_key(a)
    (True, False)
    """
    parts = [
        f"design row {ROW_VERSION}",
        problem_key(problem),
        *(f"{d.kind} {d.tensor} {d.relation}" for d in found),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class RowCache:
    """Rows of figures by :func:`row_key`, in memory and (given ``folder``) on disk."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self._files = KeyedFiles[dict[str, Any]](folder, ".json", _dump, json.loads, MEMORY_ROWS)
        self.hits = 0
        self.misses = 0

    def get(
        self, key: str, make: Callable[[], dict[str, Any]], bound: Cutoff | None = None
    ) -> dict[str, Any]:
        """Return the row of ``key`` (status, reason and figures) as known already, or made by
        ``make()`` under ``bound`` and kept.

        Examples
        --------
        >>> cache = RowCache()
        >>> cache.get("k", lambda: {"status": "ok", "reason": "", "timestamps": 3})["timestamps"]
        3
        >>> cache.get("k", lambda: {})["timestamps"], (cache.hits, cache.misses)
        (3, (1, 1))
        >>> pruned = {"status": "pruned", "reason": "latency at least 9, above 5"}
        >>> cache.get("p", lambda: pruned, ("latency", 5))["status"]
        'pruned'
        >>> cache.get("p", dict, ("latency", 4))["status"], cache.misses
        ('pruned', 2)
        >>> cache.get("p", lambda: {"status": "ok"}, ("latency", 10))["status"], cache.misses
        ('ok', 3)
        """
        found = self._files.get(key)
        if found is not None and _holds(found, bound):
            self.hits += 1
            self._files.keep(key, found)
            return {k: v for k, v in found.items() if k != PRUNED_UNDER}
        self.misses += 1
        row = make()
        kept = dict(row)
        if row.get("status") == "pruned" and bound is not None:
            kept[PRUNED_UNDER] = list(bound)
        if row.get("status") in CACHED_STATUSES or PRUNED_UNDER in kept:
            self._files.put(key, kept)
        return dict(row)


def _dump(row: dict[str, Any]) -> bytes:
    return json.dumps(row, sort_keys=True).encode()


def _holds(row: dict[str, Any], bound: Cutoff | None) -> bool:
    """Whether a kept ``row`` is the row of its point under ``bound``: a complete row or a
    legality verdict always; a pruned one under a bound at least as tight as its own."""
    if row.get("status") != "pruned":
        return True
    if bound is None or PRUNED_UNDER not in row:
        return False
    objective, value = row[PRUNED_UNDER]
    return bool(objective == bound[0] and bound[1] <= value)


_CACHES: dict[str | None, RowCache] = {}


def worker_cache(folder: str | None) -> RowCache:
    """Return this process's cache of rows kept in ``folder`` (None: in memory only)."""
    found = _CACHES.get(folder)
    if found is None:
        found = _CACHES[folder] = RowCache(folder)
    return found
