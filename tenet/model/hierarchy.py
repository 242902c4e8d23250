"""Memory levels of an architecture, from DRAM inward: capacities, bandwidths and energies,
checked on load. An architecture without levels has one unbounded DRAM feeding the array."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from tenet.errors import SpecError, UnknownTensorError
from tenet.spec.architecture import ArchitectureSpec, LevelSpec

__all__ = [
    "MemoryLevel",
    "memory_levels",
    "IMPLIED_DRAM",
    "mapped_levels",
    "inner_level",
    "check_keep",
]


@dataclass(frozen=True)
class MemoryLevel:
    """One memory level: capacity in elements (per PE when ``per_pe``; None is unbounded),
    bandwidths in elements/cycle (None is unbounded), energies per element accessed."""

    name: str
    capacity: int | None = None
    per_pe: bool = False
    split: Mapping[str, int] = field(default_factory=dict)
    read_bandwidth: Fraction | None = None
    write_bandwidth: Fraction | None = None
    energy_read: float = 0.0
    energy_write: float = 0.0
    feeds_array: bool = False
    source: str | None = None
    tensors: tuple[str, ...] | None = None
    """The tensors the level holds (None: every tensor); the others bypass it. An
    architecture's levels give those each may hold, :func:`mapped_levels` those a mapping
    keeps."""
    multicast: bool = True
    """The parent's network serves every instance taking an element in one step with one read."""
    reduction: bool = True
    """The parent's network sums one step's partial sums of an element into one write."""

    def holds(self, tensor: str) -> bool:
        """True when the level holds ``tensor`` (it does not bypass it)."""
        return self.tensors is None or tensor in self.tensors

    def capacity_of(self, tensor: str) -> int | None:
        """Return the capacity ``tensor`` may use, in elements (None: unbounded)."""
        if self.split:
            return self.split.get(tensor, 0)
        return self.capacity


IMPLIED_DRAM = MemoryLevel("dram", feeds_array=True, source="implied: one unbounded DRAM")
"""The hierarchy of an architecture that lists no levels."""


def _fraction(value: float | None) -> Fraction | None:
    return None if value is None else Fraction(str(value))


def _level(spec: LevelSpec, architecture: ArchitectureSpec, k: int) -> MemoryLevel:
    src, bits = architecture.source, architecture.bits_per_element

    def where(key: str) -> str:
        return architecture.where(f"levels.{k}.{key}")

    capacity = spec.capacity
    if spec.capacity_bytes is not None:
        if capacity is not None:
            raise SpecError(
                "give capacity (elements) or capacity_bytes, not both",
                source=src,
                location=where("capacity_bytes"),
            )
        capacity = spec.capacity_bytes * 8 // (spec.bits_per_element or bits)
        if capacity == 0:
            raise SpecError(
                f"capacity_bytes {spec.capacity_bytes} holds no element of "
                f"{spec.bits_per_element or bits} bits",
                source=src,
                location=where("capacity_bytes"),
            )
    for tensor, size in (spec.split or {}).items():
        if size < 0:
            raise SpecError(
                f"capacity of {tensor} must be >= 0, not {size}",
                source=src,
                location=where(f"split.{tensor}"),
            )
    return MemoryLevel(
        spec.name,
        capacity,
        spec.per_pe,
        dict(spec.split or {}),
        _fraction(spec.read_bandwidth),
        _fraction(spec.write_bandwidth),
        spec.energy_read,
        spec.energy_write,
        spec.feeds_array,
        spec.source,
        spec.tensors,
        spec.network.multicast,
        spec.network.reduction,
    )


def memory_levels(spec: ArchitectureSpec) -> tuple[MemoryLevel, ...]:
    """Return the checked memory levels of ``spec``, outermost first.

    The outermost level is shared; per-PE levels come after every shared one; one level feeds
    the array (by default the innermost shared level).

    Examples
    --------
    >>> spec = ArchitectureSpec.from_mapping({"name": "a", "pe": "{PE[i]: 0 <= i < 4}",
    ...     "levels": [{"name": "dram"}, {"name": "glb", "capacity_bytes": 1024}]})
    >>> [(v.name, v.capacity, v.feeds_array) for v in memory_levels(spec)]
    [('dram', None, False), ('glb', 512, True)]
    """
    if not spec.levels:
        return (IMPLIED_DRAM,)
    src = spec.source
    levels = [_level(s, spec, k) for k, s in enumerate(spec.levels)]
    seen: set[str] = set()
    for k, level in enumerate(levels):
        if level.name in seen:
            raise SpecError(
                f"level {level.name!r} is listed twice",
                source=src,
                location=spec.where(f"levels.{k}.name"),
            )
        seen.add(level.name)
        if level.per_pe and k == 0:
            raise SpecError(
                "the outermost level (DRAM) cannot be per PE",
                source=src,
                location=spec.where("levels.0.per_pe"),
            )
        if k and levels[k - 1].per_pe and not level.per_pe:
            raise SpecError(
                f"shared level {level.name!r} cannot sit inside per-PE level "
                f"{levels[k - 1].name!r} (list levels from DRAM inward)",
                source=src,
                location=spec.where(f"levels.{k}.per_pe"),
            )
    feeding = [k for k, level in enumerate(levels) if level.feeds_array]
    if len(feeding) > 1:
        raise SpecError(
            f"only one level feeds the array, not {', '.join(levels[k].name for k in feeding)}",
            source=src,
            location=spec.where(f"levels.{feeding[1]}.feeds_array"),
        )
    shared = [k for k, level in enumerate(levels) if not level.per_pe]
    if not feeding:
        last = shared[-1]
        levels[last] = MemoryLevel(**{**levels[last].__dict__, "feeds_array": True})
    elif levels[feeding[0]].per_pe:
        raise SpecError(
            "the level that feeds the array must be shared, not per PE",
            source=src,
            location=spec.where(f"levels.{feeding[0]}.feeds_array"),
        )
    return tuple(levels)


def mapped_levels(
    levels: Sequence[MemoryLevel], keep: Mapping[str, Collection[str]]
) -> tuple[MemoryLevel, ...]:
    """Return ``levels`` as a mapping uses them: each level that ``keep`` names holding the
    tensors it names there (checked by :func:`check_keep`), the others every tensor they may
    hold.

    Examples
    --------
    >>> levels = (MemoryLevel("dram"), MemoryLevel("glb", tensors=("A", "B")))
    >>> [lv.tensors for lv in mapped_levels(levels, {"glb": ["B"]})]
    [None, ('B',)]
    """
    return tuple(
        replace(level, tensors=tuple(sorted(keep[level.name]))) if level.name in keep else level
        for level in levels
    )


def inner_level(
    levels: Sequence[MemoryLevel],
    name: str,
    holds: str,
    *,
    source: str | None = None,
    location: str | None = None,
) -> MemoryLevel:
    """Return the level ``name`` of ``levels`` inside the outermost, which a dataflow's key
    at ``location`` names (``holds``: what the outermost level holds, in the refusal).

    Raises
    ------
    SpecError
        A level the architecture does not have, or the outermost.

    Examples
    --------
    >>> inner_level((MemoryLevel("dram"), MemoryLevel("glb")), "dram", "everything")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: 'dram' is the outermost level: it holds everything
    """
    names = [level.name for level in levels]
    if name not in names:
        raise SpecError(
            f"the architecture has no memory level {name!r} (levels: {', '.join(names)})",
            source=source,
            location=location,
        )
    if name == names[0]:
        raise SpecError(
            f"{name!r} is the outermost level: it holds {holds}",
            source=source,
            location=location,
        )
    return levels[names.index(name)]


def check_keep(
    levels: Sequence[MemoryLevel],
    keep: Mapping[str, Collection[str]],
    tensors: Collection[str],
    *,
    source: str | None = None,
    where: Callable[[str], str] = str,
) -> None:
    """Check the tensors a mapping keeps per level (``keep``) against the memory ``levels``
    and the workload's ``tensors``; ``where`` gives the line of a key (``keep.glb``).

    Raises
    ------
    SpecError
        A level the architecture does not have, the outermost level (it holds every
        tensor), a tensor the level may not hold (its ``tensors`` in the architecture).
    UnknownTensorError
        A tensor the workload does not have.

    Examples
    --------
    >>> levels = (MemoryLevel("dram"), MemoryLevel("glb", tensors=("A", "B")))
    >>> check_keep(levels, {"glb": ["C"]}, ["A", "B", "C"])
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: keep.glb: level 'glb' may not hold C (it may hold A, B)
    """
    for name, kept in keep.items():
        location = where(f"keep.{name}")
        level = inner_level(levels, name, "every tensor", source=source, location=location)
        for tensor in kept:
            if tensor not in tensors:
                raise UnknownTensorError(tensor, tensors, source=source, location=location)
            if not level.holds(tensor):
                assert level.tensors is not None
                raise SpecError(
                    f"level {name!r} may not hold {tensor} (it may hold "
                    f"{', '.join(level.tensors) or 'no tensor'})",
                    source=source,
                    location=location,
                )
