"""Per-case data movement of one cluster level (MAESTRO's reuse analysis).

For one iteration case (a state per directive) these functions give the ingress volume of an
input tensor, the egress volume of the output, the partial sums on the critical path, the MACs
over all units and the windows handed to the sub-clusters. Temporal reuse: a tensor not indexed
by the innermost advancing directive is stationary; one indexed by it fetches only the new
indices (sliding window). Spatial reuse: units after the first fetch only their non-overlapping
part. Multicast: a tensor not indexed by the spatial dimension is sent once for all units.
"""

from __future__ import annotations

from collections.abc import Mapping

from tenet.maestro.levels import INIT, OUTPUT_OF, STEADY, Level, State

__all__ = [
    "CaseStates",
    "ingress",
    "egress",
    "critical_partial_sums",
    "mapping_size",
    "sub_cluster_dims",
    "mapped_volume",
]

CaseStates = Mapping[str, State]
"""The state of each dimension in one case (a later directive on the same dim wins)."""


def _spatial_state(
    level: Level, tensor: tuple[str, ...], st: CaseStates
) -> tuple[bool, bool, bool]:
    """Whether ``tensor`` is indexed by a spatially mapped dim, whether that step is a
    spatial edge, and whether its last active unit gets a partial window."""
    found, edge, edge_edge = False, False, False
    for dim in tensor:
        first = level.first(dim)
        if first is not None and first.spatial:
            found, edge_edge = True, st[dim].edge_edge
            edge = edge or st[dim].is_edge
    return found, edge, edge_edge


def mapped_volume(level: Level, tensor: tuple[str, ...]) -> int:
    """Return one unit's full window of ``tensor`` (a buffer size), in elements."""
    out = 1
    for dim in tensor:
        if dim in level.mapped:
            out *= level.mapped[dim]
    return out


def _unit_mapped(
    level: Level, tensor: tuple[str, ...], st: CaseStates, first: bool, edge_unit: bool
) -> int:
    out = 1
    for w in level.windows:
        if w.dim not in tensor:
            continue
        s = st[w.dim]
        if not w.spatial:
            out *= level.mapped_edge.get(w.dim, 0) if s.is_edge else level.mapped.get(w.dim, 0)
        elif s.is_edge:
            if level.edge_units == 1 and (first or edge_unit):
                out *= level.mapped_edge.get(w.dim, 0)
            elif level.edge_units > 1:
                table = level.mapped_edge if edge_unit else level.mapped
                out *= table.get(w.dim, 0)
        else:
            out *= level.mapped.get(w.dim, 0)
    return out


def _unit_ingress(
    level: Level, tensor: tuple[str, ...], st: CaseStates, first: bool, edge_unit: bool
) -> int:
    windows = level.windows
    changing = -1
    for idx, w in enumerate(windows):
        if st[w.dim].pos != INIT:
            changing = idx
    if changing == -1:
        return _unit_mapped(level, tensor, st, first, edge_unit)
    inited = any(
        idx > changing and w.dim in tensor and st[w.dim].pos == INIT and not st[w.dim].unrolled
        for idx, w in enumerate(windows)
    )
    full = level.mapped_edge if edge_unit else level.mapped
    new = level.unique_edge if edge_unit else level.unique
    out, moves = 1, False
    for idx, w in enumerate(windows):
        if w.dim not in tensor:
            continue
        s, is_changing = st[w.dim], idx == changing
        moves = moves or is_changing
        if not w.spatial:
            if s.pos == INIT:
                out *= level.mapped_edge.get(w.dim, 0) if s.is_edge else level.mapped.get(w.dim, 0)
            elif is_changing and not inited:
                out *= max(level.unique.get(w.dim, 0), 1)
            else:
                out *= level.mapped.get(w.dim, 0)
        elif first:
            out *= full.get(w.dim, 0)
        elif s.pos == INIT:
            out *= (full if idx <= changing else new).get(w.dim, 0)
        else:
            out *= (new if is_changing and not inited else full).get(w.dim, 0)
    return out if moves else 0


def _split_units(level: Level, edge_edge: bool) -> tuple[int, int]:
    """Units of a spatial-edge step besides the first: (full-window units, edge-window units)."""
    return max(level.edge_units - int(edge_edge) - 1, 0), int(edge_edge)


def ingress(level: Level, tensor: tuple[str, ...], st: CaseStates) -> int:
    """Return the elements of input ``tensor`` sent to the level's units in one case.

    Examples
    --------
    >>> from tenet.maestro.levels import Window, iteration_states
    >>> lv = Level(0, 4, (Window(True, 1, 1, "M"),), {"M": 4}, False, 1,
    ...            {"M": 1}, {"M": 1}, {"M": 1}, {"M": 0})
    >>> st = {"M": iteration_states(lv, {"M": 4})[0][0]}
    >>> ingress(lv, ("M",), st), ingress(lv, ("K",), st)
    (4, 1)
    """
    spatial, is_edge, edge_edge = _spatial_state(level, tensor, st)
    if not spatial:
        return _unit_ingress(level, tensor, st, True, False)
    if not is_edge:
        rest = _unit_ingress(level, tensor, st, False, False)
        return _unit_ingress(level, tensor, st, True, False) + (level.units - 1) * rest
    out = _unit_ingress(level, tensor, st, True, level.edge_units == 1 and edge_edge)
    if level.edge_units > 1:
        full, edge = _split_units(level, edge_edge)
        out += full * _unit_ingress(level, tensor, st, False, False)
        out += edge * _unit_ingress(level, tensor, st, False, True)
    return out


def _reduced_factor(level: Level, dim: str, s: State, first: bool, edge_unit: bool) -> int:
    """Window factor of a spatially mapped dimension that does not index the output."""
    if s.pos == STEADY or (s.pos == INIT and not (s.is_edge and edge_unit)):
        return level.mapped.get(dim, 0) if first else (level.unique.get(dim, 0) or 1)
    if level.edge_units == 1 and (first or edge_unit):
        return level.mapped_edge.get(dim, 0)
    if level.edge_units > 1:
        if edge_unit:
            table = level.mapped_edge if s.pos == INIT else level.unique_edge
            return table.get(dim, 0)
        return level.mapped.get(dim, 0) if first else (level.unique.get(dim, 0) or 1)
    return 1


def _output_factor(
    level: Level, dim: str, s: State, first: bool, edge_unit: bool, reuse_edge: bool
) -> int:
    """Window factor of a spatially mapped output dimension (Y/X stand for Y'/X')."""
    key = OUTPUT_OF.get(dim, dim)
    if s.pos == STEADY or (s.pos == INIT and not (s.is_edge and edge_unit)):
        return level.mapped.get(key, 0) if first else (level.unique.get(key, 0) or 1)
    if level.edge_units == 1 and (first or edge_unit):
        return level.mapped_edge.get(key if s.pos == INIT else dim, 0)
    if level.edge_units > 1:
        if edge_unit:
            if s.pos == INIT and not reuse_edge:
                return level.mapped_edge.get(key, 0)
            return level.unique_edge.get(key, 0)
        return level.mapped.get(key, 0) if first else (level.unique.get(key, 0) or 1)
    return 1


def _unit_egress(
    level: Level,
    tensor: tuple[str, ...],
    st: CaseStates,
    partial: bool,
    first: bool = True,
    edge_unit: bool = False,
    reuse_edge: bool = True,
) -> int:
    out = 1
    if partial:
        for w in level.windows:
            if w.dim in tensor:
                continue
            s = st[w.dim]
            if not w.spatial:
                out *= (level.mapped_edge if s.is_edge else level.mapped).get(w.dim, 0)
            else:
                out *= _reduced_factor(level, w.dim, s, first, edge_unit)
    for dim in tensor:
        found = level.first(dim)
        assert found is not None
        s = st[dim]
        if found.spatial:
            out *= _output_factor(level, dim, s, first, edge_unit, reuse_edge)
            continue
        key = OUTPUT_OF.get(dim, dim)
        if s.pos == STEADY:
            out *= level.mapped.get(key, 0)
        elif s.is_edge:
            out *= level.mapped_edge.get(key, 0)
        else:
            out *= level.mapped.get(key, 0)
    return out


def egress(level: Level, tensor: tuple[str, ...], st: CaseStates) -> int:
    """Return the output elements the level's units send up in one case."""
    spatial, is_edge, edge_edge = _spatial_state(level, tensor, st)
    if not spatial:
        return _unit_egress(level, tensor, st, False)
    if not is_edge:
        rest = _unit_egress(level, tensor, st, False, False, False)
        return _unit_egress(level, tensor, st, False, True, False) + (level.units - 1) * rest
    out = _unit_egress(level, tensor, st, False, True, level.edge_units == 1 and edge_edge)
    if level.edge_units > 1:
        full, edge = _split_units(level, edge_edge)
        out += full * _unit_egress(level, tensor, st, False, False, False)
        out += edge * _unit_egress(level, tensor, st, False, False, True)
    return out


def critical_partial_sums(level: Level, tensor: tuple[str, ...], st: CaseStates) -> int:
    """Return the partial sums one unit computes in one case (its compute steps)."""
    spatial, is_edge, edge_edge = _spatial_state(level, tensor, st)
    if not spatial:
        return _unit_egress(level, tensor, st, True)
    edge_unit = is_edge and level.edge_units == 1 and edge_edge
    return _unit_egress(level, tensor, st, True, True, edge_unit)


def mapping_size(level: Level, tensor: tuple[str, ...], st: CaseStates) -> int:
    """Return the partial sums (MACs) of all units of the level in one case."""
    _, edge, edge_edge = _spatial_state(level, tensor, st)
    for w in level.windows:
        if w.spatial:
            edge_edge = st[w.dim].edge_edge
            edge = edge or st[w.dim].is_edge
    if not edge:
        return level.units * _unit_egress(level, tensor, st, True)
    out = _unit_egress(level, tensor, st, True, True, level.edge_units == 1 and edge_edge)
    if level.edge_units > 1:
        full, edge_units = _split_units(level, edge_edge)
        out += full * _unit_egress(level, tensor, st, True, True, False)
        out += edge_units * _unit_egress(level, tensor, st, True, False, True, False)
    return out


def sub_cluster_dims(level: Level, st: CaseStates, edge_unit: bool) -> dict[str, int]:
    """Return the dimension sizes a sub-cluster works on in one case (its windows)."""
    out: dict[str, int] = {}
    for w in level.windows:
        s = st[w.dim]
        if not w.spatial:
            size = (level.mapped_edge if s.is_edge else level.mapped).get(w.dim, 0)
        elif s.pos == STEADY or not s.is_edge:
            size = level.mapped.get(w.dim, 0)
        elif level.edge_units == 1 or edge_unit:
            size = level.mapped_edge.get(w.dim, 0)
        else:
            size = level.mapped.get(w.dim, 0)
        out.setdefault(w.dim, size)
    if level.overlapped:
        for w in level.windows:
            if w.dim in OUTPUT_OF:
                flt = "R" if w.dim == "Y" else "S"
                out.setdefault(OUTPUT_OF[w.dim], out[w.dim] - out[flt] + 1)
    return out
