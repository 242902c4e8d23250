"""Exact counting with barvinok: every count is a Python ``int``."""

from __future__ import annotations

import islpy as isl

from tenet.errors import CountingError

__all__ = ["count", "constant_pieces"]


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


def constant_pieces(per_point: isl.PwQPolynomial) -> list[tuple[isl.Set, int]] | None:
    """Split a piecewise count into (domain, value) pairs, or return None when some piece's
    polynomial involves the variables (barvinok may write a value that varies, or one that is
    constant only on its piece's points, as a polynomial: both are None here).

    Examples
    --------
    >>> constant_pieces(isl.PwQPolynomial("{S[i] -> 3: 0 <= i < 4; S[i] -> 1: i = 4}"))
    [(Set("{ S[i] : 0 <= i <= 3 }"), 3), (Set("{ S[i = 4] }"), 1)]
    >>> constant_pieces(isl.PwQPolynomial("{S[i] -> 1 + i: 0 <= i < 4}")) is None
    True
    """
    pieces = []
    for domain, poly in per_point.get_pieces():
        n_vars = poly.dim(isl.dim_type.in_)
        if poly.involves_dims(isl.dim_type.in_, 0, n_vars) or poly.dim(isl.dim_type.param):
            return None
        value = poly.get_constant_val()
        if value.is_nan() or not value.is_int():
            return None
        pieces.append((domain, int(value.to_python())))
    return pieces
