"""Data volumes per tensor access, in elements: exact counts of the data assignment and of
the part of it found at space-time neighbours."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import islpy as isl

from tenet.counting import count
from tenet.model.problem import Problem, TensorAccess
from tenet.vocab import Access, TensorName

__all__ = ["TensorCounts", "count_tensor", "reused"]


def reused(assignment: isl.Map, neighbourhood: isl.Map) -> isl.Map:
    """Return the (point, element) pairs of ``assignment`` whose element is also held at a
    neighbour of the point.

    Not coalesced: merging the pieces can make barvinok's count hundreds of times slower
    (row-stationary conv mappings), while the pieces as built count quickly."""
    return assignment.intersect(neighbourhood.apply_range(assignment))


@dataclass(frozen=True)
class TensorCounts:
    """Exact counts for one tensor access, in (instance or space-time point, element) pairs."""

    tensor: TensorName
    access: Access
    total: int
    """(instance, element) pairs: every access of every instance."""
    held: int
    """(space-time point, element) pairs: each element once per point that touches it."""
    reused: int
    """Held pairs whose element is at a neighbour of the problem's neighbourhood."""
    reused_window: int
    """Held pairs whose element is at a linked PE or itself, at t or prev t (the original's)."""
    reused_temporal: int
    """Held pairs whose element is at the same PE at the previous occupied time-stamp."""
    reused_spatial: int
    """Held pairs whose element is at a linked PE, one step earlier or (multicast) the same."""
    reused_linked: int
    """Held pairs whose element is at a linked PE at the same or previous time-stamp."""

    @property
    def unique(self) -> int:
        """Elements brought in from outside the PE neighbourhood (unique volume)."""
        return self.held - self.reused

    @property
    def unique_window(self) -> int:
        """Unique volume under the original's neighbourhood (linked PE or self, t or prev t)."""
        return self.held - self.reused_window

    @property
    def reuse(self) -> int:
        """Accesses served by reuse: total minus unique volume."""
        return self.total - self.unique

    @property
    def volume_reuse_temporal(self) -> int:
        """Accesses served inside the PE (same point or previous time-stamp); not to be
        confused with :attr:`reused_temporal`, which counts held pairs."""
        return self.total - (self.held - self.reused_temporal)

    @property
    def reuse_factor(self) -> Fraction:
        """Total over unique volume (0 when nothing is accessed)."""
        return Fraction(self.total, self.unique) if self.unique else Fraction(0)


def count_tensor(problem: Problem, access: TensorAccess) -> TensorCounts:
    """Count every volume of one tensor access of ``problem``.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> from tenet.spec import WorkloadSpec, ArchitectureSpec, DataflowSpec
    >>> w = WorkloadSpec.from_mapping({"name": "w", "domain": "{S[i]: 0 <= i < 4}",
    ...     "accesses": {"A": {"read": "{S[i] -> A[0]}"}}})
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[p]: 0 <= p < 2}",
    ...     "interconnect": [{"link": "{PE[p] -> PE[p + 1]}"}]})
    >>> d = DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i] -> PE[i % 2]}",
    ...     "time_stamp": "{S[i] -> T[floor(i / 2)]}"})
    >>> p = load_problem(w, a, d)
    >>> c = count_tensor(p, p.accesses[0])
    >>> c.total, c.unique, c.reused_temporal, c.reused_spatial
    (4, 1, 2, 1)
    """
    assignment = problem.assignment(access)
    window = count(reused(assignment, problem.neighbours.window))
    return TensorCounts(
        tensor=access.tensor,
        access=access.access,
        total=count(access.relation),
        held=count(assignment),
        reused=(
            window
            if problem.neighbourhood == "window"
            else count(reused(assignment, problem.neighbours.reuse))
        ),
        reused_window=window,
        reused_temporal=count(reused(assignment, problem.neighbours.temporal)),
        reused_spatial=count(reused(assignment, problem.neighbours.spatial)),
        reused_linked=count(reused(assignment, problem.neighbours.linked)),
    )
