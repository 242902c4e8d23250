"""The run loop of every search: its engine and results store, its time and CPU budgets, its
progress and the news it tells, and the parts it stores and resumes.

A search cuts its work into numbered parts (design points, choices of tile sizes, subtrees of a
branch and bound), named so that a store can tell they are the same. :meth:`Runner.open` opens
the search's run in the store (its key a hash of the search's arguments) and checks the names
of what the store holds; the parts not stored go to the engine as jobs, each a task run
``task(*job)`` in a worker on text arguments (never isl objects), and come back as they finish.
A part settled in this process (pruned by its bound, say) comes back in its place as a
:class:`Settled`. :func:`run_parts` is that loop for parts whose results are JSON text, stored
as they arrive: a search started again with the same arguments and store counts only what is
missing.

The runner counts the search's CPU (this process's since it started, and what its finished jobs
report of their workers') and stops it at the first of its budgets (:mod:`tenet.dse.run.budget`):
no job starts past either, and a job that asks is granted an allowance that it checks as it
goes. The runner makes what :class:`~tenet.dse.run.execution.ExecutionOptions` names (an engine,
a store) and closes what it made; after a failure (an error, Ctrl-C, a time budget), the engine's
work stops at once. Ctrl-C in a search that keeps a best so far raises :class:`Interrupted`
with what it found.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tenet.dse.run.budget import Allowance, Ends
from tenet.dse.run.engines import Engine, InProcessEngine, Job, Pace, make_engine
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
    """Where one search runs: the engine and the store of ``execution``, the ends of its
    budgets (from now), its progress display and the lines it tells.

    Examples
    --------
    >>> with Runner(ExecutionOptions(None)) as runner:
    ...     stored = runner.open({"search": "squares"}, {0: "two", 1: "three"})
    ...     list(runner.run(pow, [(2, 2), Settled(1, "pruned"), (3, 2)]))
    [4, Settled(index=1, result='pruned'), 9]
    >>> with Runner(ExecutionOptions(None, cpu_budget=0)) as runner:
    ...     runner.expired(), list(runner.run(pow, [(2, 2)]))
    (True, [])
    """

    def __init__(self, execution: ExecutionOptions | None = None) -> None:
        self.execution = execution = execution or ExecutionOptions(None)
        wall = execution.time_budget
        deadline = None if wall is None else time.monotonic() + wall
        self.ends = Ends(deadline, execution.cpu_budget)
        """Where the search stops: its deadline (``time.monotonic()``) and its CPU seconds
        (:meth:`spent`); None: no such budget."""
        self._started = time.process_time()
        self._granted: dict[int, float] = {}
        """The CPU seconds granted to each job still running, by tag."""
        self._tags = itertools.count()
        cache = execution.cache
        if cache is not None:
            Path(cache).mkdir(parents=True, exist_ok=True)
        self.cache = None if cache is None else str(Path(cache).resolve())
        """Folder of the workers' row cache (:mod:`tenet.dse.run.row_cache`), made here, or None."""
        given = execution.engine
        self._engine = given if isinstance(given, Engine) else None
        self._reported = 0.0 if self._engine is None else self._engine.worker_seconds
        """The engine's :attr:`~tenet.dse.run.engines.Engine.worker_seconds` before this search."""
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
            self._reported = self._engine.worker_seconds
            self._own_engine = True
        return self._engine

    def spent(self) -> float:
        """CPU seconds of the search so far: this process's since the runner started and
        those its workers reported for the jobs of this search they finished."""
        workers = 0.0 if self._engine is None else self._engine.worker_seconds - self._reported
        return time.process_time() - self._started + workers

    def expired(self, ends: Ends | None = None) -> bool:
        """Whether a budget has run out (default: the search's, :attr:`ends`)."""
        ends = ends or self.ends
        if ends.deadline is not None and time.monotonic() >= ends.deadline:
            return True
        return ends.cpu is not None and self.spent() >= ends.cpu

    @property
    def limited(self) -> bool:
        """Whether the search has a budget (a part it cuts short is then not finished)."""
        return self.ends.limited

    def phase(self, fraction: float) -> Ends:
        """The ends of a phase of the search that may take ``fraction`` of what is left of
        each budget."""
        return self.ends.share(fraction, self.spent())

    def allowance(self, ends: Ends | None = None) -> Allowance:
        """What a search in this process may spend from now (default: to the search's
        :attr:`ends`): the clock's end and the CPU seconds left."""
        ends = ends or self.ends
        cpu = None if ends.cpu is None else max(0.0, ends.cpu - self.spent())
        return Allowance(ends.until(), cpu)

    def _left(self, ends: Ends) -> float | None:
        """CPU seconds to ``ends`` not granted to a running job (None: no CPU budget)."""
        if ends.cpu is None:
            return None
        return ends.cpu - self.spent() - sum(self._granted.values())

    def _grant(self, ends: Ends, tag: int) -> Allowance:
        """The allowance of job ``tag`` starting now: the clock's end, and the CPU seconds
        not granted divided among the workers free to run it."""
        left = self._left(ends)
        if left is None:
            return Allowance(ends.until())
        free = max(1, self.engine.workers - len(self._granted))
        self._granted[tag] = cpu = max(0.0, left) / free
        return Allowance(ends.until(), cpu)

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
        ends: Ends | None = None,
        allowed: bool = False,
    ) -> Iterator[Any]:
        """Yield ``task(*job)`` for each job as it finishes, and each :class:`Settled` item in
        its place (after the results that came before it); no task starts past ``ends``
        (default: the search's, :attr:`ends`), and those running at its deadline are dropped.
        ``allowed``: each task also takes the :class:`~tenet.dse.run.budget.Allowance` granted
        when it starts, as :meth:`~tenet.dse.run.budget.Allowance.plain` data (keyword
        ``allowance``), and a task starts only when a worker is free."""
        ends = ends or self.ends
        settled: list[Settled] = []
        tags: list[int] = []

        def tasks() -> Iterator[Job]:
            for job in jobs:
                if isinstance(job, Settled):
                    settled.append(job)
                    continue
                left = self._left(ends)
                if left is not None and left <= 0:
                    return
                tag = next(self._tags)
                tags.append(tag)
                granted = self._grant(ends, tag).plain() if allowed else None
                yield (task, tag, granted, *job)

        held = self.engine.workers if allowed and ends.cpu is not None else None
        try:
            for tag, result in self.engine.run(_granted, tasks(), Pace(ends.deadline, held)):
                self._granted.pop(tag, None)
                yield from _drain(settled)
                yield result
            yield from _drain(settled)
        finally:  # the jobs dropped at a deadline hold no grant
            for tag in tags:
                self._granted.pop(tag, None)

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


def _granted(
    task: Callable[..., Any], tag: int, allowance: list[float | None] | None, *job: Any
) -> tuple[int, Any]:
    """Worker task: ``task(*job)`` (with the ``allowance`` granted it, if any) and its
    ``tag``."""
    if allowance is None:
        return tag, task(*job)
    return tag, task(*job, allowance=allowance)


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
    ends: Ends | None = None,
    allowed: bool = False,
) -> Iterator[tuple[int, _T]]:
    """Run the parts of ``jobs`` on the runner's engine (``task`` returns a part's index and
    its result as JSON text, read by ``decode``) and yield each part's index and result as
    it finishes, storing it in ``stored`` under ``status(result)`` (None: not stored, a part
    cut short); a :class:`Settled` part is yielded as it is, not stored. ``total`` parts are
    shown as ``desc`` in the progress display; ``ends`` and ``allowed`` as for
    :meth:`Runner.run`."""
    for item in runner.shown(runner.run(task, jobs, ends, allowed), total, desc):
        if isinstance(item, Settled):
            yield item.index, item.result
            continue
        index, text = item
        result = decode(text)
        kept = status(result)
        if kept is not None:
            stored.keep(index, text, kept)
        yield index, result
