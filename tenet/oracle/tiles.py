"""A brute-force reference for the memory figures, on small problems.

It lists the instances, their tiles and the elements they touch with isl (``foreach_point``
only), then walks each level's tiles in lexicographic order with a literal buffer: a Python
set holding exactly the current tile's elements (one per PE for a per-PE level), following
``docs/memory.md`` word for word. A tensor with its own place at a level (the dataflow's
``places``) is walked on its own tiles there and at the levels inside (its place replaces the
level's tile stamp in the concatenation). A level's need is the most its buffers hold at one
moment: at each combination of the tensors' tiles that some instance runs in, every tensor's
buffer (one per PE) holds its own tile. A per-PE buffer's fill is looked up in the buffers
of the PEs linked to it (at the link's delay, in tiles); the parent's reads and writes are
grouped per tile when its network multicasts and reduces. Like :mod:`tenet.oracle.metrics`,
it shares no code with ``tenet.model``, ``tenet.counting`` or ``tenet.metrics``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import islpy as isl

from tenet.isl_utils import parse_map, parse_set
from tenet.oracle.metrics import list_points
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec

__all__ = ["TileFigures", "reference_memory"]

_Point = tuple[int, ...]


def _image(
    texts: str | Sequence[str], domain: isl.Set, params: Mapping[str, int]
) -> dict[_Point, list[_Point]]:
    out: dict[_Point, list[_Point]] = defaultdict(list)
    for text in [texts] if isinstance(texts, str) else texts:
        relation = parse_map(text, params).intersect_domain(domain)
        n_in = relation.dim(isl.dim_type.in_)
        for p in list_points(relation.wrap()):
            out[p[:n_in]].append(p[n_in:])
    return out


@dataclass(frozen=True)
class TileFigures:
    """Figures of one tensor at one level, in elements, as the walk counts them."""

    footprint: int
    """The largest set of the tensor's elements one buffer of the level holds at once."""
    fills: int
    """Elements copied into the level's buffers, summed over buffers."""
    writebacks: int
    """Output elements copied out of the level's buffers to the parent."""
    fills_neighbour: int = 0
    """The fills copied from a linked buffer of the same level."""
    reads_parent: int = 0
    """Parent reads made for the fills (a multicast read once)."""
    writes_parent: int = 0
    """Parent writes made for the writebacks (a reduction written once)."""
    energy_links: float = 0.0
    """Energy of the hops between linked buffers (the architecture's unit)."""


@dataclass(frozen=True)
class _Level:
    name: str
    per_pe: bool
    tensors: tuple[str, ...] | None = None
    multicast: bool = True
    reduction: bool = True


def _levels(architecture: ArchitectureSpec) -> list[_Level]:
    if not architecture.levels:
        return [_Level("dram", False)]
    return [
        _Level(
            level.name,
            level.per_pe,
            level.tensors,
            level.network.multicast,
            level.network.reduction,
        )
        for level in architecture.levels
    ]


Senders = Mapping[_Point, Sequence[tuple[_Point, int, float]]]
"""Receiving PE -> the PEs linked to it, each with the link's delay and energy."""


def _senders(architecture: ArchitectureSpec, params: Mapping[str, int]) -> Senders:
    pes = parse_set(architecture.pe, params)
    out: dict[_Point, list[tuple[_Point, int, float]]] = defaultdict(list)
    for link in architecture.interconnect:
        relation = parse_map(link.link, params).intersect_domain(pes).intersect_range(pes)
        n = relation.dim(isl.dim_type.in_)
        for pair in list_points(relation.wrap()):
            sender, receiver = pair[:n], pair[n:]
            if sender != receiver:
                out[receiver].append((sender, link.delay, link.energy))
    return out


def _tiles(
    instances: list[_Point], levels: Sequence[_Level], stamps: Mapping[str, Mapping[_Point, _Point]]
) -> dict[str, dict[_Point, _Point]]:
    """Return, per level inside the outermost, each instance's tile: the concatenation of the
    tile stamps of that level and of every level outside it (a level without a stamp keeps
    its parent's tiles)."""
    tile: dict[_Point, _Point] = {s: () for s in instances}
    out: dict[str, dict[_Point, _Point]] = {}
    for level in levels[1:]:
        if level.name in stamps:
            tile = {s: tile[s] + stamps[level.name][s] for s in instances}
        out[level.name] = tile
    return out


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
    >>> a = figures[("glb", "A")]
    >>> (a.footprint, a.fills, a.writebacks), need["glb"]
    ((3, 6, 0), 11)
    """
    bound = {**workload.params, **dataflow.params, **(params or {})}
    domain = parse_set(workload.domain, bound)
    instances = list_points(domain)
    pe_of = {s: pes[0] for s, pes in _image(dataflow.space_stamp, domain, bound).items()}
    reads: dict[str, dict[_Point, list[_Point]]] = {}
    writes: dict[str, dict[_Point, list[_Point]]] = {}
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
    senders = _senders(architecture, bound)
    tensor_tiles = {
        tensor: _tiles(
            instances,
            levels,
            {
                **stamps,
                **{
                    level: {s: t[0] for s, t in _image(per[tensor], domain, bound).items()}
                    for level, per in dataflow.places.items()
                    if tensor in per
                },
            },
        )
        for tensor in reads
    }
    figures: dict[tuple[str, str], TileFigures] = {}
    need: dict[str, int] = {}
    for tensor in reads:
        every = {e for s in instances for e in reads[tensor].get(s, []) + writes[tensor].get(s, [])}
        figures[(levels[0].name, tensor)] = TileFigures(len(every), 0, 0)
    need[levels[0].name] = sum(f.footprint for f in figures.values())
    for level in levels[1:]:
        pes: list[_Point] = sorted(set(pe_of.values())) if level.per_pe else [()]
        # the tensors the dataflow keeps at the level, else those the level may hold
        kept = dataflow.keep.get(level.name, level.tensors)
        held_by = [t for t in reads if kept is None or t in kept]
        buffers: dict[str, dict[tuple[_Point, _Point], set[_Point]]] = {}
        for tensor in held_by:
            tile = tensor_tiles[tensor][level.name]
            figures[(level.name, tensor)], buffers[tensor] = _walk(
                instances,
                tile,
                sorted(set(tile.values())),
                pes,
                pe_of if level.per_pe else None,
                reads[tensor],
                writes[tensor],
                senders if level.per_pe else {},
                level,
            )
        # A moment: the tile of every tensor at its own place, as some instance runs in them
        # all; then every buffer of every tensor (one per PE) holds that tensor's tile.
        moments = {tuple(tensor_tiles[t][level.name][s] for t in held_by) for s in instances}
        need[level.name] = max(
            (
                sum(
                    len(buffers[t].get((pe, tile), ()))
                    for t, tile in zip(held_by, moment, strict=True)
                )
                for moment in moments
                for pe in pes
            ),
            default=0,
        )
    return figures, need


def _walk(
    instances: list[_Point],
    tile: Mapping[_Point, _Point],
    order: list[_Point],
    pes: list[_Point],
    pe_of: Mapping[_Point, _Point] | None,
    reads: Mapping[_Point, list[_Point]],
    writes: Mapping[_Point, list[_Point]],
    senders: Senders,
    level: _Level,
) -> tuple[TileFigures, dict[tuple[_Point, _Point], set[_Point]]]:
    """Walk the tiles in order with one literal buffer per PE (one in all when shared); a
    fill comes from a linked PE's buffer when that buffer held the element ``delay`` tiles
    earlier (the same tile, from a PE before it, for a same-step link). Return the figures
    and the elements each buffer holds, per (PE, tile)."""
    touched: dict[tuple[_Point, _Point], set[_Point]] = defaultdict(set)
    read_in: dict[tuple[_Point, _Point], set[_Point]] = defaultdict(set)
    wrote_in: dict[tuple[_Point, _Point], set[_Point]] = defaultdict(set)
    written_in_tile: dict[_Point, set[_Point]] = defaultdict(set)
    for s in instances:
        key = (pe_of[s] if pe_of is not None else (), tile[s])
        touched[key].update(reads.get(s, []), writes.get(s, []))
        read_in[key].update(reads.get(s, []))
        wrote_in[key].update(writes.get(s, []))
        written_in_tile[tile[s]].update(writes.get(s, []))
    fills = writebacks = footprint = from_neighbour = 0
    parent_reads: list[tuple[_Point, _Point]] = []
    parent_writes: list[tuple[_Point, _Point]] = []
    held: dict[tuple[_Point, _Point], set[_Point]] = {}

    def cheapest_link(pe: _Point, position: int, element: _Point) -> float | None:
        """The least energy of a link over which a linked buffer holds ``element``."""
        found: list[float] = []
        for sender, delay, energy in senders.get(pe, ()):
            if delay == 0 and not sender < pe:
                continue
            if position - delay >= 0 and element in touched.get(
                (sender, order[position - delay]), set()
            ):
                found.append(energy)
        return min(found, default=None)

    moved = 0.0

    for pe in pes:
        buffer: set[_Point] = set()
        dirty: set[_Point] = set()
        written_before: set[_Point] = set()
        for position, t in enumerate(order):
            key = (pe, t)
            incoming = touched.get(key, set())
            brought = {
                e for e in incoming - buffer if e in read_in.get(key, set()) or e in written_before
            }
            fills += len(brought)
            for e in brought:
                energy = cheapest_link(pe, position, e)
                if energy is not None:
                    from_neighbour += 1
                    moved += energy
                else:
                    parent_reads.append((t, e))
            buffer = set(incoming)
            dirty |= wrote_in.get(key, set())
            following = order[position + 1] if position + 1 < len(order) else None
            kept = touched.get((pe, following), set()) if following is not None else set()
            leaving = (buffer - kept) & dirty
            writebacks += len(leaving)
            parent_writes.extend((t, e) for e in leaving)
            held[key] = buffer
            footprint = max(footprint, len(buffer))
            written_before |= written_in_tile.get(t, set())
    per_pe = pe_of is not None
    reads_parent = len(set(parent_reads)) if per_pe and level.multicast else len(parent_reads)
    writes_parent = len(set(parent_writes)) if per_pe and level.reduction else len(parent_writes)
    figures = TileFigures(
        footprint, fills, writebacks, from_neighbour, reads_parent, writes_parent, moved
    )
    return figures, held
