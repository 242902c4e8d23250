"""Schedules from dependences: dependence polyhedra, Pluto-style hyperplanes found with isl,
and the space-time mappings (dataflows) they give."""

from __future__ import annotations

from tenet.schedule.dependences import (
    DependencePolyhedron,
    dependence_polyhedra,
    distance_vectors,
    parametric_workload,
    reuse_chains,
)
from tenet.schedule.hyperplanes import (
    PermutableBand,
    Row,
    Schedule,
    SchedulingError,
    find_schedule,
    time_hyperplane,
)

__all__ = [
    "PermutableBand",
    "DependencePolyhedron",
    "Row",
    "Schedule",
    "SchedulingError",
    "dependence_polyhedra",
    "distance_vectors",
    "find_schedule",
    "parametric_workload",
    "reuse_chains",
    "time_hyperplane",
]
