"""AccelForge (Timeloop family) specs in and out: one YAML file with ``arch`` (``!Memory``
levels from main memory inward, a ``!Container`` whose ``spatial`` fanouts form the PE array,
a ``!Compute``), ``workload`` (``iteration_space_shape``, ``bits_per_value``, one einsum's
``tensor_accesses``) and ``mapping`` (``!Storage``, ``!Temporal``, ``!Spatial`` and
``!Compute`` nodes, outermost first). Read into tenet specs and a :class:`LoopNest`; written
back from a tenet dataflow that a loop nest expresses (``docs/peers.md``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from math import ceil
from pathlib import Path
from typing import Any

from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping import LevelLoops, Loop, LoopNest
from tenet.peers import specs
from tenet.peers.files import need, need_known, read_peer_yaml
from tenet.spec import Specs
from tenet.spec.workload import WorkloadSpec

__all__ = ["read_accelforge", "write_accelforge"]

_RANGE = re.compile(r"^\s*0\s*<=\s*(\w+)\s*<\s*(\d+)\s*$")


def _workload(doc: Any, src: str) -> tuple[list[str], list[int], list[specs.Operand], str, int]:
    work = need(doc, "workload", dict, src, "")
    shape = need(work, "iteration_space_shape", dict, src, "workload")
    dims: list[str] = []
    extents: list[int] = []
    for var, text in shape.items():
        where = f"workload.iteration_space_shape.{var}"
        m = _RANGE.match(str(text))
        if not m or m.group(1) != var:
            raise SpecError(f"expected '0 <= {var} < N', not {text!r}", source=src, location=where)
        dims.append(var)
        extents.append(int(m.group(2)))
    bits = work.get("bits_per_value", {"All": 8})
    width = int(bits.get("All", 8)) if isinstance(bits, dict) else 8
    einsums = need(work, "einsums", list, src, "workload")
    if len(einsums) != 1:
        raise SpecError(
            f"one einsum is read, not {len(einsums)}", source=src, location="workload.einsums"
        )
    einsum = need(einsums, 0, dict, src, "workload.einsums")
    operands: list[specs.Operand] = []
    accesses = need(einsum, "tensor_accesses", list, src, "workload.einsums.0")
    for n, access in enumerate(accesses):
        where = f"workload.einsums.0.tensor_accesses.{n}"
        name = need(access, "name", str, src, where)
        projection = need(access, "projection", (list, dict), src, where)
        subs = [
            str(p) for p in (projection.values() if isinstance(projection, dict) else projection)
        ]
        for k, sub in enumerate(subs):
            used = set(re.findall(r"[A-Za-z_]\w*", sub))
            if not used <= set(dims):
                raise SpecError(
                    f"{sub!r} uses {', '.join(sorted(used - set(dims)))}, not a rank variable "
                    f"({', '.join(dims)})",
                    source=src,
                    location=f"{where}.projection.{k}",
                )
        operands.append(specs.Operand(name, tuple(subs), bool(access.get("output", False))))
    return dims, extents, operands, str(einsum.get("name", "einsum")), width


def _action(node: Mapping[str, Any], name: str) -> tuple[int, Any] | None:
    """Return the index and entry of the action ``name`` of ``node``, None when absent."""
    for k, act in enumerate(node.get("actions", []) or []):
        if isinstance(act, dict) and act.get("name") == name:
            return k, act
    return None


def action_bits(node: Mapping[str, Any], name: str, src: str, where: str) -> float:
    """Return the bits one ``name`` action of ``node`` moves, as AccelForge defines it: the
    action's ``bits_per_action``, else the component's, else 1 bit."""
    found = _action(node, name)
    given = found[1].get("bits_per_action") if found else None
    at = f"{where}.actions.{found[0]}.bits_per_action" if found else f"{where}.bits_per_action"
    if given is None:
        given, at = node.get("bits_per_action"), f"{where}.bits_per_action"
    return float(specs.number(given, src, at) or 1) if given is not None else 1.0


def _energy(node: Mapping[str, Any], action: str, width: int, src: str, where: str) -> float:
    """Energy of one element, in pJ: the action's energy times the actions per element
    (``width`` bits over :func:`action_bits`)."""
    found = _action(node, action)
    if found is None:
        return 0.0
    k, act = found
    energy = specs.number(act.get("energy", 0), src, f"{where}.actions.{k}.energy") or 0.0
    return float(energy) * width / action_bits(node, action, src, where)


def _bandwidth(
    node: Mapping[str, Any], action: str, width: int, src: str, where: str
) -> float | None:
    """Elements per cycle of an action: its ``throughput`` (actions per unit of time, read as
    a cycle) times its bits over ``width``; None when unbounded or not given."""
    found = _action(node, action)
    if found is None or found[1].get("throughput") is None:
        return None
    k, act = found
    rate = specs.number(act["throughput"], src, f"{where}.actions.{k}.throughput")
    return None if rate is None else float(rate) * action_bits(node, action, src, where) / width


def _architecture(doc: Any, src: str, width: int) -> tuple[dict[str, Any], list[str], list[str]]:
    arch = need(doc, "arch", dict, src, "")
    nodes = need(arch, "nodes", list, src, "arch")
    levels: list[dict[str, Any]] = []
    fanouts: list[tuple[str, int]] = []
    container: str | None = None
    mac = 1.0
    for n, node in enumerate(nodes):
        where = f"arch.nodes.{n}"
        kind = node.get("kind") if isinstance(node, dict) else None
        name = need(node, "name", str, src, where)
        if kind == "Memory":
            size = specs.number(node.get("size", "inf"), src, f"{where}.size")
            level: dict[str, Any] = {"name": name}
            if size is not None:
                level["capacity"] = max(1, int(size) // width)
            if container is not None:
                level["per_pe"] = True
            level["energy_read"] = _energy(node, "read", width, src, where)
            level["energy_write"] = _energy(node, "write", width, src, where)
            for key, action in (("read_bandwidth", "read"), ("write_bandwidth", "write")):
                rate = _bandwidth(node, action, width, src, where)
                if rate is not None:
                    level[key] = rate
            level["source"] = (
                f"{src}: {where} (energy per {width}-bit element from energy per action of "
                "bits_per_action bits; bandwidth in elements per cycle from throughput)"
            )
            levels.append(level)
        elif kind == "Container":
            if container is not None:
                raise SpecError(
                    f"a second container inside {container!r}: one PE array is read",
                    source=src,
                    location=where,
                )
            container = name
            for k, fan in enumerate(node.get("spatial", []) or []):
                fanouts.append(
                    (
                        need(fan, "name", str, src, f"{where}.spatial.{k}"),
                        need(fan, "fanout", int, src, f"{where}.spatial.{k}"),
                    )
                )
        elif kind == "Compute":
            found = _action(node, "compute")
            energy = found[1].get("energy", 1) if found else 1
            mac = float(specs.number(energy, src, f"{where}.actions") or 0.0)
        else:
            raise SpecError(
                f"expected !Memory, !Container or !Compute, not {kind!r}",
                source=src,
                location=where,
            )
    if not levels:
        raise SpecError("no !Memory level", source=src, location="arch.nodes")
    sizes = [f for _, f in fanouts] or [1]
    pe = " and ".join(f"0 <= p{k} < {f}" for k, f in enumerate(sizes))
    document = {
        "version": 1,
        "name": str(doc.get("name", Path(src).stem)),
        "pe": f"{{PE[{', '.join(f'p{k}' for k in range(len(sizes)))}]: {pe}}}",
        "bits_per_element": width,
        "energy": {"mac": mac, "unit": "pJ"},
        "levels": levels,
    }
    return document, [lv["name"] for lv in levels], [name for name, _ in fanouts]


def _mapping(
    doc: Any,
    src: str,
    dims: list[str],
    extents: list[int],
    level_names: list[str],
    axes: list[str],
    per_pe: frozenset[str],
) -> LoopNest:
    mapping = need(doc, "mapping", dict, src, "")
    nodes = need(mapping, "nodes", list, src, "mapping")
    shape = dict(zip(dims, extents, strict=True))
    seen = {d: False for d in dims}
    loops: list[tuple[Loop, str]] = []
    placed: dict[str, dict[str, int]] = {}
    for n, node in enumerate(nodes):
        where = f"mapping.nodes.{n}"
        kind = node.get("kind") if isinstance(node, dict) else None
        if kind == "Storage":
            component = need_known(
                node,
                "component",
                level_names,
                src,
                where,
                lambda c: f"no !Memory {c!r} in arch.nodes",
            )
            for tensor in need(node, "tensors", list, src, where):
                placed.setdefault(component, {})[str(tensor)] = len(loops)
        elif kind in ("Temporal", "Spatial"):
            var = need_known(
                node,
                "rank_variable",
                dims,
                src,
                where,
                lambda v: f"rank variable {v!r} is not in the iteration space",
            )
            tile = need(node, "tile_shape", int, src, where)
            if tile < 1:
                raise SpecError("tile_shape must be >= 1", source=src, location=where)
            if seen[var] and shape[var] % tile:
                raise NotALoopNestError(
                    f"{src}: {where}: tile_shape {tile} does not divide the enclosing tile "
                    f"{shape[var]} of {var!r} (only the outermost loop may leave a partial tile)"
                )
            spatial = None
            if kind == "Spatial":
                axis = need(node, "name", (str, int), src, where)
                if str(axis) not in axes and not isinstance(axis, int):
                    raise SpecError(
                        f"no spatial fanout {axis!r} ({', '.join(axes)})",
                        source=src,
                        location=f"{where}.name",
                    )
                spatial = axes.index(str(axis)) if str(axis) in axes else int(axis)
            loops.append((Loop(var, ceil(shape[var] / tile), spatial), where))
            shape[var] = tile
            seen[var] = True
        elif kind == "Compute":
            break
        else:
            raise SpecError(
                f"expected !Storage, !Temporal, !Spatial or !Compute, not {kind!r}",
                source=src,
                location=where,
            )
    points = [Loop(d, shape[d]) for d in dims if shape[d] > 1]
    flat = [loop for loop, _ in loops] + points
    bounds = {c: min(p.values()) for c, p in placed.items()}
    bounds[level_names[0]] = 0
    order = [name for name in level_names if name in bounds]
    starts = [bounds[name] for name in order]
    if starts != sorted(starts):
        k = next(k for k in range(1, len(starts)) if starts[k] < starts[k - 1])
        raise NotALoopNestError(
            f"{src}: mapping: the storage of {order[k]!r} sits above that of {order[k - 1]!r}, "
            "which the architecture lists outside it"
        )
    levels = []
    for k, name in enumerate(level_names):
        if name not in bounds:
            levels.append(LevelLoops(name, (), frozenset()))
            continue
        later = [bounds[n] for n in level_names[k + 1 :] if n in bounds]
        end = later[0] if later else len(flat)
        keep = frozenset(placed.get(name, {})) if k else None
        levels.append(LevelLoops(name, tuple(flat[bounds[name] : end]), keep))
    above: dict[str, dict[str, int]] = {}
    for c, per in placed.items():
        for tensor, at in per.items():
            if at != bounds[c] and c != level_names[0]:
                above.setdefault(tensor, {})[c] = at
    return LoopNest(tuple(dims), tuple(extents), tuple(levels), per_pe=per_pe, above=above)


def read_accelforge(path: str | Path) -> specs.Imported:
    """Read an AccelForge spec file into tenet documents and a loop nest.

    Raises
    ------
    SpecError
        A missing or ill-typed key (named by its YAML path), an unknown component or rank
        variable.
    NotALoopNestError
        An inner tile that does not divide its loop, storage nodes out of the hierarchy's order.
    """
    src = str(path)
    doc = read_peer_yaml(path)
    if not isinstance(doc, dict):
        raise SpecError("expected a mapping with arch, workload and mapping", source=src)
    missing = [key for key in ("arch", "workload", "mapping") if key not in doc]
    if missing:
        found = ", ".join(map(str, doc)) or "none"
        tenet = " (a tenet spec: tenet eval reads it)" if {"name", "domain"} & set(doc) else ""
        raise SpecError(
            f"not an AccelForge spec: expected the keys arch, workload and mapping, found "
            f"{found}{tenet}",
            source=src,
        )
    dims, extents, operands, einsum, width = _workload(doc, src)
    arch, names, axes = _architecture(doc, src, width)
    per_pe = frozenset(lv["name"] for lv in arch["levels"] if lv.get("per_pe"))
    nest = _mapping(doc, src, dims, extents, names, axes, per_pe)
    return specs.imported(einsum.lower(), dims, extents, operands, arch, nest, src)


def write_accelforge(problem: Specs) -> dict[str, Any]:
    """Return the AccelForge document of a tenet problem whose dataflow a loop nest expresses.
    Without a dataflow the document has no ``mapping``, for AccelForge's mapper
    (``Spec.map_workload_to_arch``), and each memory must keep the tensors its tenet level
    holds (``tensors: {keep: [...]}``), as ZigZag's memories serve their operands.

    Raises
    ------
    NotALoopNestError
        A skewed or modulo placement, or spatial loops inside a per-PE level.
    """
    nest = None if problem.dataflow is None else specs.recover_nest(problem)
    workload, architecture = problem.workload, problem.architecture
    bits = architecture.bits_per_element
    arch_nodes: list[dict[str, Any]] = []
    per_pe = [lv for lv in architecture.levels if lv.per_pe]
    levels = architecture.levels or ()
    pe_sizes = specs.bound_pe_extents(architecture, problem.bound)
    for lv in levels:
        if lv.per_pe and lv is per_pe[0]:
            arch_nodes.append(_container(pe_sizes))
        capacity = specs.capacity_elements(lv, bits)
        arch_nodes.append(
            {
                "kind": "Memory",
                "name": lv.name,
                "area": 0,
                "leak_power": 0,
                "size": "inf" if capacity is None else capacity * bits,
                "actions": [
                    _action_entry("read", lv.energy_read, lv.read_bandwidth, bits),
                    _action_entry("write", lv.energy_write, lv.write_bandwidth, bits),
                ],
            }
        )
        if nest is None:
            kept = [t for t in workload.accesses if lv.tensors is None or t in lv.tensors]
            arch_nodes[-1]["tensors"] = {"keep": _set_expression(kept)}
    if not levels:
        arch_nodes.append(
            {
                "kind": "Memory",
                "name": "dram",
                "area": 0,
                "leak_power": 0,
                "size": "inf",
                "actions": [_action_entry(a, 0.0, None, bits) for a in ("read", "write")],
            }
        )
    if not per_pe:
        arch_nodes.append(_container(pe_sizes))
    arch_nodes.append(
        {
            "kind": "Compute",
            "name": "MAC",
            "area": 0,
            "leak_power": 0,
            "actions": [{"name": "compute", "energy": architecture.energy.mac, "throughput": 1}],
        }
    )
    domain_dims, extents = specs.domain_box(problem) if nest is None else (nest.dims, nest.extents)
    document = {
        "arch": {"nodes": arch_nodes},
        "workload": {
            "iteration_space_shape": {
                d: f"0 <= {d} < {e}" for d, e in zip(domain_dims, extents, strict=True)
            },
            "bits_per_value": {"All": bits},
            "einsums": [
                {
                    "name": workload.name,
                    "tensor_accesses": _accesses(workload),
                }
            ],
        },
    }
    if nest is not None:
        document["mapping"] = {"nodes": _mapping_nodes(problem, nest)}
    return document


def _set_expression(tensors: list[str]) -> str:
    """AccelForge's set expression of ``tensors`` (``A | B``; ``Nothing`` when empty)."""
    return " | ".join(tensors) or "Nothing"


def _mapping_nodes(problem: Specs, nest: LoopNest) -> list[dict[str, Any]]:
    """Return AccelForge's mapping nodes of ``nest``, outermost first."""
    workload, architecture = problem.workload, problem.architecture
    per_pe = [lv for lv in architecture.levels if lv.per_pe]
    tensors = list(workload.accesses)
    shape = dict(zip(nest.dims, nest.extents, strict=True))
    flow = problem.dataflow
    where = (flow.source or flow.name) if flow is not None else workload.name
    mapping: list[dict[str, Any]] = []
    flat = nest.loops()
    places: dict[int, list[tuple[str, list[str]]]] = {}
    for k, level in enumerate(nest.levels):
        kept = level.keep if k else None
        at: dict[int, list[str]] = {}
        for t in tensors:
            if kept is None or t in kept:
                bound = nest.boundary(level.level) if k else 0
                at.setdefault(nest.above.get(t, {}).get(level.level, bound), []).append(t)
        for n, held in sorted(at.items()):
            fanout = [x for x, (_, loop) in enumerate(flat[n:]) if loop.spatial is not None]
            if level.level in nest.per_pe and fanout:
                raise NotALoopNestError(
                    f"{where}: the per-PE level {level.level!r} holds {', '.join(held)} above "
                    f"a spatial loop over {flat[n + fanout[0]][1].dim!r} (the PE index is a "
                    "low-order digit of the loop), which a fanout above the PE buffers cannot "
                    "express"
                )
            places.setdefault(n, []).append((level.level, held))
    for n, (owner, loop) in enumerate([*flat, (len(nest.levels), None)]):
        for component, held in places.get(n, []):
            mapping.append({"kind": "Storage", "tensors": held, "component": component})
        if loop is None:
            break
        k = owner
        level = nest.levels[k]
        shape[loop.dim] = ceil(shape[loop.dim] / loop.size)
        node: dict[str, Any] = {
            "kind": "Spatial" if loop.spatial is not None else "Temporal",
            "rank_variable": loop.dim,
            "tile_shape": shape[loop.dim],
        }
        if loop.spatial is not None:
            if k == len(nest.levels) - 1 and per_pe:
                raise NotALoopNestError(
                    f"{where}: a spatial loop over "
                    f"{loop.dim!r} sits inside the per-PE level {level.level!r} (the PE "
                    "index is a low-order digit of the loop), which a fanout above the "
                    "PE buffers cannot express"
                )
            node["name"] = f"d{loop.spatial}"
            node["component"] = "PE"
        mapping.append(node)
    mapping.append({"kind": "Compute", "einsum": workload.name, "component": "MAC"})
    return mapping


ACCELFORGE_UNITS = (
    "# Written by tenet export accelforge. Units: size in bits; energy in pJ per action of\n"
    "# bits_per_action bits (one element); throughput in actions per cycle; area and leak_power\n"
    "# zero (tenet does not model them).\n"
)
"""The comment at the top of the file :func:`write_accelforge`'s document is written to."""


def _action_entry(name: str, energy: float, bandwidth: float | None, bits: int) -> dict[str, Any]:
    """An action moving one ``bits``-bit element: energy in pJ, throughput in actions per
    cycle (``inf`` when the level's bandwidth is unbounded)."""
    return {
        "name": name,
        "energy": energy,
        "throughput": "inf" if bandwidth is None else bandwidth,
        "bits_per_action": bits,
    }


def _container(sizes: list[int]) -> dict[str, Any]:
    return {
        "kind": "Container",
        "name": "PE",
        "spatial": [{"name": f"d{k}", "fanout": f} for k, f in enumerate(sizes)],
    }


def _accesses(workload: WorkloadSpec) -> list[dict[str, Any]]:
    out = []
    for tensor, access in workload.accesses.items():
        subs = specs.projection(workload, tensor, "an einsum's projection is one")
        plain = all(re.fullmatch(r"[A-Za-z_]\w*", sub) for sub in subs)
        projection: list[str] | dict[str, str] = (
            subs if plain else {f"{tensor.upper()}{n}": sub for n, sub in enumerate(subs)}
        )
        entry: dict[str, Any] = {"name": tensor, "projection": projection}
        if access.write:
            entry["output"] = True
        out.append(entry)
    return out
