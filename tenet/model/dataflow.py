"""Dataflow Θ = S -> (PE | T): the space-stamp and time-stamp maps, params bound."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl

from tenet.isl_utils import parse_map, parse_set
from tenet.spec.dataflow import DataflowSpec

__all__ = ["Dataflow"]


@dataclass(frozen=True)
class Dataflow:
    """Space-stamp ``S -> PE`` and time-stamp ``S -> T`` maps (not yet checked on a workload)."""

    name: str
    space_stamp: isl.Map
    time_stamp: isl.Map
    source: str | None = None
    tensors: tuple[str, ...] | None = None
    tiles: tuple[tuple[str, isl.Map], ...] = ()
    """Tile stamp ``S -> LEVEL[...]`` of each tiled memory level, by level name."""
    places: tuple[tuple[str, str, isl.Map], ...] = ()
    """(level, tensor, tile stamp) of a tensor stored under other loops than its level's tiles."""
    keep: tuple[tuple[str, frozenset[str]], ...] = ()
    """(level, tensors) of each level that keeps only some of the tensors it may hold."""
    steps: isl.Set | None = None
    """Every step of the schedule, idle ones included (None: the instances' time-stamps)."""
    spec: DataflowSpec | None = None
    """The spec the dataflow was read from (its stamps as written)."""

    @classmethod
    def from_spec(cls, spec: DataflowSpec, params: Mapping[str, int]) -> Dataflow:
        """Parse ``spec`` with its size parameters bound to ``params``."""
        maps = [
            parse_map(getattr(spec, key), params, source=spec.source, location=spec.where(key))
            for key in ("space_stamp", "time_stamp")
        ]
        tiles = tuple(
            (
                level,
                parse_map(text, params, source=spec.source, location=spec.where(f"tiles.{level}")),
            )
            for level, text in spec.tiles.items()
        )
        places = tuple(
            (
                level,
                tensor,
                parse_map(
                    text,
                    params,
                    source=spec.source,
                    location=spec.where(f"places.{level}.{tensor}"),
                ),
            )
            for level, per in spec.places.items()
            for tensor, text in per.items()
        )
        keep = tuple((level, frozenset(tensors)) for level, tensors in spec.keep.items())
        steps = (
            None
            if spec.steps is None
            else parse_set(spec.steps, params, source=spec.source, location=spec.where("steps"))
        )
        return cls(
            spec.name,
            maps[0],
            maps[1],
            spec.source,
            spec.tensors,
            tiles,
            places,
            keep,
            steps,
            spec,
        )
