"""What a search may spend, and what one of its jobs may spend of it.

A search stops at the first of two budgets: wall time (seconds of the clock) and CPU time
(seconds of ``time.process_time``: this process's since the search started, and what each
finished job reports of its worker's, :func:`tenet.dse.run.engines.timed`). :class:`Ends` is
where a search, or one phase of it, stops. A job cannot see the CPU the others spend while they
run, so the runner grants each job that asks an :class:`Allowance` when it starts: the clock's
end, and a share of the CPU seconds left (those left once the allowances of the jobs still
running are set aside, divided among the workers free to run it), which the job checks against
its own process's CPU as it goes (:meth:`Allowance.started`). The allowances running never add
up to more than what is left, so a search overruns its CPU budget by about one check of each
job (a node of a branch and bound) and this process's own work meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Allowance", "Ends"]


@dataclass(frozen=True)
class Ends:
    """Where a search (or one phase of it) stops: ``deadline`` on the clock
    (``time.monotonic()``) and ``cpu`` seconds of its CPU (that of
    :meth:`tenet.dse.run.runner.Runner.spent`); None: no limit.

    Examples
    --------
    >>> Ends(deadline=None, cpu=10.0).share(0.5, spent=4.0)
    Ends(deadline=None, cpu=7.0)
    """

    deadline: float | None = None
    cpu: float | None = None

    @property
    def limited(self) -> bool:
        """Whether either budget is set."""
        return self.deadline is not None or self.cpu is not None

    def share(self, fraction: float, spent: float) -> Ends:
        """The ends of a phase that may take ``fraction`` of what is left of each budget, the
        search having spent ``spent`` CPU seconds so far."""
        deadline = self.deadline
        if deadline is not None:
            now = time.monotonic()
            deadline = now + max(0.0, deadline - now) * fraction
        cpu = None if self.cpu is None else spent + max(0.0, self.cpu - spent) * fraction
        return Ends(deadline, cpu)

    def until(self) -> float | None:
        """The deadline as a ``time.time()`` value (another process's clock), or None."""
        if self.deadline is None:
            return None
        return time.time() + self.deadline - time.monotonic()


@dataclass(frozen=True)
class Allowance:
    """What one job may spend: until the clock (``time.time()``, seconds) passes ``until``,
    and ``cpu`` seconds of the CPU of the process that runs it, from its start; None: no
    limit. Sent to a worker as :meth:`plain` data.

    Examples
    --------
    >>> Allowance.of(Allowance(None, 2.5).plain())
    Allowance(until=None, cpu=2.5)
    >>> Allowance(cpu=0.0).started()()
    True
    >>> Allowance().started()()
    False
    """

    until: float | None = None
    cpu: float | None = None

    def plain(self) -> list[float | None]:
        """``[until, cpu]``: the allowance as JSON data."""
        return [self.until, self.cpu]

    @classmethod
    def of(cls, plain: Sequence[float | None] | None) -> Allowance:
        """The allowance of :meth:`plain` data (None: no limit)."""
        return cls() if plain is None else cls(plain[0], plain[1])

    def less(self, cpu: float) -> Allowance:
        """This allowance with ``cpu`` seconds of it spent already (a job's before its
        search).

        Examples
        --------
        >>> Allowance(None, 2.0).less(0.5), Allowance(None, 2.0).less(3.0).cpu
        (Allowance(until=None, cpu=1.5), 0.0)
        """
        return self if self.cpu is None else Allowance(self.until, max(0.0, self.cpu - cpu))

    def started(self) -> Callable[[], bool]:
        """Start spending the allowance in this process: return a check that tells whether
        it has run out (the clock past ``until``, or ``cpu`` seconds of this process's CPU
        spent since this call)."""
        until = self.until
        stop = None if self.cpu is None else time.process_time() + self.cpu
        if until is None and stop is None:
            return lambda: False

        def spent() -> bool:
            if until is not None and time.time() >= until:
                return True
            return stop is not None and time.process_time() >= stop

        return spent
