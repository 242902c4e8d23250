"""Exact counting with barvinok: every count is a Python ``int``."""

from __future__ import annotations

import islpy as isl

from tenet.errors import CountingError

__all__ = ["count", "count_pieces"]


def _constant(poly: isl.PwQPolynomial) -> int:
    if poly.dim(isl.dim_type.param):
        raise CountingError(f"count depends on unbound parameters: {poly}")
    value = poly.eval(isl.Point.zero(poly.get_domain_space()))
    if not value.is_int():
        raise CountingError(f"count is not an integer: {value}")
    return int(value.to_python())


def count(obj: isl.Set | isl.Map) -> int:
    """Return the number of points of a set, or of (input, output) pairs of a map.

    Examples
    --------
    >>> count(isl.Set("{S[i, j]: 0 <= i < 3 and 0 <= j <= i}"))
    6
    >>> count(isl.Map("{S[i] -> A[j]: 0 <= i < 4 and i <= j < 4}"))
    10
    """
    if isinstance(obj, isl.Map):
        obj = obj.wrap()
    return _constant(obj.card())


def count_pieces(per_point: isl.PwQPolynomial) -> list[tuple[isl.Set, int]]:
    """Split a piecewise count into (domain, constant value) pairs.

    Raises
    ------
    CountingError
        When a piece is not constant (its value varies polynomially over its domain).
    """
    pieces = []
    for domain, poly in per_point.get_pieces():
        value = poly.get_constant_val()
        if value.is_nan() or not value.is_int():
            raise CountingError(
                f"per-point count {poly} on {domain} is not constant: not supported exactly"
            )
        pieces.append((domain, int(value.to_python())))
    return pieces
