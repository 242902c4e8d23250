"""PE utilisation: how full the space-time of the array is, as exact fractions."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["active_pes_avg", "utilisation"]


def active_pes_avg(occupied_points: int, timestamps: int) -> Fraction:
    """Return the PEs busy per time-stamp on average: occupied (PE, time-stamp) points over
    time-stamps (0 when there is no time-stamp).

    Examples
    --------
    >>> active_pes_avg(12, 4)
    Fraction(3, 1)
    """
    return Fraction(occupied_points, timestamps) if timestamps else Fraction(0)


def utilisation(occupied_points: int, pe_count: int, timestamps: int) -> Fraction:
    """Return the share of the array's space-time that runs an instance: occupied points over
    PEs times time-stamps (0 when there is no time-stamp).

    Examples
    --------
    >>> utilisation(12, 8, 4)
    Fraction(3, 8)
    """
    return Fraction(occupied_points, pe_count * timestamps) if timestamps else Fraction(0)
