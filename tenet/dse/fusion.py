"""The search of a chain's fusion choices (``docs/fusion.md``): which consecutive statements
are fused (the groups), the shared rank of each group's last statement and its tile size
(every divisor of the rank's extent; the whole extent, one tile, is the statement run
unfused), the halo rule, the resident inputs and, when the group runs one tile, each
statement's sub-tiles (none, or one of its ranks by 1), under the buffer's capacity.

Every choice of every group is counted exactly. The objective (DRAM elements, energy, or the
first latency model of :mod:`tenet.metrics.fused_chain`) is a sum over the groups and the
capacity holds group by group, so the best chain takes the best choice of each group of the
best split: exhaustive, the best is proven (gap 0).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import islpy as isl
import yaml

from tenet.errors import DataflowError, InfeasibleError, SpecError
from tenet.mapping.fused_groups import FusedGroup, FusedGroups
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fused_chain import ChainFigures, FusionCosts, assess_groups, fusion_costs
from tenet.metrics.fusion import assess_fusion
from tenet.model.chain import Chain, Statement
from tenet.spec import load_architecture
from tenet.spec.chain import load_chain
from tenet.spec.fused import group_chain, load_fused
from tenet.vocab import HALOS

__all__ = [
    "ChainFigures",
    "FusionObjective",
    "FUSION_OBJECTIVES",
    "FusionCertificate",
    "splits",
    "group_choices",
    "search_fusion",
    "load_sized_chain",
    "evaluate_chain",
    "search_chain",
    "chain_document",
    "fused_dataflow_text",
]

FusionObjective = Literal["dram", "energy", "latency"]
"""What the fusion search minimises: DRAM elements, energy, or cycles."""
FUSION_OBJECTIVES: tuple[FusionObjective, ...] = get_args(FusionObjective)


@dataclass(frozen=True)
class FusionCertificate:
    """What the search found and proved: the best chain's figures, its value, the candidates
    of the declared space (whole-chain choices), those that fit, and the group choices
    assessed (each counted exactly, or refused for breaking the chain's order)."""

    best: ChainFigures
    objective: FusionObjective
    value: float
    space: int
    fitting: int
    evaluated: int

    def status(self) -> str:
        """One line: what was proved and how much was searched."""
        return (
            f"exhaustive: proven optimal, bound {_whole(self.value)} = best, gap 0; "
            f"{self.space} candidates ({self.fitting} fit), {self.evaluated} group choices "
            "assessed"
        )


def _whole(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def splits(names: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Every split of ``names`` into groups of consecutive names, in order.

    Examples
    --------
    >>> list(splits(("S0", "S1")))
    [(('S0', 'S1'),), (('S0',), ('S1',))]
    """
    n = len(names)
    for cuts in itertools.product((False, True), repeat=n - 1):
        groups, start = [], 0
        for k, cut in enumerate(cuts, start=1):
            if cut:
                groups.append(names[start:k])
                start = k
        groups.append(names[start:])
        yield tuple(groups)


def _output_ranks(statement: Statement) -> list[tuple[str, int]]:
    """The ranks indexing the statement's written tensor, with their extents."""
    same = statement.write.apply_range(statement.write.reverse())
    found = []
    for k, rank in enumerate(statement.ranks):
        equal = isl.Map.universe(same.get_space()).equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if same.is_subset(equal):
            low = statement.domain.dim_min_val(k).to_python()
            high = statement.domain.dim_max_val(k).to_python()
            found.append((rank, int(high) - int(low) + 1))
    return found


def group_choices(
    part: Chain,
    statements: tuple[str, ...],
    level: str,
    capacity: int | None,
    subtiles: bool = True,
) -> list[FusedGroup]:
    """Every choice of one group whose own chain is ``part``: one output rank of its last
    statement, a divisor of its extent as the tile size (the whole extent once), the halo
    rule (both with several statements and tiles), every set of resident inputs and, with
    the whole extent (one tile), every choice of sub-tiles: per statement none, or one of its
    ranks by 1 (left out when not ``subtiles``).

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> part = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> len(group_choices(part, ("S0", "S1"), "glb", None))  # (3 x 2 + 1 x 4 x 4) x 2**3
    176
    """
    last = part.last
    shapes: list[tuple[str, int, int]] = []
    for k, (rank, extent) in enumerate(_output_ranks(last)):
        tiles = [t for t in range(1, extent + 1) if extent % t == 0]
        shapes += [(rank, t, extent) for t in tiles if t < extent or k == 0]
    inputs = part.spec.inputs
    residents = [
        frozenset(c) for n in range(len(inputs) + 1) for c in itertools.combinations(inputs, n)
    ]
    own = [[{}, *({s.name: {r: 1}} for r in s.ranks if subtiles)] for s in part.statements]
    cuts: list[dict[str, dict[str, int]]] = [
        {k: v for c in combination for k, v in c.items()} for combination in itertools.product(*own)
    ]
    choices = []
    for rank, tile, extent in shapes:
        halos = HALOS if len(statements) > 1 and tile < extent else HALOS[:1]
        for halo, resident in itertools.product(halos, residents):
            for cut in cuts if tile == extent else cuts[:1]:
                nest = FusedNest(
                    {last.name: (rank,)}, (tile,), halo, resident, level, capacity, cut
                )
                choices.append(FusedGroup(statements, nest))
    return choices


@dataclass(frozen=True)
class _Best:
    """One group's best choice, its figures, and its choices counted and fitting."""

    choice: FusedGroup | None
    value: float
    space: int
    fitting: int


def _best_group(
    chain: Chain,
    statements: tuple[str, ...],
    costs: FusionCosts | None,
    objective: FusionObjective,
    buffer: tuple[str, int | None],
    subtiles: bool,
) -> _Best:
    part = Chain.from_spec(group_chain(chain.spec, statements), chain.sizes)
    choices = group_choices(part, statements, *buffer, subtiles)
    best: tuple[float, int, int] | None = None
    chosen, fitting = None, 0
    for k, choice in enumerate(choices):
        try:
            counts = assess_fusion(part, choice.nest)
        except DataflowError:  # the chain's order broken by this tiling: no candidate
            continue
        if not counts.fits:
            continue
        fitting += 1
        figures = ChainFigures(part, FusedGroups((choice,), *buffer), (counts,), costs)
        key = (figures.value(objective), figures.totals.dram, k)
        if best is None or key < best:
            best, chosen = key, choice
    return _Best(chosen, best[0] if best else float("inf"), len(choices), fitting)


def search_fusion(
    chain: Chain,
    objective: FusionObjective,
    costs: FusionCosts | None = None,
    *,
    level: str = "buffer",
    capacity: int | None = None,
    split: tuple[tuple[str, ...], ...] | None = None,
    subtiles: bool = True,
) -> FusionCertificate:
    """Search every split of ``chain`` into groups (or the one ``split``) and every choice of
    each group (with sub-tiles, unless not ``subtiles``) for the least ``objective`` under the
    buffer's ``capacity`` (elements; default the costs').

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> found = search_fusion(chain, "dram")  # fused: A 12, B 6, D 4 read once, E 8 written
    >>> found.value, len(found.best.groups.groups)
    (30, 1)
    >>> found = search_fusion(chain, "dram", capacity=12)  # C through DRAM: 8 out, 8 back
    >>> found.value, len(found.best.groups.groups)
    (46, 2)
    >>> search_fusion(chain, "dram", split=(("S0",), ("S1",))).value  # + C: 8 out, 8 back
    46
    """
    if costs is not None:
        level = costs.level
        capacity = capacity if capacity is not None else costs.capacity
    names = tuple(s.name for s in chain.statements)
    bests: dict[tuple[str, ...], _Best] = {}
    space = fitting = 0
    found: tuple[float, tuple[FusedGroup, ...]] | None = None
    for candidate in splits(names) if split is None else [split]:
        for group in candidate:
            if group not in bests:
                bests[group] = _best_group(
                    chain, group, costs, objective, (level, capacity), subtiles
                )
        parts = [bests[g] for g in candidate]
        space += math.prod(p.space for p in parts)
        fitting += math.prod(p.fitting for p in parts)
        value = sum(p.value for p in parts)
        if (found is None or value < found[0]) and all(p.choice for p in parts):
            found = (value, tuple(p.choice for p in parts if p.choice is not None))
    if found is None:
        raise InfeasibleError(
            f"no fusion of chain {chain.spec.name} fits buffer {level} of {capacity} elements"
        )
    groups = FusedGroups(found[1], level, capacity)
    best = assess_groups(chain, groups, costs)
    evaluated = sum(b.space for b in bests.values())
    return FusionCertificate(best, objective, best.value(objective), space, fitting, evaluated)


def load_sized_chain(workload: str, params: Mapping[str, int] | None = None) -> Chain:
    """The chain ``workload`` (zoo name or YAML file) at its default sizes overridden by
    ``params``, each of which must be one of its size parameters.

    Examples
    --------
    >>> load_sized_chain("matmul-matmul", {"M": 4}).sizes["M"]
    4
    """
    spec = load_chain(workload)
    unknown = sorted(set(params or {}) - set(spec.params))
    if unknown:
        raise SpecError(
            f"-p {unknown[0]}: not a size parameter of chain {spec.name} "
            f"(known: {', '.join(spec.params)})"
        )
    return Chain.from_spec(spec, params)


def _costs(architecture: str | None, level: str | None) -> FusionCosts | None:
    if architecture is None:
        return None
    return fusion_costs(load_architecture(architecture), level)


def evaluate_chain(
    workload: str,
    dataflow: str,
    architecture: str | None = None,
    params: Mapping[str, int] | None = None,
) -> ChainFigures:
    """Count the chain ``workload`` under the fused dataflow file ``dataflow`` exactly; the
    ``architecture`` gives the buffer's capacity, the energies and the PEs.

    Examples
    --------
    >>> figures = evaluate_chain("matmul-matmul", "examples/fused/matmul-matmul-split.yaml")
    >>> figures.tensors()["C"]["dram_writes"]  # C, 64 x 64, through DRAM between the groups
    4096
    """
    chain = load_sized_chain(workload, params)
    fused = load_fused(dataflow)
    fused.check_chain(chain.spec, chain.sizes)
    costs = _costs(architecture, fused.level)
    level, capacity = ("buffer", None) if costs is None else (costs.level, costs.capacity)
    return assess_groups(chain, FusedGroups.from_spec(fused, level, capacity), costs)


def search_chain(
    workload: str,
    architecture: str,
    objective: FusionObjective,
    params: Mapping[str, int] | None = None,
) -> FusionCertificate:
    """Search the fusion choices of the chain ``workload`` on ``architecture`` (its buffer:
    the shared level feeding the array) by ``objective`` (:func:`search_fusion`)."""
    costs = _costs(architecture, None)
    assert costs is not None
    return search_fusion(load_sized_chain(workload, params), objective, costs)


def chain_document(figures: ChainFigures) -> dict[str, Any]:
    """The JSON-ready figures of a chain: its headline, per tensor, per statement, and its
    groups (as in a fused dataflow file)."""
    name = figures.chain.spec.name
    return {
        "chain": name,
        "headline": figures.headline(),
        "tensors": figures.tensors(),
        "statements": figures.statements(),
        "groups": figures.groups.document(name)["groups"],
    }


def fused_dataflow_text(figures: ChainFigures) -> str:
    """The fused dataflow file of ``figures``' groups, which ``tenet eval -d`` reads."""
    document = figures.groups.document(figures.chain.spec.name)
    return str(yaml.safe_dump(document, sort_keys=False, width=1000))
