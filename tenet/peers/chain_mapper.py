"""AccelForge's fused mapper (FFM) run on a tenet chain, its best counted by tenet.

The spec given to AccelForge (:func:`accelforge_chain_spec`) is tenet's fused model of an
architecture (:class:`tenet.metrics.fused_chain.FusionCosts`): main memory, one buffer of
the costs' capacity, a MAC, each at the costs' energy per element. Main memory keeps every
tensor but the intermediates and may keep those (unfused); the buffer keeps every tensor, as
tenet's fused buffer does. The mapper runs in the peers' Python (``make_pmappings`` then
``join_pmappings``, one process); its best comes back as the spec with its ``mapping``, is put
in the form tenet's reader reads (:func:`fused_form`), read by
:func:`tenet.peers.accelforge_chain.read_accelforge_chain` and counted by tenet's exact fused
model (:func:`tenet.metrics.fused_chain.assess_groups`).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenet.errors import NotALoopNestError, TenetError
from tenet.mapping.fused_groups import FusedGroup, FusedGroups
from tenet.metrics.fused_chain import ChainFigures, FusionCosts, assess_groups
from tenet.model.chain import Chain
from tenet.peers.accelforge import ACCELFORGE_UNITS
from tenet.peers.accelforge_chain import ImportedChain, accelforge_workload, read_accelforge_chain
from tenet.peers.files import dump
from tenet.peers.mappers import _ACCELFORGE_PRELUDE, PeerObjective, _search, accelforge_best

__all__ = ["ChainSearch", "accelforge_chain_spec", "fused_form", "search_accelforge_chain"]

_NAME = re.compile(r"[A-Za-z_]\w*")

_CHAIN_SEARCH = (
    _ACCELFORGE_PRELUDE
    + r"""
nodes, value = best(True)
print(json.dumps({"evaluations": evaluations, "nodes": nodes, "value": value}))
"""
)


@dataclass(frozen=True)
class ChainSearch:
    """What AccelForge's fused mapper found on a chain.

    ``cpu_seconds``: the CPU time of the peer's process (children included);
    ``evaluations``: the partial mappings it evaluated (``n_evaluated_pmappings``);
    ``peer_value``: its own objective of its best (energy in the costs' unit, with its reads of
    the buffer for every MAC's operands). ``files``: ``best.yaml``, the spec with the best
    mapping as found, and ``fused.yaml``, the same put in the form tenet reads
    (:func:`fused_form`); ``imported`` the latter read by tenet, ``figures`` tenet's exact
    counts of it. With no result, or a best tenet does not read, ``reason`` says why.
    """

    cpu_seconds: float
    evaluations: int | None
    peer_value: float | None
    files: Mapping[str, str] = field(default_factory=dict)
    imported: ImportedChain | None = None
    figures: ChainFigures | None = None
    reason: str = ""


def _memory(
    name: str, size: int | None, read: float, write: float, keep: Mapping[str, str]
) -> dict[str, Any]:
    action = {"throughput": "inf", "bits_per_action": 8}
    return {
        "kind": "Memory",
        "name": name,
        "area": 0,
        "leak_power": 0,
        "size": "inf" if size is None else size * 8,
        "tensors": dict(keep),
        "actions": [
            {"name": "read", "energy": read, **action},
            {"name": "write", "energy": write, **action},
        ],
    }


def accelforge_chain_spec(chain: Chain, costs: FusionCosts) -> dict[str, Any]:
    """Return AccelForge's spec (no mapping) of ``chain`` on tenet's fused model of an
    architecture: ``MainMemory`` (unbounded, DRAM's energies), the buffer (named and sized
    as ``costs``', its energies), a MAC of the MAC energy and one MAC per cycle; 8 bits per
    element, one element per action (energies in the costs' unit per element).

    Examples
    --------
    >>> from tenet.spec.chain import load_chain
    >>> chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "N": 2, "K": 3, "P": 2})
    >>> costs = FusionCosts("glb", 64, 200.0, 200.0, 6.0, 6.0, 1.0, "MAC", 4)
    >>> nodes = accelforge_chain_spec(chain, costs)["arch"]["nodes"]
    >>> [(n["name"], n.get("size")) for n in nodes]
    [('MainMemory', 'inf'), ('glb', 512), ('MAC', None)]
    """
    return {
        "arch": {
            "nodes": [
                _memory(
                    "MainMemory",
                    None,
                    costs.dram_read,
                    costs.dram_write,
                    {"keep": "~Intermediates", "may_keep": "All"},
                ),
                _memory(
                    costs.level,
                    costs.capacity,
                    costs.buffer_read,
                    costs.buffer_write,
                    {"keep": "All"},
                ),
                {
                    "kind": "Compute",
                    "name": "MAC",
                    "area": 0,
                    "leak_power": 0,
                    "actions": [{"name": "compute", "energy": costs.mac, "throughput": 1}],
                },
            ]
        },
        "workload": accelforge_workload(chain),
    }


def _subscripts(workload: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Per Einsum and tensor, its projection's subscripts."""
    out: dict[str, dict[str, list[str]]] = {}
    for einsum in workload["einsums"]:
        per: dict[str, list[str]] = {}
        for access in einsum["tensor_accesses"]:
            projection = access["projection"]
            values = projection.values() if isinstance(projection, dict) else projection
            per[access["name"]] = [str(v).strip() for v in values]
        out[einsum["name"]] = per
    return out


def _held(nodes: list[Any], component: str) -> set[str]:
    """The tensors stored at ``component`` anywhere under ``nodes``."""
    found: set[str] = set()
    for node in nodes:
        if node.get("kind") == "Storage" and node.get("component") == component:
            found |= set(node.get("tensors", []))
        found |= _held(node.get("nodes", []), component)
    return found


def _flat(branches: list[Any]) -> list[Any]:
    """The branches of a ``!Sequential`` with every nested ``!Sequential`` opened: each of
    its branches after the nodes above it, as a branch of its own."""
    out = []
    for branch in branches:
        nodes = branch.get("nodes", [])
        if nodes and nodes[-1].get("kind") == "Sequential":
            out += [
                {**inner, "nodes": [*nodes[:-1], *inner.get("nodes", [])]}
                for inner in _flat(nodes[-1].get("nodes", []))
            ]
        else:
            out.append(branch)
    return out


def _lift(
    branch: list[Any], buffer: str, fused: bool, subscripts: Mapping[str, list[str]], where: str
) -> list[Any]:
    """One branch with its buffer storage nodes moved up over its own loops: to its first
    loop (fused) or to its first storage at the buffer (unfused). Each loop passed must be
    a whole subscript of every tensor moved over it."""
    kinds = [n.get("kind") for n in branch]
    if fused:
        target = kinds.index("Temporal") if "Temporal" in kinds else len(branch)
    else:
        at = [
            k
            for k, n in enumerate(branch)
            if n.get("kind") == "Storage" and n.get("component") == buffer
        ]
        target = at[0] + 1 if at else len(branch)
    kept, moved, loops = list(branch[:target]), [], []
    for k, node in enumerate(branch[target:], start=target):
        if node.get("kind") == "Temporal":
            loops.append(node["rank_variable"])
        elif node.get("kind") == "Storage" and node.get("component") == buffer:
            for tensor in sorted(set(node.get("tensors", [])) & set(subscripts)):
                for var in loops:
                    if var not in subscripts[tensor]:
                        raise NotALoopNestError(
                            f"{where}.{k}: {tensor} stored at {buffer} under the loop over "
                            f"{var}, not one of its subscripts: moved above it, main memory's "
                            "traffic would change"
                        )
            moved.append(node)
            continue
        kept.append(node)
    return kept[:target] + moved + kept[target:]


def fused_form(document: Mapping[str, Any]) -> dict[str, Any]:
    """Return AccelForge's chain spec ``document`` with its mapping in the form tenet's reader
    reads, main memory's traffic unchanged (``docs/fusion.md``).

    AccelForge may store a tensor at the buffer under loops of one Einsum alone (a finer tile
    than the fused one, its own nest). Each such storage node is moved up over those loops:
    fused, under the shared loops; unfused, to the branch's first storage at the buffer. Each
    loop it passes must be a whole subscript of its tensors (their tiles then partition the
    larger tile: each element is read from main memory as often as before); else
    :class:`NotALoopNestError`. The buffer then holds the larger tile, which tenet counts in
    its need. A ``!Sequential`` nested in a branch (Einsums fused under loops of their own) is
    opened: each of its branches runs after the nodes above it, those loops its own. A fused
    mapping with no shared loop gets one loop of a single iteration over a rank variable of
    every Einsum, above the buffer's storage nodes (one tile, as before).

    Examples
    --------
    >>> spec = {"arch": {"nodes": [{"kind": "Memory", "name": "M"},
    ...     {"kind": "Memory", "name": "B"}]}, "workload": {"einsums": [
    ...     {"name": "E", "tensor_accesses": [{"name": "X", "projection": ["i"]},
    ...     {"name": "Y", "projection": ["i"], "output": True}]}],
    ...     "iteration_space_shape": {"i": "0 <= i < 4"}}, "mapping": {"nodes": [
    ...     {"kind": "Storage", "tensors": ["X", "Y"], "component": "M"},
    ...     {"kind": "Sequential", "nodes": [{"kind": "Nested", "nodes": [
    ...     {"kind": "Temporal", "rank_variable": "i", "tile_shape": 2},
    ...     {"kind": "Storage", "tensors": ["X"], "component": "B"},
    ...     {"kind": "Compute", "einsum": "E"}]}]}]}}
    >>> top = fused_form(spec)["mapping"]["nodes"]
    >>> [n["kind"] for n in top]  # a loop of one tile added, then X moved up over i
    ['Storage', 'Temporal', 'Sequential']
    >>> [n["kind"] for n in top[-1]["nodes"][0]["nodes"]]
    ['Storage', 'Temporal', 'Compute']
    """
    memories = [n["name"] for n in document["arch"]["nodes"] if n.get("kind") == "Memory"]
    main, buffer = memories[0], memories[1]
    workload = document["workload"]
    subscripts = _subscripts(workload)
    written = {
        a["name"]: e["name"]
        for e in workload["einsums"]
        for a in e["tensor_accesses"]
        if a.get("output")
    }
    read = {
        a["name"] for e in workload["einsums"] for a in e["tensor_accesses"] if not a.get("output")
    }
    intermediates = set(written) & read
    top = list(document["mapping"]["nodes"])
    fused = not intermediates & _held(top, main)
    if not top or top[-1].get("kind") != "Sequential":
        return dict(document)
    branches = []
    for b, branch in enumerate(_flat(top[-1]["nodes"])):
        nodes = branch.get("nodes", [])
        compute = nodes[-1] if nodes else {}
        if compute.get("kind") != "Compute":
            branches.append(branch)
            continue
        where = f"mapping.nodes.{len(top) - 1}.nodes.{b}.nodes"
        lifted = _lift(nodes, buffer, fused, subscripts[compute["einsum"]], where)
        branches.append({**branch, "nodes": lifted})
    top[-1] = {**top[-1], "nodes": branches}
    if fused and not any(n.get("kind") == "Temporal" for n in top):
        top = _one_tile(top, buffer, workload["iteration_space_shape"], subscripts)
    return {**document, "mapping": {**document["mapping"], "nodes": top}}


def _one_tile(
    top: list[Any],
    buffer: str,
    shape: Mapping[str, str],
    subscripts: Mapping[str, Mapping[str, list[str]]],
) -> list[Any]:
    """The top nodes with a loop of one iteration over the first rank variable every Einsum
    uses, above the first storage at the buffer (unchanged when there is none)."""
    used = [
        {v for subs in per.values() for sub in subs for v in _NAME.findall(sub)}
        for per in subscripts.values()
    ]
    common = [v for v in shape if all(v in u for u in used)]
    if not common:
        return top
    extent = re.search(r"<\s*(\d+)\s*$", str(shape[common[0]]))
    if extent is None:
        return top
    loop = {"kind": "Temporal", "rank_variable": common[0], "tile_shape": int(extent.group(1))}
    stored = [
        k for k, n in enumerate(top) if n.get("kind") == "Storage" and n.get("component") == buffer
    ]
    at = stored[0] if stored else len(top) - 1
    return [*top[:at], loop, *top[at:]]


def _groups(imported: ImportedChain) -> FusedGroups:
    """The imported nests as groups: one fused group, or one group per statement."""
    names = tuple(s.name for s in imported.spec.statements)
    nests = imported.nests
    if imported.fused:
        groups: tuple[FusedGroup, ...] = (FusedGroup(names, nests[0]),)
    else:
        groups = tuple(FusedGroup((next(iter(n.ranks)),), n) for n in nests)
    return FusedGroups(groups, nests[0].level, nests[0].capacity)


def search_accelforge_chain(
    python: str | None,
    chain: Chain,
    costs: FusionCosts,
    *,
    objective: PeerObjective = "energy",
    time_budget: float | None = None,
) -> ChainSearch:
    """Run AccelForge's fused mapper in ``python`` (the peers' environment) on ``chain`` and
    the architecture of ``costs`` (:func:`accelforge_chain_spec`), stopped after
    ``time_budget`` CPU seconds; return its best by ``objective``, read and counted by tenet.

    Raises
    ------
    PeerError
        ``python`` is None (the peer is not installed).
    ValueError
        ``objective`` is not ``"energy"`` or ``"latency"``.
    """
    document = accelforge_chain_spec(chain, costs)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        spec = folder / "spec.yaml"
        spec.write_text(ACCELFORGE_UNITS + dump(document))
        cpu, answer, reason = _search(
            python, "accelforge", objective, _CHAIN_SEARCH, [str(spec), objective], time_budget
        )
        if answer is None:
            return ChainSearch(cpu, None, None, reason=reason)
        best = accelforge_best(document, answer["nodes"])
        files = {"best.yaml": ACCELFORGE_UNITS + dump(best)}
        peer = (cpu, int(answer["evaluations"]), float(answer["value"]))
        try:
            files["fused.yaml"] = ACCELFORGE_UNITS + dump(fused_form(best))
            (folder / "fused.yaml").write_text(files["fused.yaml"])
            imported = read_accelforge_chain(folder / "fused.yaml")
            figures = assess_groups(Chain.from_spec(imported.spec), _groups(imported), costs)
        except TenetError as exc:
            return ChainSearch(*peer, files, reason=f"tenet reads no chain: {exc}")
    return ChainSearch(*peer, files, imported, figures)
