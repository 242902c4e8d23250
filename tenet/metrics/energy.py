"""Energy: MACs and buffer accesses weighted by the architecture's energy table."""

from __future__ import annotations

from tenet.spec.architecture import EnergySpec

__all__ = ["energy"]


def energy(macs: int, accesses_l1: int, accesses_l2: int, table: EnergySpec) -> float:
    """Return the energy of ``macs`` MACs, ``accesses_l1`` PE-buffer and ``accesses_l2``
    scratchpad accesses, in the unit of the energy ``table`` (one MAC = 1 in the zoo).

    Examples
    --------
    >>> energy(10, 4, 2, EnergySpec(mac=1.0, l1=2.0, l2=10.0))
    38.0
    """
    return macs * table.mac + accesses_l1 * table.l1 + accesses_l2 * table.l2
