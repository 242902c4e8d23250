"""tenet spec documents for a peer's mapping, and the way back: a tenet dataflow read as a
per-level loop nest (refused, with the reason, when no loop nest expresses it)."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import ceil
from pathlib import Path
from typing import Any, cast

import islpy as isl

from tenet.errors import SpecError
from tenet.isl_utils import bind_params, parse_map, parse_set
from tenet.peers.loopnest import LevelLoops, Loop, LoopNest, NotALoopNestError, to_relations
from tenet.spec.architecture import ArchitectureSpec, LevelSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.params import check_params
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "Imported",
    "Operand",
    "workload_document",
    "mark_bypasses",
    "dataflow_document",
    "imported",
    "number",
    "bound_pe_extents",
    "capacity_elements",
    "projection",
    "ProblemSpecs",
    "recover_nest",
    "same_relations",
]


@dataclass(frozen=True)
class Operand:
    """A tensor of an einsum: its subscripts (affine text over the loop indices), output?"""

    name: str
    subscripts: tuple[str, ...]
    output: bool = False


@dataclass(frozen=True)
class Imported:
    """A peer's specs as tenet documents (workload, architecture, dataflow) and its nest."""

    workload: dict[str, Any]
    architecture: dict[str, Any]
    dataflow: dict[str, Any]
    nest: LoopNest

    def documents(self) -> dict[str, dict[str, Any]]:
        """Return the three documents by file stem."""
        return {
            "workload": self.workload,
            "architecture": self.architecture,
            "dataflow": self.dataflow,
        }


def workload_document(
    name: str, dims: Sequence[str], extents: Sequence[int], operands: Sequence[Operand]
) -> dict[str, Any]:
    """Return a tenet workload document: one statement over ``dims`` (size parameters are the
    upper-case dimension names), each operand read or (outputs) written."""
    params = {d.upper(): e for d, e in zip(dims, extents, strict=True)}
    bounds = " and ".join(f"0 <= {d} < {d.upper()}" for d in dims)
    head = f"S[{', '.join(dims)}]"
    accesses: dict[str, dict[str, str]] = {}
    for op in operands:
        text = f"{{{head} -> {op.name}[{', '.join(op.subscripts)}]}}"
        accesses[op.name] = {"write" if op.output else "read": text}
    return {
        "version": 1,
        "name": name,
        "params": params,
        "domain": f"[{', '.join(params)}] -> {{{head}: {bounds}}}",
        "accesses": accesses,
        "reductions": [op.name for op in operands if op.output],
    }


def mark_bypasses(architecture: dict[str, Any], nest: LoopNest, tensors: Sequence[str]) -> None:
    """Give each level of ``architecture`` (a document) that keeps only some tensors its
    ``tensors`` list: the others bypass it."""
    keep = {lv.level: lv.keep for lv in nest.levels[1:]}
    for level in architecture["levels"][1:]:
        kept = keep.get(level["name"])
        if kept is not None and not set(tensors) <= kept:
            level["tensors"] = [t for t in tensors if t in kept]


def dataflow_document(nest: LoopNest, name: str, source: str | None = None) -> dict[str, Any]:
    """Return the tenet dataflow document of ``nest``."""
    r = to_relations(nest, source)
    out: dict[str, Any] = {
        "version": 1,
        "name": name,
        "space_stamp": r.space_stamp,
        "time_stamp": r.time_stamp,
    }
    if r.tiles:
        out["tiles"] = r.tiles
    return out


_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def imported(
    name: str,
    dims: Sequence[str],
    extents: Sequence[int],
    operands: Sequence[Operand],
    architecture: dict[str, Any],
    nest: LoopNest,
    source: str,
) -> Imported:
    """Return a peer's problem as tenet documents: the workload of ``operands`` over ``dims``,
    ``architecture`` with the levels that ``nest`` bypasses marked, and the dataflow of
    ``nest`` named after ``source``'s file."""
    mark_bypasses(architecture, nest, [op.name for op in operands])
    workload = workload_document(name, dims, extents, operands)
    return Imported(
        workload, architecture, dataflow_document(nest, Path(source).stem, source), nest
    )


def number(value: Any, source: str, where: str) -> float | None:
    """Return a size or energy given as a number or arithmetic text (``12 * 16``); None for
    ``inf``."""
    if isinstance(value, bool):
        raise SpecError(f"expected a number, not {value!r}", source=source, location=where)
    if isinstance(value, (int, float)):
        return None if value == float("inf") else value
    if isinstance(value, str) and value.strip() in ("inf", "infinity"):
        return None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return cast(float, _OPS[type(node.op)](walk(node.left), walk(node.right)))
        raise ValueError

    try:
        return walk(ast.parse(str(value), mode="eval").body)
    except (SyntaxError, ValueError) as exc:
        raise SpecError(
            f"expected a number or arithmetic on numbers, not {value!r}",
            source=source,
            location=where,
        ) from exc


_TERM = re.compile(
    r"^\(?\s*(?:floor\(\s*\(?\s*(?P<fd>\w+)\s*\)?\s*/\s*(?P<s>\d+)\s*\)|(?P<d>\w+))\s*\)?"
    r"(?:\s*%\s*(?P<n>\d+))?$"
)


def _terms(text: str) -> list[str]:
    body = text[text.index("->") :]
    inner = body[body.index("[") + 1 : body.rindex("]")]
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _loop(term: str, dims: Sequence[str], where: str) -> tuple[str, int, int | None] | None:
    """Return (dim, stride, size or None for an outermost loop) of a stamp term; None for a
    constant."""
    if term.lstrip("-").isdigit():
        return None
    m = _TERM.match(term)
    dim = (m.group("fd") or m.group("d")) if m else None
    if m is None or dim is None or dim not in dims:
        raise NotALoopNestError(
            f"{where}: {term!r} is not a loop index (floor(d / s) mod n): a skewed or modulo "
            "placement has no loop nest"
        )
    size = int(m.group("n")) if m.group("n") else None
    return dim, int(m.group("s") or 1), size


@dataclass(frozen=True)
class ProblemSpecs:
    """A tenet problem as the peers' writers take it: its three specs and size parameters."""

    workload: WorkloadSpec
    architecture: ArchitectureSpec
    dataflow: DataflowSpec
    params: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        what = f"{self.workload.name} on {self.architecture.name} with {self.dataflow.name}"
        check_params(self.params, self.workload, self.architecture, self.dataflow, what=what)

    @property
    def bound(self) -> dict[str, int]:
        """Every size parameter: the workload's defaults, the dataflow's values, ``params``."""
        return {**self.workload.params, **self.dataflow.params, **self.params}


def recover_nest(problem: ProblemSpecs) -> LoopNest:
    """Return the per-level loop nest of a tenet dataflow, checked to give the same placement,
    time order and tiles (isl equality of the relations they induce).

    Raises
    ------
    NotALoopNestError
        A stamp term that is not a loop index, or a nest whose relations differ.
    """
    workload, architecture, dataflow = problem.workload, problem.architecture, problem.dataflow
    bound = problem.bound
    domain = bind_params(parse_set(workload.domain), bound)
    dims = [
        domain.get_dim_name(isl.dim_type.set, k) or f"i{k}"
        for k in range(domain.dim(isl.dim_type.set))
    ]
    extents = [
        int(domain.dim_max_val(k).to_python()) - int(domain.dim_min_val(k).to_python()) + 1
        for k in range(len(dims))
    ]
    src = dataflow.source or dataflow.name
    levels = [lv.name for lv in architecture.levels] or ["dram"]
    per_pe = frozenset(lv.name for lv in architecture.levels if lv.per_pe)
    temporal = [
        t
        for t in (_loop(x, dims, f"{src}: time_stamp") for x in _terms(dataflow.time_stamp))
        if t is not None
    ]
    spatial: list[tuple[int, tuple[str, int, int | None]]] = []
    for axis, text in enumerate(_terms(dataflow.space_stamp)):
        for part in text.split("+"):
            part = re.sub(r"^\s*\d+\s*\*\s*", "", part.strip())
            loop = _loop(part, dims, f"{src}: space_stamp")
            if loop is not None:
                spatial.append((axis, loop))
    runs: dict[str, int] = {}
    for name in levels[1:]:
        tile = dataflow.tiles.get(name)
        if tile is None:
            continue
        terms = [_loop(x, dims, f"{src}: tiles.{name}") for x in _terms(tile)]
        runs[name] = len([t for t in terms if t is not None])
    pe_extent = bound_pe_extents(architecture, bound)
    shared = [k for k, name in enumerate(levels) if name not in per_pe]
    host = shared[-1] if shared[-1] + 1 < len(levels) else len(levels) - 1
    # Temporal loops in time-stamp order, each at the level whose tiles it iterates over.
    owner: list[int] = []
    for k, name in enumerate(levels[1:]):
        owner.extend([k] * runs.get(name, 0))
    owner = owner[: len(temporal)]
    owner += [len(levels) - 1] * (len(temporal) - len(owner))
    flat: list[tuple[int, str, int, int | None, int | None]] = [
        (lv, d, st, n, None) for lv, (d, st, n) in zip(owner, temporal, strict=True)
    ]
    # A spatial loop goes after the temporal loops of its dimension with a larger stride (and
    # no earlier than the level just above the per-PE ones).
    for axis, (d, st, n) in spatial:
        after = [k for k, f in enumerate(flat) if f[1] == d and f[2] > st]
        start = next((k for k, f in enumerate(flat) if f[0] >= host), len(flat))
        at = max(start, after[-1] + 1 if after else 0)
        lv = flat[at - 1][0] if at > start and at > 0 else host
        lv = max(lv, host) if at >= start else lv
        flat.insert(at, (lv, d, st, n, axis))
    outer_stride: dict[int, int] = {}
    point: list[Loop] = []
    for dim in dims:
        mine = [k for k, f in enumerate(flat) if f[1] == dim]
        strides = [flat[k][2] for k in mine]
        if strides != sorted(strides, reverse=True) or len(set(strides)) < len(strides):
            raise NotALoopNestError(
                f"{src}: the loops over {dim!r} are not nested (strides {strides} in loop order)"
            )
        for outer, inner in zip(mine, mine[1:], strict=False):
            if flat[outer][2] % flat[inner][2]:
                raise NotALoopNestError(
                    f"{src}: tiles of {flat[outer][2]} over {dim!r} are not made of whole "
                    f"tiles of {flat[inner][2]}"
                )
            outer_stride[inner] = flat[outer][2]
        if mine and flat[mine[-1]][2] > 1:
            point.append(Loop(dim, flat[mine[-1]][2]))
        elif not mine:
            point.append(Loop(dim, extents[dims.index(dim)]))
    per_level: list[list[Loop]] = [[] for _ in levels]
    for k, (lv, d, st, n, a) in enumerate(flat):
        if n is not None:
            size = n
        elif k in outer_stride:
            size = outer_stride[k] // st
        elif a is not None:
            size = min(ceil(extents[dims.index(d)] / st), pe_extent[a])
        else:
            size = ceil(extents[dims.index(d)] / st)
        per_level[lv].append(Loop(d, size, spatial=a))
    per_level[-1].extend(point)
    nest = LoopNest(
        tuple(dims),
        tuple(extents),
        tuple(
            LevelLoops(name, tuple(loops)) for name, loops in zip(levels, per_level, strict=True)
        ),
        per_pe=per_pe,
    )
    if not same_relations(nest, dataflow, domain, bound):
        raise NotALoopNestError(
            f"{src}: its loops, read as a nest, order or place the instances differently "
            "(a skewed or modulo placement, or several instances in one time-stamp)"
        )
    return nest


def bound_pe_extents(architecture: ArchitectureSpec, bound: Mapping[str, int]) -> list[int]:
    """Return the number of PEs along each axis of the array."""
    pes = bind_params(parse_set(architecture.pe), bound)
    return [
        int(pes.dim_max_val(k).to_python()) - int(pes.dim_min_val(k).to_python()) + 1
        for k in range(pes.dim(isl.dim_type.set))
    ]


def capacity_elements(level: LevelSpec, bits: int) -> int | None:
    """Return the capacity of ``level`` in elements (``bits`` per element unless the level
    says otherwise), None where unbounded."""
    if level.capacity is not None:
        return level.capacity
    if level.capacity_bytes is not None:
        return level.capacity_bytes * 8 // (level.bits_per_element or bits)
    return None


def projection(workload: WorkloadSpec, tensor: str, peer: str) -> list[str]:
    """Return the subscripts of the one access map of ``tensor`` (its write, else its read),
    as text; refuse, in the words of ``peer``, a tensor accessed through several maps."""
    texts = workload.accesses[tensor].write or workload.accesses[tensor].read
    if len(texts) != 1:
        raise NotALoopNestError(
            f"{workload.source or workload.name}: accesses.{tensor}: {len(texts)} maps; {peer}"
        )
    body = texts[0][texts[0].index("->") :]
    return [s.strip() for s in body[body.index("[") + 1 : body.rindex("]")].split(",")]


def _before(stamp: isl.Map) -> isl.Map:
    """Instance -> instances with a later stamp."""
    return stamp.lex_lt_map(stamp)


def same_relations(
    nest: LoopNest, dataflow: DataflowSpec, domain: isl.Set, params: Mapping[str, int]
) -> bool:
    """True when ``nest`` places every instance on the same PE, orders the instances and
    groups them into tiles at every level as ``dataflow`` does (isl equality)."""
    r = to_relations(nest)

    def load(text: str) -> isl.Map:
        return bind_params(parse_map(text), params).intersect_domain(domain)

    if not load(r.space_stamp).is_equal(load(dataflow.space_stamp)):
        return False
    if not _before(load(r.time_stamp)).is_equal(_before(load(dataflow.time_stamp))):
        return False
    mine = isl.Map.from_domain(domain)
    theirs = isl.Map.from_domain(domain)
    for level in nest.levels[1:]:
        if level.level in r.tiles:
            mine = mine.flat_range_product(load(r.tiles[level.level]))
        if level.level in dataflow.tiles:
            theirs = theirs.flat_range_product(load(dataflow.tiles[level.level]))
        same = mine.apply_range(mine.reverse()).is_equal(theirs.apply_range(theirs.reverse()))
        if not same or not _before(mine).is_equal(_before(theirs)):
            return False
    return True
