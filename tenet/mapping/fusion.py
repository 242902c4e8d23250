"""A fused mapping of a chain: shared outer loops at one buffer level over the fused ranks,
below them each statement's own nest, run in turn.

The last statement is tiled by its fused ranks (tile ``j`` holds the instances whose ranks
divided by the tile sizes give ``j``). A producer given its own ranks is tiled the same way;
one left out runs, in each tile, the instances whose results the tile's consumers read (with
``halo="keep"`` each instance once, in the first tile needing it; with ``"recompute"`` in
every tile needing it). ``resident`` inputs and outputs stay in the buffer for the whole group;
the others are streamed per tile; intermediates stay in the buffer while they are live.

A statement given ``subtiles`` runs, inside each fused tile, a nest of its own: sub-tile
loops over the ranks named, in the order of its domain's ranks (outermost first), each
sub-tile the instances whose named ranks divided by the sizes agree. Its streamed tensors (the
inputs it reads and the final output it writes, when not resident) are then held one sub-tile
at a time: fetched (written back) per sub-tile, dropped at its end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenet.errors import SpecError, UnknownTensorError
from tenet.model.chain import Chain
from tenet.spec.io import read_yaml
from tenet.vocab import HALOS, Halo

__all__ = ["FusedNest", "nests_document", "load_nests"]


@dataclass(frozen=True)
class FusedNest:
    """Fused ranks per statement (the last one's at least), the shared tile sizes (one per
    rank), the halo rule, the resident tensors and the buffer (its name; its capacity in
    elements, or None for unbounded).

    Examples
    --------
    >>> nest = FusedNest({"S1": ("m",)}, (2,), resident=frozenset({"B", "D"}))
    >>> nest.halo, nest.level
    ('keep', 'buffer')
    """

    ranks: Mapping[str, Sequence[str]]
    tiles: tuple[int, ...]
    halo: Halo = "keep"
    resident: frozenset[str] = field(default_factory=frozenset)
    level: str = "buffer"
    capacity: int | None = None
    subtiles: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Per statement, the sub-tile size of each rank its own loops run over inside the tile."""

    def streamed(self, chain: Chain, name: str) -> tuple[str, ...]:
        """The tensors the statement ``name`` holds one sub-tile at a time when it has
        sub-tiles: the inputs it reads and the final output it writes, unless resident.

        Examples
        --------
        >>> from tenet.spec.chain import load_chain
        >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "N": 2, "K": 2, "P": 2})
        >>> FusedNest({"S1": ()}, (), resident=frozenset("D")).streamed(chain, "S1")
        ('E',)
        """
        statement = next(s for s in chain.statements if s.name == name)
        held = [t for t in statement.reads if t in chain.spec.inputs]
        if statement is chain.last:
            held.append(statement.written)
        return tuple(t for t in held if t not in self.resident)

    def check(self, chain: Chain) -> None:
        """Raise :class:`SpecError` when this nest does not fit ``chain``: the last statement
        unfused, an unknown statement or rank, a tile size below one, an intermediate made
        resident, or a statement whose result no later one reads."""
        if self.halo not in HALOS:
            raise SpecError(f"halo {self.halo!r}: expected one of {', '.join(HALOS)}")
        if any(t < 1 for t in self.tiles):
            raise SpecError(f"tile sizes {self.tiles}: each is at least 1", location="tiles")
        names = [s.name for s in chain.statements]
        if chain.last.name not in self.ranks:
            raise SpecError(
                f"the last statement {chain.last.name} has no fused ranks", location="ranks"
            )
        for name, ranks in self.ranks.items():
            if name not in names:
                raise SpecError(
                    f"no statement {name!r} in the chain (known: {', '.join(names)})",
                    location="ranks",
                )
            statement = chain.statements[names.index(name)]
            unknown = [r for r in ranks if r not in statement.ranks]
            if unknown or len(ranks) != len(self.tiles):
                raise SpecError(
                    f"{name} is fused over {tuple(ranks)} with tile sizes {self.tiles}: expected "
                    f"{len(self.tiles)} of its ranks {statement.ranks}",
                    location=f"ranks.{name}",
                )
        for tensor in sorted(self.resident):
            if tensor not in chain.spec.tensors:
                raise UnknownTensorError(tensor, chain.spec.tensors, location="resident")
            if tensor in chain.spec.intermediates:
                raise SpecError(
                    f"{tensor} is an intermediate: it stays in the buffer while live, "
                    "never resident",
                    location="resident",
                )
        self._check_subtiles(chain)
        for statement in chain.statements[:-1]:
            if not chain.consumers(statement.written):
                raise SpecError(
                    f"{statement.name} writes {statement.written}, which no later statement "
                    f"reads: a fused chain feeds its last statement",
                    location="ranks",
                )

    def _check_subtiles(self, chain: Chain) -> None:
        """Sub-tiles name a statement and its ranks, each size at least 1 and dividing the
        rank's extent; a streamed input is sub-tiled by all its readers or by none."""
        statements = {s.name: s for s in chain.statements}
        for name, sizes in self.subtiles.items():
            if name not in statements:
                raise SpecError(
                    f"no statement {name!r} in the chain (known: {', '.join(statements)})",
                    location="subtiles",
                )
            statement = statements[name]
            for rank, size in sizes.items():
                where = f"subtiles.{name}.{rank}"
                if rank not in statement.ranks:
                    raise SpecError(
                        f"{name} has no rank {rank!r} (its ranks: {', '.join(statement.ranks)})",
                        location=where,
                    )
                k = statement.ranks.index(rank)
                low = statement.domain.dim_min_val(k).to_python()
                extent = statement.domain.dim_max_val(k).to_python() - low + 1
                if size < 1 or extent % size:
                    raise SpecError(
                        f"sub-tile size {size} of {name}'s rank {rank}: expected a divisor "
                        f"of its extent {extent}",
                        location=where,
                    )
        for tensor in chain.spec.inputs:
            if tensor in self.resident:
                continue
            readers = [s.name for s in chain.consumers(tensor)]
            cut = [r for r in readers if r in self.subtiles]
            if cut and len(cut) != len(readers):
                raise SpecError(
                    f"{tensor} is streamed to {', '.join(readers)}, sub-tiled in "
                    f"{', '.join(cut)} only: sub-tile every reader of it, or make it resident",
                    location=f"subtiles.{cut[0]}",
                )


def nests_document(nests: Sequence[FusedNest]) -> dict[str, Any]:
    """Return the file content of ``nests`` (one over a chain fused, or one per statement),
    on one buffer: its ``level`` and ``capacity`` (elements, None: unbounded), and per nest
    its ``ranks``, ``tiles``, ``halo`` and ``resident`` tensors.

    Examples
    --------
    >>> nests_document([FusedNest({"S1": ("m",)}, (2,), resident=frozenset("DB"))])["nests"]
    [{'ranks': {'S1': ['m']}, 'tiles': [2], 'halo': 'keep', 'resident': ['B', 'D']}]

    A nest with sub-tiles lists them too (``subtiles``: statement -> rank -> size).
    """
    levels = {(n.level, n.capacity) for n in nests}
    if len(levels) != 1:
        raise SpecError(f"the nests name {len(levels)} buffers; one buffer is written")
    ((level, capacity),) = levels
    return {
        "version": 1,
        "level": level,
        "capacity": capacity,
        "nests": [_nest_entry(n) for n in nests],
    }


def _nest_entry(nest: FusedNest) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "ranks": {name: list(ranks) for name, ranks in nest.ranks.items()},
        "tiles": list(nest.tiles),
        "halo": nest.halo,
        "resident": sorted(nest.resident),
    }
    if nest.subtiles:
        entry["subtiles"] = {name: dict(sizes) for name, sizes in nest.subtiles.items()}
    return entry


def _field(data: Mapping[str, Any], key: str, kind: type, source: str, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise SpecError(
            f"expected {kind.__name__}, not {value!r}", source=source, location=f"{where}{key}"
        )
    return value


def _subtiles(entry: Mapping[str, Any], source: str, where: str) -> dict[str, dict[str, int]]:
    """A nest's ``subtiles`` (statement -> rank -> size), checked for shape and type."""
    found = entry.get("subtiles") or {}
    if not isinstance(found, dict):
        raise SpecError(
            f"expected a mapping, not {found!r}", source=source, location=f"{where}subtiles"
        )
    subtiles: dict[str, dict[str, int]] = {}
    for name, sizes in found.items():
        at = f"{where}subtiles.{name}"
        if not isinstance(sizes, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in sizes.values()
        ):
            raise SpecError(f"expected rank: size, not {sizes!r}", source=source, location=at)
        subtiles[str(name)] = {str(r): v for r, v in sizes.items()}
    return subtiles


def load_nests(path: str | Path) -> tuple[FusedNest, ...]:
    """Read the nests of a chain from the file :func:`nests_document` writes.

    Raises
    ------
    SpecError
        A missing or ill-typed key, named by its path.
    """
    source = str(path)
    data, _ = read_yaml(path)
    level = _field(data, "level", str, source, "")
    capacity = data.get("capacity")
    if capacity is not None and (not isinstance(capacity, int) or capacity < 1):
        raise SpecError(
            f"expected a number of elements >= 1 or null, not {capacity!r}",
            source=source,
            location="capacity",
        )
    nests = []
    for k, entry in enumerate(_field(data, "nests", list, source, "")):
        where = f"nests.{k}."
        if not isinstance(entry, dict):
            raise SpecError(f"expected a mapping, not {entry!r}", source=source, location=where)
        ranks = _field(entry, "ranks", dict, source, where)
        halo = entry.get("halo", "keep")
        if halo not in HALOS:
            raise SpecError(
                f"halo {halo!r}: expected one of {', '.join(HALOS)}",
                source=source,
                location=f"{where}halo",
            )
        nests.append(
            FusedNest(
                {str(name): tuple(map(str, r or ())) for name, r in ranks.items()},
                tuple(int(t) for t in _field(entry, "tiles", list, source, where)),
                halo,
                frozenset(map(str, entry.get("resident") or ())),
                level,
                capacity,
                _subtiles(entry, source, where),
            )
        )
    if not nests:
        raise SpecError("no nest", source=source, location="nests")
    return tuple(nests)
