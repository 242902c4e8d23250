"""Mapping constraints: what a search of mappings may choose, fixed or narrowed in a YAML file
(``--constraints FILE``), as Timeloop's mapspace constraints: the PEs a loop spreads over, and
per memory level the tensors it keeps or bypasses, the tile sizes of its loops and the order of
the loops over its tiles. Which loops, levels and tensors exist is checked against a problem
by :mod:`tenet.dse.constraints`; here only the form of the file::

    spatial: {i: 8}
    levels:
      glb: {bypass: [A], sizes: {k: [8]}}
      rf: {keep: [C], sizes: {i: [1], j: [1]}, order: [k, i, j]}
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from tenet.spec.base import SpecModel

__all__ = ["LevelConstraints", "ConstraintsSpec", "load_constraints"]


class LevelConstraints(BaseModel):
    """What a search may choose at one memory level: the tensors it must keep and those it
    must not (bypass), the tile sizes allowed for some loops, and the order of the loops over
    its tiles.

    Examples
    --------
    >>> LevelConstraints.model_validate({"sizes": {"k": [4, 8]}, "order": ["k", "j", "i"]}).order
    ('k', 'j', 'i')
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    keep: tuple[str, ...] = Field(
        (), description="Tensors the level keeps (a copy of their tiles is held there)."
    )
    bypass: tuple[str, ...] = Field(
        (), description="Tensors the level does not keep (they pass through it)."
    )
    sizes: dict[str, tuple[PositiveInt, ...]] = Field(
        default_factory=dict,
        description="Loop -> the tile sizes allowed at this level (iterations of the loop a "
        "tile of the level spans; divisors of the loop's extent unless the search is aligned).",
    )
    order: tuple[str, ...] | None = Field(
        None,
        description="Every loop of the workload once, outermost first: the order of the loops "
        "that step through this level's tiles (those printed after the level's name).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> LevelConstraints:
        both = sorted(set(self.keep) & set(self.bypass))
        if both:
            raise ValueError(f"{', '.join(both)} both kept and bypassed")
        if self.order is not None and len(set(self.order)) != len(self.order):
            raise ValueError(f"order {list(self.order)} names a loop twice")
        for loop, sizes in self.sizes.items():
            if not sizes:
                raise ValueError(f"sizes.{loop}: no tile size allowed")
        return self


class ConstraintsSpec(SpecModel):
    """A constraints file: ``spatial`` (loop -> the PEs its values spread over) and
    ``levels`` (memory level -> :class:`LevelConstraints`).

    Examples
    --------
    >>> spec = ConstraintsSpec.from_mapping({"name": "c", "spatial": {"i": 8},
    ...     "levels": {"rf": {"keep": ["C"]}}})
    >>> spec.spatial, spec.levels["rf"].keep
    ({'i': 8}, ('C',))
    """

    kind: ClassVar[str] = "constraints"

    spatial: dict[str, PositiveInt] = Field(
        default_factory=dict,
        description="Loop -> the PEs the array mapping spreads its values over (the distinct "
        "PE coordinates along the loop, the others fixed; 1: not on the array).",
    )
    levels: dict[str, LevelConstraints] = Field(
        default_factory=dict, description="Memory level -> what a search may choose there."
    )


def load_constraints(source: str | Path | ConstraintsSpec) -> ConstraintsSpec:
    """Read a constraints file (YAML).

    Examples
    --------
    >>> load_constraints("none.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: none.yaml: ...
    """
    if isinstance(source, ConstraintsSpec):
        return source
    return ConstraintsSpec.from_yaml(source)
