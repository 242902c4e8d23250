"""The exception tree of tenet.

Every error raised on bad input derives from :class:`TenetError`. Spec errors say which file and
which field; dataflow errors carry a witness point found by isl.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "TenetError",
    "SpecError",
    "IslSyntaxError",
    "UnknownTensorError",
    "VersionError",
    "DataflowError",
    "DomainNotCoveredError",
    "NotAFunctionError",
    "OutsideArrayError",
    "CountingError",
    "NotABijectionError",
    "CapacityError",
    "TimeBudgetError",
    "InfeasibleError",
    "NotALoopNestError",
]


class TenetError(Exception):
    """Base class of every error tenet raises on purpose.

    ``str()`` reads ``source: location: reason`` (parts that are unknown are left out); the
    parts are kept as attributes.
    """

    def __init__(self, reason: str, *, source: str | None = None, location: str | None = None):
        self.reason = reason
        self.source = source
        self.location = location
        super().__init__(": ".join(p for p in (source, location, reason) if p))


class SpecError(TenetError, ValueError):
    """A specification (file, YAML key or argument) is malformed."""


class IslSyntaxError(SpecError):
    """An isl string could not be parsed; the message quotes the text."""

    def __init__(
        self,
        text: str,
        *,
        source: str | None = None,
        location: str | None = None,
        detail: str = "",
    ):
        self.text = text
        reason = f"malformed isl text {text!r}" + (f" ({detail})" if detail else "")
        super().__init__(reason, source=source, location=location)


class UnknownTensorError(SpecError):
    """A tensor name is not one of the workload's tensors."""

    def __init__(
        self,
        name: str,
        known: Iterable[str],
        *,
        source: str | None = None,
        location: str | None = None,
    ):
        known = sorted(known)
        lowered = {k.lower(): k for k in known}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1)
        hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
        self.name = name
        self.known = known
        super().__init__(
            f"tensor {name!r} is not in the workload (known: {', '.join(known)}){hint}",
            source=source,
            location=location,
        )


class VersionError(SpecError):
    """A spec declares a ``version`` this release does not read."""


class DataflowError(TenetError, ValueError):
    """A dataflow is not a valid schedule of its workload on its architecture; ``witness`` is
    the isl text of an instance that shows the failure, when there is one."""

    #: The legality check that fails (``coverage``, ``function``, ``array``), or None.
    kind: str | None = None

    def __init__(
        self,
        reason: str,
        *,
        source: str | None = None,
        location: str | None = None,
        witness: str | None = None,
    ):
        self.witness = witness
        super().__init__(reason, source=source, location=location)


class DomainNotCoveredError(DataflowError):
    """Some instances of the iteration domain get no space-stamp or no time-stamp."""

    kind = "coverage"


class NotAFunctionError(DataflowError):
    """Some instance gets two different space-stamps or time-stamps."""

    kind = "function"


class OutsideArrayError(DataflowError):
    """Some instance is placed on a PE outside the architecture's PE set."""

    kind = "array"


class CountingError(TenetError, ValueError):
    """A count cannot be made exactly (unbound parameter, value outside the domain, ...)."""


class NotABijectionError(SpecError):
    """A layout transform sends two tensor elements to one position (or out of its extents)."""


class CapacityError(TenetError, ValueError):
    """No tiling fits the capacities of the memory levels; the message names the smallest need."""


class TimeBudgetError(TenetError, ValueError):
    """A search's time budget ran out before it found anything to answer with."""


class InfeasibleError(SpecError):
    """A well-posed request that cannot be carried out: a dataflow not expressible with
    data-centric directives, or directives outside the estimator's model.

    A :class:`SpecError`, so that callers that report any refused input alike keep doing so;
    catch this class to tell an infeasible request from a malformed one.
    """


class NotALoopNestError(TenetError, ValueError):
    """A dataflow that no per-level loop nest expresses (a skewed or modulo-wrapped stamp term,
    or loops whose relations differ from the stamps'); the message names the term and why."""
