"""tenet spec documents for a peer's mapping, and the way back: a tenet dataflow read as a
per-level loop nest (refused, with the reason, when no loop nest expresses it)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import islpy as isl

from tenet.errors import NotALoopNestError, SpecError
from tenet.isl_utils import bind_params, parse_map, parse_set
from tenet.mapping import (
    LoopNest,
    Stamps,
    array_cut,
    box,
    equivalence,
    from_stamps,
    normal_form,
    with_mapping,
)
from tenet.model.problem import Problem
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec
from tenet.spec.architecture import LevelSpec

__all__ = [
    "Imported",
    "Operand",
    "workload_document",
    "imported",
    "number",
    "bound_pe_extents",
    "capacity_elements",
    "projection",
    "domain_box",
    "recover_nest",
    "kept_tensors",
]


@dataclass(frozen=True)
class Operand:
    """A tensor of an einsum: its subscripts (affine text over the loop indices), output?"""

    name: str
    subscripts: tuple[str, ...]
    output: bool = False


@dataclass(frozen=True)
class Imported:
    """A peer's problem as tenet specs (the dataflow that of the nest) and its loop nest."""

    specs: Specs
    nest: LoopNest

    @cached_property
    def problem(self) -> Problem:
        """The checked problem of the specs."""
        return Problem.from_specs(self.specs)

    def documents(self) -> dict[str, dict[str, Any]]:
        """Return the three specs as documents (the keys each was given), by file stem."""
        return {
            "workload": self.specs.workload.document(),
            "architecture": self.specs.architecture.document(),
            "dataflow": self.specs.require_dataflow().document(),
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
    """Return a peer's problem as tenet specs: the workload of ``operands`` over ``dims``,
    ``architecture`` (a document), and the dataflow of ``nest`` named after ``source``'s file,
    with the tensors each level keeps when it bypasses some (``keep``)."""
    tensors = {op.name for op in operands}
    nest = replace(
        nest,
        levels=tuple(
            replace(lv, keep=None) if lv.keep is not None and tensors <= lv.keep else lv
            for lv in nest.levels
        ),
    )
    workload = WorkloadSpec.from_mapping(workload_document(name, dims, extents, operands))
    given = Specs(workload, ArchitectureSpec.from_mapping(architecture))
    return Imported(with_mapping(given, nest, Path(source).stem, source), nest)


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


def domain_box(problem: Specs) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Return the loop dimensions of the workload's domain (a box, its size parameters bound)
    and their extents."""
    return box(bind_params(parse_set(problem.workload.domain), problem.bound))


def recover_nest(problem: Specs) -> LoopNest:
    """Return the per-level loop nest of a tenet dataflow, checked to give the same placement,
    time order and tiles (:func:`tenet.mapping.from_stamps`), read in their normal form
    first (:func:`tenet.mapping.normal_form`: tile order, relative loop indices, per-PE tile
    stamps without the PE's loops) when it differs and places, tiles and orders the instances
    as written (:func:`tenet.mapping.equivalence`); each level keeps the tensors of
    :func:`kept_tensors`.

    Raises
    ------
    NotALoopNestError
        A stamp term that is not a loop index, or a nest whose relations differ, in the form
        written and in the normal form (the message says which property blocks it).
    """
    architecture, dataflow = problem.architecture, problem.require_dataflow()
    bound = problem.bound
    stamps = Stamps(
        dataflow.space_stamp,
        dataflow.time_stamp,
        dict(dataflow.tiles),
        dict(dataflow.places),
        kept_tensors(architecture, dataflow),
    )
    domain = bind_params(parse_set(problem.workload.domain), bound)
    levels = [lv.name for lv in architecture.levels]
    per_pe = [lv.name for lv in architecture.levels if lv.per_pe]
    source = dataflow.source or dataflow.name

    def read(written: Stamps) -> LoopNest:
        return from_stamps(
            written,
            domain,
            levels,
            per_pe=per_pe,
            pe_extents=bound_pe_extents(architecture, bound),
            params=bound,
            source=source,
        )

    normal = normal_form(stamps, box(domain)[0], levels, per_pe)
    differs = None
    if normal != stamps:
        try:
            nest = read(normal)
            differs = equivalence(nest, stamps, domain, levels, bound, per_pe)
        except NotALoopNestError as exc:
            nest, differs = None, f"is no nest: {exc}"
        if nest is not None and differs is None:
            return nest
    try:
        return read(stamps)
    except NotALoopNestError as written:
        blocked = _blocking(stamps, domain, levels, per_pe, bound)
        if blocked is not None:
            raise NotALoopNestError(f"{source}: {blocked}") from written
        if differs is None:
            raise
        raise NotALoopNestError(
            f"{written}; its normal form (tile order, relative loop indices) {differs}"
        ) from written


def kept_tensors(
    architecture: ArchitectureSpec, dataflow: DataflowSpec | None
) -> dict[str, tuple[str, ...]]:
    """Return, per level inside the outermost that holds only some tensors, those it holds:
    the ones the dataflow keeps there (its ``keep``), else those the level may hold.

    Examples
    --------
    >>> from tenet.spec import load_architecture
    >>> kept_tensors(load_architecture("systolic-levels-8x8"), None)
    {}
    """
    held = {lv.name: lv.tensors for lv in architecture.levels[1:] if lv.tensors is not None}
    return {**held, **(dataflow.keep if dataflow is not None else {})}


def _blocking(
    stamps: Stamps,
    domain: isl.Set,
    levels: Sequence[str],
    per_pe: Sequence[str],
    bound: Mapping[str, int],
) -> str | None:
    """Return the property of ``stamps`` that no loop nest has, when it is one of: several
    instances on one PE in one time-stamp (a nest runs one at a time), tiles of a shared
    level that cut a loop of the array (:func:`tenet.mapping.array_cut`)."""
    space = bind_params(parse_map(stamps.space_stamp), bound)
    where = space.flat_range_product(bind_params(parse_map(stamps.time_stamp), bound))
    if not where.intersect_domain(domain).is_injective():
        return (
            "several instances run on one PE in one time-stamp, which a loop nest (one "
            "instance per PE and step) does not express"
        )
    return array_cut(stamps, space, domain, levels, per_pe)


def bound_pe_extents(architecture: ArchitectureSpec, bound: Mapping[str, int]) -> list[int]:
    """Return the number of PEs along each axis of the array."""
    return list(box(bind_params(parse_set(architecture.pe), bound))[1])


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
