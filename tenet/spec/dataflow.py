"""DataflowSpec: the space-stamp and time-stamp maps of a dataflow, as isl text."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tenet.spec.base import SpecModel
from tenet.spec.layout import Layouts

__all__ = ["DataflowSpec"]


class DataflowSpec(SpecModel):
    """A dataflow Θ: ``space_stamp`` ``{S[...] -> PE[...]}`` and ``time_stamp``
    ``{S[...] -> T[...]}`` (quasi-affine: ``floor``, ``%``); time-stamps are ordered
    lexicographically.

    Examples
    --------
    >>> DataflowSpec.from_mapping({"name": "os", "space_stamp": "{S[i] -> PE[i % 2]}",
    ...     "time_stamp": "{S[i] -> T[floor(i/2)]}"}).name
    'os'
    """

    kind: ClassVar[str] = "dataflow"

    space_stamp: str = Field(description="isl map {S[...] -> PE[...]}.")
    time_stamp: str = Field(description="isl map {S[...] -> T[...]}.")
    params: dict[str, int] = Field(
        default_factory=dict, description="Values of size parameters this dataflow fixes."
    )
    tiles: dict[str, str] = Field(
        default_factory=dict,
        description="Tile stamp of each memory level, isl map {S[...] -> LEVEL[...]}.",
    )
    tensors: tuple[str, ...] | None = Field(
        None, description="Tensors to analyse (default: all of the workload's)."
    )
    layout: Layouts = Field(
        default_factory=dict, description="Scratchpad layout per tensor (default: row-major)."
    )
