"""Relation-centric -> data-centric: recognise a problem as a MAESTRO operator and write its
dataflow as directives.

:func:`match_tensors` names a problem's tensors after MAESTRO's (input, filter, output);
:func:`synthesize` turns a problem whose dataflow passes
:func:`~tenet.maestro.lowering.check_expressible` into a MAESTRO layer and hardware: PE axis j
becomes cluster level j with a ``SpatialMap`` on the dimension the axis follows, every
time-stamp coordinate a ``TemporalMap`` (or the fold of the top level's spatial map) in
time-stamp order; trailing reduction loops move into the innermost level, so that partial
sums stay inside the cluster as in hand-written MAESTRO dataflows. The result is
checked by lowering it again: it must place and order the MACs exactly as the original.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import cast

import islpy as isl

from tenet.errors import InfeasibleError, SpecError
from tenet.maestro.directives import (
    LAYER_TENSORS,
    ClusterDirective,
    Hardware,
    Layer,
    LayerType,
    MapDirective,
)
from tenet.maestro.lowering import check_expressible, coordinate_dims, domain_dims, lower
from tenet.model import Problem
from tenet.spec import DataflowSpec

__all__ = ["match_tensors", "synthesize", "Synthesis"]


def _example(time_stamp: str) -> Problem:
    """The zoo's matrix product, 4x4x4, on a 4x4 mesh with ``PE[i, j]``, for the examples."""
    from tenet.api import load_problem

    dataflow = DataflowSpec.from_mapping(
        {"name": "d", "space_stamp": "{S[i, j, k] -> PE[i, j]}", "time_stamp": time_stamp}
    )
    return load_problem("gemm", "mesh4:rows=4,cols=4", dataflow, {"M": 4, "N": 4, "K": 4})


def _index_dims(relation: isl.Map) -> list[set[int]]:
    """Per output coordinate of ``relation``, the input dimensions it involves."""
    if not relation.is_single_valued() or relation.as_pw_multi_aff().n_piece() != 1:
        return []
    return coordinate_dims(relation)


def _roles(problem: Problem) -> tuple[dict[str, str], dict[str, list[set[int]]]]:
    reads: dict[str, list[set[int]]] = {}
    output: str | None = None
    indices: dict[str, list[set[int]]] = {}
    for tensor, access, relation in problem.workload.accesses:
        indices.setdefault(tensor, _index_dims(relation))
        if access == "write":
            output = tensor
        else:
            reads.setdefault(tensor, indices[tensor])
    if output is None or len(reads) != 2:
        raise SpecError(
            "the workload is not a MAESTRO operator (one written and two read tensors); "
            "give tensors={'input': ..., 'filter': ..., 'output': ...}"
        )
    windowed = [t for t, coords in reads.items() if any(len(c) > 1 for c in coords)]
    first = indices[output][0] if indices[output] else set()
    sharing = [t for t, coords in reads.items() if coords and coords[0] == first]
    chosen = (windowed or sharing or list(reads))[0]
    other = next(t for t in reads if t != chosen)
    return {"input": chosen, "filter": other, "output": output}, indices


def match_tensors(problem: Problem) -> dict[str, str]:
    """Name the problem's tensors after MAESTRO's: the written one is ``output``; of the read
    ones, ``input`` is indexed by a sum of dimensions (a convolution window) or shares the
    output's first index (a matrix product), the other is ``filter``.

    Examples
    --------
    >>> match_tensors(_example("{S[i,j,k] -> T[k]}"))
    {'input': 'A', 'filter': 'B', 'output': 'C'}
    """
    return _roles(problem)[0]


def _dim_names(problem: Problem) -> tuple[str, dict[int, str]]:
    """The MAESTRO operator and the MAESTRO name of each iteration dimension."""
    names, idx = _roles(problem)
    single = all(len(c) == 1 for c in idx[names["input"]] + idx[names["filter"]])
    n_dims = problem.workload.domain.dim(isl.dim_type.set)
    out = [next(iter(c)) for c in idx[names["output"]] if len(c) == 1]
    if single and n_dims == 3 and len(out) == 2:
        (m, n) = out
        k = next(d for c in idx[names["input"]] for d in c if d != m)
        return "GEMM", {m: "M", n: "N", k: "K"}
    windows = [c for c in idx[names["input"]] if len(c) == 2]
    if len(windows) != 2 or n_dims != 6:
        raise InfeasibleError(
            "the workload is neither a matrix product nor a 2-D convolution, the operators "
            "MAESTRO's language has (tensor expressions such as MTTKRP or stencils cannot be "
            "written)"
        )
    role: dict[int, str] = {}
    out_set = {d for c in idx[names["output"]] for d in c}
    for window, (row, flt) in zip(windows, (("Y'", "R"), ("X'", "S")), strict=True):
        for d in window:
            role[d] = row if d in out_set else flt
    in_dims = {d for c in idx[names["input"]] for d in c}
    for d in range(n_dims):
        if d not in role:
            role[d] = "K" if d in out_set and d not in in_dims else "C"
    return "CONV", role


@dataclass(frozen=True)
class _Digit:
    """A stamp coordinate as a window index of one dimension: floor(x / window) [mod wrap]."""

    dim: int
    window: int
    wrap: int | None


SAMPLE = 4096
"""The most values of one dimension read to recognise a window index: windows and wraps show
in the first values, so the cost does not grow with the sizes (the directives found are
checked exactly afterwards, by :func:`_same_schedule`)."""


def _values(stamp: isl.Map, coord: int, dim: int, domain: isl.Set) -> tuple[list[int], int]:
    """The stamp coordinate ``coord`` along dimension ``dim`` (the others at their minimum),
    for at most :data:`SAMPLE` first values, and the number of values along the line."""
    n_out = stamp.dim(isl.dim_type.out)
    line = stamp.project_out(isl.dim_type.out, coord + 1, n_out - coord - 1).project_out(
        isl.dim_type.out, 0, coord
    )
    box = domain
    for k in range(domain.dim(isl.dim_type.set)):
        if k != dim:
            box = box.fix_val(isl.dim_type.set, k, domain.dim_min_val(k))
    low, high = box.dim_min_val(dim), box.dim_max_val(dim)
    extent = int(high.sub(low).to_python()) + 1
    if extent > SAMPLE:
        last = low.add(isl.Val(str(SAMPLE - 1), box.get_ctx()))
        box = box.upper_bound_val(isl.dim_type.set, dim, last)
    points: dict[int, int] = {}
    n_in = domain.dim(isl.dim_type.set)

    def take(point: isl.Point) -> None:
        x = point.get_coordinate_val(isl.dim_type.set, dim).to_python()
        points[x] = point.get_coordinate_val(isl.dim_type.set, n_in).to_python()

    line.intersect_domain(box).wrap().foreach_point(take)
    values = [points[x] for x in sorted(points)]
    return values, extent if extent > SAMPLE else len(values)


def _digit(stamp: isl.Map, coord: int, dim: int, domain: isl.Set, what: str) -> _Digit:
    values, count = _values(stamp, coord, dim, domain)
    steps = [v - values[0] for v in values]
    window = next((x for x, s in enumerate(steps) if s != 0), None)
    if window is None:
        return _Digit(dim, count, None)
    tiles = [x // window for x in range(len(values))]
    if steps == tiles:
        return _Digit(dim, window, None)
    wrap = next((t for x, t in enumerate(tiles) if x and steps[x] < steps[x - 1]), None)
    if wrap and steps == [t % wrap for t in tiles]:
        return _Digit(dim, window, wrap)
    raise InfeasibleError(
        f"{what} is not a window index floor(x/w) or floor(x/w) mod n of its dimension; "
        "data-centric windows move by a constant offset"
    )


@dataclass(frozen=True)
class Synthesis:
    """A relation-centric problem written as a MAESTRO layer on MAESTRO hardware."""

    layer: Layer
    hardware: Hardware
    tensors: dict[str, str]


def _map(
    spatial: bool, layer_type: str, dim: str, window: int, filt: dict[str, int]
) -> MapDirective:
    size = window
    name = dim
    if layer_type == "CONV" and dim in ("Y'", "X'"):
        name = "Y" if dim == "Y'" else "X"
        size = window + filt["R" if name == "Y" else "S"] - 1
    return MapDirective(
        kind="spatial" if spatial else "temporal", size=size, offset=window, dim=name
    )


def _same_schedule(
    problem: Problem, layer: Layer, hardware: Hardware, role: dict[int, str]
) -> bool:
    """Whether ``layer`` lowered places MACs on the same PEs and orders them the same way."""
    lowered = lower(layer, hardware, "none").specs.require_dataflow()
    domain = problem.workload.domain
    names = [str(domain.get_dim_name(isl.dim_type.set, k)) for k in range(len(role))]
    by_role = {role[k]: names[k] for k in range(len(role))}
    rename = isl.Map(
        f"{{ S[{', '.join(names)}] -> S[{', '.join(by_role[d] for d in domain_dims(layer))}] }}"
    )
    theirs_space = problem.theta_space
    theirs_time = problem.theta_time
    mine_space = rename.apply_range(isl.Map(lowered.space_stamp)).intersect_domain(domain)
    mine_time = rename.apply_range(isl.Map(lowered.time_stamp)).intersect_domain(domain)

    def same(a: isl.Map) -> isl.Map:
        return a.apply_range(a.reverse())

    def before(a: isl.Map) -> isl.Map:
        return a.lex_lt_map(a)

    return same(theirs_space).is_equal(same(mine_space)) and before(theirs_time).is_equal(
        before(mine_time)
    )


def synthesize(problem: Problem, dataflow: DataflowSpec | None = None) -> Synthesis:
    """Write ``problem``'s dataflow as MAESTRO directives on MAESTRO hardware.

    Raises
    ------
    SpecError
        When the dataflow is not expressible (with :func:`check_expressible`'s reasons), the
        operator is not one of MAESTRO's, or the directives found do not reproduce it.

    Examples
    --------
    >>> [d.text() for d in synthesize(_example("{S[i,j,k] -> T[k]}")).layer.directives]
    ['SpatialMap(1,1) M', 'Cluster(4,P)', 'SpatialMap(1,1) N', 'TemporalMap(1,1) K']
    >>> synthesize(_example("{S[i,j,k] -> T[i + j + k]}"))
    Traceback (most recent call last):
    ...
    tenet.errors.InfeasibleError: not expressible with data-centric directives: skew: ...
    """
    space, time = problem.theta_space, problem.theta_time
    verdict = check_expressible(space.to_str(), time.to_str())
    if not verdict.expressible:
        raise InfeasibleError(
            "not expressible with data-centric directives: " + "; ".join(verdict.reasons)
        )
    layer_type, role = _dim_names(problem)
    domain = problem.workload.domain
    sizes = {
        role[k]: domain.dim_max_val(k).to_python() - domain.dim_min_val(k).to_python() + 1
        for k in range(len(role))
    }
    index = {domain.get_dim_name(isl.dim_type.set, k): k for k in range(len(role))}
    pe = [
        _digit(space, j, index[dims[0]], domain, f"PE axis {j}")
        for j, dims in enumerate(verdict.space)
        if dims
    ]
    steps = [
        _digit(time, j, index[dims[0]], domain, f"time-stamp coordinate {j}")
        for j, dims in enumerate(verdict.time)
        if dims
    ]
    pe_set = problem.architecture.pe_set
    units = []
    for j, digit in enumerate(pe):
        extent = pe_set.dim_max_val(j).to_python() - pe_set.dim_min_val(j).to_python() + 1
        units.append(digit.wrap or extent)
    if not pe:
        raise InfeasibleError(
            "the space-stamp places every MAC on one PE; MAESTRO needs a SpatialMap"
        )
    filt = {d: sizes.get(d, 1) for d in ("R", "S")}
    for d in ("R", "S"):
        if any(role[p.dim] == d for p in pe) or any(role[s.dim] == d for s in steps):
            raise InfeasibleError(
                f"filter dimension {d} is split in space or time: MAESTRO needs a TemporalMap on "
                f"{d} to cover the filter, or its coupled SpatialMap pair (write those directives "
                "by hand)"
            )
    top: list[MapDirective] = []
    placed = False
    for s in steps:
        name = role[s.dim]
        if s.dim == pe[0].dim and s.window == pe[0].window * units[0]:
            top.append(_map(True, layer_type, name, pe[0].window, filt))
            placed = True
        elif any(_map(False, layer_type, name, 1, filt).dim == d.dim for d in top):
            raise InfeasibleError(f"{name} walks twice in time; not synthesised automatically")
        else:
            top.append(_map(False, layer_type, name, s.window, filt))
    if not placed:
        top.insert(0, _map(True, layer_type, role[pe[0].dim], pe[0].window, filt))
    levels = [top] + [[_map(True, layer_type, role[p.dim], p.window, filt)] for p in pe[1:]]
    if len(pe) > 1:
        keep = {level[0].dim for level in levels[1:]} | set(LAYER_TENSORS[layer_type]["output"])
        cut = len(top)
        while cut and not top[cut - 1].spatial and top[cut - 1].dim not in keep:
            cut -= 1
        levels[0], levels[-1] = top[:cut], levels[-1] + top[cut:]
    directives: list[MapDirective | ClusterDirective] = list(levels[0])
    for j, level in enumerate(levels[1:], start=1):
        directives.append(ClusterDirective(size=units[j]))
        directives += level
    dims = dict(sizes)
    if layer_type == "CONV":
        dims = {
            "K": sizes["K"],
            "C": sizes["C"],
            "R": sizes["R"],
            "S": sizes["S"],
            "Y": sizes["Y'"] + sizes["R"] - 1,
            "X": sizes["X'"] + sizes["S"] - 1,
        }
    layer = Layer(
        name=dataflow.name if dataflow is not None else problem.dataflow.name,
        type=cast(LayerType, layer_type),
        dims=dims,
        directives=tuple(directives),
    )
    arch = problem.architecture
    hardware = Hardware(
        num_pes=prod(units),
        noc_bandwidth=max(1, arch.bandwidth // arch.bits_per_element),
        noc_latency=arch.latency,
    )
    if not _same_schedule(problem, layer, hardware, role):
        raise InfeasibleError(
            "the directives found do not reproduce the dataflow's placement and order; "
            "write the directives by hand"
        )
    return Synthesis(layer, hardware, match_tensors(problem))
