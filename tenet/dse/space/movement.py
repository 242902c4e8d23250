"""How each tensor's data moves under a mapping, read off the affine structure.

Under an affine mapping the instances that share an element of a tensor lie on straight lines
of the iteration space (the reuse directions, found with isl as the short steps in the deltas
of A⁻¹∘A). A step along such a line moves the datum by a fixed (ΔPE, Δt) inside a tile. The
tensor is *stationary* when some step keeps it on its PE to the next time-stamp, *systolic* when
some step takes it over a registered link to the next time-stamp, *multicast* when some step
takes it over a same-step link (delay 0) in the same time-stamp; otherwise each PE needs it from
the *scratchpad*. *none* means the tensor has no reuse between space-time points at all.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Literal

import islpy as isl

from tenet.dse.space.mapping import AffineMapping
from tenet.model import Architecture, Workload
from tenet.vocab import TensorName

__all__ = [
    "Movement",
    "MOVEMENTS",
    "LinkDisplacements",
    "reuse_directions",
    "tensor_movement",
    "captured_steps",
    "movements",
]

Movement = Literal["stationary", "systolic", "multicast", "scratchpad", "none"]
MOVEMENTS: tuple[Movement, ...] = ("stationary", "systolic", "multicast", "scratchpad")
"""Movements from best to worst (``none`` stands apart: nothing to move)."""

Step = tuple[int, ...]


def _steps(n: int) -> list[Step]:
    steps = []
    for count in (1, 2):
        for dims in itertools.combinations(range(n), count):
            for signs in itertools.product((1, -1), repeat=count - 1):
                step = [0] * n
                step[dims[0]] = 1
                for dim, sign in zip(dims[1:], signs, strict=True):
                    step[dim] = sign
                steps.append(tuple(step))
    return steps


def _contains(points: isl.Set, vector: Step) -> bool:
    point = isl.Set.universe(points.get_space())
    for k, value in enumerate(vector):
        point = point.fix_val(isl.dim_type.set, k, isl.Val(str(value), points.get_ctx()))
    return point.is_subset(points)


def reuse_directions(workload: Workload) -> dict[TensorName, tuple[Step, ...]]:
    """Return, per tensor, the unit steps (entries in {-1, 0, 1}, at most two non-zero, the
    first one positive) between two instances of the domain that touch the same element.

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> gemm = Workload.from_spec(load_workload("gemm"), {"M": 4, "N": 4, "K": 4})
    >>> reuse_directions(gemm)
    {'A': ((0, 1, 0),), 'B': ((1, 0, 0),), 'C': ((0, 0, 1),)}
    """
    steps = _steps(workload.domain.dim(isl.dim_type.set))
    out = {}
    for tensor in workload.tensors:
        relation = None
        for table in (workload.reads, workload.writes):
            if tensor in table:
                relation = table[tensor] if relation is None else relation.union(table[tensor])
        assert relation is not None
        deltas = relation.apply_range(relation.reverse()).deltas()
        out[tensor] = tuple(step for step in steps if _contains(deltas, step))
    return out


class LinkDisplacements:
    """The PE displacements the links of an architecture make, by delay (1 registered, 0
    multicast wire), restricted to the PE set."""

    def __init__(self, architecture: Architecture) -> None:
        pe = architecture.pe_set
        self._deltas: dict[int, isl.Set] = {}
        for link in architecture.links:
            deltas = link.relation.intersect_domain(pe).intersect_range(pe).deltas()
            known = self._deltas.get(link.delay)
            self._deltas[link.delay] = deltas if known is None else known.union(deltas)
        self._cache: dict[tuple[int, Step], bool] = {}

    def has(self, delay: int, vector: Step) -> bool:
        """Whether some link of ``delay`` moves data by ``vector`` (sender to receiver)."""
        key = (delay, vector)
        if key not in self._cache:
            deltas = self._deltas.get(delay)
            self._cache[key] = deltas is not None and _contains(deltas, vector)
        return self._cache[key]


def _negate(vector: Step) -> Step:
    return tuple(-v for v in vector)


def _step_movement(mapping: AffineMapping, step: Step, links: LinkDisplacements) -> Movement:
    pe, time = mapping.displacement(step)
    if not any(pe) and not any(time):
        return "none"
    first = next((v for v in time if v), 0)
    if first < 0:
        pe, time = _negate(pe), _negate(time)
    if not any(time):
        return "multicast" if links.has(0, pe) or links.has(0, _negate(pe)) else "scratchpad"
    if any(time[:-1]) or time[-1] != 1:
        return "scratchpad"
    if not any(pe):
        return "stationary"
    return "systolic" if links.has(1, pe) else "scratchpad"


def tensor_movement(
    mapping: AffineMapping, steps: tuple[Step, ...], links: LinkDisplacements
) -> Movement:
    """Return the best movement of a tensor with reuse directions ``steps`` under ``mapping``."""
    found = {_step_movement(mapping, step, links) for step in steps} - {"none"}
    return next((m for m in MOVEMENTS if m in found), "none")


def captured_steps(
    mapping: AffineMapping, steps: tuple[Step, ...], links: LinkDisplacements
) -> tuple[Step, ...]:
    """Return the reuse ``steps`` of a tensor along which ``mapping`` keeps its data in the
    array (stationary, systolic or multicast): the steps along which a point finds the element
    at a neighbour rather than in the scratchpad.

    Examples
    --------
    >>> from tenet.dse.space.design import DesignSpace
    >>> space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 8, "N": 8, "K": 8})
    >>> [os] = [c for c in space if c.name == "PE[i, j] T[i + j + k]"]
    >>> captured_steps(os.mapping, space.directions["A"], space.links)
    ((0, 1, 0),)
    """
    kept = ("stationary", "systolic", "multicast")
    return tuple(s for s in steps if _step_movement(mapping, s, links) in kept)


def movements(
    mapping: AffineMapping,
    directions: Mapping[TensorName, tuple[Step, ...]],
    links: LinkDisplacements,
) -> tuple[tuple[TensorName, Movement], ...]:
    """Return (tensor, movement) for every tensor, in the workload's order."""
    return tuple((t, tensor_movement(mapping, steps, links)) for t, steps in directions.items())
