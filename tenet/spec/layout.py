"""Layout specs: where each tensor element lives in the scratchpad (a list of transforms of
the row-major order per tensor), and the scratchpad's banks and transaction width.

A layout is written as a list of transforms applied in order to the tensor's row-major
layout; dimensions are named by their position in the layout built so far (0 = outermost,
the slowest-varying). In YAML (the ``layout`` key of a dataflow, or ``layouts`` of a layout
file)::

    layout:
      I: [{op: permute, order: [2, 0, 1]}, {op: pad, dim: 1, by: 1}]
      W: [{op: column_major}]
"""

from __future__ import annotations

from typing import ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tenet.spec.base import SpecModel

__all__ = ["TRANSFORMS", "TransformSpec", "ScratchpadSpec", "LayoutSpec", "Layouts"]

Op = Literal["row_major", "column_major", "permute", "split", "interleave", "pad"]
TRANSFORMS: tuple[Op, ...] = get_args(Op)
"""The layout transforms, in the order the docs list them."""

_NEEDS: dict[str, tuple[str, ...]] = {
    "row_major": (),
    "column_major": (),
    "permute": ("order",),
    "split": ("dim", "factor"),
    "interleave": ("dim", "factor"),
    "pad": ("dim", "by"),
}


class TransformSpec(BaseModel):
    """One layout transform.

    ``row_major`` keeps the order; ``column_major`` reverses the dimensions; ``permute``
    lists the new order of the current dimensions (outermost first); ``split`` replaces
    dimension ``dim`` (extent n) by an outer (ceil(n / factor)) and an inner (``factor``)
    dimension in place; ``interleave`` splits likewise and moves the outer part outermost;
    ``pad`` adds ``by`` unused positions to the extent of ``dim`` (a negative ``by`` crops,
    which the bijection check rejects when elements would collide).

    Examples
    --------
    >>> TransformSpec.model_validate({"op": "split", "dim": 0, "factor": 16}).factor
    16
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    op: Op = Field(description="The transform: " + ", ".join(TRANSFORMS) + ".")
    order: tuple[int, ...] | None = Field(
        None, description="permute: the current dimensions in their new order, outermost first."
    )
    dim: int | None = Field(None, ge=0, description="split, interleave, pad: the dimension.")
    factor: int | None = Field(None, ge=1, description="split, interleave: the inner extent.")
    by: int | None = Field(None, description="pad: positions added to the extent.")

    @model_validator(mode="after")
    def _fields_of_op(self) -> TransformSpec:
        needed = _NEEDS[self.op]
        for key in ("order", "dim", "factor", "by"):
            given = getattr(self, key) is not None
            if key in needed and not given:
                raise ValueError(f"{self.op} needs '{key}'")
            if key not in needed and given:
                raise ValueError(f"{self.op} takes no '{key}'")
        return self

    def describe(self) -> str:
        """Return the transform as short text, e.g. ``split(0, 16)``.

        Examples
        --------
        >>> TransformSpec(op="permute", order=(1, 0)).describe()
        'permute(1, 0)'
        """
        args = [
            ", ".join(map(str, self.order)) if self.order is not None else None,
            None if self.dim is None else str(self.dim),
            None if self.factor is None else str(self.factor),
            None if self.by is None else str(self.by),
        ]
        return f"{self.op}({', '.join(a for a in args if a is not None)})"


Layouts = dict[str, tuple[TransformSpec, ...]]
"""Tensor name -> its transforms (a tensor not listed is row-major)."""


class ScratchpadSpec(BaseModel):
    """A banked scratchpad, in words (one word holds one element).

    Address ``a`` is in bank ``floor(a / bank_width) mod banks``, bank row
    ``floor(a / (bank_width * banks))``, and transaction line ``floor(a / transaction_width)``.
    A bank serves one row per cycle; whole lines cross the architecture's ``bandwidth``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    banks: int = Field(16, ge=1, description="Number of banks.")
    bank_width: int = Field(1, ge=1, description="Consecutive words per bank row.")
    transaction_width: int = Field(1, ge=1, description="Words of one aligned transaction.")


class LayoutSpec(SpecModel):
    """A layout file: ``layouts`` maps tensor names to transforms.

    Examples
    --------
    >>> spec = LayoutSpec.from_mapping({"name": "l", "layouts": {"B": [{"op": "column_major"}]}})
    >>> spec.layouts["B"][0].op
    'column_major'
    """

    kind: ClassVar[str] = "layout"

    layouts: Layouts = Field(default_factory=dict, description="Tensor -> layout transforms.")
