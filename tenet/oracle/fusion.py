"""A brute-force reference for fused chains, on small sizes: a literal simulator.

It lists every instance and the elements it reads and writes (isl ``foreach_point`` only),
tiles the fused statements by their ranks, and finds the instances a left-out producer runs
in each tile by looking up the writers of what the tile's consumers read (once, in the first
tile, when the halo is kept; in every tile when it is recomputed). Then it walks the tiles in
order, each statement's instances in turn, with the buffer as Python sets: a streamed input is
loaded on its first read in a tile and dropped at the tile's end, a resident one on its first
read ever; an intermediate's element stays while a later tile reads this copy before any tile
produces it again; a streamed output is written back at each tile's end (and read back when
a later tile adds to it). A statement with sub-tiles runs its instances in a tile grouped by
its sub-tile (its named ranks divided by the sizes, in its domain's order): its streamed
inputs and output live in a buffer of the sub-tile, loaded (written back) per sub-tile and
dropped at its end. The buffer's need in a tile is what it holds at the tile's end plus the
largest sub-tile of the tile. Like the other oracles, it shares no code with ``tenet.model``,
``tenet.counting`` or ``tenet.metrics``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import islpy as isl

from tenet.errors import DataflowError
from tenet.isl_utils import parse_map, parse_set
from tenet.oracle.metrics import list_points
from tenet.spec.chain import ChainSpec
from tenet.vocab import Halo

__all__ = ["TensorWalk", "FusionWalk", "walk_fusion"]

_Point = tuple[int, ...]
_Element = tuple[str, _Point]


@dataclass
class TensorWalk:
    """What the walk saw of one tensor, in elements (the fields of the exact counts)."""

    dram_reads: int = 0
    dram_writes: int = 0
    fills: int = 0
    footprints: list[int] = field(default_factory=list)
    halos: list[int] = field(default_factory=list)


@dataclass
class FusionWalk:
    """The walk's figures: the tiles in order, per tensor and per statement (MACs run, and
    those run before)."""

    tiles: list[_Point]
    tensors: dict[str, TensorWalk]
    macs: dict[str, int]
    recomputed: dict[str, int]
    needs: list[int] = field(default_factory=list)
    """Per tile, the most elements the buffer held at once."""


@dataclass
class _Statement:
    name: str
    ranks: list[str]
    instances: list[_Point]
    reads: dict[_Point, list[_Element]]
    writes: dict[_Point, _Element]


def _statement(spec: ChainSpec, k: int, sizes: Mapping[str, int]) -> _Statement:
    s = spec.statements[k]
    domain = parse_set(s.domain, sizes)
    instances = list_points(domain)
    reads: dict[_Point, list[_Element]] = defaultdict(list)
    writes: dict[_Point, _Element] = {}
    n = domain.dim(isl.dim_type.set)
    for tensor, access in s.accesses.items():
        for texts, is_write in ((access.read, False), (access.write, True)):
            for text in texts:
                relation = parse_map(text, sizes).intersect_domain(domain)
                for p in list_points(relation.wrap()):
                    if is_write:
                        writes[p[:n]] = (tensor, p[n:])
                    else:
                        reads[p[:n]].append((tensor, p[n:]))
    names = [str(domain.get_dim_name(isl.dim_type.set, k)) for k in range(n)]
    return _Statement(s.name, names, instances, reads, writes)


def _runs(
    spec: ChainSpec,
    statements: list[_Statement],
    ranks: Mapping[str, Sequence[str]],
    tiles: Sequence[int],
    halo: Halo,
) -> dict[str, dict[_Point, list[_Point]]]:
    """Per statement, per tile, the instances it runs there, in order."""
    runs: dict[str, dict[_Point, list[_Point]]] = {}
    for k in reversed(range(len(statements))):
        statement = statements[k]
        if statement.name in ranks:
            at = [statement.ranks.index(r) for r in ranks[statement.name]]
            grouped: dict[_Point, list[_Point]] = defaultdict(list)
            for x in statement.instances:
                grouped[tuple(x[a] // t for a, t in zip(at, tiles, strict=True))].append(x)
            runs[statement.name] = dict(grouped)
            continue
        writers: dict[_Element, list[_Point]] = defaultdict(list)
        for x in statement.instances:
            writers[statement.writes[x]].append(x)
        needed: dict[_Point, set[_Point]] = defaultdict(set)
        for consumer in statements[k + 1 :]:
            for tile, instances in runs.get(consumer.name, {}).items():
                for x in instances:
                    for element in consumer.reads[x]:
                        needed[tile].update(writers.get(element, ()))
        done: set[_Point] = set()
        runs[statement.name] = {}
        for tile in sorted(needed):
            chosen = sorted(needed[tile] - done) if halo == "keep" else sorted(needed[tile])
            done |= needed[tile]
            if chosen:
                runs[statement.name][tile] = chosen
    return runs


def _events(
    statements: Iterable[_Statement], runs: Mapping[str, Mapping[_Point, list[_Point]]]
) -> tuple[dict[_Element, list[_Point]], dict[_Element, list[_Point]]]:
    """Per element, the tiles reading it and the tiles producing it."""
    reads: dict[_Element, set[_Point]] = defaultdict(set)
    produced: dict[_Element, set[_Point]] = defaultdict(set)
    for statement in statements:
        for tile, instances in runs[statement.name].items():
            for x in instances:
                for element in statement.reads[x]:
                    reads[element].add(tile)
                produced[statement.writes[x]].add(tile)
    return (
        {e: sorted(t) for e, t in reads.items()},
        {e: sorted(t) for e, t in produced.items()},
    )


def walk_fusion(
    spec: ChainSpec,
    sizes: Mapping[str, int],
    ranks: Mapping[str, Sequence[str]],
    tiles: Sequence[int],
    *,
    halo: Halo = "keep",
    resident: Iterable[str] = (),
    subtiles: Mapping[str, Mapping[str, int]] | None = None,
) -> FusionWalk:
    """Simulate the chain fused over ``ranks`` with tile sizes ``tiles`` (and the sub-tile
    sizes of ``subtiles``: statement -> rank -> size), and count.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> walk = walk_fusion(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2},
    ...     {"S1": ("m",)}, (2,), resident={"B", "D"})
    >>> walk.tiles, walk.tensors["C"].footprints, walk.tensors["B"].fills
    ([(0,), (1,)], [4, 4], 6)
    """
    bound = {**spec.params, **sizes}
    statements = [_statement(spec, k, bound) for k in range(len(spec.statements))]
    runs = _runs(spec, statements, ranks, tiles, halo)
    for statement in statements:
        ran = {x for instances in runs[statement.name].values() for x in instances}
        missed = sorted(set(statement.instances) - ran)
        if missed:
            raise DataflowError(f"{statement.name}{list(missed[0])} runs in no fused tile")
    order = sorted({t for run in runs.values() for t in run})
    walk = FusionWalk(order, {t: TensorWalk() for t in spec.tensors}, {}, {})
    for statement in statements:
        ran_list = [x for instances in runs[statement.name].values() for x in instances]
        walk.macs[statement.name] = len(ran_list)
        walk.recomputed[statement.name] = len(ran_list) - len(set(ran_list))
    _simulate(spec, statements, runs, walk, set(resident), subtiles or {})
    return walk


def _simulate(
    spec: ChainSpec,
    statements: list[_Statement],
    runs: Mapping[str, Mapping[_Point, list[_Point]]],
    walk: FusionWalk,
    resident: set[str],
    subtiles: Mapping[str, Mapping[str, int]],
) -> None:
    reads, produced = _events(statements, runs)
    buffer: dict[str, set[_Point]] = {t: set() for t in spec.tensors}
    seen: dict[str, set[_Point]] = {t: set() for t in spec.tensors}
    written_before: set[_Element] = set()
    reserved = {t: sum(1 for e in {*reads, *produced} if e[0] == t) for t in resident}
    cuts = {s.name: _cut(spec, s, resident) for s in statements if s.name in subtiles}
    held_cut = {t for cut in cuts.values() for t in cut}
    for tile in walk.tiles:
        halos: dict[str, set[_Point]] = defaultdict(set)
        in_tile: dict[str, set[_Point]] = defaultdict(set)
        made: dict[str, set[_Point]] = defaultdict(set)
        peaks: dict[str, int] = defaultdict(int)
        most = 0
        for statement in statements:
            cut = cuts.get(statement.name, set())
            for group in _grouped(statement, subtiles.get(statement.name, {}), runs, tile):
                held: dict[str, set[_Point]] = defaultdict(set)
                for x in group:
                    for tensor, index in statement.reads[x]:
                        figures = walk.tensors[tensor]
                        if index in seen[tensor] and index not in in_tile[tensor]:
                            halos[tensor].add(index)
                        in_tile[tensor].add(index)
                        place = held if tensor in cut else buffer
                        if index in place[tensor]:
                            continue
                        if tensor not in spec.inputs:
                            later = [p for p in produced[(tensor, index)] if p > tile]
                            raise DataflowError(
                                f"tile Tile{list(tile)} of {statement.name} reads "
                                f"{tensor}{list(index)}, which is written only in the later "
                                f"tile Tile{list(later[0])}"
                            )
                        figures.dram_reads += 1
                        figures.fills += 1
                        place[tensor].add(index)
                    element = statement.writes[x]
                    if element[0] in cut:
                        _write_back(element, held, written_before, walk)
                    else:
                        _write(spec, element, buffer, made, written_before, walk, resident)
                for tensor in cut:
                    peaks[tensor] = max(peaks[tensor], len(held[tensor]))
                    if tensor not in spec.inputs:
                        walk.tensors[tensor].dram_writes += len(held[tensor])
                most = max(most, sum(len(held[t]) for t in cut))
        need = most
        for tensor, figures in walk.tensors.items():
            if tensor in held_cut:
                figures.footprints.append(peaks[tensor])
            else:
                figures.footprints.append(
                    reserved[tensor] if tensor in resident else len(buffer[tensor])
                )
                need += figures.footprints[-1]
            figures.halos.append(len(halos[tensor]))
            seen[tensor] |= in_tile[tensor]
        walk.needs.append(need)
        _end_of_tile(spec, tile, buffer, made, reads, produced, walk, resident)
    for tensor in resident - set(spec.inputs):
        walk.tensors[tensor].dram_writes += len(buffer[tensor])


def _cut(spec: ChainSpec, statement: _Statement, resident: set[str]) -> set[str]:
    """The tensors a statement with sub-tiles holds per sub-tile: the inputs it reads and
    the chain's final output it writes, unless resident."""
    read = {t for elements in statement.reads.values() for t, _ in elements}
    written = {t for t, _ in statement.writes.values()}
    final = {t for t in written if t not in spec.inputs and t not in spec.intermediates}
    return ({t for t in read if t in spec.inputs} | final) - resident


def _grouped(
    statement: _Statement,
    sizes: Mapping[str, int],
    runs: Mapping[str, Mapping[_Point, list[_Point]]],
    tile: _Point,
) -> list[list[_Point]]:
    """The statement's instances in ``tile``, one list per sub-tile in the sub-tiles' order
    (one list: no sub-tiles)."""
    at = [(statement.ranks.index(r), sizes[r]) for r in statement.ranks if r in sizes]
    groups: dict[_Point, list[_Point]] = defaultdict(list)
    for x in runs[statement.name].get(tile, []):
        groups[tuple(x[a] // s for a, s in at)].append(x)
    return [groups[u] for u in sorted(groups)]


def _write_back(
    element: _Element,
    held: dict[str, set[_Point]],
    written_before: set[_Element],
    walk: FusionWalk,
) -> None:
    """An instance adds to a sub-tiled output: a fill the first time in the sub-tile, its
    partial sum read back from DRAM when written before."""
    tensor, index = element
    if index not in held[tensor]:
        walk.tensors[tensor].fills += 1
        walk.tensors[tensor].dram_reads += element in written_before
    held[tensor].add(index)
    written_before.add(element)


def _write(
    spec: ChainSpec,
    element: _Element,
    buffer: dict[str, set[_Point]],
    made: dict[str, set[_Point]],
    written_before: set[_Element],
    walk: FusionWalk,
    resident: set[str],
) -> None:
    """An instance writes ``element`` into the buffer: a fill the first time in the tile
    (once for a resident tensor); an intermediate among the chain's outputs is written through
    to DRAM the first time; a streamed output's partial sum is read back from DRAM."""
    tensor, index = element
    figures = walk.tensors[tensor]
    if tensor in resident:
        figures.fills += index not in buffer[tensor]
    elif index not in made[tensor]:
        figures.fills += 1
        if tensor in spec.intermediates:
            figures.dram_writes += tensor in spec.final and element not in written_before
        else:
            figures.dram_reads += element in written_before
    made[tensor].add(index)
    written_before.add(element)
    buffer[tensor].add(index)


def _end_of_tile(
    spec: ChainSpec,
    tile: _Point,
    buffer: dict[str, set[_Point]],
    made: Mapping[str, set[_Point]],
    reads: Mapping[_Element, list[_Point]],
    produced: Mapping[_Element, list[_Point]],
    walk: FusionWalk,
    resident: set[str],
) -> None:
    """Drop streamed inputs, write streamed outputs back, keep the live intermediates."""
    for tensor in spec.tensors:
        if tensor in resident:
            continue
        if tensor in spec.inputs:
            buffer[tensor].clear()
        elif tensor in spec.intermediates:
            for index in list(buffer[tensor]):
                next_read = next((r for r in reads.get((tensor, index), []) if r > tile), None)
                next_made = next((p for p in produced[(tensor, index)] if p > tile), None)
                if next_read is None or (next_made is not None and next_made <= next_read):
                    buffer[tensor].discard(index)
        else:
            walk.tensors[tensor].dram_writes += len(made.get(tensor, ()))
            buffer[tensor].clear()
