"""Schedules from dependences: dependence polyhedra, Pluto-style hyperplanes found with isl,
and the space-time mappings (dataflows) they give."""

from __future__ import annotations

from tenet.model.workload import parametric_workload
from tenet.schedule.dependences import (
    DependencePolyhedron,
    dependence_polyhedra,
    distance_vectors,
    reuse_chains,
)
from tenet.schedule.hyperplanes import (
    PermutableBand,
    Row,
    Schedule,
    SchedulingError,
    find_schedule,
    hyperplane_text,
    time_hyperplane,
)
from tenet.schedule.projection import spacetime_mappings, time_candidates

__all__ = [
    "PermutableBand",
    "DependencePolyhedron",
    "Row",
    "Schedule",
    "SchedulingError",
    "dependence_polyhedra",
    "distance_vectors",
    "find_schedule",
    "hyperplane_text",
    "parametric_workload",
    "reuse_chains",
    "spacetime_mappings",
    "time_candidates",
    "time_hyperplane",
]
