"""The placement check: does a dataflow give every instance of the domain one PE of the array
and one time-stamp?

One check, in one wording, for :class:`~tenet.model.problem.Problem` (which raises the first
failure) and :func:`~tenet.model.legality.check_dataflow` (which collects them all):

- *coverage*: every instance of the domain gets a space-stamp and a time-stamp;
- *function*: each instance gets one space-stamp and one time-stamp;
- *array*: every instance runs on a PE of the array.

Each failure is a :class:`~tenet.errors.DataflowError` whose ``witness`` is an instance that
shows it, the smallest in lexicographic order where isl can pick one.
"""

from __future__ import annotations

from collections.abc import Iterator

import islpy as isl

from tenet.errors import (
    DataflowError,
    DomainNotCoveredError,
    NotAFunctionError,
    OutsideArrayError,
)
from tenet.isl_utils import witness

__all__ = ["placement_errors", "witness_pair"]


def witness_pair(relation: isl.Map) -> tuple[isl.Set, isl.Set]:
    """Return the lexicographically smallest pair ``x -> y`` of a non-empty ``relation`` as
    two one-point sets."""
    pair = relation.wrap().lexmin().sample_point()
    pair_set = isl.Set.from_point(pair).unwrap()
    return pair_set.domain(), pair_set.range()


def placement_errors(
    domain: isl.Set,
    space_stamp: isl.Map,
    time_stamp: isl.Map,
    pe_set: isl.Set,
    *,
    source: str | None = None,
) -> Iterator[DataflowError]:
    """Yield the placement failures of a dataflow (space-stamp and time-stamp) on the PE set,
    coverage and function of each stamp first, then the array, each with a witness.

    Lazy: take the first to raise it, or all to report them.

    Examples
    --------
    >>> domain = isl.Set("{S[i]: 0 <= i < 4}")
    >>> [error] = placement_errors(domain, isl.Map("{S[i] -> PE[i]}"),
    ...     isl.Map("{S[i] -> T[0]}"), isl.Set("{PE[p]: 0 <= p < 3}"))
    >>> print(error.kind, error)
    array instance S[3] runs on PE[3], outside the PE set { PE[p] : 0 <= p <= 2 }
    """
    for what, theta in (("space-stamp", space_stamp), ("time-stamp", time_stamp)):
        missing = domain.subtract(theta.domain())
        if not missing.is_empty():
            instance = witness(missing.lexmin())
            yield DomainNotCoveredError(
                f"instance {instance} has no {what}", source=source, witness=instance
            )
        on_domain = theta.intersect_domain(domain)
        if not on_domain.is_single_valued():
            pairs = on_domain.reverse().apply_range(on_domain)
            pairs = pairs.subtract(isl.Map.identity(pairs.get_space()))
            a, b = witness_pair(pairs)
            both = on_domain.intersect_range(a).domain()
            instance = witness(both.intersect(on_domain.intersect_range(b).domain()).lexmin())
            yield NotAFunctionError(
                f"instance {instance} gets two {what}s, {witness(a)} and {witness(b)}",
                source=source,
                witness=instance,
            )
    outside = space_stamp.intersect_domain(domain).subtract_range(pe_set)
    if not outside.is_empty():
        instance, pe = witness(outside.wrap().lexmin().unwrap()).split(" -> ")
        yield OutsideArrayError(
            f"instance {instance} runs on {pe}, outside the PE set {pe_set}",
            source=source,
            witness=instance,
        )
