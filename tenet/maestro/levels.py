"""Cluster levels and iteration cases of a data-centric dataflow (MAESTRO's model).

A layer's directive list is cut at its ``Cluster`` directives into levels, outermost first;
each level is completed (inherited windows, unrolled missing dimensions, stride adjustment) and
gets its per-dimension window tables. :func:`iteration_cases` then lists a level's iteration
cases (one Init / Steady / Edge state per directive) with their occurrence counts. The
arithmetic follows MAESTRO's C++ integer semantics (division truncates toward zero).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import prod
from typing import NamedTuple

from tenet.errors import InfeasibleError, SpecError
from tenet.maestro.directives import ClusterDirective, Hardware, Layer, MapDirective

__all__ = [
    "Window",
    "State",
    "Level",
    "INIT",
    "STEADY",
    "EDGE",
    "cdiv",
    "full_dims",
    "build_levels",
    "iteration_states",
    "iteration_cases",
]

INIT, STEADY, EDGE = 0, 1, 2

OVERLAP = {"Y": "R", "X": "S"}
"""Sliding-window pairs of convolutions: input rows/columns and the filter dimension."""
OUTPUT_OF = {"Y": "Y'", "X": "X'"}


def cdiv(a: int, b: int) -> int:
    """Divide like C++ integers: truncate toward zero.

    Examples
    --------
    >>> cdiv(-7, 8), cdiv(7, 2), cdiv(-7, 2)
    (0, 3, -3)
    """
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class Window(NamedTuple):
    """A map directive inside one level: spatial or temporal, window size and offset, dim."""

    spatial: bool
    size: int
    offset: int
    dim: str


class State(NamedTuple):
    """The iteration state of one directive in one case."""

    pos: int
    occurrences: int
    unrolled: bool
    init_edge: bool
    edge_edge: bool

    @property
    def is_edge(self) -> bool:
        """Whether the window is a partial one (an Edge step, or an Init that overruns)."""
        return self.pos == EDGE or self.init_edge


@dataclass(frozen=True)
class Level:
    """One cluster level: its units, directives, static dimension sizes and window tables.

    ``mapped``/``unique`` give per dimension the window size and the new indices per step;
    the ``_edge`` tables the same for the last, partial window. Y'/X' entries are the output
    windows of convolutions.
    """

    index: int
    units: int
    windows: tuple[Window, ...]
    dims: Mapping[str, int]
    overlapped: bool
    edge_units: int
    mapped: Mapping[str, int]
    unique: Mapping[str, int]
    mapped_edge: Mapping[str, int]
    unique_edge: Mapping[str, int]

    @cached_property
    def _firsts(self) -> dict[str, Window]:
        return {w.dim: w for w in reversed(self.windows)}

    def first(self, dim: str) -> Window | None:
        """Return the first directive on ``dim`` (MAESTRO looks directives up this way)."""
        return self._firsts.get(dim)

    @cached_property
    def spatial(self) -> Window:
        """The level's driving (first) spatial map."""
        return next(w for w in self.windows if w.spatial)


def full_dims(layer: Layer) -> dict[str, int]:
    """Return the layer's loop bounds completed with the output (or input) rows and columns.

    Examples
    --------
    >>> from tenet.maestro.directives import Layer
    >>> full_dims(Layer(name="c", type="CONV", directives=(),
    ...     dims={"K": 1, "C": 1, "R": 3, "S": 3, "Y": 8, "X": 8}))["Y'"]
    6
    """
    dims = dict(layer.dims)
    if layer.type == "GEMM":
        return dims
    for row, out in OUTPUT_OF.items():
        flt = OVERLAP[row]
        if flt not in dims:
            raise SpecError(
                f"layer {layer.name}: dimension {flt} is missing", location="Dimensions"
            )
        if row in dims and out in dims:
            raise SpecError(
                f"layer {layer.name}: give {row} or {out}, not both", location="Dimensions"
            )
        if row in dims:
            dims[out] = dims[row] - dims[flt] + 1
        elif out in dims:
            dims[row] = dims[out] + dims[flt] - 1
        if dims.get(row, 0) < dims[flt]:
            raise SpecError(
                f"layer {layer.name}: {row} = {dims.get(row)} is smaller than the filter "
                f"{flt} = {dims[flt]}",
                location="Dimensions",
            )
    return dims


def _where(layer: Layer, line: int | None) -> str:
    return f"layer {layer.name}" + (f" (line {line})" if line else "")


def _check(layer: Layer, dims: Mapping[str, int]) -> None:
    needed = sorted({d for vars_ in layer.tensors.values() for d in vars_} - set(dims))
    if needed:
        raise SpecError(
            f"layer {layer.name}: dimension(s) {', '.join(needed)} missing for a "
            f"{layer.type} layer",
            location="Dimensions",
        )
    for d in layer.directives:
        if not isinstance(d, MapDirective):
            continue
        if d.dim not in dims:
            raise SpecError(
                f"{_where(layer, d.line)}: {d.text()} maps unknown dimension {d.dim} "
                f"(known: {', '.join(dims)})"
            )
        if not d.spatial and d.dim in ("R", "S") and not d.size == d.offset == dims[d.dim]:
            raise InfeasibleError(
                f"{_where(layer, d.line)}: {d.text()}: MAESTRO requires a TemporalMap on "
                f"{d.dim} to cover the whole filter (size = offset = {dims[d.dim]}) and "
                "rejects this mapping"
            )


def _input_centric(windows: list[Window], dims: Mapping[str, int]) -> list[Window]:
    out = []
    for w in windows:
        row = next((r for r, o in OUTPUT_OF.items() if o == w.dim), None)
        if row is None:
            out.append(w)
            continue
        flt = OVERLAP[row]
        flt_size = next((v.size for v in reversed(windows) if v.dim == flt), dims[flt])
        out.append(Window(w.spatial, w.size + flt_size - 1, w.offset, row))
    return out


def _apply_stride(
    windows: list[Window], strides: Mapping[str, int], dims: Mapping[str, int], top: bool
) -> None:
    for w in list(windows):
        stride = strides.get(w.dim, 1)
        if w.dim not in OVERLAP or stride == 1:
            continue
        flt = dims[OVERLAP[w.dim]]
        idx = next(i for i, v in enumerate(windows) if v.dim == w.dim)
        first = windows[idx]
        if first.size < flt:
            continue
        rows_out = cdiv(first.size + stride - flt, stride)
        size = rows_out * min(stride, flt) + max(flt - stride, 0)
        offset = rows_out * (flt if not top and flt < stride else stride)
        windows[idx] = Window(first.spatial, size, offset, first.dim)


def _edge_units(spatial: Window, dim_size: int, units: int) -> int:
    size, ofs = spatial.size, spatial.offset
    full = ofs * (units - 1) + size
    if dim_size <= size:
        return 1
    if dim_size > full:
        steady = cdiv(cdiv(dim_size - size, ofs) + 1, units) - 1
        remaining = dim_size - (steady + 1) * ofs * units
        return 1 if remaining < size else cdiv(remaining - size, ofs) + 1
    count = cdiv(dim_size - size, ofs) + 1
    return count + 1 if ofs * (count - 1) + size < dim_size else count


def _tables(
    windows: Sequence[Window], dims: Mapping[str, int], overlapped: bool
) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]]:
    mapped: dict[str, int] = {}
    unique: dict[str, int] = {}
    mapped_edge: dict[str, int] = {}
    unique_edge: dict[str, int] = {}
    for w in windows:
        size, ofs, dim_size = w.size, w.offset, dims[w.dim]
        steady = max(cdiv(dim_size - size, ofs), 0)
        has_edge = steady * ofs + size < dim_size or size > dim_size
        mapped[w.dim] = size
        unique[w.dim] = 0 if not w.spatial and dim_size <= size else min(size, ofs)
        edge = dim_size - (steady + 1) * ofs
        edge = dim_size if edge < 0 else edge
        mapped_edge[w.dim] = edge if has_edge else size
        unique_edge[w.dim] = max(ofs - (size - edge), 0)
    if overlapped:
        for w in windows:
            if w.dim not in OVERLAP:
                continue
            out, flt = OUTPUT_OF[w.dim], OVERLAP[w.dim]
            mapped[out] = mapped.get(w.dim, 0) - mapped.get(flt, 0) + 1
            unique[out] = min(w.offset, w.size)
            mapped_edge[out] = mapped_edge.get(w.dim, 0) - mapped_edge.get(flt, 0) + 1
            unique_edge[out] = min(w.offset, mapped_edge[out])
    return mapped, unique, mapped_edge, unique_edge


def build_levels(layer: Layer, hardware: Hardware) -> tuple[Level, ...]:
    """Cut ``layer``'s dataflow into cluster levels (outermost first) on ``hardware``.

    A dimension a level does not map inherits the outer level's window; one never mapped is
    unrolled (``TemporalMap(full, full)``); the inner level's sizes are the outer windows.

    Examples
    --------
    >>> from tenet.maestro.reader import parse_mapping
    >>> net = parse_mapping("Network n { Layer l { Type: GEMM Dimensions { M 8 N 8 K 8 }"
    ...     " Dataflow { SpatialMap(1,1) M; Cluster(4, P); SpatialMap(1,1) N; } } }")
    >>> [(lv.units, [w.dim for w in lv.windows]) for lv in build_levels(net.layers[0],
    ...     Hardware(num_pes=16))]
    [(4, ['M', 'K', 'N']), (4, ['K', 'M', 'N'])]
    """
    dims = full_dims(layer)
    _check(layer, dims)
    tensors = layer.tensors
    input_vars = sorted({d for t in ("input", "filter") for d in tensors[t]})
    clusters = [d for d in layer.directives if isinstance(d, ClusterDirective)]
    pes_needed = prod(c.size for c in clusters)
    if hardware.num_pes < pes_needed:
        raise SpecError(
            f"layer {layer.name}: the clusters need {pes_needed} PEs, the hardware has "
            f"{hardware.num_pes}"
        )
    segments: list[list[MapDirective]] = [[]]
    for d in layer.directives:
        if isinstance(d, ClusterDirective):
            segments.append([])
        else:
            segments[-1].append(d)
    sizes = [hardware.num_pes // pes_needed] + [c.size for c in clusters]
    overlapped = layer.type != "GEMM"
    levels: list[Level] = []
    static = dict(dims)
    previous: list[Window] = []
    for index, (segment, units) in enumerate(zip(segments, sizes, strict=True)):
        where = f"layer {layer.name}: cluster level {index}"
        windows = _input_centric(
            [Window(d.spatial, d.size, d.offset, d.dim) for d in segment], static
        )
        for w in previous:
            if all(v.dim != w.dim for v in windows):
                windows.insert(0, Window(False, w.size, w.offset, w.dim))
        for var in input_vars:
            if var in static and all(v.dim != var for v in windows):
                windows.append(Window(False, static[var], static[var], var))
        missing = sorted({w.dim for w in windows} - set(static))
        if missing:
            raise InfeasibleError(
                f"{where} maps {', '.join(missing)}, which indexes no input tensor of a "
                f"{layer.type} layer; MAESTRO cannot map it below the top level"
            )
        if overlapped:
            _apply_stride(windows, layer.strides, dims, index == 0)
        spatial_count = sum(w.spatial for w in windows)
        if spatial_count == 0:
            raise SpecError(f"{where} has no SpatialMap")
        if spatial_count > 2:
            raise InfeasibleError(f"{where} has {spatial_count} SpatialMaps (at most 2)")
        spatial = next(w for w in windows if w.spatial)
        mapped, unique, mapped_edge, unique_edge = _tables(windows, static, overlapped)
        levels.append(
            Level(
                index=index,
                units=units,
                windows=tuple(windows),
                dims=dict(static),
                overlapped=overlapped,
                edge_units=_edge_units(spatial, static[spatial.dim], units),
                mapped=mapped,
                unique=unique,
                mapped_edge=mapped_edge,
                unique_edge=unique_edge,
            )
        )
        firsts = {w.dim: w for w in reversed(windows)}
        static = {var: min(firsts[var].size, static[var]) for var in input_vars if var in firsts}
        previous = windows
    return tuple(levels)


def iteration_states(level: Level, dims: Mapping[str, int]) -> list[list[State]]:
    """Return, per directive of ``level``, its possible states with ``dims`` as sizes.

    Examples
    --------
    >>> lv = Level(0, 2, (Window(True, 1, 1, "M"),), {"M": 5}, False, 1, {}, {}, {}, {})
    >>> [(s.pos, s.occurrences) for s in iteration_states(lv, {"M": 5})[0]]
    [(0, 1), (1, 1), (2, 1)]
    """
    out = []
    for w in level.windows:
        dim_size, size, ofs = dims[w.dim], w.size, w.offset
        if not w.spatial:
            init_edge = dim_size < size
            states = [State(INIT, 1, dim_size <= size, init_edge, False)]
            steady = cdiv(dim_size - size, ofs)
            if size < dim_size and steady > 0:
                states.append(State(STEADY, steady, False, False, False))
            if not init_edge and steady * ofs + size < dim_size:
                states.append(State(EDGE, 1, False, False, False))
        else:
            units = level.units
            coverage = size + ofs * (units - 1)
            init_edge = dim_size < coverage
            unrolled = dim_size <= coverage
            states = [State(INIT, 1, unrolled, init_edge, init_edge)]
            steady = cdiv(cdiv(dim_size - size, ofs) + 1, units) - 1
            if coverage < dim_size and steady > 0:
                states.append(State(STEADY, steady, False, False, False))
            step = ofs * units
            has_edge = (
                not unrolled
                and (steady + 1) * step + coverage > dim_size
                and steady * step + coverage != dim_size
            )
            remaining = dim_size - (steady + 1) * step
            active = 1 if remaining < size else cdiv(remaining - size, ofs) + 1
            edge_edge = (active - 1) * ofs + size < remaining
            if not init_edge and has_edge:
                states.append(State(EDGE, 1, False, False, edge_edge))
        out.append(states)
    return out


def iteration_cases(
    states: Sequence[Sequence[State]],
) -> Iterator[tuple[tuple[State, ...], int]]:
    """Yield every combination of states (MAESTRO's order, all-Init first) and its count.

    Examples
    --------
    >>> s = [[State(0, 1, False, False, False), State(1, 3, False, False, False)]] * 2
    >>> [(tuple(x.pos for x in case), n) for case, n in iteration_cases(s)]
    [((0, 0), 1), ((1, 1), 9), ((1, 0), 3), ((0, 1), 3)]
    """
    counts = [len(s) for s in states]
    periods = [prod(counts[i + 1 :]) for i in range(len(counts))]
    for case in range(prod(counts)):
        picked = tuple(
            s[((case + p - 1) // p) % n] for s, p, n in zip(states, periods, counts, strict=True)
        )
        yield picked, prod(x.occurrences for x in picked)
