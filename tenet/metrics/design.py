"""The figures of one design point of the design-space search, counting only what they need:
the ``design`` stage of :func:`tenet.metrics.assessment.assess_problem`.

A design point's row (:data:`tenet.dse.run.worker.METRIC_COLUMNS`) needs, per tensor access, the
total, held, reused (under the exploration's neighbourhood) and spatially reused volumes; the
window, temporal-only and linked counts of :func:`tenet.metrics.evaluate` (kept there for the
original's report) are left out. What does not depend on the dataflow (the total volume of each
access, the MACs, the PE count) is counted once per exploration, and the neighbour maps once per
distinct (active PEs, time-stamps) (:class:`SharedCounts`, one per worker and exploration). The
row is exactly ``metric_row(evaluate(problem))``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.counting import count
from tenet.metrics.latency import occupancy, transfer_latency
from tenet.metrics.volume import reused
from tenet.model.problem import Problem
from tenet.model.spacetime import Neighbours
from tenet.vocab import column

__all__ = ["Cutoff", "CUTOFF_OBJECTIVES", "SharedCounts", "design_row"]

#: Distinct (active PEs, time-stamps) whose neighbour maps a worker keeps.
NEIGHBOUR_CACHE = 64


@dataclass
class SharedCounts:
    """Counts and relations that the design points of one exploration (one workload and
    architecture) share."""

    totals: dict[tuple[str, str], int] = field(default_factory=dict)
    """(tensor, access) -> (instance, element) pairs, whatever the dataflow."""
    distinct: dict[tuple[str, str], int] = field(default_factory=dict)
    """(tensor, access) -> elements accessed."""
    macs: int | None = None
    pe_count: int | None = None
    around: OrderedDict[tuple[str, str, str], Neighbours] = field(default_factory=OrderedDict)
    """(active PEs, occupied time-stamps, neighbourhood) as text -> their neighbour maps, most
    recent last."""

    def neighbours(self, problem: Problem) -> Neighbours:
        """Return the neighbour maps of ``problem``: those of an earlier point with the same
        active PEs and time-stamps (they depend on these and the architecture only), else its
        own, kept for later points."""
        key = (str(problem.active_pes), str(problem.timestamps), problem.neighbourhood)
        found = self.around.get(key)
        if found is not None:
            self.around.move_to_end(key)
            return found
        self.around[key] = problem.neighbours
        if len(self.around) > NEIGHBOUR_CACHE:
            self.around.popitem(last=False)
        return problem.neighbours


Cutoff = tuple[str, float]
"""(objective, value): a design point whose objective is surely worse than ``value`` is not
counted further. Objectives with a cutoff: ``latency``, ``energy`` and ``edp`` (all
minimised)."""

CUTOFF_OBJECTIVES = ("latency", "energy", "edp")


def _strictly_earlier(problem: Problem) -> bool:
    """Whether every neighbour of a point is at an earlier time-stamp (``links`` with registered
    links only): then the first point holding an element takes it from outside, and a tensor
    access brings in at least its distinct elements."""
    links = problem.architecture.links
    return (
        problem.neighbourhood == "links" and bool(links) and all(link.delay >= 1 for link in links)
    )


def design_row(
    problem: Problem, shared: SharedCounts, cutoff: Cutoff | None = None
) -> dict[str, Any]:
    """Return the figures of :data:`tenet.dse.run.worker.METRIC_COLUMNS` for ``problem``, or
    ``{"status": "pruned", "reason": ...}`` when ``cutoff`` is given and a lower bound of its
    objective, from the counts made so far, already exceeds the cutoff's value.

    A lower bound of the compute latency (time-stamps, MACs per active PE) is checked first,
    then the compute latency is counted, then the unique volume of one tensor access after
    another (the volumes not yet counted are bounded below by the distinct elements of the
    access when every neighbour is earlier, by 0 otherwise).

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...                  params={"M": 8, "N": 8, "K": 4}, neighbourhood="links")
    >>> row = design_row(p, SharedCounts())
    >>> row["latency_compute_cycles"], row["active_pes"]
    (18, 64)
    >>> design_row(p, SharedCounts(), ("latency", 17))["status"]
    'pruned'
    """
    arch = problem.architecture
    if shared.macs is None:
        shared.macs = count(problem.workload.domain)
        shared.pe_count = count(arch.pe_set)
    macs, pe_count = shared.macs, shared.pe_count
    assert pe_count is not None
    accesses = problem.accesses
    for access in accesses:
        key = (access.tensor, access.access)
        if key not in shared.totals:
            shared.totals[key] = count(access.relation)
            shared.distinct[key] = count(access.relation.range())
    totals = [shared.totals[(a.tensor, a.access)] for a in accesses]
    floors = [
        shared.distinct[(a.tensor, a.access)] if _strictly_earlier(problem) else 0 for a in accesses
    ]
    active_pes = count(problem.active_pes)
    timestamps = count(problem.timestamps)
    # the busiest PE of each occupied time-stamp runs at least one instance, and at least the
    # average over the active PEs: compute latency >= max(time-stamps, MACs / active PEs)
    compute = max(timestamps, -(-macs // active_pes)) if active_pes else 0
    l1 = 2 * sum(totals)

    def transfer(volume: int) -> int:
        return transfer_latency(volume, arch.bits_per_element, arch.bandwidth, arch.latency)

    def energy_of(unique: int) -> float:
        return macs * arch.energy.mac + l1 * arch.energy.l1 + 2 * unique * arch.energy.l2

    def beyond(uniques: list[int]) -> str | None:
        """Why the point cannot beat ``cutoff`` with these (lower bounds of) unique volumes."""
        if cutoff is None or cutoff[0] not in CUTOFF_OBJECTIVES:
            return None
        reads = sum(u for u, a in zip(uniques, accesses, strict=True) if a.access == "read")
        latency = max(compute, transfer(reads), transfer(sum(uniques) - reads))
        energy = energy_of(sum(uniques))
        low = {"latency": latency, "energy": energy, "edp": energy * latency}[cutoff[0]]
        return f"{cutoff[0]} at least {low}, above {cutoff[1]}" if low > cutoff[1] else None

    uniques = list(floors)
    if (reason := beyond(uniques)) is not None:
        return {"status": "pruned", "reason": reason}
    timing = occupancy(problem)
    compute = timing.latency_compute
    around = shared.neighbours(problem)
    linked: list[isl.Map] = []
    for k, access in enumerate(accesses):
        if (reason := beyond(uniques)) is not None:
            return {"status": "pruned", "reason": reason}
        assignment = problem.assignment(access)
        # one instance per (PE, time-stamp): the (point, element) pairs are the accesses
        held = totals[k] if timing.instances_per_step_max == 1 else count(assignment)
        from_links = reused(assignment, around.spatial)
        linked.append(from_links)
        # under links, the neighbours are the temporal ones and the linked ones
        found = (
            from_links.union(reused(assignment, around.temporal))
            if problem.neighbourhood == "links"
            else reused(assignment, around.reuse)
        )
        uniques[k] = held - count(found)
    if (reason := beyond(uniques)) is not None:
        return {"status": "pruned", "reason": reason}
    spatial = sum(count(r) for r in linked)
    unique_in = sum(u for u, a in zip(uniques, accesses, strict=True) if a.access == "read")
    unique_out = sum(uniques) - unique_in
    occupied = count(problem.occupied)
    ingress, egress = transfer(unique_in), transfer(unique_out)
    latency = max(compute, ingress, egress)
    energy = energy_of(unique_in + unique_out)
    return {
        column("latency"): latency,
        column("latency_compute"): compute,
        column("latency_ingress"): ingress,
        column("latency_egress"): egress,
        column("energy"): energy,
        column("edp"): energy * latency,
        "energy_unit": arch.energy.unit,
        column("bandwidth_scratchpad"): float(Fraction(unique_in + unique_out, latency))
        if latency
        else 0.0,
        column("bandwidth_pe"): float(Fraction(spatial, latency)) if latency else 0.0,
        column("utilisation"): float(Fraction(occupied, pe_count * timestamps))
        if timestamps
        else 0.0,
        column("active_pes"): active_pes,
        column("timestamps"): timestamps,
        column("instances_per_step_max"): timing.instances_per_step_max,
        column("volume_unique"): unique_in + unique_out,
    }
