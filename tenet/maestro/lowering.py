"""Between the two notations: data-centric directives -> relation-centric specs, and back.

:func:`lower` turns a MAESTRO layer and hardware into a ``WorkloadSpec`` (iteration domain
and accesses of the operator), an ``ArchitectureSpec`` (one PE axis per cluster level) and a
``DataflowSpec`` whose space-stamp gives each MAC the unit indices of its windows and whose
time-stamp lists the window indices of the directives, outermost first. The MACs of one
innermost window stay on one (PE, time-stamp), as MAESTRO computes them within one step.
:func:`check_expressible` goes the other way: it says whether a relation-centric dataflow can
be written with data-centric directives and, if not, why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Literal

import islpy as isl

from tenet.errors import InfeasibleError
from tenet.isl_utils import parse_map, parse_set
from tenet.maestro.directives import Hardware, Layer
from tenet.maestro.levels import OUTPUT_OF, OVERLAP, Level, build_levels, full_dims
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec
from tenet.vocab import ENERGY_L1, ENERGY_L2, ENERGY_MAC

__all__ = [
    "Interconnect",
    "LoweredLayer",
    "lower",
    "domain_dims",
    "Expressibility",
    "check_expressible",
    "coordinate_dims",
]

Interconnect = Literal["multicast", "mesh", "none"]

_ITERATOR = {"Y'": "oy", "X'": "ox"}
_PARAM = {"Y'": "OY", "X'": "OX"}


def _iterator(dim: str) -> str:
    return _ITERATOR.get(dim, dim.lower())


def _param(dim: str) -> str:
    return _PARAM.get(dim, dim)


@dataclass(frozen=True)
class LoweredLayer:
    """A MAESTRO layer in relation-centric form: its specs (the layer's sizes are the
    workload's defaults) and ``tensors``, MAESTRO's tensor names (input, filter, output) to
    the workload's."""

    specs: Specs
    tensors: dict[str, str]


_CANONICAL = ("N", "G", "M", "K", "C", "Y'", "X'", "R", "S")


def domain_dims(layer: Layer) -> list[str]:
    """Return the MAC loop dimensions of ``layer`` in the order of the lowered iteration
    domain (input rows/columns replaced by output ones Y', X').

    Examples
    --------
    >>> from tenet.maestro.directives import Layer
    >>> domain_dims(Layer(name="c", type="CONV", directives=(),
    ...     dims={"K": 2, "C": 2, "R": 3, "S": 3, "Y": 8, "X": 8}))
    ['K', 'C', "Y'", "X'", 'R', 'S']
    """
    dims = list(layer.dims)
    if layer.type == "GEMM":
        return [d for d in ("M", "N", "K") if d in dims] + [
            d for d in dims if d not in ("M", "N", "K")
        ]
    dims = list(dict.fromkeys(OUTPUT_OF.get(d, d) for d in dims))
    return [d for d in _CANONICAL if d in dims] + [d for d in dims if d not in _CANONICAL]


def _workload(layer: Layer, dims: list[str], sizes: Mapping[str, int]) -> WorkloadSpec:
    iters = ", ".join(_iterator(d) for d in dims)
    params = ", ".join(_param(d) for d in dims)
    bounds = " and ".join(f"0 <= {_iterator(d)} < {_param(d)}" for d in dims)
    index = {d: _iterator(d) for d in dims}
    for row, out in OUTPUT_OF.items():
        if layer.type != "GEMM" and out in index:
            stride = layer.strides.get(row, 1)
            scaled = f"{stride}*{_iterator(out)}" if stride != 1 else _iterator(out)
            index[row] = f"{scaled} + {_iterator(OVERLAP[row])}"
    accesses = {}
    for name, vars_ in layer.tensors.items():
        if name == "output":
            vars_ = tuple(OUTPUT_OF.get(v, v) if layer.type != "GEMM" else v for v in vars_)
        text = f"{{ S[{iters}] -> {name}[{', '.join(index[v] for v in vars_)}] }}"
        accesses[name] = {"write" if name == "output" else "read": text}
    return WorkloadSpec.from_mapping(
        {
            "name": layer.name,
            "params": {_param(d): sizes[d] for d in dims},
            "domain": f"[{params}] -> {{ S[{iters}]: {bounds} }}",
            "accesses": accesses,
            "reductions": ["output"],
        }
    )


@dataclass(frozen=True)
class _Tiling:
    """One level's window (in MAC coordinates) of one dimension and its extent there."""

    dim: str
    spatial: bool
    window: int
    extent: int

    @property
    def tiles(self) -> int:
        return -(-self.extent // self.window)


def _output_window(layer: Layer, level: Level, dim: str, size: int, offset: int) -> tuple[int, int]:
    """Window (size, offset) of a directive in MAC coordinates (output rows for Y/X)."""
    if layer.type == "GEMM" or dim not in OVERLAP:
        return size, offset
    flt = level.mapped.get(OVERLAP[dim], 1)
    stride = layer.strides.get(dim, 1)
    if (size - flt) % stride or offset % stride:
        raise InfeasibleError(
            f"layer {layer.name}: a {dim} window of {size} step {offset} is not a whole number "
            f"of output {OUTPUT_OF[dim]} rows at stride {stride}"
        )
    return (size - flt) // stride + 1, offset // stride


def _tilings(
    layer: Layer, levels: Sequence[Level], sizes: Mapping[str, int]
) -> list[list[_Tiling]]:
    extent = {d: sizes[d] for d in domain_dims(layer)}
    out = []
    for lv in levels:
        seen: dict[str, _Tiling] = {}
        row: list[_Tiling] = []
        for w in lv.windows:
            dim = w.dim if layer.type == "GEMM" else OUTPUT_OF.get(w.dim, w.dim)
            size, offset = _output_window(layer, lv, w.dim, w.size, w.offset)
            tiling = _Tiling(dim, w.spatial, max(min(size, extent[dim]), 1), extent[dim])
            if dim in seen:
                if seen[dim].tiles > 1 and tiling.tiles > 1:
                    raise InfeasibleError(
                        f"layer {layer.name}: two directives split {dim} at cluster level "
                        f"{lv.index}; a dataflow relation needs one window per dimension and level"
                    )
                continue
            if tiling.tiles > 1 and size != offset:
                raise InfeasibleError(
                    f"layer {layer.name}: windows of {size} step {offset} on {dim} at cluster "
                    f"level {lv.index} overlap or skip MACs; a dataflow relation places each MAC "
                    "exactly once"
                )
            seen[dim] = tiling
            row.append(tiling)
        out.append(row)
        extent = {d: t.window for d, t in seen.items()} | {
            d: e for d, e in extent.items() if d not in seen
        }
    return out


def _index(local: str, tiling: _Tiling) -> tuple[str, str]:
    """The tile index of ``local`` and the index inside the tile, as isl expressions."""
    if tiling.tiles <= 1:
        return "0", local
    w = tiling.window
    if w == 1:
        return local, "0"
    return f"floor(({local})/{w})", f"({local}) mod {w}"


def _dataflow(
    layer: Layer, levels: Sequence[Level], tilings: list[list[_Tiling]], dims: list[str]
) -> tuple[DataflowSpec, list[int]]:
    local = {d: _iterator(d) for d in dims}
    space: list[str] = []
    time: list[str] = []
    units: list[int] = []
    for lv, row in zip(levels, tilings, strict=True):
        index = {}
        for t in row:
            index[t.dim], local[t.dim] = _index(local[t.dim], t)
        spatial = [t for t in row if t.spatial and t.tiles > 1]
        if len(spatial) > 1:
            names = " and ".join(t.dim for t in spatial)
            raise InfeasibleError(
                f"layer {layer.name}: cluster level {lv.index} splits {names} over the same "
                "units (MAESTRO's coupled diagonal mapping); one PE index cannot follow both"
            )
        driver = spatial[0] if spatial else next(t for t in row if t.spatial)
        folds = -(-driver.tiles // lv.units)
        tile = index[driver.dim]
        space.append(tile if folds <= 1 else f"({tile}) mod {lv.units}")
        units.append(lv.units)
        for t in row:
            if t is driver:
                if folds > 1:
                    time.append(f"floor(({tile})/{lv.units})")
            elif t.tiles > 1:
                time.append(index[t.dim])
    iters = ", ".join(_iterator(d) for d in dims)
    return (
        DataflowSpec.from_mapping(
            {
                "name": layer.name,
                "space_stamp": f"{{ S[{iters}] -> PE[{', '.join(space)}] }}",
                "time_stamp": f"{{ S[{iters}] -> T[{', '.join(time) or '0'}] }}",
            }
        ),
        units,
    )


def _architecture(
    name: str, units: Sequence[int], hardware: Hardware, interconnect: Interconnect
) -> ArchitectureSpec:
    names = [f"p{k}" for k in range(len(units))]
    primed = [f"q{k}" for k in range(len(units))]
    box = " and ".join(f"0 <= {p} < {n}" for p, n in zip(names, units, strict=True))
    box_q = " and ".join(f"0 <= {q} < {n}" for q, n in zip(primed, units, strict=True))
    pe = f"PE[{', '.join(names)}]"
    links = []
    if interconnect == "multicast":
        later = " or ".join(
            " and ".join(
                [f"{q} = {p}" for p, q in zip(names[:k], primed[:k], strict=True)]
                + [f"{primed[k]} > {names[k]}"]
            )
            for k in range(len(units))
        )
        links.append(
            {
                "link": f"{{ {pe} -> PE[{', '.join(primed)}]: {box} and {box_q} and ({later}) }}",
                "delay": 0,
            }
        )
    elif interconnect == "mesh":
        for k in range(len(units)):
            moved = [f"{p} + 1" if j == k else p for j, p in enumerate(names)]
            links.append(
                {
                    "link": f"{{ {pe} -> PE[{', '.join(moved)}]: {box} and "
                    f"{names[k]} < {units[k] - 1} }}",
                    "delay": 1,
                }
            )
    return ArchitectureSpec.from_mapping(
        {
            "name": name,
            "pe": f"{{ {pe}: {box} }}",
            "interconnect": links,
            "bits_per_element": 16,
            "bandwidth": hardware.noc_bandwidth * 16,
            "latency": max(hardware.noc_latency, 1),
            "l1_size": hardware.l1_size,
            "l2_size": hardware.l2_size,
            "energy": {"mac": ENERGY_MAC, "l1": ENERGY_L1, "l2": ENERGY_L2},
        }
    )


def lower(
    layer: Layer, hardware: Hardware, interconnect: Interconnect = "multicast"
) -> LoweredLayer:
    """Turn a data-centric ``layer`` on ``hardware`` into relation-centric specs.

    Each cluster level becomes one PE axis (its unit index); each directive that splits its
    dimension at a level becomes one time-stamp coordinate (its window index, or the fold
    index of a spatial map), outermost first. ``interconnect`` chooses the links between PEs:
    ``multicast`` (a datum a PE fetches reaches every later PE in the same step: MAESTRO's
    assumption, one fetch per distinct element and step),
    ``mesh`` (registered links to the next PE along each axis) or ``none``.

    Raises
    ------
    SpecError
        When the directives have no dataflow relation: overlapping or gapped windows, two
        dimensions split over the same units, windows that are not whole output rows.

    Examples
    --------
    >>> from tenet.maestro.reader import parse_mapping
    >>> net = parse_mapping("Network n { Layer g { Type: GEMM Dimensions { M 16 N 16 K 16 }"
    ...     " Dataflow { SpatialMap(1,1) M; TemporalMap(8,8) N; TemporalMap(16,16) K;"
    ...     " Cluster(8, P); SpatialMap(1,1) N; TemporalMap(1,1) K; } } }")
    >>> low = lower(net.layers[0], Hardware(num_pes=64))
    >>> low.specs.dataflow.space_stamp
    '{ S[m, n, k] -> PE[(m) mod 8, (n) mod 8] }'
    >>> low.specs.dataflow.time_stamp
    '{ S[m, n, k] -> T[floor((m)/8), floor((n)/8), k] }'
    """
    levels = build_levels(layer, hardware)
    sizes = full_dims(layer)
    for row, out in OUTPUT_OF.items():
        if layer.type != "GEMM" and row in sizes:
            sizes[out] = (sizes[row] - sizes[OVERLAP[row]]) // layer.strides.get(row, 1) + 1
    dims = domain_dims(layer)
    tilings = _tilings(layer, levels, sizes)
    dataflow, units = _dataflow(layer, levels, tilings, dims)
    workload = _workload(layer, dims, sizes)
    architecture = _architecture(f"maestro-{prod(units)}pe", units, hardware, interconnect)
    return LoweredLayer(
        Specs(workload, architecture, dataflow), {t: t for t in ("input", "filter", "output")}
    )


@dataclass(frozen=True)
class Expressibility:
    """Whether a relation-centric dataflow can be written with data-centric directives.

    ``reasons`` says why not (empty when it can); ``space``/``time`` name the iteration
    dimensions each PE axis and time-stamp coordinate follows.
    """

    expressible: bool
    reasons: tuple[str, ...]
    space: tuple[tuple[str, ...], ...]
    time: tuple[tuple[str, ...], ...]

    def __str__(self) -> str:
        if self.expressible:
            return "expressible with data-centric directives"
        return "not expressible: " + "; ".join(self.reasons)


def coordinate_dims(relation: isl.Map) -> list[set[int]]:
    """Return, per output coordinate of a single-valued ``relation``, the input dimensions
    it involves (directly or through ``floor``/``mod``).

    Examples
    --------
    >>> import islpy as isl
    >>> coordinate_dims(isl.Map("{S[i,j,k] -> T[floor(i/8), i % 8 + j]}"))
    [{0}, {0, 1}]
    """
    pma = relation.as_pw_multi_aff()
    n_in = relation.dim(isl.dim_type.in_)
    out = []
    for j in range(pma.dim(isl.dim_type.out)):
        affs: list[isl.Aff] = []

        def keep(_piece: isl.Set, aff: isl.Aff, affs: list[isl.Aff] = affs) -> None:
            affs.append(aff)

        pma.get_pw_aff(j).foreach_piece(keep)
        out.append(
            {k for k in range(n_in) for a in affs if a.involves_dims(isl.dim_type.in_, k, 1)}
        )
    return out


def _coordinates(stamp: isl.Map, what: str) -> tuple[list[tuple[str, ...]], list[str]]:
    names = [
        str(stamp.get_dim_name(isl.dim_type.in_, k)) for k in range(stamp.dim(isl.dim_type.in_))
    ]
    if not stamp.is_single_valued():
        return [], [f"the {what} map gives some instance several values"]
    reasons = []
    pieces = stamp.as_pw_multi_aff().n_piece()
    if pieces > 1:
        reasons.append(
            f"the {what} map has {pieces} pieces (a conditional schedule); directives "
            "give every window the same rule"
        )
    coords = [tuple(names[k] for k in sorted(used)) for used in coordinate_dims(stamp)]
    return coords, reasons


def check_expressible(
    space_stamp: str, time_stamp: str, domain: str | None = None
) -> Expressibility:
    """Say whether the dataflow (``space_stamp``, ``time_stamp``, isl text) can be written as
    MAESTRO directives, and if not, why: skewed time (a time-stamp coordinate combining
    several dimensions), mixed dimensions on one PE axis, piecewise schedules, more PE axes than
    cluster levels, a non-rectangular ``domain``.

    Examples
    --------
    >>> r = check_expressible("{S[i,j,k]->PE[i%8,j%8]}",
    ...                       "{S[i,j,k]->T[floor(i/8),floor(j/8),i%8+j%8+k]}")
    >>> r.expressible, r.reasons[0][:46]
    (False, 'skew: time-stamp coordinate 2 combines i, j, k')
    >>> ok = check_expressible("{S[i,j,k]->PE[i%8,j%8]}", "{S[i,j,k]->T[floor(i/8),floor(j/8),k]}")
    >>> ok.expressible, ok.space, ok.time
    (True, (('i',), ('j',)), (('i',), ('j',), ('k',)))
    """
    space_map = parse_map(space_stamp, location="space_stamp")
    time_map = parse_map(time_stamp, location="time_stamp")
    space, reasons = _coordinates(space_map, "space-stamp")
    time, more = _coordinates(time_map, "time-stamp")
    reasons += more
    for k, dims in enumerate(space):
        if len(dims) > 1:
            reasons.append(
                f"mixed dimensions on PE axis {k}: it combines {', '.join(dims)}; a SpatialMap "
                "spreads one dimension per cluster level"
            )
    for k, dims in enumerate(time):
        if len(dims) > 1:
            reasons.append(
                f"skew: time-stamp coordinate {k} combines {', '.join(dims)} (wavefront or "
                "systolic timing); each data-centric loop walks one dimension"
            )
    if len(space) > 4:
        reasons.append(f"{len(space)} PE axes: MAESTRO has at most 3 Cluster directives (4 levels)")
    if domain is not None:
        dom = parse_set(domain, location="domain")
        if dom.dim(isl.dim_type.param):
            dom = dom.project_out(isl.dim_type.param, 0, dom.dim(isl.dim_type.param))
        box = dom.universe(dom.get_space())
        for k in range(dom.dim(isl.dim_type.set)):
            low, high = dom.dim_min_val(k), dom.dim_max_val(k)
            if not (low.is_int() and high.is_int()):
                box = dom
                break
            box = box.lower_bound_val(isl.dim_type.set, k, low).upper_bound_val(
                isl.dim_type.set, k, high
            )
        if not box.is_equal(dom):
            reasons.append(
                "non-rectangular iteration domain: MAESTRO's dimensions are independent ranges"
            )
    return Expressibility(not reasons, tuple(reasons), tuple(space), tuple(time))
