"""Layouts as relations: tensor element -> scratchpad address, and address -> (bank, row) and
-> transaction line, as isl maps.

A layout starts from the tensor's bounding box (the elements its accesses touch), listed
row-major; each transform rewrites the list of layout dimensions (an isl expression of the
tensor indices and an extent each). The address is the row-major position in the final
list. Every prefix of the transform list is checked with isl to be injective on the box and
to stay inside its extents, so the address map is a bijection onto its image.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from math import prod

import islpy as isl

from tenet.errors import NotABijectionError, SpecError
from tenet.isl_utils import witness
from tenet.spec.layout import ScratchpadSpec, TransformSpec

__all__ = [
    "ADDRESS",
    "LINE",
    "BANK",
    "ROW",
    "Box",
    "LayoutDim",
    "Layout",
    "bounding_box",
    "build_layout",
    "line_map",
    "bank_map",
]

ADDRESS = "Addr"
"""Tuple name of scratchpad addresses (in words)."""
LINE = "Line"
"""Tuple name of transaction lines (aligned blocks of ``transaction_width`` words)."""
BANK = "Bank"
"""Tuple name of banks."""
ROW = "Row"
"""Tuple name of bank rows."""


@dataclass(frozen=True)
class Box:
    """The bounding box of a tensor's elements."""

    tensor: str
    """The tensor's name."""
    lower: tuple[int, ...]
    """The lowest index of each dimension."""
    extents: tuple[int, ...]
    """How many indices each dimension spans."""

    @property
    def text(self) -> str:
        """The box as isl constraints on ``i0, i1, ...``."""
        return " and ".join(
            f"{lo} <= i{k} < {lo + n}"
            for k, (lo, n) in enumerate(zip(self.lower, self.extents, strict=True))
        )


def _bound(elements: isl.Set, k: int, upper: bool) -> int:
    n = elements.dim(isl.dim_type.set)
    one = elements.project_out(isl.dim_type.set, k + 1, n - k - 1).project_out(
        isl.dim_type.set, 0, k
    )
    point = (one.lexmax() if upper else one.lexmin()).sample_point()
    return int(point.get_coordinate_val(isl.dim_type.set, 0).to_python())


def bounding_box(elements: isl.Set) -> Box:
    """Return the bounding box of a non-empty set of tensor elements.

    Examples
    --------
    >>> bounding_box(isl.Set("{I[c, x]: 0 <= c < 3 and 1 <= x < 5}"))
    Box(tensor='I', lower=(0, 1), extents=(3, 4))
    """
    n = elements.dim(isl.dim_type.set)
    lower = tuple(_bound(elements, k, False) for k in range(n))
    upper = tuple(_bound(elements, k, True) for k in range(n))
    return Box(
        elements.get_tuple_name() or "",
        lower,
        tuple(hi - lo + 1 for lo, hi in zip(lower, upper, strict=True)),
    )


@dataclass(frozen=True)
class LayoutDim:
    """One dimension of a layout: its index as an isl expression of ``i0, i1, ...`` and its
    extent (positions, padding included)."""

    expression: str
    extent: int


def _row_major(dims: Sequence[LayoutDim]) -> str:
    terms = []
    for k, dim in enumerate(dims):
        stride = prod(d.extent for d in dims[k + 1 :])
        terms.append(dim.expression if stride == 1 else f"{stride} * ({dim.expression})")
    return " + ".join(terms) or "0"


@dataclass(frozen=True)
class Layout:
    """A tensor's layout: ``relation`` maps each element of the box to its address."""

    box: Box
    transforms: tuple[TransformSpec, ...]
    dims: tuple[LayoutDim, ...]

    @property
    def tensor(self) -> str:
        """The tensor's name."""
        return self.box.tensor

    @property
    def size(self) -> int:
        """Words the layout occupies (padding included)."""
        return prod(d.extent for d in self.dims)

    @property
    def address_text(self) -> str:
        """The address as an isl expression of ``i0, i1, ...``."""
        return _row_major(self.dims)

    @cached_property
    def relation(self) -> isl.Map:
        """Element -> address, ``{tensor[i0, ...] -> Addr[a]}`` on the box."""
        return _map(self.box, [self.address_text], ADDRESS)

    def describe(self) -> str:
        """Return the transforms as text (``row_major`` when there are none)."""
        return " ; ".join(t.describe() for t in self.transforms) or "row_major"


def _map(box: Box, expressions: Sequence[str], name: str) -> isl.Map:
    indices = ", ".join(f"i{k}" for k in range(len(box.extents)))
    return isl.Map(
        f"{{ {box.tensor}[{indices}] -> {name}[{', '.join(expressions)}] : {box.text} }}"
    )


def _apply(
    dims: list[LayoutDim], transform: TransformSpec, where: str, source: str | None
) -> list[LayoutDim]:
    def check_dim(dim: int | None) -> int:
        if dim is None or dim >= len(dims):
            raise SpecError(
                f"{transform.op}: no dimension {dim} (the layout has {len(dims)} at this point)",
                source=source,
                location=f"{where}.dim",
            )
        return dim

    op = transform.op
    if op == "row_major":
        return dims
    if op == "column_major":
        return dims[::-1]
    if op == "permute":
        order = list(transform.order or ())
        if sorted(order) != list(range(len(dims))):
            raise SpecError(
                f"permute: order {order} is not a permutation of 0..{len(dims) - 1}",
                source=source,
                location=f"{where}.order",
            )
        return [dims[k] for k in order]
    k = check_dim(transform.dim)
    dim = dims[k]
    if op == "pad":
        return [
            *dims[:k],
            LayoutDim(dim.expression, dim.extent + (transform.by or 0)),
            *dims[k + 1 :],
        ]
    factor = transform.factor or 1
    outer = LayoutDim(f"floor(({dim.expression}) / {factor})", -(-dim.extent // factor))
    inner = LayoutDim(f"(({dim.expression}) mod {factor})", factor)
    if op == "split":
        return [*dims[:k], outer, inner, *dims[k + 1 :]]
    return [outer, *dims[:k], inner, *dims[k + 1 :]]


def _check_bijection(box: Box, dims: Sequence[LayoutDim], where: str, source: str | None) -> None:
    coordinates = _map(box, [d.expression for d in dims], "L")
    inside = " and ".join(f"0 <= c{k} < {d.extent}" for k, d in enumerate(dims))
    names = ", ".join(f"c{k}" for k in range(len(dims)))
    outside = coordinates.subtract_range(isl.Set(f"{{ L[{names}] : {inside} }}"))
    if not outside.is_empty():
        raise NotABijectionError(
            f"element {witness(outside.domain())} falls outside the layout's extents "
            f"{[d.extent for d in dims]}",
            source=source,
            location=where,
        )
    if not coordinates.is_injective():
        pairs = coordinates.apply_range(coordinates.reverse())
        pairs = pairs.subtract(isl.Map.identity(pairs.get_space()))
        raise NotABijectionError(
            f"elements {witness(pairs).replace(' -> ', ' and ')} share a position",
            source=source,
            location=where,
        )


def build_layout(
    box: Box,
    transforms: Sequence[TransformSpec] = (),
    *,
    source: str | None = None,
    location: str | None = None,
) -> Layout:
    """Apply ``transforms`` to the row-major layout of ``box``, checking each step.

    Raises
    ------
    SpecError
        A transform that names a dimension the layout does not have, or a bad order.
    NotABijectionError
        A step after which two elements share a position (with a witness).

    Examples
    --------
    >>> box = Box("A", (0, 0), (3, 4))
    >>> build_layout(box).address_text
    '4 * (i0) + i1'
    >>> build_layout(box, [TransformSpec(op="pad", dim=1, by=1)]).address_text
    '5 * (i0) + i1'
    """
    where = location or box.tensor
    dims = [
        LayoutDim(f"i{k}" if lo == 0 else f"(i{k} - {lo})", n)
        for k, (lo, n) in enumerate(zip(box.lower, box.extents, strict=True))
    ]
    for step, transform in enumerate(transforms):
        dims = _apply(dims, transform, f"{where}.{step}", source)
        _check_bijection(box, dims, f"{where}.{step}", source)
    return Layout(box, tuple(transforms), tuple(dims))


def line_map(scratchpad: ScratchpadSpec) -> isl.Map:
    """Return address -> transaction line ``{Addr[a] -> Line[floor(a / width)]}``.

    Examples
    --------
    >>> line_map(ScratchpadSpec(transaction_width=4))
    Map("{ Addr[a] -> Line[o0] : -3 + a <= 4o0 <= a }")
    """
    return isl.Map(f"{{ {ADDRESS}[a] -> {LINE}[floor(a / {scratchpad.transaction_width})] }}")


def bank_map(scratchpad: ScratchpadSpec) -> isl.Map:
    """Return address -> [bank -> bank row]: bank ``floor(a / bank_width) mod banks``, row
    ``floor(a / (bank_width * banks))``.

    Examples
    --------
    >>> from tenet.counting import count
    >>> m = bank_map(ScratchpadSpec(banks=4, bank_width=2))
    >>> count(m.intersect_domain(isl.Set("{Addr[a]: 0 <= a < 16}")).range())
    8
    """
    width, banks = scratchpad.bank_width, scratchpad.banks
    return isl.Map(
        f"{{ {ADDRESS}[a] -> [{BANK}[floor(a / {width}) mod {banks}] -> "
        f"{ROW}[floor(a / {width * banks})]] }}"
    )
