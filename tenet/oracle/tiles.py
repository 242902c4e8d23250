"""A brute-force reference for the memory figures, on small problems.

It lists the instances, their tiles and the elements they touch with isl (``foreach_point``
only), then walks each level's tiles in lexicographic order with a literal buffer: a Python
set holding exactly the current tile's elements (one per PE for a per-PE level), following
``docs/memory.md`` word for word. Like :mod:`tenet.oracle.metrics`, it shares no code with
``tenet.model``, ``tenet.counting`` or ``tenet.metrics``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import islpy as isl

from tenet.isl_utils import parse_map, parse_set
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec

__all__ = ["TileFigures", "reference_memory"]

Point = tuple[int, ...]


def _points(obj: isl.Set) -> list[Point]:
    found: list[Point] = []

    def visit(point: isl.Point) -> None:
        n = point.get_space().dim(isl.dim_type.set)
        found.append(
            tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n))
        )

    obj.foreach_point(visit)
    return sorted(found)


def _image(
    texts: str | Sequence[str], domain: isl.Set, params: Mapping[str, int]
) -> dict[Point, list[Point]]:
    out: dict[Point, list[Point]] = defaultdict(list)
    for text in [texts] if isinstance(texts, str) else texts:
        relation = parse_map(text, params).intersect_domain(domain)
        n_in = relation.dim(isl.dim_type.in_)
        for p in _points(relation.wrap()):
            out[p[:n_in]].append(p[n_in:])
    return out


@dataclass(frozen=True)
class TileFigures:
    """Figures of one tensor at one level, in elements."""

    footprint: int
    fills: int
    writebacks: int


@dataclass(frozen=True)
class _Level:
    name: str
    per_pe: bool
    tensors: tuple[str, ...] | None = None


def _levels(architecture: ArchitectureSpec) -> list[_Level]:
    if not architecture.levels:
        return [_Level("dram", False)]
    return [_Level(level.name, level.per_pe, level.tensors) for level in architecture.levels]


def reference_memory(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    dataflow: DataflowSpec,
    params: Mapping[str, int] | None = None,
) -> tuple[dict[tuple[str, str], TileFigures], dict[str, int]]:
    """Return the figures per (level, tensor) and the largest total tile per level.

    Examples
    --------
    >>> from tenet.spec import load_architecture, load_dataflow, load_workload
    >>> w = load_workload("gemm")
    >>> a = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: 0 <= i < 2}",
    ...     "levels": [{"name": "dram"}, {"name": "glb"}]})
    >>> d = DataflowSpec.from_mapping({"name": "t", "space_stamp": "{S[i,j,k] -> PE[j % 2]}",
    ...     "time_stamp": "{S[i,j,k] -> T[i, floor(j/2), k]}",
    ...     "tiles": {"glb": "{S[i,j,k] -> G[i]}"}})
    >>> figures, need = reference_memory(w, a, d, {"M": 2, "N": 2, "K": 3})
    >>> figures[("glb", "A")], need["glb"]
    (TileFigures(footprint=3, fills=6, writebacks=0), 11)
    """
    bound = {**workload.params, **dataflow.params, **(params or {})}
    domain = parse_set(workload.domain, bound)
    instances = _points(domain)
    pe_of = {s: pes[0] for s, pes in _image(dataflow.space_stamp, domain, bound).items()}
    reads: dict[str, dict[Point, list[Point]]] = {}
    writes: dict[str, dict[Point, list[Point]]] = {}
    for tensor, access in workload.accesses.items():
        if dataflow.tensors is not None and tensor not in dataflow.tensors:
            continue
        reads[tensor] = _image(access.read, domain, bound) if access.read else {}
        writes[tensor] = _image(access.write, domain, bound) if access.write else {}
    stamps = {
        level: {s: t[0] for s, t in _image(text, domain, bound).items()}
        for level, text in dataflow.tiles.items()
    }
    levels = _levels(architecture)
    figures: dict[tuple[str, str], TileFigures] = {}
    need: dict[str, int] = {}
    for tensor in reads:
        every = {e for s in instances for e in reads[tensor].get(s, []) + writes[tensor].get(s, [])}
        figures[(levels[0].name, tensor)] = TileFigures(len(every), 0, 0)
    need[levels[0].name] = sum(f.footprint for f in figures.values())
    tile: dict[Point, Point] = {s: () for s in instances}
    for level in levels[1:]:
        if level.name in stamps:
            tile = {s: tile[s] + stamps[level.name][s] for s in instances}
        order = sorted(set(tile.values()))
        pes: list[Point] = sorted(set(pe_of.values())) if level.per_pe else [()]
        totals: dict[tuple[Point, Point], int] = defaultdict(int)
        for tensor in reads:
            if level.tensors is not None and tensor not in level.tensors:
                continue
            figures[(level.name, tensor)], sizes = _walk(
                instances,
                tile,
                order,
                pes,
                pe_of if level.per_pe else None,
                reads[tensor],
                writes[tensor],
            )
            for key, size in sizes.items():
                totals[key] += size
        need[level.name] = max(totals.values(), default=0)
    return figures, need


def _walk(
    instances: list[Point],
    tile: Mapping[Point, Point],
    order: list[Point],
    pes: list[Point],
    pe_of: Mapping[Point, Point] | None,
    reads: Mapping[Point, list[Point]],
    writes: Mapping[Point, list[Point]],
) -> tuple[TileFigures, dict[tuple[Point, Point], int]]:
    """Walk the tiles in order with one literal buffer per PE (one in all when shared)."""
    touched: dict[tuple[Point, Point], set[Point]] = defaultdict(set)
    read_in: dict[tuple[Point, Point], set[Point]] = defaultdict(set)
    wrote_in: dict[tuple[Point, Point], set[Point]] = defaultdict(set)
    written_in_tile: dict[Point, set[Point]] = defaultdict(set)
    for s in instances:
        key = (pe_of[s] if pe_of is not None else (), tile[s])
        touched[key].update(reads.get(s, []), writes.get(s, []))
        read_in[key].update(reads.get(s, []))
        wrote_in[key].update(writes.get(s, []))
        written_in_tile[tile[s]].update(writes.get(s, []))
    fills = writebacks = footprint = 0
    sizes: dict[tuple[Point, Point], int] = {}
    for pe in pes:
        buffer: set[Point] = set()
        dirty: set[Point] = set()
        written_before: set[Point] = set()
        for position, t in enumerate(order):
            key = (pe, t)
            incoming = touched.get(key, set())
            brought = {
                e for e in incoming - buffer if e in read_in.get(key, set()) or e in written_before
            }
            fills += len(brought)
            buffer = set(incoming)
            dirty |= wrote_in.get(key, set())
            following = order[position + 1] if position + 1 < len(order) else None
            kept = touched.get((pe, following), set()) if following is not None else set()
            writebacks += len((buffer - kept) & dirty)
            sizes[key] = len(buffer)
            footprint = max(footprint, len(buffer))
            written_before |= written_in_tile.get(t, set())
    return TileFigures(footprint, fills, writebacks), sizes
