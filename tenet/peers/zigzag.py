"""ZigZag specs in and out: a workload file (a list of layers: ``equation``, ``loop_dims``,
``loop_sizes``, ``dimension_relations``, ``operand_precision``), an accelerator file
(``memories`` listed innermost first with ``size`` in bits, ``r_cost``/``w_cost`` per word,
``operands`` and ``served_dimensions``; ``operational_array``) and a mapping file
(``spatial_mapping`` per array dimension, ``temporal_ordering`` innermost first,
``memory_operand_links``).

ZigZag's mapping does not say which memory holds which loops: ZigZag allocates them itself,
innermost memory first, as far as each memory's size allows, and tenet's reader does the same
(:func:`allocate`, ``docs/peers.md``); ``tenet compare --with zigzag`` uses ZigZag's own
allocation."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from math import ceil, prod
from pathlib import Path
from typing import Any

from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping import LevelLoops, Loop, LoopNest
from tenet.peers import specs
from tenet.peers.files import need, read_peer_yaml
from tenet.spec import Specs
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "ZigZagLayer",
    "Memory",
    "LayerMapping",
    "read_zigzag",
    "write_zigzag",
    "zigzag_operands",
    "allocate",
    "nest_of_allocation",
]

_EQUATION = re.compile(
    r"^\s*(\w+)((?:\[\w*\])+)\s*\+?=\s*(\w+)((?:\[\w*\])+)\s*\*\s*(\w+)((?:\[\w*\])+)\s*$"
)
_RELATION = re.compile(
    r"^\s*(\w+)\s*=\s*(?:(\d+)\s*\*\s*)?(\w+)\s*\+\s*(?:(\d+)\s*\*\s*)?(\w+)\s*$"
)


@dataclass(frozen=True)
class ZigZagLayer:
    """A ZigZag layer: loop dimensions (upper case) and sizes, operands with subscripts."""

    name: str
    dims: tuple[str, ...]
    sizes: tuple[int, ...]
    operands: tuple[specs.Operand, ...]
    precision: Mapping[str, int]


@dataclass(frozen=True)
class Memory:
    """A ZigZag memory: size in bits, energies per bit read and written (pJ), the memory
    operands it serves, one instance per PE (``served_dimensions: []``) or shared by the
    array, and its ports' widths (bits/cycle read and written)."""

    name: str
    size_bits: float | None
    energy_read: float
    energy_write: float
    operands: tuple[str, ...]
    per_pe: bool
    read_bits: float = 1.0
    write_bits: float = 1.0


@dataclass(frozen=True)
class LayerMapping:
    """A ZigZag layer on its memories (innermost first) with its spatial loops (dimension,
    size, array axis), its temporal loops (innermost first, every trip given) and the links
    from layer operands to memory operands."""

    layer: ZigZagLayer
    memories: Sequence[Memory]
    spatial: Sequence[tuple[str, int, int]]
    temporal: Sequence[tuple[str, int]]
    links: Mapping[str, str]

    def operands(self, memory: Memory) -> list[str]:
        """Return the layer operands that ``memory`` holds."""
        back = {mem_op: op for op, mem_op in self.links.items()}
        return [back[o] for o in memory.operands if o in back]


def _split(subscripts: str) -> list[str]:
    return [s for s in re.findall(r"\[(\w*)\]", subscripts) if s]


def read_layer(path: str | Path) -> ZigZagLayer:
    """Read the first layer of a ZigZag workload file."""
    src = str(path)
    doc = read_peer_yaml(path)
    layers = doc if isinstance(doc, list) else [doc]
    layer = need(layers, 0, dict, src, "")
    equation = need(layer, "equation", str, src, "0")
    m = _EQUATION.match(equation)
    if not m:
        raise SpecError(
            f"expected 'O[..]+=I[..]*W[..]', not {equation!r}", source=src, location="0.equation"
        )
    dims = [str(d) for d in need(layer, "loop_dims", list, src, "0")]
    sizes = need(layer, "loop_sizes", list, src, "0")
    if len(sizes) != len(dims) or not all(isinstance(s, int) and s > 0 for s in sizes):
        raise SpecError(
            f"expected {len(dims)} positive sizes, one per loop dimension, not {sizes!r}",
            source=src,
            location="0.loop_sizes",
        )
    lower = {d.lower(): d for d in dims}
    derived: dict[str, str] = {}
    for k, text in enumerate(layer.get("dimension_relations", []) or []):
        r = _RELATION.match(str(text))
        if not r or r.group(3) not in lower or r.group(5) not in lower:
            raise SpecError(
                f"expected 'ix=1*ox+1*fx' over loop dimensions, not {text!r}",
                source=src,
                location=f"0.dimension_relations.{k}",
            )
        derived[r.group(1)] = f"{r.group(2) or 1}*{r.group(3)} + {r.group(4) or 1}*{r.group(5)}"
    operands = []
    for name, subs, output in (
        (m.group(1), m.group(2), True),
        (m.group(3), m.group(4), False),
        (m.group(5), m.group(6), False),
    ):
        parts = []
        for sub in _split(subs):
            if sub in derived:
                parts.append(derived[sub])
            elif sub in lower:
                parts.append(sub)
            else:
                raise SpecError(
                    f"{name}[{sub}]: {sub!r} is neither a loop dimension nor in "
                    "dimension_relations",
                    source=src,
                    location="0.equation",
                )
        operands.append(specs.Operand(name, tuple(parts), output))
    precision = need(layer, "operand_precision", dict, src, "0")
    return ZigZagLayer(
        str(layer.get("name") or f"layer{layer.get('id', 0)}"),
        tuple(dims),
        tuple(sizes),
        tuple(operands),
        {str(k): int(v) for k, v in precision.items()},
    )


def read_accelerator(path: str | Path) -> tuple[str, list[Memory], list[int], float]:
    """Read a ZigZag accelerator: memories (innermost first), array sizes, MAC energy."""
    src = str(path)
    doc = need({"doc": read_peer_yaml(path)}, "doc", dict, src, "")
    memories = need(doc, "memories", dict, src, "")
    array = need(doc, "operational_array", dict, src, "")
    dims = [str(d) for d in need(array, "dimensions", list, src, "operational_array")]
    sizes = need(array, "sizes", list, src, "operational_array")
    out: list[Memory] = []
    for name, mem in memories.items():
        where = f"memories.{name}"
        served = [str(d) for d in mem.get("served_dimensions", []) or []]
        if served and sorted(served) != sorted(dims):
            raise NotALoopNestError(
                f"{src}: {where}.served_dimensions: {served} is part of the array "
                f"({dims}): one instance per slice of the array has no tenet level"
            )
        read_bits, write_bits = port_widths(mem, src, where)
        size = specs.number(need(mem, "size", (int, float, str), src, where), src, f"{where}.size")
        out.append(
            Memory(
                str(name),
                size,
                float(specs.number(mem.get("r_cost", 0), src, f"{where}.r_cost") or 0) / read_bits,
                float(specs.number(mem.get("w_cost", 0), src, f"{where}.w_cost") or 0) / write_bits,
                tuple(str(o) for o in need(mem, "operands", list, src, where)),
                not served and len(sizes) > 0,
                read_bits,
                write_bits,
            )
        )
    mac = float(
        specs.number(array.get("unit_energy", 1), src, "operational_array.unit_energy") or 1
    )
    return str(doc.get("name", Path(src).stem)), out, [int(s) for s in sizes], mac


def port_widths(mem: Mapping[str, Any], src: str, where: str) -> tuple[float, float]:
    """Bits/cycle of the memory's read and write ports, as ZigZag charges them: the widest
    ``bandwidth_max`` of a port that reads (``read``, ``read_write``) and of one that writes;
    without ports, ``r_bw`` and ``w_bw``. ``r_cost``/``w_cost`` are per word of that width."""
    widths: dict[str, list[float]] = {"read": [], "write": []}
    for k, port in enumerate(mem.get("ports", []) or []):
        if not isinstance(port, dict) or port.get("bandwidth_max") is None:
            continue
        bits = specs.number(port["bandwidth_max"], src, f"{where}.ports.{k}.bandwidth_max")
        kind = str(port.get("type", "read_write"))
        for side in ("read", "write"):
            if side in kind and bits:
                widths[side].append(float(bits))
    read = max(widths["read"], default=None) or specs.number(
        mem.get("r_bw", 1), src, f"{where}.r_bw"
    )
    write = max(widths["write"], default=None) or specs.number(
        mem.get("w_bw", read), src, f"{where}.w_bw"
    )
    return float(read or 1), float(write or read or 1)


def read_zigzag_mapping(
    path: str | Path, layer: ZigZagLayer
) -> tuple[list[tuple[str, int, int]], list[tuple[str, int | None]], dict[str, str]]:
    """Read the ``default`` mapping: spatial loops (dim, size, axis), temporal loops
    innermost first (``None`` size: the rest), operand links (layer operand -> memory
    operand)."""
    src = str(path)
    doc = read_peer_yaml(path)
    entries = doc if isinstance(doc, list) else [doc]
    chosen = next(
        (e for e in entries if isinstance(e, dict) and e.get("name") in (layer.name, "default")),
        None,
    )
    if chosen is None:
        raise SpecError("no 'default' mapping", source=src)
    k = entries.index(chosen)
    spatial: list[tuple[str, int, int]] = []
    for axis, (dim, loops) in enumerate((chosen.get("spatial_mapping") or {}).items()):
        for n, text in enumerate(loops):
            where = f"{k}.spatial_mapping.{dim}.{n}"
            name, _, size = str(text).partition(",")
            if name.strip() not in layer.dims or not size.strip().isdigit():
                raise SpecError(
                    f"expected 'DIM, SIZE' over {', '.join(layer.dims)}, not {text!r}",
                    source=src,
                    location=where,
                )
            spatial.append((name.strip(), int(size), axis))
    temporal: list[tuple[str, int | None]] = []
    for n, item in enumerate(chosen.get("temporal_ordering", []) or []):
        where = f"{k}.temporal_ordering.{n}"
        if not isinstance(item, list) or len(item) != 2 or str(item[0]) not in layer.dims:
            raise SpecError(
                f"expected [DIM, SIZE or '*'] over {', '.join(layer.dims)}, not {item!r}",
                source=src,
                location=where,
            )
        temporal.append((str(item[0]), None if item[1] == "*" else int(item[1])))
    links = {str(a): str(b) for a, b in (chosen.get("memory_operand_links") or {}).items()}
    if not links:
        links = {"O": "O", "I": "I1", "W": "I2"}
    return spatial, temporal, links


def _complete(
    layer: ZigZagLayer,
    spatial: Sequence[tuple[str, int, int]],
    temporal: Sequence[tuple[str, int | None]],
) -> list[tuple[str, int]]:
    """Return the temporal loops innermost first with every ``*`` and missing trip filled in
    (an outermost loop per dimension takes what the others leave, rounded up)."""
    left = {d: s for d, s in zip(layer.dims, layer.sizes, strict=True)}
    for d, size, _ in spatial:
        left[d] = ceil(left[d] / size)
    out: list[tuple[str, int]] = []
    stars = [k for k, (_, s) in enumerate(temporal) if s is None]
    for d, s in temporal:
        if s is not None:
            left[d] = ceil(left[d] / s)
    for k, (d, s) in enumerate(temporal):
        if s is None:
            s = left[d] if k == max(j for j in stars if temporal[j][0] == d) else 1
            left[d] = 1 if s == left[d] else left[d]
        out.append((d, s))
    for d in layer.dims:
        if left[d] > 1:
            out.append((d, left[d]))
    return [(d, s) for d, s in out if s > 1]


def nest_of_allocation(
    mapping: LayerMapping, allocation: Mapping[str, Mapping[str, int]]
) -> LoopNest:
    """Return the loop nest of a ZigZag mapping given, per memory and layer operand, the number
    of innermost temporal loops at that memory or below it (its allocation)."""
    memories, spatial, temporal = mapping.memories, mapping.spatial, mapping.temporal
    order = [m for m in reversed(memories) if not m.per_pe] + [
        m for m in reversed(memories) if m.per_pe
    ]
    n_temporal = len(temporal)
    flat_t = list(reversed(temporal))
    shared = [m for m in order if not m.per_pe]
    # Spatial loops sit just above the per-PE levels: below every shared level's loops.
    lowest_shared = max(
        (n_temporal - allocation[m.name][op] for m in shared[1:] for op in mapping.operands(m)),
        default=n_temporal,
    )
    insert = lowest_shared
    flat = [Loop(d.lower(), s) for d, s in flat_t[:insert]]
    flat += [Loop(d.lower(), s, spatial=a) for d, s, a in spatial]
    flat += [Loop(d.lower(), s) for d, s in flat_t[insert:]]

    def position(temporal_index: int) -> int:
        return temporal_index + (len(spatial) if temporal_index > insert else 0)

    bounds: dict[str, int] = {}
    above: dict[str, dict[str, int]] = {}
    for k, m in enumerate(order):
        if k == 0:
            bounds[m.name] = 0
            continue
        tops = {op: position(n_temporal - allocation[m.name][op]) for op in mapping.operands(m)}
        bounds[m.name] = min(tops.values()) if tops else len(flat)
        if m.per_pe:
            # A per-PE memory's loops start below the spatial ones; a tensor it holds from
            # higher up keeps its own place (``above``).
            bounds[m.name] = max(bounds[m.name], insert + len(spatial))
        for op, t in tops.items():
            if t != bounds[m.name]:
                above.setdefault(op, {})[m.name] = t
    names = [m.name for m in order]
    starts = [bounds[n] for n in names]
    levels = []
    for k, m in enumerate(order):
        end = min(starts[k + 1 :], default=len(flat))
        end = max(end, starts[k])
        keep = None if k == 0 else frozenset(mapping.operands(m))
        levels.append(LevelLoops(m.name, tuple(flat[starts[k] : end]), keep))
    if starts != sorted(starts):
        raise NotALoopNestError(
            f"memory {names[starts.index(max(starts))]!r} holds fewer loops than one inside it"
        )
    dims = tuple(d.lower() for d in mapping.layer.dims)
    return LoopNest(
        dims,
        tuple(mapping.layer.sizes),
        tuple(levels),
        per_pe=frozenset(m.name for m in order if m.per_pe),
        above=above,
    )


def _footprint(layer: ZigZagLayer, operand: specs.Operand, extent: Mapping[str, int]) -> int:
    """Elements of ``operand`` touched by a box of ``extent`` per dimension; a window
    subscript (``ox + fx``) at most the whole of that subscript, as ZigZag clips it."""
    whole = dict(zip(layer.dims, layer.sizes, strict=True))
    total = 1
    for sub in operand.subscripts:
        terms = re.findall(r"(?:(\d+)\*)?(\w+)", sub)

        def span(box: Mapping[str, int], terms: list[tuple[str, str]] = terms) -> int:
            return sum(int(c or 1) * (box[d.upper()] - 1) for c, d in terms) + 1

        total *= min(span(extent), span(whole)) if len(terms) > 1 else span(extent)
    return total


def allocate(mapping: LayerMapping) -> dict[str, dict[str, int]]:
    """Return, per memory and layer operand, the innermost temporal loops it holds, as ZigZag's
    memory allocator (LOMA's) chooses them: memories innermost first; at each, every operand
    it holds may take its next 0, 1, ... loops while that operand's tile fits the memory; of
    the choices whose tiles fit together, the one with the fewest bits moved from the memory
    above (per operand: the trips of the loops left times its tile's bits; the last of equal
    choices, the first operand the most significant digit); the outermost memory of an
    operand takes all its loops. A memory too small for the tiles below keeps no more loops.
    """
    layer, spatial, temporal = mapping.layer, mapping.spatial, mapping.temporal
    ops = {op.name: op for op in layer.operands}
    done = {name: 0 for name in ops}
    top = {
        name: max(k for k, m in enumerate(mapping.memories) if name in mapping.operands(m))
        for name in ops
        if any(name in mapping.operands(m) for m in mapping.memories)
    }
    out: dict[str, dict[str, int]] = {}
    for k, m in enumerate(mapping.memories):
        names = mapping.operands(m)
        capacity = float("inf") if m.size_bits is None else m.size_bits
        choices: list[list[tuple[int, float, float]]] = []
        for n in names:
            precision = _precision(mapping, n, done[n], m.per_pe)

            def bits(at: int, n: str = n, precision: int = precision, m: Memory = m) -> int:
                extent = {d: 1 for d in layer.dims}
                for d, s, _ in spatial if not m.per_pe else ():
                    extent[d] *= s
                for d, s in temporal[:at]:
                    extent[d] *= s
                return _footprint(layer, ops[n], extent) * precision

            options: list[tuple[int, float, float]] = []
            for at in range(done[n], len(temporal) + 1):
                size = bits(at)
                if size > capacity and options:
                    break
                left = prod(s for _, s in temporal[at:])
                options.append((at, size, float(left * size)))
                if size > capacity:
                    break
            if top[n] == k:
                at = len(temporal)
                options = [(at, bits(at), 0.0)]
            choices.append(options)
        chosen = [options[0] for options in choices]
        best = float("inf")
        for combination in product(*choices):
            if sum(size for _, size, _ in combination) > capacity:
                continue
            moved = sum(cost for _, _, cost in combination)
            if moved <= best:
                best, chosen = moved, list(combination)
        out[m.name] = {n: at for n, (at, _, _) in zip(names, chosen, strict=True)}
        done.update(out[m.name])
    return out


def _precision(mapping: LayerMapping, name: str, done: int, per_pe: bool) -> int:
    """Bits of an element of operand ``name`` at a memory above ``done`` temporal loops: an
    output's final precision (``O_final``) once no loop over a dimension it does not use is
    left above the memory (the spatial loops too, above a per-PE memory), else its partial
    sums' precision, as ZigZag stores them."""
    layer = mapping.layer
    operand = next(op for op in layer.operands if op.name == name)
    precision = layer.precision.get(name, 8)
    final = layer.precision.get(f"{name}_final")
    if not operand.output or final is None:
        return precision
    used = {d.upper() for sub in operand.subscripts for d in re.findall(r"[a-z_]\w*", sub)}
    left = [d for d, _ in mapping.temporal[done:]]
    if per_pe:
        left += [d for d, _, _ in mapping.spatial]
    return precision if any(d not in used for d in left) else final


def read_zigzag(
    workload: str | Path, accelerator: str | Path, mapping: str | Path
) -> specs.Imported:
    """Read ZigZag's three files into tenet documents and a loop nest (loops allocated to
    memories as ZigZag's allocator does: :func:`allocate`)."""
    layer = read_layer(workload)
    name, memories, sizes, mac = read_accelerator(accelerator)
    spatial, temporal_given, links = read_zigzag_mapping(mapping, layer)
    for d, _, axis in spatial:
        if axis >= len(sizes):
            raise SpecError(
                f"spatial loop over {d} on array dimension {axis + 1}, which has "
                f"{len(sizes)} dimensions",
                source=str(mapping),
                location="0.spatial_mapping",
            )
    placed = LayerMapping(
        layer, memories, spatial, _complete(layer, spatial, temporal_given), links
    )
    nest = nest_of_allocation(placed, allocate(placed))
    order = [lv.level for lv in nest.levels]
    by_name = {m.name: m for m in memories}
    width = max(layer.precision.get(op.name, 8) for op in layer.operands)
    levels = []
    for n in order:
        m = by_name[n]
        level: dict[str, Any] = {"name": n}
        if m.size_bits is not None and n != order[0]:
            level["capacity"] = max(1, int(m.size_bits) // width)
        if m.per_pe:
            level["per_pe"] = True
        level["energy_read"] = m.energy_read * width
        level["energy_write"] = m.energy_write * width
        level["read_bandwidth"] = m.read_bits / width
        level["write_bandwidth"] = m.write_bits / width
        level["source"] = (
            f"{accelerator}: memories.{n} (energy per {width}-bit element from r_cost/w_cost "
            "per bandwidth_max-bit word; bandwidth in elements per cycle from bandwidth_max)"
        )
        levels.append(level)
    pe = " and ".join(f"0 <= p{k} < {s}" for k, s in enumerate(sizes))
    arch = {
        "version": 1,
        "name": name,
        "pe": f"{{PE[{', '.join(f'p{k}' for k in range(len(sizes)))}]: {pe}}}",
        "bits_per_element": width,
        "energy": {"mac": mac, "unit": "pJ"},
        "levels": levels,
    }
    dims = [d.lower() for d in layer.dims]
    return specs.imported(
        layer.name.lower(), dims, layer.sizes, layer.operands, arch, nest, str(mapping)
    )


def zigzag_operands(workload: WorkloadSpec) -> dict[str, str]:
    """Return ZigZag's layer operand of each tensor of ``workload``: O for the output, I and W
    for the inputs (in the workload's order, unless they are named I and W already).

    Raises
    ------
    NotALoopNestError
        A workload that is not one output and two inputs.
    """
    outputs = [t for t, a in workload.accesses.items() if a.write]
    inputs = [t for t, a in workload.accesses.items() if not a.write]
    if len(outputs) != 1 or len(inputs) != 2:
        raise NotALoopNestError(
            f"{workload.source or workload.name}: ZigZag reads one output and two inputs, "
            f"not {len(outputs)} and {len(inputs)}"
        )
    if set(inputs) == {"I", "W"}:
        inputs = ["I", "W"]
    return {outputs[0]: "O", inputs[0]: "I", inputs[1]: "W"}


def write_zigzag(problem: Specs) -> dict[str, Any]:
    """Return ZigZag's three documents (``workload``, ``accelerator``, ``mapping``) for a tenet
    problem whose dataflow a loop nest expresses; tensors become O (the output), I and W.
    Without a dataflow the mapping has the operand links alone: ZigZag's search generates the
    spatial mapping and the temporal ordering.

    Raises
    ------
    NotALoopNestError
        A skewed or modulo placement, a workload that is not one output and two inputs.
    """
    nest = None if problem.dataflow is None else specs.recover_nest(problem)
    workload, architecture = problem.workload, problem.architecture
    rename = zigzag_operands(workload)
    tensor = {operand: t for t, operand in rename.items()}
    loop_dims, extents = (
        (nest.dims, nest.extents) if nest is not None else specs.domain_box(problem)
    )

    def subscripts(tensor: str, relations: list[str]) -> str:
        subs = specs.projection(workload, tensor, "ZigZag's equation has one per operand")
        out = ""
        for n, sub in enumerate(subs):
            plain = re.fullmatch(r"(?:1\s*\*\s*)?([a-z_]\w*)", sub.strip())
            if plain and plain.group(1) in loop_dims:
                out += f"[{plain.group(1)}]"
                continue
            terms = re.findall(r"(?:(\d+)\s*\*\s*)?([a-z_]\w*)", sub)
            if len(terms) != 2 or re.sub(r"[\s\d\w*+]", "", sub):
                raise NotALoopNestError(
                    f"{workload.source or workload.name}: {tensor}'s subscript {sub!r} is not "
                    "a loop index or a sum of two"
                )
            name = f"{rename[tensor].lower()}{n}"
            (c1, d1), (c2, d2) = terms
            relations.append(f"{name}={c1 or 1}*{d1}+{c2 or 1}*{d2}")
            out += f"[{name}]"
        return out

    relations: list[str] = []
    eq = (
        f"O{subscripts(tensor['O'], relations)}+=I{subscripts(tensor['I'], relations)}"
        f"*W{subscripts(tensor['W'], relations)}"
    )
    bits = architecture.bits_per_element
    layer = {
        "id": 0,
        "name": workload.name,
        "operator_type": "Gemm" if not relations else "Conv",
        "equation": eq,
        "dimension_relations": relations,
        "loop_dims": [d.upper() for d in loop_dims],
        "loop_sizes": list(extents),
        "operand_precision": {"O": bits, "O_final": bits, "W": bits, "I": bits},
        "operand_source": {"I": 0, "W": 0},
    }
    entry: dict[str, Any] = {"name": "default"}
    if nest is not None:
        flat = nest.loops()
        spatial: dict[str, list[str]] = {}
        for _, loop in flat:
            if loop.spatial is not None:
                spatial.setdefault(f"D{loop.spatial + 1}", []).append(
                    f"{loop.dim.upper()}, {loop.size}"
                )
        entry["spatial_mapping"] = spatial
        entry["temporal_ordering"] = [  # loops of one trip change nothing (ZigZag trips on them)
            [loop.dim.upper(), loop.size]
            for _, loop in reversed(flat)
            if loop.spatial is None and loop.size > 1
        ]
    entry["memory_operand_links"] = {"O": "O", "W": "I2", "I": "I1"}
    memory_operand = {tensor["O"]: "O", tensor["I"]: "I1", tensor["W"]: "I2"}
    accelerator = _accelerator(problem, memory_operand)
    return {"workload": [layer], "accelerator": accelerator, "mapping": [entry]}


def _accelerator(problem: Specs, memory_operand: Mapping[str, str]) -> dict[str, Any]:
    """Return ZigZag's accelerator document of ``problem``'s architecture, the tensors held by
    each memory named by their memory operands (``memory_operand``)."""
    architecture = problem.architecture
    bits = architecture.bits_per_element
    pe_sizes = specs.bound_pe_extents(architecture, problem.bound)
    array_dims = [f"D{k + 1}" for k in range(len(pe_sizes))]
    memories: dict[str, Any] = {}
    kept = specs.kept_tensors(architecture, problem.dataflow)
    for lv in reversed(architecture.levels):
        capacity = specs.capacity_elements(lv, bits)
        keep = kept.get(lv.name)
        held = [memory_operand[t] for t in memory_operand if keep is None or t in keep]
        ports = _ports(lv.read_bandwidth, lv.write_bandwidth, bits, max(1, prod(pe_sizes)), held)
        read_bits = ports[0]["bandwidth_max"]
        write_bits = ports[-1]["bandwidth_max"]
        memories[lv.name] = {
            "size": 10**12 if capacity is None else capacity * bits,
            "r_cost": lv.energy_read * read_bits / bits,
            "w_cost": lv.energy_write * write_bits / bits,
            "area": 0,
            "latency": 1,
            "operands": sorted(held),
            "ports": ports,
            "served_dimensions": [] if lv.per_pe else array_dims,
        }
    return {
        "name": architecture.name,
        "memories": memories,
        "operational_array": {
            "unit_energy": architecture.energy.mac,
            "unit_area": 1,
            "dimensions": array_dims,
            "sizes": pe_sizes,
        },
    }


ZIGZAG_UNITS = (
    "# Written by tenet export zigzag. Units: size in bits; r_cost and w_cost in pJ per word of\n"
    "# the port's bandwidth_max bits; bandwidth_min/bandwidth_max in bits per cycle;\n"
    "# unit_energy in pJ per MAC; operand_precision in bits.\n"
)
"""The comment at the top of the files :func:`write_zigzag`'s documents are written to."""


def _ports(
    read: float | None, write: float | None, bits: int, pes: int, operands: Sequence[str]
) -> list[dict[str, Any]]:
    """Return a memory's ports: one read-write port when the read and write bandwidths agree
    (elements per cycle; unbounded: one element per PE), else a read and a write port; the
    widths in bits per cycle."""
    reads = int((read or pes) * bits)
    writes = int((write or pes) * bits)
    outs = [f"{o}, tl" for o in operands] + (["O, th"] if "O" in operands else [])
    ins = [f"{o}, fh" for o in operands] + (["O, fl"] if "O" in operands else [])
    if reads == writes:
        return [
            {
                "name": "rw_port_1",
                "type": "read_write",
                "bandwidth_min": bits,
                "bandwidth_max": reads,
                "allocation": sorted(ins + outs),
            }
        ]
    return [
        {
            "name": "r_port_1",
            "type": "read",
            "bandwidth_min": bits,
            "bandwidth_max": reads,
            "allocation": outs,
        },
        {
            "name": "w_port_1",
            "type": "write",
            "bandwidth_min": bits,
            "bandwidth_max": writes,
            "allocation": ins,
        },
    ]
