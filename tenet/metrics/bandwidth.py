"""Bandwidths in elements per cycle: a volume moved over the latency of the dataflow."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["bandwidth"]


def bandwidth(elements: int, latency: int) -> Fraction:
    """Return the bandwidth needed to move ``elements`` in ``latency`` cycles, in elements per
    cycle (0 when the latency is 0).

    The scratchpad bandwidth (SBW) moves the unique volume in and out; the PE-to-PE bandwidth
    (IBW) the spatially reused volume.

    Examples
    --------
    >>> bandwidth(10, 4)
    Fraction(5, 2)
    """
    return Fraction(elements, latency) if latency else Fraction(0)
