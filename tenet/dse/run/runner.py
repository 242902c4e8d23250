"""The run loop of every search: its engine and results store, its time budget, its progress and
the news it tells, and the parts it stores and resumes.

A search cuts its work into numbered parts (design points, choices of tile sizes, subtrees of a
branch and bound), named so that a store can tell they are the same. :meth:`Runner.open` opens
the search's run in the store (its key a hash of the search's arguments) and checks the names
of what the store holds; the parts not stored go to the engine as jobs, each a task run
``task(*job)`` in a worker on text arguments (never isl objects), and come back as they finish.
A part settled in this process (pruned by its bound, say) comes back in its place as a
:class:`Settled`. :func:`run_parts` is that loop for parts whose results are JSON text, stored
as they arrive: a search started again with the same arguments and store counts only what is
missing.

The runner makes what :class:`~tenet.dse.run.execution.ExecutionOptions` names (an engine, a
store) and closes what it made; after a failure (an error, Ctrl-C, a time budget), the engine's
work stops at once. Ctrl-C in a search that keeps a best so far raises :class:`Interrupted`
with what it found.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tenet.dse.run.engines import Engine, InProcessEngine, Job, make_engine
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.run.store import ResultStore, run_key

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Runner", "StoredRun", "Settled", "Interrupted", "run_parts"]

_T = TypeVar("_T")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a search that keeps a best so far: ``partial`` is what it had found (a
    :class:`~tenet.dse.ranking.certificate.Certificate` that is not complete)."""

    def __init__(self, partial: object) -> None:
        super().__init__("interrupted")
        self.partial = partial


@dataclass(frozen=True)
class Settled:
    """A part settled in this process without a task (pruned by its bound, say): its index and
    its result."""

    index: int
    result: Any


@dataclass(frozen=True)
class StoredRun:
    """One run of a search in a results store: its key and the names of its parts."""

    store: ResultStore
    key: str
    names: Mapping[int, str]

    def done(self) -> dict[int, str]:
        """The stored parts: index -> name."""
        return self.store.done(self.key)

    def rows(self) -> pd.DataFrame:
        """The stored rows, by index."""
        return self.store.rows(self.key)

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Store ``rows`` (each with ``idx``) in one transaction."""
        self.store.add(self.key, rows)

    def results(self, decode: Callable[[str], _T]) -> dict[int, _T]:
        """The results of the stored parts (their JSON text decoded), by index."""
        return {k: decode(text) for k, text in self.store.reasons(self.key).items()}

    def keep(self, index: int, text: str, status: str = "ok") -> None:
        """Store the result ``text`` (JSON) of part ``index`` under ``status``."""
        self.add([{"idx": index, "name": self.names[index], "status": status, "reason": text}])


class Runner:
    """Where one search runs: the engine and the store of ``execution``, the deadline of its
    time budget (from now), its progress display and the lines it tells.

    Examples
    --------
    >>> with Runner(ExecutionOptions(None)) as runner:
    ...     stored = runner.open({"search": "squares"}, {0: "two", 1: "three"})
    ...     list(runner.run(pow, [(2, 2), Settled(1, "pruned"), (3, 2)]))
    [4, Settled(index=1, result='pruned'), 9]
    """

    def __init__(self, execution: ExecutionOptions | None = None) -> None:
        self.execution = execution = execution or ExecutionOptions(None)
        budget = execution.time_budget
        self.deadline = None if budget is None else time.monotonic() + budget
        """When no new task starts (``time.monotonic()``; None: no time budget)."""
        cache = execution.cache
        if cache is not None:
            Path(cache).mkdir(parents=True, exist_ok=True)
        self.cache = None if cache is None else str(Path(cache).resolve())
        """Folder of the workers' row cache (:mod:`tenet.dse.run.row_cache`), made here, or None."""
        given = execution.engine
        self._engine = given if isinstance(given, Engine) else None
        self._own_engine = False
        store = execution.store
        self._own_store = not isinstance(store, ResultStore)
        self.store = store if isinstance(store, ResultStore) else ResultStore(store)
        """The results store (in memory when none is named)."""
        self.stored = execution.store is not None
        """Whether the results outlive the search (a store was named or given)."""

    @property
    def engine(self) -> Engine:
        """The engine, made on first use (none made when every part is stored)."""
        if self._engine is None:
            e = self.execution
            engine = e.engine
            made = InProcessEngine() if engine is None else None
            self._engine = made or make_engine(str(engine), e.workers, e.address)
            self._own_engine = True
        return self._engine

    def expired(self) -> bool:
        """Whether the time budget has run out."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def open(
        self,
        arguments: Mapping[str, Any],
        names: Mapping[int, str],
        recorded: Mapping[str, Any] | None = None,
    ) -> StoredRun:
        """Open (or resume) the run of ``arguments`` (its key) for the parts ``names`` (index ->
        name), recording ``recorded`` (default: the arguments); raise
        :class:`~tenet.errors.SpecError` when the stored parts are not among them."""
        key = run_key(arguments)
        self.store.resume(key, arguments if recorded is None else recorded, names)
        return StoredRun(self.store, key, names)

    def run(
        self,
        task: Callable[..., Any],
        jobs: Iterable[Job | Settled],
        until: float | None = None,
    ) -> Iterator[Any]:
        """Yield ``task(*job)`` for each job as it finishes, and each :class:`Settled` item in
        its place (after the results that came before it); no task starts after ``until``
        (default: the deadline), and those running then are dropped."""
        settled: list[Settled] = []

        def tasks() -> Iterator[Job]:
            for job in jobs:
                if isinstance(job, Settled):
                    settled.append(job)
                else:
                    yield job

        for result in self.engine.run(task, tasks(), self.deadline if until is None else until):
            yield from _drain(settled)
            yield result
        yield from _drain(settled)

    def shown(self, items: Iterable[_T], total: int, desc: str) -> Iterable[_T]:
        """``items`` through the progress display (``total`` of them, what they are:
        ``desc``), if any."""
        progress = self.execution.progress
        return items if progress is None else progress(items, total=total, desc=desc)

    def tell(self, line: str) -> None:
        """Tell one line of news (a branch and bound's incumbent and bound), if anyone
        listens."""
        if self.execution.tell is not None:
            self.execution.tell(line)

    def close(self, failure: BaseException | None = None) -> None:
        """Close what was made here; after a ``failure``, stop the engine's work at once."""
        if self._own_engine and self._engine is not None:
            self._engine.__exit__(type(failure) if failure else None, failure, None)
            self._engine = None
        if self._own_store:
            self.store.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind: object, failure: BaseException | None, trace: object) -> None:
        self.close(failure)


def _drain(settled: list[Settled]) -> Iterator[Settled]:
    while settled:
        yield settled.pop(0)


def run_parts(
    runner: Runner,
    stored: StoredRun,
    task: Callable[..., tuple[int, str]],
    jobs: Iterable[Job | Settled],
    decode: Callable[[str], _T],
    status: Callable[[_T], str | None],
    *,
    total: int,
    desc: str,
    until: float | None = None,
) -> Iterator[tuple[int, _T]]:
    """Run the parts of ``jobs`` on the runner's engine (``task`` returns a part's index and
    its result as JSON text, read by ``decode``) and yield each part's index and result as
    it finishes, storing it in ``stored`` under ``status(result)`` (None: not stored, a part
    cut short); a :class:`Settled` part is yielded as it is, not stored. ``total`` parts are
    shown as ``desc`` in the progress display."""
    for item in runner.shown(runner.run(task, jobs, until), total, desc):
        if isinstance(item, Settled):
            yield item.index, item.result
            continue
        index, text = item
        result = decode(text)
        kept = status(result)
        if kept is not None:
            stored.keep(index, text, kept)
        yield index, result
