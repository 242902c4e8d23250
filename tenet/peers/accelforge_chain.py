"""AccelForge's multi-Einsum specs in and out: a workload of several ``einsums`` sharing
tensors by name, on main memory, one buffer and a compute, with a mapping whose
``!Sequential`` node runs one ``!Nested`` branch per Einsum (``docs/peers.md``).

Fused, the loops above the ``!Sequential`` are shared by every Einsum and the intermediates
are stored in the buffer only: a :class:`FusedNest` over the chain. Unfused, every tensor is
stored in main memory and each branch has its own loops: one :class:`FusedNest` per statement,
each over a chain of that statement alone (its inputs read from main memory, its output
written there). Tensors stored in the buffer above the loops are resident; below them,
streamed per tile; loops below the buffer's storage form each statement's own nest, which
main memory's traffic does not see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.counting import count
from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping.fusion import FusedNest, load_nests, nests_document
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.peers import specs
from tenet.peers.files import need, need_known, read_peer_yaml
from tenet.spec.chain import ChainSpec, StatementSpec, load_chain
from tenet.spec.fused import group_chain

__all__ = [
    "ImportedChain",
    "read_accelforge_chain",
    "write_accelforge_chain",
    "chain_counts",
    "main_memory_traffic",
    "einsum_count",
    "peer_main_memory",
    "accelforge_chain_document",
    "accelforge_workload",
]

_RANGE = re.compile(r"^\s*0\s*<=\s*(\w+)\s*<\s*(\d+)\s*$")
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class ImportedChain:
    """A chain read from AccelForge and its mapping: one nest over every statement (fused)
    or one per statement (unfused, each over a chain of that statement alone). ``width``:
    bits per element; ``main_memory``: the name of the outermost memory."""

    spec: ChainSpec
    nests: tuple[FusedNest, ...]
    width: int
    main_memory: str
    source: str

    @property
    def fused(self) -> bool:
        """Whether the statements share one fused nest."""
        return len(self.nests) == 1 and len(self.spec.statements) > 1

    def documents(self) -> dict[str, dict[str, Any]]:
        """The tenet files of this chain: ``chain`` (the statements) and ``fusion`` (the
        nests), checked to fit the buffer (:func:`chain_counts`)."""
        chain_counts(self.spec, self.nests)
        return {"chain": self.spec.document(), "fusion": nests_document(self.nests)}


def chain_counts(spec: ChainSpec, nests: Sequence[FusedNest]) -> dict[str, FusedCounts]:
    """Count a chain under its nests: the fused nest over every statement, or one nest per
    statement (each over the statement alone). Keys: the statements each nest covers, joined
    by ``+``. Each nest must fit its buffer (:meth:`FusedCounts.require_fit`).

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> spec = load_chain("matmul-matmul").model_copy(
    ...     update={"params": {"M": 4, "N": 2, "K": 3, "P": 2}})
    >>> fused = chain_counts(spec, [FusedNest({"S0": ("m",), "S1": ("m",)}, (1,))])
    >>> fused["S0+S1"].tensors["C"].dram_writes
    0
    >>> alone = chain_counts(spec, [FusedNest({"S0": ()}, ()), FusedNest({"S1": ()}, ())])
    >>> alone["S0"].tensors["C"].dram_writes, alone["S1"].tensors["C"].dram_reads
    (8, 8)
    """
    out: dict[str, FusedCounts] = {}
    if len(nests) == 1 and len(spec.statements) > 1:
        counts = assess_fusion(Chain.from_spec(spec), nests[0])
        counts.require_fit()
        out["+".join(s.name for s in spec.statements)] = counts
        return out
    for nest in nests:
        (name,) = nest.ranks
        counts = assess_fusion(Chain.from_spec(group_chain(spec, (name,))), nest)
        counts.require_fit()
        out[name] = counts
    return out


def main_memory_traffic(spec: ChainSpec, nests: Sequence[FusedNest]) -> dict[str, tuple[int, int]]:
    """Return, per tensor, the elements read from and written to main memory, over the
    statements (:func:`chain_counts`).

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> spec = load_chain("matmul-matmul").model_copy(
    ...     update={"params": {"M": 4, "N": 2, "K": 3, "P": 2}})
    >>> main_memory_traffic(spec, [FusedNest({"S0": ()}, ()), FusedNest({"S1": ()}, ())])
    {'A': (12, 0), 'B': (6, 0), 'C': (8, 8), 'D': (4, 0), 'E': (0, 8)}
    """
    traffic: dict[str, tuple[int, int]] = {}
    for counts in chain_counts(spec, nests).values():
        for tensor, figures in counts.tensors.items():
            reads, writes = traffic.get(tensor, (0, 0))
            traffic[tensor] = (reads + figures.dram_reads, writes + figures.dram_writes)
    return {t: traffic[t] for t in spec.tensors}


def peer_main_memory(python: str | None, path: str | Path) -> dict[str, tuple[int, int]]:
    """Run AccelForge on the spec ``path`` (in the peers' ``python``) and return, per tensor,
    its main memory's read and write actions summed over the Einsums, in elements (actions
    times ``bits_per_action`` over the element's bits)."""
    from tenet.peers.accelforge import action_bits
    from tenet.peers.compare import run_accelforge

    src = str(path)
    doc = read_peer_yaml(path)
    memories, _ = _memories(doc, src)
    _, _, width = _einsums(doc, src)
    nodes = doc["arch"]["nodes"]
    n = next(k for k, node in enumerate(nodes) if node.get("name") == memories[0])
    bits = {a: action_bits(nodes[n], a, src, f"arch.nodes.{n}") for a in ("read", "write")}
    actions = run_accelforge(python, src)["actions"].get(memories[0], {})
    return {
        tensor: (
            round(per.get("read", 0.0) * bits["read"] / width),
            round(per.get("write", 0.0) * bits["write"] / width),
        )
        for tensor, per in actions.items()
    }


# Reading


@dataclass(frozen=True)
class _Einsum:
    name: str
    ranks: tuple[str, ...]
    accesses: dict[str, tuple[str, ...]]
    output: str


def _einsums(doc: Any, src: str) -> tuple[dict[str, int], list[_Einsum], int]:
    work = need(doc, "workload", dict, src, "")
    shape = need(work, "iteration_space_shape", dict, src, "workload")
    extents: dict[str, int] = {}
    for var, text in shape.items():
        where = f"workload.iteration_space_shape.{var}"
        m = _RANGE.match(str(text))
        if not m or m.group(1) != var:
            raise SpecError(f"expected '0 <= {var} < N', not {text!r}", source=src, location=where)
        extents[str(var)] = int(m.group(2))
    bits = work.get("bits_per_value", {"All": 8})
    width = int(bits.get("All", 8)) if isinstance(bits, dict) else 8
    found: list[_Einsum] = []
    for e, einsum in enumerate(need(work, "einsums", list, src, "workload")):
        at = f"workload.einsums.{e}"
        name = need(einsum, "name", str, src, at)
        accesses: dict[str, tuple[str, ...]] = {}
        outputs = []
        for n, access in enumerate(need(einsum, "tensor_accesses", list, src, at)):
            where = f"{at}.tensor_accesses.{n}"
            tensor = need(access, "name", str, src, where)
            projection = need(access, "projection", (list, dict), src, where)
            subs = tuple(
                str(p)
                for p in (projection.values() if isinstance(projection, dict) else projection)
            )
            for k, sub in enumerate(subs):
                unknown = set(_NAME.findall(sub)) - set(extents)
                if unknown:
                    raise SpecError(
                        f"{sub!r} uses {', '.join(sorted(unknown))}, not a rank variable "
                        f"({', '.join(extents)})",
                        source=src,
                        location=f"{where}.projection.{k}",
                    )
            accesses[tensor] = subs
            if access.get("output", False):
                outputs.append(tensor)
        if len(outputs) != 1:
            raise SpecError(
                f"{name} writes {len(outputs)} tensors; an Einsum of a chain writes one",
                source=src,
                location=f"{at}.tensor_accesses",
            )
        used = {v for subs in accesses.values() for sub in subs for v in _NAME.findall(sub)}
        ranks = tuple(v for v in extents if v in used)
        found.append(_Einsum(name, ranks, accesses, outputs[0]))
    return extents, found, width


def _chain_spec(extents: Mapping[str, int], einsums: Sequence[_Einsum], src: str) -> ChainSpec:
    statements: list[dict[str, Any]] = []
    for einsum in einsums:
        head = f"{einsum.name}[{', '.join(einsum.ranks)}]"
        bounds = " and ".join(f"0 <= {r} < {extents[r]}" for r in einsum.ranks)
        accesses: dict[str, dict[str, str]] = {}
        for tensor, subs in einsum.accesses.items():
            field = "write" if tensor == einsum.output else "read"
            accesses[tensor] = {field: f"{{{head} -> {tensor}[{', '.join(subs)}]}}"}
        kept = {v for sub in einsum.accesses[einsum.output] for v in _NAME.findall(sub)}
        statements.append(
            {
                "name": einsum.name,
                "domain": f"{{{head}: {bounds}}}" if bounds else f"{{{head}}}",
                "accesses": accesses,
                "reductions": [einsum.output] if set(einsum.ranks) - kept else [],
            }
        )
    return ChainSpec.from_mapping({"name": Path(src).stem, "statements": statements}, source=src)


def _memories(doc: Any, src: str) -> tuple[list[str], dict[str, int | None]]:
    """The memories' names, outermost first, and their capacities in bits (None: unbounded)."""
    arch = need(doc, "arch", dict, src, "")
    names: list[str] = []
    sizes: dict[str, int | None] = {}
    for n, node in enumerate(need(arch, "nodes", list, src, "arch")):
        where = f"arch.nodes.{n}"
        if isinstance(node, dict) and node.get("kind") == "Memory":
            name = need(node, "name", str, src, where)
            size = specs.number(node.get("size", "inf"), src, f"{where}.size")
            names.append(name)
            sizes[name] = None if size is None else int(size)
        elif not isinstance(node, dict) or node.get("kind") not in ("Compute", "Container"):
            raise SpecError(
                f"expected !Memory, !Container or !Compute, not {node!r:.40}",
                source=src,
                location=where,
            )
    if len(names) < 2:
        raise SpecError(
            "a fused chain needs main memory and a buffer: two !Memory nodes or more",
            source=src,
            location="arch.nodes",
        )
    return names, sizes


def _paths(
    nodes: Any, src: str, where: str, above: list[tuple[Any, str, bool]]
) -> Iterator[list[tuple[Any, str, bool]]]:
    """Each Einsum's path from the root to its ``!Compute``: (node, YAML path, whether the
    node is above a ``!Sequential``, shared by every Einsum)."""
    for n, node in enumerate(nodes):
        at = f"{where}.{n}"
        kind = node.get("kind") if isinstance(node, dict) else None
        if kind == "Sequential":
            if n != len(nodes) - 1:
                raise SpecError(
                    "nodes after a !Sequential: it ends its branch", source=src, location=at
                )
            path = [(x, w, True) for x, w, _ in above]
            for b, branch in enumerate(need(node, "nodes", list, src, at)):
                bat = f"{at}.nodes.{b}"
                if not isinstance(branch, dict) or branch.get("kind") != "Nested":
                    raise SpecError(
                        f"expected a !Nested branch, not {branch!r:.40}", source=src, location=bat
                    )
                yield from _paths(need(branch, "nodes", list, src, bat), src, f"{bat}.nodes", path)
            return
        if kind in ("Storage", "Temporal", "Compute"):
            above = [*above, (node, at, False)]
            if kind == "Compute":
                yield above
                return
            continue
        raise SpecError(
            f"expected !Storage, !Temporal, !Sequential or !Compute, not {kind!r} (a fused "
            "chain is read on one buffer level, without spatial loops or pipelines)",
            source=src,
            location=at,
        )
    raise SpecError("a branch with no !Compute", source=src, location=where)


@dataclass(frozen=True)
class _Branch:
    einsum: str
    loops: tuple[tuple[str, int, str, bool], ...]
    resident: frozenset[str]
    streamed: frozenset[str]
    in_main: frozenset[str]


def _branch(
    path: list[tuple[Any, str, bool]], memories: list[str], einsums: Mapping[str, _Einsum], src: str
) -> _Branch:
    """Read one Einsum's path: the loops above its last storage node at the buffer (the
    tiles), the tensors stored at the buffer above them (resident) and below them (streamed),
    and those stored in main memory."""
    compute, at, _ = path[-1]
    name = need_known(compute, "einsum", list(einsums), src, at, lambda e: f"no einsum {e!r}")
    buffer = memories[1]
    tensors = set(einsums[name].accesses)
    loops: list[tuple[str, int, str, bool]] = []
    resident: set[str] = set()
    streamed: set[str] = set()
    in_main: set[str] = set()
    stored_at = -1
    for k, (node, where, shared) in enumerate(path[:-1]):
        if node["kind"] == "Temporal":
            var = need(node, "rank_variable", str, src, where)
            tile = need(node, "tile_shape", int, src, where)
            if tile < 1:
                raise SpecError("tile_shape must be >= 1", source=src, location=where)
            if node.get("initial_tile_shape") not in (None, tile):
                raise NotALoopNestError(
                    f"{src}: {where}: a first tile of {node['initial_tile_shape']} and then "
                    f"{tile}: tiles of one size are read"
                )
            loops.append((var, tile, where, shared))
            continue
        component = need_known(
            node, "component", memories, src, where, lambda c: f"no !Memory {c!r} in arch.nodes"
        )
        held = {str(t) for t in need(node, "tensors", list, src, where)} & tensors
        if component == memories[0]:
            in_main |= held
        elif component == buffer and held:
            (resident if not loops else streamed).update(held)
            if loops and stored_at >= 0 and stored_at != len(loops):
                raise NotALoopNestError(
                    f"{src}: {where}: {', '.join(sorted(held))} stored at {buffer} under other "
                    "loops than the branch's other streamed tensors: one tile level is read"
                )
            if loops:
                stored_at = len(loops)
        elif component != buffer and held - _stored(path[:k], buffer):
            missing = ", ".join(sorted(held - _stored(path[:k], buffer)))
            raise NotALoopNestError(
                f"{src}: {where}: {missing} stored at {component} but not at {buffer} above "
                f"it: the fused buffer {buffer} holds every tensor"
            )
    tiles = tuple(loops[: max(stored_at, 0)])
    absent = sorted(tensors - resident - streamed)
    if absent:
        raise NotALoopNestError(
            f"{src}: {at}: {name} has no storage of {', '.join(absent)} at {buffer}: the "
            f"fused buffer {buffer} holds every tensor"
        )
    return _Branch(name, tiles, frozenset(resident), frozenset(streamed), frozenset(in_main))


def _stored(path: Sequence[tuple[Any, str, bool]], component: str) -> set[str]:
    return {
        str(t)
        for node, _, _ in path
        if node["kind"] == "Storage" and node.get("component") == component
        for t in node.get("tensors", [])
    }


def _nests(
    spec: ChainSpec, branches: Sequence[_Branch], level: str, capacity: int | None, src: str
) -> tuple[FusedNest, ...]:
    intermediates = set(spec.intermediates)
    in_main = {t for b in branches for t in b.in_main} & intermediates
    if in_main and in_main != intermediates:
        raise NotALoopNestError(
            f"{src}: mapping: {', '.join(sorted(intermediates - in_main))} kept in {level} but "
            f"{', '.join(sorted(in_main))} stored in main memory: a partly fused chain is not read"
        )
    if not in_main and len(branches) > 1:
        return (_fused(spec, branches, level, capacity, src),)
    nests = []
    for b in branches:
        shared = [where for _, _, where, on in b.loops if on]
        if shared:
            raise NotALoopNestError(
                f"{src}: {shared[0]}: a loop shared by every Einsum while the intermediates "
                "go to main memory: a partly fused chain is not read"
            )
        nests.append(
            FusedNest(
                {b.einsum: tuple(v for v, _, _, _ in b.loops)},
                tuple(t for _, t, _, _ in b.loops),
                resident=b.resident,
                level=level,
                capacity=capacity,
            )
        )
    return tuple(nests)


def _fused(
    spec: ChainSpec, branches: Sequence[_Branch], level: str, capacity: int | None, src: str
) -> FusedNest:
    first = branches[0].loops
    for b in branches:
        own = [where for _, _, where, shared in b.loops if not shared]
        if own:
            raise NotALoopNestError(
                f"{src}: {own[0]}: a loop of {b.einsum} alone above its storage at {level}: "
                "the fused tiles are the loops above the !Sequential, shared by every Einsum"
            )
        if b.loops != first:
            raise NotALoopNestError(
                f"{src}: mapping: {b.einsum} streams its tensors under other loops than "
                f"{branches[0].einsum}: the fused tiles are the loops every Einsum shares"
            )
    variables = [v for v, _, _, _ in first]
    if len(set(variables)) != len(variables):
        raise NotALoopNestError(
            f"{src}: mapping: two fused loops over one rank variable ({', '.join(variables)})"
        )
    for b in branches:
        statement = next(s for s in spec.statements if s.name == b.einsum)
        ranks = _ranks(statement)
        for var, _, where, _ in first:
            if var not in ranks:
                raise NotALoopNestError(
                    f"{src}: {where}: the fused loop over {var} is not a rank of {b.einsum} "
                    f"({', '.join(ranks)}): every Einsum of the group runs the fused loops"
                )
    resident = {t for b in branches for t in b.resident}
    kept = resident & set(spec.intermediates)
    if kept:
        raise NotALoopNestError(
            f"{src}: mapping: the intermediate {', '.join(sorted(kept))} stored at {level} above "
            "the fused loops: an intermediate lives per tile"
        )
    return FusedNest(
        {b.einsum: tuple(variables) for b in branches},
        tuple(t for _, t, _, _ in first),
        resident=frozenset(resident),
        level=level,
        capacity=capacity,
    )


def _ranks(statement: StatementSpec) -> tuple[str, ...]:
    head = statement.domain[statement.domain.index("[") + 1 : statement.domain.index("]")]
    return tuple(r.strip() for r in head.split(",") if r.strip())


def einsum_count(path: str | Path) -> int:
    """Return the number of Einsums of an AccelForge spec's workload (0 when it lists none)."""
    doc = read_peer_yaml(path)
    work = doc.get("workload") if isinstance(doc, dict) else None
    einsums = work.get("einsums") if isinstance(work, dict) else None
    return len(einsums) if isinstance(einsums, list) else 0


def read_accelforge_chain(path: str | Path) -> ImportedChain:
    """Read an AccelForge spec of several Einsums into a chain and its nests.

    Raises
    ------
    SpecError
        A missing or ill-typed key (named by its YAML path), an unknown component, einsum or
        rank variable, an Einsum writing several tensors, a chain out of order.
    NotALoopNestError
        A mapping tenet's fused model does not express (named by its node): a partly fused
        chain, loops of one Einsum alone above the buffer in a fused group, a fused loop over
        a rank an Einsum does not have, a tensor not stored at the buffer.
    """
    src = str(path)
    doc = read_peer_yaml(path)
    if not isinstance(doc, dict) or any(k not in doc for k in ("arch", "workload", "mapping")):
        raise SpecError("not an AccelForge spec: expected arch, workload and mapping", source=src)
    extents, einsums, width = _einsums(doc, src)
    spec = _chain_spec(extents, einsums, src)
    memories, sizes = _memories(doc, src)
    nodes = need(need(doc, "mapping", dict, src, ""), "nodes", list, src, "mapping")
    by_name = {e.name: e for e in einsums}
    branches = [_branch(p, memories, by_name, src) for p in _paths(nodes, src, "mapping.nodes", [])]
    order = [b.einsum for b in branches]
    if order != [e.name for e in einsums]:
        raise SpecError(
            f"the mapping computes {', '.join(order)}; expected each Einsum once, in the "
            f"workload's order ({', '.join(e.name for e in einsums)})",
            source=src,
            location="mapping.nodes",
        )
    size = sizes[memories[1]]
    capacity = None if size is None else size // width
    nests = _nests(spec, branches, memories[1], capacity, src)
    return ImportedChain(spec, nests, width, memories[0], src)


# Writing


def _box(domain: isl.Set, name: str) -> tuple[int, ...]:
    """The extents of a box domain starting at 0; NotALoopNestError otherwise."""
    extents = []
    for k in range(domain.dim(isl.dim_type.set)):
        low = int(domain.dim_min_val(k).to_python())
        high = int(domain.dim_max_val(k).to_python())
        if low != 0:
            raise NotALoopNestError(
                f"{name}: rank {k} starts at {low}: AccelForge's ranks start at 0"
            )
        extents.append(high + 1)
    total = 1
    for e in extents:
        total *= e
    if count(domain) != total:
        raise NotALoopNestError(f"{name}: the domain is not a box: AccelForge's ranks are boxes")
    return tuple(extents)


def _variables(chain: Chain, nests: Sequence[FusedNest]) -> dict[tuple[str, str], str]:
    """AccelForge's rank variable of each (statement, rank): a fused rank takes the last
    fused statement's name; a rank keeps its name unless another statement gives the name
    another extent, then it gets the statement's position as a suffix."""
    extents = {
        s.name: dict(zip(s.ranks, _box(s.domain, s.name), strict=True)) for s in chain.statements
    }
    names: dict[tuple[str, str], str] = {}
    fused = [nest for nest in nests if len(nest.ranks) > 1]
    for nest in fused:
        lead = list(nest.ranks.values())[-1]
        for statement, ranks in nest.ranks.items():
            for rank, shared in zip(ranks, lead, strict=True):
                names[(statement, rank)] = shared
    taken: dict[str, int] = {}
    for (statement, rank), name in names.items():
        taken.setdefault(name, extents[statement][rank])
    for k, s in enumerate(chain.statements):
        for rank in s.ranks:
            if (s.name, rank) in names:
                continue
            name = (
                rank
                if taken.setdefault(rank, extents[s.name][rank]) == extents[s.name][rank]
                else f"{rank}{k}"
            )
            if name != rank and name in taken:
                raise NotALoopNestError(
                    f"{s.name}: rank {rank} renamed {name}, a name already taken"
                )
            taken.setdefault(name, extents[s.name][rank])
            names[(s.name, rank)] = name
    for nest in fused:
        for statement, ranks in nest.ranks.items():
            for rank in ranks:
                name = names[(statement, rank)]
                if taken[name] != extents[statement][rank]:
                    raise NotALoopNestError(
                        f"{statement}: the fused rank {rank} runs over "
                        f"{extents[statement][rank]}, {name} of the others over {taken[name]}: "
                        "AccelForge's fused loops share one range"
                    )
    return names


def _subscripts(text: str, rename: Mapping[str, str], where: str) -> list[str]:
    """The subscripts of an access map's text, its input's names replaced by ``rename``'s
    (given by position in the map's input tuple)."""
    head = text[text.index("[") + 1 : text.index("]")]
    inputs = [v.strip() for v in head.split(",") if v.strip()]
    body = text[text.index("->") :]
    subs = [s.strip() for s in body[body.index("[") + 1 : body.rindex("]")].split(",")]
    out = []
    for sub in subs:
        unknown = set(_NAME.findall(sub)) - set(inputs)
        if unknown:
            raise NotALoopNestError(
                f"{where}: {sub!r} uses {', '.join(sorted(unknown))}: AccelForge's projections "
                "use rank variables only"
            )
        out.append(_NAME.sub(lambda m: rename[m.group(0)], sub))
    return out


def _projections(
    chain: Chain, names: Mapping[tuple[str, str], str]
) -> dict[str, list[dict[str, Any]]]:
    """Each statement's tensor accesses, projections keyed by the tensor's rank names: the
    writer's rank variables in capitals where it writes plain ranks, else ``T0, T1, ...``."""
    spec = chain.spec
    subs: dict[str, dict[str, list[str]]] = {}
    for k, (statement, bound) in enumerate(zip(spec.statements, chain.statements, strict=True)):
        per: dict[str, list[str]] = {}
        for tensor, access in statement.accesses.items():
            texts = access.write or access.read
            if len(texts) != 1:
                raise NotALoopNestError(
                    f"{statement.name}: accesses.{tensor}: {len(texts)} maps; an Einsum's "
                    "projection is one"
                )
            head = texts[0][texts[0].index("[") + 1 : texts[0].index("]")]
            inputs = [v.strip() for v in head.split(",") if v.strip()]
            own = dict(zip(inputs, (names[(statement.name, r)] for r in bound.ranks), strict=True))
            per[tensor] = _subscripts(texts[0], own, f"statements.{k}.accesses.{tensor}")
        subs[statement.name] = per
    keys: dict[str, list[str]] = {}
    for tensor in spec.tensors:
        writer = spec.writer(tensor)
        order = [writer] if writer is not None else []
        order += [k for k, s in enumerate(spec.statements) if tensor in s.read]
        for k in order:
            given = subs[spec.statements[k].name][tensor]
            if all(_NAME.fullmatch(s) for s in given) and len(set(given)) == len(given):
                keys[tensor] = [s.upper() for s in given]
                break
        else:
            first = subs[spec.statements[order[0]].name][tensor]
            keys[tensor] = [f"{tensor.upper()}{n}" for n in range(len(first))]
    out: dict[str, list[dict[str, Any]]] = {}
    for statement in spec.statements:
        entries = []
        for tensor, given in subs[statement.name].items():
            entry: dict[str, Any] = {
                "name": tensor,
                "projection": dict(zip(keys[tensor], given, strict=True)),
            }
            if tensor == statement.written[0]:
                entry["output"] = True
            entries.append(entry)
        out[statement.name] = entries
    return out


def _groups(chain: Chain, nests: Sequence[FusedNest]) -> Sequence[FusedNest]:
    """Check the nests: one over every statement, or one per statement, each on one buffer."""
    names = [s.name for s in chain.statements]
    if not nests:
        raise SpecError("no nest: one fused nest, or one per statement", location="nests")
    if len(nests) == 1 and len(names) > 1:
        nest = nests[0]
        left = [n for n in names if n not in nest.ranks]
        if left:
            raise NotALoopNestError(
                f"{', '.join(left)} not in the fused ranks: AccelForge's fused loops run over "
                "every Einsum of the group (a producer derived from its consumers is not written)"
            )
        nest.check(chain)
        return nests
    covered = [n for nest in nests for n in nest.ranks]
    if sorted(covered) != sorted(names) or any(len(nest.ranks) != 1 for nest in nests):
        raise SpecError(
            f"the nests cover {', '.join(covered)}: expected one nest over every statement or "
            f"one per statement ({', '.join(names)})",
            location="nests",
        )
    if len({(n.level, n.capacity) for n in nests}) != 1:
        raise SpecError("the nests name different buffers: one buffer is written", location="nests")
    return nests


def _workload(chain: Chain, names: Mapping[tuple[str, str], str], width: int) -> dict[str, Any]:
    """AccelForge's workload of ``chain``: its rank variables (``names``), ``width`` bits per
    value, one Einsum per statement."""
    return {
        "iteration_space_shape": _shape(chain, names),
        "bits_per_value": {"All": width},
        "einsums": [
            {"name": s.name, "tensor_accesses": entries}
            for s, entries in zip(
                chain.statements, _projections(chain, names).values(), strict=True
            )
        ],
    }


def accelforge_workload(chain: Chain) -> dict[str, Any]:
    """Return AccelForge's workload of ``chain`` (8 bits per value), its rank variables named
    as for the chain run unfused: a rank keeps its name unless another statement gives the
    name another extent (then the statement's position is appended).

    Raises
    ------
    NotALoopNestError
        A domain that is not a box from 0, an access that is not an Einsum's projection.

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> sizes = {"CI": 2, "C": 2, "H": 2, "W": 2}
    >>> chain = Chain.from_spec(load_chain("pointwise-depthwise"), sizes)
    >>> accelforge_workload(chain)["iteration_space_shape"]["y1"]  # S1's rows, H (S0's: H + 2)
    '0 <= y1 < 2'
    """
    alone = [FusedNest({s.name: ()}, ()) for s in chain.statements]
    return _workload(chain, _variables(chain, alone), 8)


def write_accelforge_chain(chain: Chain, nests: Sequence[FusedNest]) -> dict[str, Any]:
    """Return the AccelForge document of ``chain`` under ``nests`` (one fused nest over every
    statement, or one per statement): main memory, the nests' buffer and a MAC, one element
    per action (``bits_per_action`` the element's 8 bits), and a mapping that AccelForge
    evaluates (``Spec.evaluate_mapping``).

    Raises
    ------
    NotALoopNestError
        A domain that is not a box from 0, an access that is not an Einsum's projection, a
        fused producer left out of the ranks (derived), fused ranks of different ranges, a
        statement's sub-tiles (not written yet).

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> doc = write_accelforge_chain(chain, [FusedNest({"S0": ("m",), "S1": ("m",)}, (1,))])
    >>> [n["kind"] for n in doc["mapping"]["nodes"]]
    ['Storage', 'Temporal', 'Sequential']
    """
    for nest in nests:
        if nest.subtiles:
            raise NotALoopNestError(
                f"{', '.join(nest.subtiles)} sub-tiled under the fused tile: a statement's "
                "own loops are not written for AccelForge yet"
            )
    groups = _groups(chain, nests)
    width = 8
    names = _variables(chain, groups)
    level, capacity = groups[0].level, groups[0].capacity
    document: dict[str, Any] = {
        "arch": {
            "nodes": [
                _memory("MainMemory", None, width),
                _memory(level, capacity, width),
                {
                    "kind": "Compute",
                    "name": "MAC",
                    "area": 0,
                    "leak_power": 0,
                    "actions": [{"name": "compute", "energy": 1, "throughput": 1}],
                },
            ]
        },
        "workload": _workload(chain, names, width),
    }
    spec = chain.spec
    main = [t for t in spec.tensors if t not in spec.intermediates or len(groups) > 1]
    top: list[dict[str, Any]] = [_storage(main, "MainMemory")]
    if len(groups) == 1 and len(chain.statements) > 1:
        nest = groups[0]
        top += _tile_nodes(nest, list(chain.spec.tensors), names, chain.last.name, level)
        branches = [_branch_nodes(s, nest, names, level) for s in chain.statements]
    else:
        branches = [
            _tile_nodes(nest, list(_tensors(s)), names, s.name, level)
            + _branch_nodes(s, nest, names, level)
            for s, nest in zip(chain.statements, _ordered(chain, groups), strict=True)
        ]
    top.append({"kind": "Sequential", "nodes": [{"kind": "Nested", "nodes": b} for b in branches]})
    document["mapping"] = {"nodes": [n for n in top if n.get("tensors", True)]}
    return document


def _ordered(chain: Chain, nests: Sequence[FusedNest]) -> list[FusedNest]:
    by = {next(iter(n.ranks)): n for n in nests}
    return [by[s.name] for s in chain.statements]


def _tensors(statement: Any) -> list[str]:
    return [*statement.reads, statement.written]


def _tile_nodes(
    nest: FusedNest,
    tensors: Sequence[str],
    names: Mapping[tuple[str, str], str],
    lead: str,
    level: str,
) -> list[dict[str, Any]]:
    """The resident tensors' storage at the buffer, then the tile loops."""
    nodes = [_storage([t for t in tensors if t in nest.resident], level)]
    for rank, tile in zip(nest.ranks[lead], nest.tiles, strict=True):
        nodes.append({"kind": "Temporal", "rank_variable": names[(lead, rank)], "tile_shape": tile})
    return [n for n in nodes if n.get("tensors", True)]


def _branch_nodes(
    statement: Any,
    nest: FusedNest,
    names: Mapping[tuple[str, str], str],
    level: str,
) -> list[dict[str, Any]]:
    """A statement's branch: its streamed tensors' storage at the buffer, a loop of tile 1
    over each rank (AccelForge asks one per rank variable), its compute."""
    tensors = _tensors(statement)
    streamed = [t for t in tensors if t not in nest.resident]
    nodes: list[dict[str, Any]] = [_storage(streamed, level)] if streamed else []
    extents = _box(statement.domain, statement.name)
    for rank, extent in zip(statement.ranks, extents, strict=True):
        if extent > 1:
            nodes.append(
                {
                    "kind": "Temporal",
                    "rank_variable": names[(statement.name, rank)],
                    "tile_shape": 1,
                }
            )
    nodes.append({"kind": "Compute", "einsum": statement.name, "component": "MAC"})
    return nodes


def _storage(tensors: Sequence[str], component: str) -> dict[str, Any]:
    return {"kind": "Storage", "tensors": list(tensors), "component": component}


def _memory(name: str, capacity: int | None, width: int) -> dict[str, Any]:
    action = {"energy": 1, "throughput": "inf", "bits_per_action": width}
    return {
        "kind": "Memory",
        "name": name,
        "area": 0,
        "leak_power": 0,
        "size": "inf" if capacity is None else capacity * width,
        "actions": [{"name": "read", **action}, {"name": "write", **action}],
    }


def _shape(chain: Chain, names: Mapping[tuple[str, str], str]) -> dict[str, str]:
    shape: dict[str, str] = {}
    for s in chain.statements:
        for rank, extent in zip(s.ranks, _box(s.domain, s.name), strict=True):
            name = names[(s.name, rank)]
            shape.setdefault(name, f"0 <= {name} < {extent}")
    return shape


def accelforge_chain_document(
    chain: str | Path, fusion: str | Path, sizes: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """Return the AccelForge document of a chain file (or zoo name) under the nests of a
    ``fusion`` file (:func:`tenet.mapping.fusion.load_nests`), sizes bound by ``sizes``."""
    return write_accelforge_chain(Chain.from_spec(load_chain(chain), sizes), load_nests(fusion))
