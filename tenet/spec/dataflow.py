"""DataflowSpec: the space-stamp and time-stamp maps of a dataflow, as isl text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from tenet.spec.base import SpecModel
from tenet.spec.layout import Layouts

__all__ = ["DataflowSpec", "stamp_texts"]


def stamp_texts(statement: str, loops: Sequence[str], pe: str, time: str) -> tuple[str, str]:
    """Return the isl texts of the space-stamp and the time-stamp whose tuples are ``pe`` and
    ``time`` (text such as ``PE[i % 8]`` and ``T[floor(i/8)]``) over ``statement[loops]``.

    Examples
    --------
    >>> stamp_texts("S", ("i",), "PE[i % 2]", "T[floor(i/2)]")
    ('{ S[i] -> PE[i % 2] }', '{ S[i] -> T[floor(i/2)] }')
    """
    head = f"{statement}[{', '.join(loops)}]"
    return f"{{ {head} -> {pe} }}", f"{{ {head} -> {time} }}"


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
    places: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description=(
            "Per memory level, the tile stamp of each tensor whose storage there sits under "
            "other loops than the level's tiles (isl map {S[...] -> LEVEL[...]}); the other "
            "tensors take the level's stamp of ``tiles``."
        ),
    )
    keep: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description=(
            "Per memory level inside the outermost, the tensors the mapping keeps there (the "
            "others bypass it); a level not named keeps every tensor it may hold (its "
            "``tensors`` in the architecture)."
        ),
    )
    steps: str | None = Field(
        None,
        description=(
            "isl set {T[...]} of every step of the schedule, idle ones included (a stationary "
            "operand's load, the skew of a partial fold): the compute latency counts each step "
            "no instance runs in as one cycle. Default: the time-stamps of the instances."
        ),
    )
    tensors: tuple[str, ...] | None = Field(
        None, description="Tensors to analyse (default: all of the workload's)."
    )
    layout: Layouts = Field(
        default_factory=dict, description="Scratchpad layout per tensor (default: row-major)."
    )

    @classmethod
    def from_tuples(cls, statement: str, loops: Sequence[str], pe: str, time: str) -> DataflowSpec:
        """Return the dataflow whose stamps have the tuples ``pe`` and ``time`` over
        ``statement[loops]`` (:func:`stamp_texts`), named ``"PE[...] T[...]"``."""
        space_stamp, time_stamp = stamp_texts(statement, loops, pe, time)
        return cls.from_mapping(
            {"name": f"{pe} {time}", "space_stamp": space_stamp, "time_stamp": time_stamp}
        )
