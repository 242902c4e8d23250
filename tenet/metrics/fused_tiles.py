"""The relations of a fused chain, from fused tiles ``Tile[j]`` (ordered lexicographically):
the instances each statement runs in a tile, the elements each tensor's reads touch and its
writes produce there, the tile each read finds its element's value from (the latest tile at or
before it that produced the element), and the elements live in the buffer in each tile.

A read with no producing tile at or before it breaks the chain's order: :func:`fused_tiles`
raises a :class:`DataflowError` naming the tile, the element and the later tile writing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from tenet.errors import DataflowError
from tenet.isl_utils import witness
from tenet.mapping.fusion import FusedNest
from tenet.model.chain import Chain, Statement
from tenet.vocab import FUSED_SUBTILE, FUSED_TILE

__all__ = ["FusedTiles", "fused_tiles", "lex_text"]


def lex_text(before: Sequence[str], after: Sequence[str], strict: bool) -> str:
    """Return isl constraints saying ``before`` comes lexicographically before ``after`` (or
    equals it, when not ``strict``).

    Examples
    --------
    >>> lex_text(["a0", "a1"], ["b0", "b1"], strict=True)
    '(a0 < b0) or (a0 = b0 and a1 < b1)'
    """
    cases = []
    for k in range(len(before)):
        equal = [f"{a} = {b} and " for a, b in zip(before[:k], after[:k], strict=True)]
        cases.append(f"({''.join(equal)}{before[k]} < {after[k]})")
    if not strict:
        cases.append(
            "(" + " and ".join(f"{a} = {b}" for a, b in zip(before, after, strict=True)) + ")"
        )
    return " or ".join(cases) if cases else "1 = 1"


def _names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{k}" for k in range(n)]


def _tile_map(statement: Statement, ranks: Sequence[str], tiles: Sequence[int]) -> isl.Map:
    """``Tile[j] -> S[x]``: the instances whose fused ranks fall in tile ``j``."""
    xs, js = _names("x", len(statement.ranks)), _names("j", len(tiles))
    constraints = " and ".join(
        f"{j} = floor({xs[statement.ranks.index(r)]} / {t})"
        for j, r, t in zip(js, ranks, tiles, strict=True)
    )
    text = (
        f"{{ {statement.name}[{', '.join(xs)}] -> {FUSED_TILE}[{', '.join(js)}] : {constraints} }}"
    )
    return isl.Map(text).intersect_domain(statement.domain).reverse()


@dataclass(frozen=True)
class FusedTiles:
    """The relations of ``chain`` under ``nest``: ``runs`` (statement -> ``Tile -> S``)."""

    chain: Chain
    nest: FusedNest
    runs: Mapping[str, isl.Map]

    @property
    def depth(self) -> int:
        """The number of fused ranks (the dimension of ``Tile``)."""
        return len(self.nest.tiles)

    def order(self, strict: bool) -> isl.Map:
        """``Tile[j] -> Tile[j']`` with ``j'`` before ``j`` (or equal, when not ``strict``)."""
        js, ks = _names("j", self.depth), _names("k", self.depth)
        return isl.Map(
            f"{{ {FUSED_TILE}[{', '.join(js)}] -> {FUSED_TILE}[{', '.join(ks)}] : "
            f"{lex_text(ks, js, strict)} }}"
        )

    @cached_property
    def tiles(self) -> isl.Set:
        """Every fused tile some statement runs in."""
        found = self.runs[self.chain.last.name].domain()
        for run in self.runs.values():
            found = found.union(run.domain())
        return found.coalesce()

    def reads(self, tensor: str) -> isl.Map:
        """``Tile -> tensor``: the elements read in each tile (all statements)."""
        found: isl.Map | None = None
        for statement in self.chain.consumers(tensor):
            part = self.runs[statement.name].apply_range(statement.reads[tensor])
            found = part if found is None else found.union(part)
        assert found is not None  # a tensor is read or written
        return found.coalesce()

    def produced(self, tensor: str) -> isl.Map:
        """``Tile -> tensor``: the elements written in each tile."""
        producer = self.chain.producer(tensor)
        assert producer is not None
        return self.runs[producer.name].apply_range(producer.write).coalesce()

    def earlier(self, relation: isl.Map) -> isl.Map:
        """``Tile[j] -> x`` with ``x`` in ``relation`` of some tile before ``j``."""
        return self.order(strict=True).apply_range(relation)

    def sources(self, tensor: str) -> isl.Map:
        """``[Tile[r] -> element] -> Tile[p]``: the tile ``p`` whose value the read of the
        element in tile ``r`` uses, the latest one at or before ``r`` producing it."""
        reads = self.reads(tensor)
        candidates = reads.range_map().apply_range(self.produced(tensor).reverse())
        allowed = reads.domain_map().apply_range(self.order(strict=False))
        return candidates.intersect(allowed).lexmax()

    def live(self, tensor: str) -> isl.Map:
        """``Tile -> tensor``: the elements of an intermediate in the buffer in each tile,
        those produced there and those produced before and read there or later."""
        arity = self.produced(tensor).dim(isl.dim_type.out)
        rs, ps, js = (_names(p, self.depth) for p in "rpj")
        es, fs = _names("e", arity), _names("f", arity)
        span = isl.Map(
            f"{{ [[{FUSED_TILE}[{', '.join(rs)}] -> {tensor}[{', '.join(es)}]] -> "
            f"{FUSED_TILE}[{', '.join(ps)}]] -> [{FUSED_TILE}[{', '.join(js)}] -> "
            f"{tensor}[{', '.join(fs)}]] : "
            + " and ".join(f"{e} = {f}" for e, f in zip(es, fs, strict=True))
            + f" and ({lex_text(ps, js, strict=False)}) and ({lex_text(js, rs, strict=False)}) }}"
        )
        spanned = self.sources(tensor).wrap().apply(span).unwrap()
        return spanned.union(self.produced(tensor)).coalesce()

    def subtile_runs(self, name: str) -> isl.Map:
        """``Sub[j, u] -> S``: the instances the statement ``name`` runs in sub-tile ``u`` of
        tile ``j``, ``u`` its sub-tile ranks (in its domain's order) divided by their sizes."""
        statement = next(s for s in self.chain.statements if s.name == name)
        sizes = self.nest.subtiles[name]
        own = [r for r in statement.ranks if r in sizes]
        js, xs, us = (
            _names("j", self.depth),
            _names("x", len(statement.ranks)),
            _names("u", len(own)),
        )
        constraints = [
            f"{u} = floor({xs[statement.ranks.index(r)]} / {sizes[r]})"
            for u, r in zip(us, own, strict=True)
        ]
        split = isl.Map(
            f"{{ [{FUSED_TILE}[{', '.join(js)}] -> {name}[{', '.join(xs)}]] -> "
            f"{FUSED_SUBTILE}[{', '.join(js + us)}] : {' and '.join(constraints) or '1 = 1'} }}"
        )
        run = self.runs[name]
        return split.intersect_domain(run.wrap()).reverse().apply_range(run.range_map())

    def check_order(self) -> None:
        """Raise :class:`DataflowError` when a tile reads an intermediate's element before
        any tile at or before it produces it."""
        for tensor in self.chain.spec.intermediates:
            producer = self.chain.producer(tensor)
            assert producer is not None
            produced = self.produced(tensor)
            for consumer in self.chain.consumers(tensor):
                reads = self.runs[consumer.name].apply_range(consumer.reads[tensor])
                found = reads.range_map().apply_range(produced.reverse())
                allowed = reads.domain_map().apply_range(self.order(strict=False))
                unsourced = reads.wrap().subtract(found.intersect(allowed).domain())
                if unsourced.is_empty():
                    continue
                pair = witness(unsourced)
                tile, element = pair.removeprefix("[").removesuffix("]").split(" -> ")
                later = witness(produced.reverse().intersect_domain(isl.Set(f"{{ {element} }}")))
                raise DataflowError(
                    f"tile {tile} of {consumer.name} reads {element}, which {producer.name} "
                    f"writes only in the later tile {later.split(' -> ')[1]}",
                    location=f"ranks.{producer.name}",
                    witness=pair,
                )

    def check_coverage(self) -> None:
        """Raise :class:`DataflowError` when some instance runs in no tile."""
        for statement in self.chain.statements:
            missed = statement.domain.subtract(self.runs[statement.name].range())
            if not missed.is_empty():
                raise DataflowError(
                    f"{witness(missed)} runs in no fused tile: no tile reads its result",
                    location=f"ranks.{statement.name}",
                    witness=witness(missed),
                )


def fused_tiles(chain: Chain, nest: FusedNest) -> FusedTiles:
    """Return the relations of ``chain`` under ``nest``, checked: every instance runs, and
    every read of an intermediate follows the write of its value.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> relations = fused_tiles(chain, FusedNest({"S1": ("m",)}, (2,)))
    >>> relations.runs["S0"].range().dim_max_val(0).to_python()
    3
    """
    nest.check(chain)
    runs: dict[str, isl.Map] = {}
    for statement in reversed(chain.statements):
        if statement.name in nest.ranks:
            runs[statement.name] = _tile_map(statement, nest.ranks[statement.name], nest.tiles)
            continue
        partial = FusedTiles(chain, nest, runs)
        needed: isl.Map | None = None
        for consumer in chain.consumers(statement.written):
            part = (
                runs[consumer.name]
                .apply_range(consumer.reads[statement.written])
                .apply_range(statement.write.reverse())
            )
            needed = part if needed is None else needed.union(part)
        assert needed is not None  # checked by FusedNest.check
        if nest.halo == "keep":
            needed = needed.subtract(partial.earlier(needed))
        runs[statement.name] = needed.coalesce()
    relations = FusedTiles(chain, nest, runs)
    relations.check_coverage()
    relations.check_order()
    return relations
