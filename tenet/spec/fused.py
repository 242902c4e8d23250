"""FusedSpec: the dataflow of a fused chain (``docs/fusion.md``), as a YAML file.

The chain's statements are split into groups of consecutive statements, in order; a group of
several statements is fused: its statements share outer loops at one buffer level, tiled over
``ranks`` by ``tiles``, with the ``halo`` rule and the ``resident`` tensors. A tensor that one
group writes and a later one reads goes through DRAM. Checked against a chain by
:meth:`FusedSpec.check_chain`, naming the file and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import islpy as isl
from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from tenet.errors import SpecError, UnknownTensorError
from tenet.isl_utils import parse_set
from tenet.spec.base import SpecModel
from tenet.spec.chain import ChainSpec
from tenet.vocab import Halo

__all__ = ["FusedGroupSpec", "FusedSpec", "load_fused", "is_fused_file", "group_chain"]


class FusedGroupSpec(BaseModel):
    """One group of consecutive statements sharing the fused loops."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    statements: tuple[str, ...] = Field(
        description="The group's statements, consecutive in the chain's order.", min_length=1
    )
    ranks: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="Per statement, the ranks the shared loops run over (the group's last "
        "statement's are required; the others run what their consumers read). Empty: the last "
        "statement's ranks named in ``tiles``.",
    )
    tiles: dict[str, PositiveInt] = Field(
        description="Tile size of each shared rank of the group's last statement, in indices "
        "(its full extent: one tile).",
    )
    halo: Halo = Field("keep", description="keep or recompute the results tiles share.")
    resident: tuple[str, ...] = Field(
        (), description="Inputs (and the group's output) kept in the buffer for the whole group."
    )
    subtiles: dict[str, dict[str, PositiveInt]] = Field(
        default_factory=dict,
        description="Per statement, the sub-tile size of each rank of its own loops inside the "
        "fused tile (a divisor of the rank's extent): its streamed inputs and output are held "
        "one sub-tile at a time.",
    )


class FusedSpec(SpecModel):
    """The groups of a fused chain and its buffer (``level``; ``capacity`` in elements, or the
    architecture level's).

    Examples
    --------
    >>> spec = FusedSpec.from_mapping({"name": "f", "groups": [
    ...     {"statements": ["S0", "S1"], "tiles": {"m": 2}, "resident": ["B", "D"]}]})
    >>> spec.groups[0].halo, spec.level, spec.capacity
    ('keep', None, None)
    """

    kind: ClassVar[str] = "fused"

    chain: str | None = Field(None, description="The chain this dataflow is made for (its name).")
    level: str | None = Field(
        None,
        description="The buffer's name: an architecture's level (default: the level feeding "
        "the array, else 'buffer').",
    )
    capacity: int | None = Field(
        None, gt=0, description="The buffer's capacity in elements (default: the level's)."
    )
    groups: tuple[FusedGroupSpec, ...] = Field(
        description="The groups of consecutive statements, in order, covering the chain.",
        min_length=1,
    )

    def check_chain(self, chain: ChainSpec, sizes: Mapping[str, int] | None = None) -> None:
        """Raise :class:`SpecError` naming the field when this dataflow does not fit
        ``chain`` (at ``sizes``, over its defaults): an unknown statement, rank or tensor,
        groups out of order, a resident intermediate, a sub-tile size not dividing its rank's
        extent.

        Examples
        --------
        >>> from tenet.spec.chain import load_chain
        >>> spec = FusedSpec.from_mapping({"name": "f", "groups": [
        ...     {"statements": ["S0", "S1"], "tiles": {"q": 2}}]})
        >>> spec.check_chain(load_chain("matmul-matmul"))
        Traceback (most recent call last):
        ...
        tenet.errors.SpecError: groups.0.tiles.q: S1 has no rank 'q' (its ranks: m, p, n)
        """
        names = [s.name for s in chain.statements]
        listed = [n for g in self.groups for n in g.statements]
        for k, group in enumerate(self.groups):
            for j, name in enumerate(group.statements):
                if name not in names:
                    raise self._fail(
                        f"groups.{k}.statements.{j}",
                        f"no statement {name!r} in chain {chain.name} (known: {', '.join(names)})",
                    )
        if listed != names:
            raise self._fail(
                "groups",
                f"the groups list {', '.join(listed)}; expected every statement of chain "
                f"{chain.name} once, in order: {', '.join(names)}",
            )
        for k, group in enumerate(self.groups):
            self._check_group(chain, k, group)
            self._check_subtiles(chain, k, group, {**chain.params, **(sizes or {})})

    def _check_subtiles(
        self, chain: ChainSpec, k: int, group: FusedGroupSpec, sizes: Mapping[str, int]
    ) -> None:
        domains = {s.name: s.domain for s in chain.statements}
        for name, own in group.subtiles.items():
            if name not in group.statements:
                raise self._fail(
                    f"groups.{k}.subtiles.{name}",
                    f"{name} is not in the group ({', '.join(group.statements)})",
                )
            domain = parse_set(domains[name], sizes)
            ranks = _ranks(domains[name])
            for rank, size in own.items():
                where = f"groups.{k}.subtiles.{name}.{rank}"
                if rank not in ranks:
                    raise self._fail(
                        where, f"{name} has no rank {rank!r} (its ranks: {', '.join(ranks)})"
                    )
                at = ranks.index(rank)
                low = domain.dim_min_val(at).to_python()
                extent = domain.dim_max_val(at).to_python() - low + 1
                if extent % size:
                    raise self._fail(
                        where,
                        f"sub-tile size {size} of {name}'s rank {rank}: expected a divisor of "
                        f"its extent {extent}",
                    )

    def _check_group(self, chain: ChainSpec, k: int, group: FusedGroupSpec) -> None:
        ranks = {s.name: _ranks(s.domain) for s in chain.statements}
        last = group.statements[-1]
        if not group.tiles:
            raise self._fail(f"groups.{k}.tiles", f"no tile size: give one rank of {last}")
        for rank in group.tiles:
            if rank not in ranks[last]:
                raise self._fail(
                    f"groups.{k}.tiles.{rank}",
                    f"{last} has no rank {rank!r} (its ranks: {', '.join(ranks[last])})",
                )
        for name, own in group.ranks.items():
            if name not in group.statements:
                raise self._fail(
                    f"groups.{k}.ranks.{name}",
                    f"{name} is not in the group ({', '.join(group.statements)})",
                )
            unknown = [r for r in own if r not in ranks[name]]
            if name == last and tuple(own) != tuple(group.tiles):
                raise self._fail(
                    f"groups.{k}.ranks.{name}",
                    f"{name} runs the group's shared loops: its ranks are those of tiles "
                    f"({', '.join(group.tiles)})",
                )
            if unknown or len(own) != len(group.tiles):
                raise self._fail(
                    f"groups.{k}.ranks.{name}",
                    f"{name} is fused over {list(own)}: expected {len(group.tiles)} of its "
                    f"ranks ({', '.join(ranks[name])})",
                )
        part = group_chain(chain, group.statements)
        for j, tensor in enumerate(group.resident):
            if tensor not in part.tensors:
                raise UnknownTensorError(
                    tensor,
                    part.tensors,
                    source=self.source,
                    location=self.where(f"groups.{k}.resident.{j}"),
                )
            if tensor in part.intermediates:
                raise self._fail(
                    f"groups.{k}.resident.{j}",
                    f"{tensor} is an intermediate of the group: it stays in the buffer while "
                    "live, never resident",
                )

    def _fail(self, path: str, reason: str) -> SpecError:
        return SpecError(reason, source=self.source, location=self.where(path))


def _ranks(domain: str) -> tuple[str, ...]:
    """The names of a statement's indices, from its domain's text."""
    space = parse_set(domain).get_space()
    return tuple(
        str(space.get_dim_name(isl.dim_type.set, k)) for k in range(space.dim(isl.dim_type.set))
    )


def is_fused_file(data: Mapping[str, Any]) -> bool:
    """Whether a spec file's content is a fused chain's dataflow (it lists ``groups``).

    Examples
    --------
    >>> is_fused_file({"groups": []}), is_fused_file({"space_stamp": "{...}"})
    (True, False)
    """
    return "groups" in data


def load_fused(source: str | Path | FusedSpec) -> FusedSpec:
    """Load a fused chain's dataflow from a YAML file."""
    if isinstance(source, FusedSpec):
        return source
    return FusedSpec.from_yaml(source)


def group_chain(chain: ChainSpec, statements: tuple[str, ...]) -> ChainSpec:
    """The chain of one group's ``statements`` (consecutive in ``chain``): what earlier groups
    write is its input; what later groups read, or ``chain`` sends to DRAM, its output.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> part = group_chain(load_chain("matmul-matmul"), ("S1",))
    >>> part.inputs, part.final
    (('C', 'D'), ('E',))
    """
    inside = [s for s in chain.statements if s.name in statements]
    later = chain.statements[chain.statements.index(inside[-1]) + 1 :]
    read_later = {t for s in later for t in s.read}
    outputs = [t for s in inside[:-1] for t in s.written if t in read_later or t in chain.final]
    data = {
        "name": f"{chain.name}:{'+'.join(statements)}",
        "params": chain.params,
        "statements": [s.model_dump(mode="json") for s in inside],
        "outputs": outputs,
    }
    return ChainSpec.from_mapping(data, source=chain.source)
