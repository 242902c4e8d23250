"""Architecture: the PE set, the links between PEs and the figures used by the metrics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl

from tenet.errors import SpecError
from tenet.isl_utils import parse_map, parse_set, tuple_signature
from tenet.model.hierarchy import MemoryLevel, memory_levels
from tenet.spec.architecture import ArchitectureSpec, EnergySpec

__all__ = ["Architecture", "Link"]


@dataclass(frozen=True)
class Link:
    """Links ``PE -> PE`` (sender -> receiver) that take ``delay`` time-stamps (0 or 1); an
    element moved over one costs ``energy``."""

    relation: isl.Map
    delay: int
    energy: float = 0.0


@dataclass(frozen=True)
class Architecture:
    """A PE array with its interconnect, scratchpad and energy table."""

    name: str
    pe_set: isl.Set
    links: tuple[Link, ...]
    bits_per_element: int
    bandwidth: int
    latency: int
    l1_size: int
    l2_size: int
    energy: EnergySpec
    instances_per_step: int = 1
    source: str | None = None
    levels: tuple[MemoryLevel, ...] = ()

    @property
    def sources(self) -> isl.Map:
        """Return receiver -> sender over all links: where a PE can take data from."""
        space = self.pe_set.get_space().map_from_set()
        union = isl.Map.empty(space)
        for link in self.links:
            union = union.union(link.relation.reverse())
        return union

    @classmethod
    def from_spec(cls, spec: ArchitectureSpec, params: Mapping[str, int]) -> Architecture:
        """Parse and check ``spec`` with its size parameters bound to ``params``."""
        src = spec.source
        pe_set = parse_set(spec.pe, params, source=src, location=spec.where("pe"))
        pe = tuple_signature(pe_set, isl.dim_type.set)
        links = []
        for k, link in enumerate(spec.interconnect):
            where = spec.where(f"interconnect.{k}")
            relation = parse_map(link.link, params, source=src, location=where)
            for dim in (isl.dim_type.in_, isl.dim_type.out):
                if tuple_signature(relation, dim) != pe:
                    raise SpecError(
                        f"link {link.link!r} does not join {pe[0]} tuples of {pe[1]} indices",
                        source=src,
                        location=where,
                    )
            links.append(Link(relation, link.delay, link.energy))
        return cls(
            spec.name,
            pe_set,
            tuple(links),
            spec.bits_per_element,
            spec.bandwidth,
            spec.latency,
            spec.l1_size,
            spec.l2_size,
            spec.energy,
            spec.instances_per_step,
            src,
            memory_levels(spec),
        )
