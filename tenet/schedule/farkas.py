"""The affine form of Farkas' lemma: when is an affine form non-negative on a polyhedron?

An affine form ``f(x)`` is non-negative at every point of a non-empty polyhedron
``P = {x : g_q(x) >= 0, h_e(x) = 0}`` exactly when it is a non-negative combination of the
constraints: ``f(x) = λ_0 + Σ λ_q g_q(x) + Σ μ_e h_e(x)`` identically in ``x``, with
``λ >= 0`` and ``μ`` free (rational multipliers). When the coefficients of ``f`` are affine in
unknowns ``y`` (the coefficients of a hyperplane, of a bounding function), matching the
coefficients of each ``x`` and of the constant gives linear equalities in ``(y, λ, μ)``; the
multipliers are then eliminated (Fourier-Motzkin, i.e. a rational projection), leaving linear
constraints on ``y`` alone: the linearisation the hyperplane search of :mod:`.hyperplanes`
solves. The variables ``x`` of a dependence polyhedron are its source and sink coordinates, its
size parameters and any local (existential) variable of its description.
"""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

__all__ = ["AffineForm", "farkas_constraints", "polyhedron_variables"]

AffineForm = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]
"""``(per_variable, constant)``: the coefficient of each variable ``x_v`` of the polyhedron and
the constant term, each an affine function of the unknowns given as integers
``(a_1, ..., a_U, a_0)`` for ``a_1 y_1 + ... + a_U y_U + a_0``."""


def polyhedron_variables(piece: isl.BasicSet) -> int:
    """Return the number of variables of the lifted ``piece``: set dimensions, then
    parameters (the order :func:`farkas_constraints` reads coefficients in)."""
    return piece.dim(isl.dim_type.set) + piece.dim(isl.dim_type.param)


def _rows(piece: isl.BasicSet) -> list[tuple[bool, list[int], int]]:
    """(is equality, coefficients of set dims then params, constant) of each constraint."""
    n_set, n_par = piece.dim(isl.dim_type.set), piece.dim(isl.dim_type.param)
    rows = []
    for constraint in piece.get_constraints():
        coefficients = [
            int(constraint.get_coefficient_val(isl.dim_type.set, k).to_python())
            for k in range(n_set)
        ] + [
            int(constraint.get_coefficient_val(isl.dim_type.param, k).to_python())
            for k in range(n_par)
        ]
        constant = int(constraint.get_constant_val().to_python())
        rows.append((constraint.is_equality(), coefficients, constant))
    return rows


def _term(coefficient: int, name: str) -> str:
    return f"{coefficient}*{name}" if coefficient != 1 else name


def _affine(values: Sequence[int], names: Sequence[str]) -> list[str]:
    terms = [_term(a, n) for a, n in zip(values[:-1], names, strict=True) if a]
    return terms + ([str(values[-1])] if values[-1] else [])


def farkas_constraints(
    piece: isl.BasicSet, form: AffineForm, unknowns: Sequence[str], ctx: isl.Context
) -> isl.BasicSet:
    """Return the constraints on ``unknowns`` under which ``form`` is non-negative on every
    (rational) point of the lifted basic set ``piece`` (which must not be empty).

    Examples
    --------
    ``c*x >= 0`` on ``0 <= x <= 5`` holds for ``c >= 0``; ``c*x + d >= 0`` on ``x = 3``
    holds for ``3c + d >= 0``:

    >>> box = isl.BasicSet("{[x]: 0 <= x <= 5}")
    >>> farkas_constraints(box, (((1, 0),), (0, 0)), ["c"], box.get_ctx())
    BasicSet("{ [c] : c >= 0 }")
    >>> point = isl.BasicSet("{[x]: x = 3}")
    >>> farkas_constraints(point, (((1, 0, 0),), (0, 1, 0)), ["c", "d"], point.get_ctx())
    BasicSet("{ [c, d] : d >= -3c }")
    """
    per_variable, constant = form
    rows = _rows(piece)
    multipliers = [f"lambda{q}" for q in range(len(rows) + 1)]
    conditions = [
        f"{name} >= 0" for name, (eq, _, _) in zip(multipliers[1:], rows, strict=True) if not eq
    ]
    conditions.append(f"{multipliers[0]} >= 0")
    for v, coefficient in enumerate(per_variable):
        left = _affine(coefficient, unknowns)
        right = [_term(g[v], m) for m, (_, g, _) in zip(multipliers[1:], rows, strict=True) if g[v]]
        conditions.append(f"{' + '.join(left) or '0'} = {' + '.join(right) or '0'}")
    left = _affine(constant, unknowns)
    right = [multipliers[0]] + [
        _term(c, m) for m, (_, _, c) in zip(multipliers[1:], rows, strict=True) if c
    ]
    conditions.append(f"{' + '.join(left) or '0'} = {' + '.join(right)}")
    text = f"{{ [{', '.join([*unknowns, *multipliers])}] : {' and '.join(conditions)} }}"
    system = isl.BasicSet.read_from_str(ctx, text)
    projected = system.project_out(isl.dim_type.set, len(unknowns), len(multipliers))
    return projected.remove_divs()
