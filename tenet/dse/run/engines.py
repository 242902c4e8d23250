"""Where design points are evaluated: a pool of local processes (the default) or a Dask
cluster (a local one of ``workers`` processes, or an existing scheduler at ``address``).

Both take batches of tasks as plain text and hand results back as they finish, keeping a
bounded number of batches in flight; both stop submitting at a deadline and cancel what is left
when the caller stops early. Each task comes back with the CPU time its worker spent on it
(:func:`timed`), added up in :attr:`Engine.worker_seconds`. The local workers leave Ctrl-C to
the process that started them (which stops them), and a worker being started finishes starting
before Ctrl-C takes effect, so that an interrupted search prints no worker's traceback.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from tenet.errors import SpecError

__all__ = [
    "Engine",
    "LocalEngine",
    "DaskEngine",
    "InProcessEngine",
    "make_engine",
    "EngineName",
    "watch_parent",
    "timed",
]

EngineName = Literal["local", "dask"]
CONNECT_TIMEOUT = "5s"
"""How long to try to reach a Dask scheduler before giving up."""
Job = tuple[Any, ...]


WATCH_SECONDS = 0.5
"""How often a local worker checks that the process that started it is still alive."""


def watch_parent(parent: int) -> None:
    """Start a thread that ends this worker process when process ``parent`` has ended (killed,
    say), so that no worker (nor the fork server and resource tracker they keep alive) is
    left behind; Ctrl-C (SIGINT to the terminal's process group) is left to ``parent``, which
    stops its workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # alive, owned by another user after a reuse of its id
                continue

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def timed(function: Callable[..., Any], *job: Any) -> tuple[Any, float]:
    """Return ``function(*job)`` and the CPU seconds of this process (``time.process_time``)
    it took: a worker's task and its own time.

    Examples
    --------
    >>> result, seconds = timed(pow, 2, 3)
    >>> result, seconds >= 0
    (8, True)
    """
    start = time.process_time()
    result = function(*job)
    return result, time.process_time() - start


Work = Callable[..., Any]
"""What an engine runs on each job."""


@dataclass(frozen=True)
class Pace:
    """How an engine takes its jobs."""

    deadline: float | None = None
    """No job is submitted after it (a ``time.monotonic()`` value), and what is still
    running then is dropped (None: no end)."""
    held: int | None = None
    """The most jobs submitted and not finished (None: twice the workers, so that none waits
    for its next job)."""


UNPACED = Pace()
"""No deadline, and jobs held as the engine likes."""


class Engine(AbstractContextManager["Engine"]):
    """Runs ``function(*job)`` for each job, yielding results in completion order."""

    workers: int
    worker_seconds: float = 0.0
    """CPU seconds the workers spent on the tasks they finished, as each reported it with its
    result (:func:`timed`); 0 in this process, whose time is its own."""

    def _took(self, timed_result: tuple[Any, float]) -> Any:
        """The result of a task run by :func:`timed`, its CPU seconds added up."""
        result, seconds = timed_result
        self.worker_seconds += seconds
        return result

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        """Yield ``function(*job)`` for each job as it finishes, at the ``pace`` given: no
        job submitted after its deadline (what is still running then dropped), at most its
        ``held`` submitted and not finished."""
        raise NotImplementedError

    def _in_flight(self, pace: Pace) -> int:
        return 2 * self.workers if pace.held is None else pace.held


class InProcessEngine(Engine):
    """Runs every job in this process, one after the other (no pool to start)."""

    workers = 1

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        """Yield ``function(*job)`` for each job; start none after the ``pace``'s deadline."""
        for job in jobs:
            if pace.deadline is not None and time.monotonic() >= pace.deadline:
                return
            yield function(*job)


class LocalEngine(Engine):
    """A pool of ``workers`` local processes (started by a fork server).

    Examples
    --------
    >>> with LocalEngine(1) as engine:
    ...     sorted(engine.run(pow, iter([(2, 3), (3, 2)]))), engine.worker_seconds >= 0
    ([8, 9], True)
    """

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["tenet.dse.run.worker"])
        with _interrupts_ignored():  # the fork server and its workers inherit it
            multiprocessing.forkserver.ensure_running()
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=watch_parent,
            initargs=(os.getpid(),),
        )

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None:  # stopped by an error, a signal or a deadline: drop the work
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        pending: set[Future[Any]] = set()
        deadline = pace.deadline
        try:
            for job in jobs:
                if deadline is not None and time.monotonic() >= deadline:
                    return
                with _interrupts_held():  # a submission may start a worker
                    pending.add(self._pool.submit(timed, function, *job))
                while len(pending) >= self._in_flight(pace):
                    done, pending = _first_done(pending, deadline)
                    if not done:
                        return
                    yield from (self._took(future.result()) for future in done)
            while pending:
                done, pending = _first_done(pending, deadline)
                if not done:
                    return
                yield from (self._took(future.result()) for future in done)
        finally:
            for future in pending:
                future.cancel()


@contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """Ignore Ctrl-C while the block starts processes (in the main thread): they start with
    Ctrl-C ignored (a terminal's Ctrl-C reaches them too), and leave it to this process,
    which stops them. A Ctrl-C meanwhile is blocked in this thread, not lost: it reaches it
    when the block ends (a thread of this process that does not block it may still take it
    and find it ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends (in the main thread): a worker that the pool
    starts meanwhile is then known to it, and stopped with it, rather than left to fail
    reading its start-up data from a process that has gone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[tuple[int, Any]] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(*caught[0])


def _first_done(
    pending: set[Future[Any]], deadline: float | None
) -> tuple[set[Future[Any]], set[Future[Any]]]:
    """Wait for the first of ``pending`` to finish (at most until ``deadline``): the finished
    and the still pending (none finished: the deadline passed)."""
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    done, left = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
    return done, left


class DaskEngine(Engine):
    """A Dask cluster: a local one with ``workers`` single-threaded processes, or the
    scheduler at ``address``."""

    def __init__(self, workers: int = 2, address: str | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise SpecError(
                "the dask engine needs the 'distributed' package: pip install distributed"
            ) from exc
        self._cluster = None
        if address is None:
            self._cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # a free port: runs side by side do not collide
            )
            self._client = Client(self._cluster)
        else:
            import dask

            try:
                with dask.config.set({"distributed.comm.timeouts.connect": CONNECT_TIMEOUT}):
                    self._client = Client(address, timeout=CONNECT_TIMEOUT)
            except OSError as exc:
                raise SpecError(
                    f"cannot reach the Dask scheduler at {address!r} ({exc})",
                    source="--address",
                ) from exc
        self.workers = max(1, len(self._client.scheduler_info()["workers"]))

    def __exit__(self, *exc: object) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        from distributed import as_completed

        running = as_completed()
        count = 0
        futures = []
        try:
            for job in jobs:
                future = self._client.submit(timed, function, *job, pure=False)
                futures.append(future)
                running.add(future)
                count += 1
                if count < self._in_flight(pace):
                    continue
                yield self._took(next(running).result())
                count -= 1
                if pace.deadline is not None and time.monotonic() > pace.deadline:
                    return
            for future in running:
                yield self._took(future.result())
                if pace.deadline is not None and time.monotonic() > pace.deadline:
                    return
        finally:
            self._client.cancel([f for f in futures if not f.done()])


def make_engine(name: str, workers: int = 2, address: str | None = None) -> Engine:
    """Return the engine ``name`` (``local`` or ``dask``) with ``workers`` processes."""
    if workers < 1:
        raise SpecError(f"workers must be at least 1, got {workers}")
    if name == "local":
        return LocalEngine(workers)
    if name == "dask":
        return DaskEngine(workers, address)
    raise SpecError(f"unknown engine {name!r} (known: local, dask)")
