"""Time at a clock: an architecture's clock frequency turns a latency in cycles into seconds,
MACs into a throughput and an energy in pJ into an average power."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["clock_figures"]


def clock_figures(
    latency: int | Fraction, macs: int, energy: float, energy_unit: str, clock_mhz: float | None
) -> dict[str, float]:
    """Return ``clock_mhz`` and, at that clock, the ``runtime`` of ``latency`` cycles (s), the
    ``throughput`` of ``macs`` MACs over it (MAC/s) and, for an ``energy`` in pJ, its average
    power ``power_avg`` (W); a latency of 0 cycles has no throughput nor power, an
    architecture without a clock (``None``) none of them.

    Examples
    --------
    >>> # 31 cycles at 200 MHz: 155 ns; 256 MACs in it; 4,224 pJ in it: 27 mW
    >>> figures = clock_figures(31, 256, 4224.0, "pJ", 200)
    >>> figures["runtime"], round(figures["throughput"]), round(figures["power_avg"], 6)
    (1.55e-07, 1651612903, 0.027252)
    >>> sorted(clock_figures(31, 256, 40.0, "MAC", 200))  # no power without a unit of energy
    ['clock_mhz', 'runtime', 'throughput']
    """
    if clock_mhz is None:
        return {}
    seconds = Fraction(latency) / (Fraction(clock_mhz) * 10**6)
    figures = {"clock_mhz": clock_mhz, "runtime": float(seconds)}
    if seconds:
        figures["throughput"] = float(macs / seconds)
        if energy_unit == "pJ":
            figures["power_avg"] = float(Fraction(energy) / 10**12 / seconds)
    return figures
