"""Where and how a search runs: the engine and its workers, the results store, the time and
CPU budgets, the batch size, the progress display, the lines of news and the count cache, as one
record that every search (:class:`tenet.dse.run.runner.Runner`) and the command line share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tenet.dse.run.engines import Engine, make_engine
from tenet.dse.run.store import ResultStore
from tenet.errors import SpecError

__all__ = ["ExecutionOptions", "Progress"]

Progress = Callable[..., Iterable[Any]]
"""Wraps a stream of results, called as ``progress(items, total=n, desc=what)`` (e.g.
``tqdm``)."""

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class ExecutionOptions:
    """How a search is run; none of these options changes its results.

    Examples
    --------
    >>> ExecutionOptions(workers=1).engine
    'local'
    >>> ExecutionOptions(address="tcp://127.0.0.1:8786")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: address: address needs engine 'dask', got 'local'
    >>> ExecutionOptions(cpu_budget=-1)
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: cpu_budget: expected CPU seconds >= 0, got -1
    """

    engine: str | Engine | None = "local"
    """``local`` (a process pool), ``dask`` (a local cluster, or the scheduler at
    ``address``), an :class:`~tenet.dse.run.engines.Engine` to share between calls, or None: in
    this process."""
    workers: int = 2
    """Processes of the pool or local cluster (at least 1)."""
    address: str | None = None
    """Address of a running Dask scheduler (only with engine ``dask``)."""
    store: str | Path | ResultStore | None = None
    """SQLite file (or open store) for the results (None: in memory); a run found there is
    resumed."""
    time_budget: float | None = None
    """Seconds (wall clock) after which no new task is started and those running are dropped
    (a branch and bound's subtree stops where it is); the result is then incomplete. None: no
    limit."""
    cpu_budget: float | None = None
    """CPU seconds (``time.process_time``: this process's and its workers', each job's as it
    reports it) after which no new task starts; each task of a branch and bound's subtree
    spends at most its share of what is left (:mod:`tenet.dse.run.budget`) and stops where it
    is. With :attr:`time_budget`, the first to run out stops the search. None: no limit."""
    batch: int = 4
    """Design points per task sent to a worker (at least 1)."""
    progress: Progress | None = None
    """Wraps the stream of results (e.g. ``tqdm``); None: nothing shown."""
    tell: Callable[[str], object] | None = None
    """Takes each line of news of a search as it goes (a branch and bound's best so far, its
    bound and their gap); None: nothing told."""
    cache: str | Path | None = None
    """Folder of the workers' count cache (:mod:`tenet.dse.run.row_cache`); None: in memory only."""

    def __post_init__(self) -> None:
        if isinstance(self.engine, str) and self.engine not in ENGINES:
            raise SpecError(
                f"unknown engine {self.engine!r} (known: {', '.join(ENGINES)})", source="engine"
            )
        if self.workers < 1:
            raise SpecError(f"workers must be at least 1, got {self.workers}", source="workers")
        if self.address is not None and self.engine != "dask":
            raise SpecError(f"address needs engine 'dask', got {self.engine!r}", source="address")
        if self.time_budget is not None and not self.time_budget >= 0:
            raise SpecError(
                f"expected seconds >= 0, got {self.time_budget:g}", source="time_budget"
            )
        if self.cpu_budget is not None and not self.cpu_budget >= 0:
            raise SpecError(
                f"expected CPU seconds >= 0, got {self.cpu_budget:g}", source="cpu_budget"
            )
        if self.batch < 1:
            raise SpecError(f"batch must be at least 1, got {self.batch}", source="batch")

    @contextmanager
    def shared(self) -> Iterator[ExecutionOptions]:
        """Yield these options with one engine that every search run under them shares (its
        workers start once and report their CPU seconds), made from the engine's name and
        closed on leaving; options naming no engine to make come back as they are.

        Examples
        --------
        >>> with ExecutionOptions(workers=1).shared() as run:
        ...     isinstance(run.engine, Engine)
        True
        """
        if not isinstance(self.engine, str):
            yield self
            return
        with make_engine(self.engine, self.workers, self.address) as engine:
            yield replace(self, engine=engine)
