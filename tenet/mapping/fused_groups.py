"""A fused chain's mapping: its statements split into groups of consecutive statements, each
fused by one :class:`FusedNest` at the same buffer (``docs/fusion.md``). What one group writes
and a later one reads goes through DRAM."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tenet.mapping.fusion import FusedNest
from tenet.model.chain import Chain
from tenet.spec.fused import FusedSpec, group_chain

__all__ = ["FusedGroup", "FusedGroups"]


@dataclass(frozen=True)
class FusedGroup:
    """One group: its statements and its fused nest (the ranks of the last statement are the
    shared loops')."""

    statements: tuple[str, ...]
    nest: FusedNest

    def chain(self, chain: Chain) -> Chain:
        """The group's own chain, with the sizes of ``chain`` (:func:`group_chain`)."""
        return Chain.from_spec(group_chain(chain.spec, self.statements), chain.sizes)

    def document(self) -> dict[str, Any]:
        """This group as the ``groups`` entry of a fused dataflow file."""
        last = self.statements[-1]
        shared = tuple(self.nest.ranks[last])
        entry: dict[str, Any] = {
            "statements": list(self.statements),
            "tiles": dict(zip(shared, self.nest.tiles, strict=True)),
            "halo": self.nest.halo,
        }
        own = {s: list(r) for s, r in self.nest.ranks.items() if s != last}
        if own:
            entry["ranks"] = own
        if self.nest.resident:
            entry["resident"] = sorted(self.nest.resident)
        if self.nest.subtiles:
            entry["subtiles"] = {s: dict(sizes) for s, sizes in self.nest.subtiles.items()}
        return entry


@dataclass(frozen=True)
class FusedGroups:
    """The groups of a chain, in order, at one buffer (``level``; ``capacity`` in elements,
    None: unbounded).

    Examples
    --------
    >>> spec = FusedSpec.from_mapping({"name": "f", "groups": [
    ...     {"statements": ["S0"], "tiles": {"m": 4}}, {"statements": ["S1"], "tiles": {"m": 2}}]})
    >>> groups = FusedGroups.from_spec(spec, "glb", 100)
    >>> [(g.statements, g.nest.tiles) for g in groups.groups]
    [(('S0',), (4,)), (('S1',), (2,))]
    """

    groups: tuple[FusedGroup, ...]
    level: str = "buffer"
    capacity: int | None = None

    @classmethod
    def from_spec(cls, spec: FusedSpec, level: str, capacity: int | None) -> FusedGroups:
        """The groups of a checked ``spec`` at the buffer ``level`` of ``capacity`` elements
        (the spec's own level and capacity come first)."""
        name = spec.level or level
        size = spec.capacity if spec.capacity is not None else capacity
        groups = []
        for group in spec.groups:
            last = group.statements[-1]
            ranks: dict[str, tuple[str, ...]] = {
                **group.ranks,
                last: tuple(group.tiles),
            }
            nest = FusedNest(
                ranks,
                tuple(group.tiles.values()),
                halo=group.halo,
                resident=frozenset(group.resident),
                level=name,
                capacity=size,
                subtiles={s: dict(sizes) for s, sizes in group.subtiles.items()},
            )
            groups.append(FusedGroup(group.statements, nest))
        return cls(tuple(groups), name, size)

    def document(self, chain: str) -> dict[str, Any]:
        """The fused dataflow file of these groups, made for the chain named ``chain``."""
        document: dict[str, Any] = {"version": 1, "name": f"{chain}-fused", "chain": chain}
        document["level"] = self.level
        if self.capacity is not None:
            document["capacity"] = self.capacity
        document["groups"] = [g.document() for g in self.groups]
        return document
