"""tenet's exact per-level, per-tensor counters beside ZigZag's and AccelForge's own, with the
reason for each difference. The peers run in their own Python (another virtual environment,
given by ``--peer-python`` or ``TENET_PEERS_PYTHON``); tenet only reads the figures they print,
in elements.

Like with like, per level and tensor: the elements read out of the level (served to the level
inside after its multicast, written back to the level outside, and at the innermost level the
MACs' operand reads) and written into it (fills, writebacks from the level inside after their
reduction, and at the innermost level the MACs' results). ZigZag: ``rd_out_to_low +
rd_out_to_high`` and ``wr_in_by_high + wr_in_by_low`` per operand and memory, on ZigZag's own
allocation of loops to memories. AccelForge: the read and write actions of each level and
tensor times the action's width. The fills and writebacks of each level are shown too:
ZigZag's ``wr_in_by_high`` and ``rd_out_to_high``; AccelForge's follow from the actions (a
per-PE level's fills are its own writes, less the MACs' results)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import ceil
from typing import Any

from tenet.counting import count
from tenet.errors import SpecError, TenetError
from tenet.mapping import with_mapping
from tenet.metrics.assessment import assess_problem
from tenet.metrics.memory import LevelTensor, MemoryMetrics, tensor_relations
from tenet.model.problem import Problem
from tenet.model.tiles import halo_tensors, loop_indices
from tenet.peers.accelforge import action_bits, read_accelforge
from tenet.peers.specs import Imported
from tenet.peers.zigzag import (
    LayerMapping,
    nest_of_allocation,
    read_accelerator,
    read_layer,
    read_zigzag,
    read_zigzag_mapping,
)
from tenet.report.text import fits_line
from tenet.vocab import Retention

__all__ = [
    "PeerError",
    "CounterRow",
    "Comparison",
    "level_counters",
    "peer_python",
    "need_python",
    "run_zigzag",
    "run_accelforge",
    "compare_zigzag",
    "compare_accelforge",
    "tenet_figures",
    "tenet_memory",
    "render",
]

ENVIRONMENT = "TENET_PEERS_PYTHON"


class PeerError(TenetError, RuntimeError):
    """The peer is not installed, or failed on the input."""


@dataclass(frozen=True)
class CounterRow:
    """One level and tensor: tenet's counters beside the peer's, in elements, and why they
    differ (empty when equal)."""

    level: str
    tensor: str
    fills: int
    """Elements written into the level from its parent or a neighbour, by tenet."""
    fills_peer: int
    """The same, by the peer."""
    writebacks: int
    """Output elements written out of the level to its parent, by tenet."""
    writebacks_peer: int
    """The same, by the peer."""
    reason: str
    """Why the fills or writebacks differ."""
    reads: int = 0
    """Elements read out of the level (served inward, written back, the MACs' operands), by
    tenet."""
    reads_peer: int = 0
    """The same, by the peer."""
    writes: int = 0
    """Elements written into the level (fills, results from the level inside, the MACs'
    results), by tenet."""
    writes_peer: int = 0
    """The same, by the peer."""
    reason_accesses: str = ""
    """Why the reads or writes differ."""


@dataclass(frozen=True)
class Comparison:
    """The rows of a comparison and the total energies (pJ): tenet's, from its counters and
    the imported per-element energies, the peer's own, and the energy of the MACs' reads of
    partial sums as the peer charges them at the innermost level holding the output, which
    tenet's counters leave out."""

    rows: tuple[CounterRow, ...]
    energy: float
    energy_peer: float
    energy_sums: float = 0.0
    energy_refetch: float | None = None
    """tenet's energy under the refetch rule (AccelForge's), before the partial sums."""
    overflow: str | None = None
    """What of the imported mapping does not fit its levels under tenet's count (None: every
    tile fits; :attr:`tenet.metrics.memory.MemoryMetrics.overflow`)."""

    def __iter__(self) -> Iterator[CounterRow]:
        """Iterate over the rows."""
        return iter(self.rows)


def peer_python(given: str | None = None) -> str | None:
    """Return the Python of the peers' environment: ``given``, else ``TENET_PEERS_PYTHON``."""
    return given or os.environ.get(ENVIRONMENT) or None


_ZIGZAG = r"""
import json, logging, sys, tempfile
logging.disable(logging.CRITICAL)
from zigzag.api import get_hardware_performance_zigzag
with tempfile.TemporaryDirectory() as out:
    _, _, cmes = get_hardware_performance_zigzag(
        sys.argv[1], sys.argv[2], sys.argv[3], dump_folder=out, loma_show_progress_bar=False)
cme = cmes[0][1][0][0]
links = {str(k): str(v) for k, v in cme.memory_operand_links.data.items()}
back = {v: k for k, v in links.items()}
levels = {back[str(op)]: [m.name for m in mems] for op, mems in cme.mem_hierarchy_dict.items()}
loops = {str(op): [[[str(d), int(s)] for d, s in lv] for lv in per]
         for op, per in cme.temporal_mapping.mapping_dic_stationary.items()}
moves = {}
for op, per in cme.mapping_int.unit_mem_data_movement.items():
    rows = []
    for lv in per:
        c = {str(k.value): v for k, v in lv.attributes.items()}["data_elem_move_count"]
        rows.append({str(d.value): int(n) for d, n in c.data.items()})
    moves[back.get(str(op), str(op))] = rows
print(json.dumps({"levels": levels, "loops": loops, "moves": moves,
                  "energy": float(cme.energy_total)}))
"""

_ACCELFORGE = r"""
import json, sys
import accelforge as af
row = af.Spec.from_yaml(sys.argv[1]).evaluate_mapping().data.iloc[0]
out, energy = {}, 0.0
for column in row.index:
    parts = column.split("<SEP>")
    if len(parts) == 5 and parts[1] == "action" and parts[4] in ("read", "write"):
        per = out.setdefault(parts[2], {}).setdefault(parts[3], {})
        per[parts[4]] = per.get(parts[4], 0.0) + float(row[column])
    if len(parts) >= 4 and parts[1] == "energy":
        energy += float(row[column])
print(json.dumps({"actions": out, "energy": energy}))
"""


def need_python(python: str | None, peer: str) -> str:
    """Return ``python``; a PeerError saying how to give it when None."""
    if python is None:
        raise PeerError(
            f"{peer} is not installed here: give --peer-python or set {ENVIRONMENT} to the "
            f"Python of a virtual environment with {peer}"
        )
    return python


def _run(
    python: str | None,
    script: str,
    args: Sequence[str],
    peer: str,
    budget: float | None = None,
) -> Any:
    """Run ``script`` with ``args`` in ``python``, in a process group of its own; return the
    JSON of its last line of output. With a ``budget`` (CPU seconds) the process is stopped by
    the kernel once its CPU time reaches it (``RLIMIT_CPU``: SIGXCPU, SIGKILL a second
    later), and what is left of its group is killed."""
    python = need_python(python, peer)
    if budget is not None:
        seconds = max(1, ceil(budget))
        script = (
            f"import resource\nresource.setrlimit(resource.RLIMIT_CPU, ({seconds}, {seconds + 1}))"
            f"\n{script}"
        )
    try:
        process = subprocess.Popen(
            [python, "-c", script, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise PeerError(f"cannot run {python}: {exc.strerror}") from exc
    try:
        stdout, stderr = process.communicate()
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    if budget is not None and process.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise PeerError(f"{peer}: no result in {budget:g} CPU-s")
    if process.returncode != 0:
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        raise PeerError(f"{peer} failed: {last}")
    return json.loads(stdout.strip().splitlines()[-1])


def run_zigzag(python: str | None, workload: str, accelerator: str, mapping: str) -> Any:
    """Run ZigZag on its three files; return its memories, loop allocation, data moves (per
    layer operand) and total energy in pJ."""
    return _run(python, _ZIGZAG, [workload, accelerator, mapping], "zigzag-dse")


def run_accelforge(python: str | None, spec: str) -> Any:
    """Run AccelForge on a spec file; return its action counts per level, tensor and action
    (``actions``) and its total energy in pJ (``energy``)."""
    return _run(python, _ACCELFORGE, [spec], "accelforge")


def tenet_figures(
    imported: Imported, retention: Retention = "keep"
) -> dict[tuple[str, str], LevelTensor]:
    """Return tenet's exact figures of an imported mapping, per (level, tensor), under the
    ``retention`` rule (AccelForge's is ``refetch``)."""
    return {(r.level, r.tensor): r for r in tenet_memory(imported, retention).records}


def tenet_memory(imported: Imported, retention: Retention = "keep") -> MemoryMetrics:
    """Return tenet's exact memory figures of an imported mapping under the ``retention``
    rule (AccelForge's is ``refetch``)."""
    found = assess_problem(imported.problem, imported.nest, figures=["memory"], retention=retention)
    return found.memory


def _operands(problem: Problem) -> tuple[int, dict[str, tuple[int, int]]]:
    """Return the MACs and, per tensor, the MACs' reads and writes of it (elements), each
    counted once per time-stamp when several PEs share it (multicast and reduction across
    the array from a shared level, as the peers count them)."""
    macs = count(problem.workload.domain)
    time = problem.theta_time.reverse()
    pairs = {
        tensor: (
            0 if read.is_empty() else count(time.apply_range(read)),
            0 if write.is_empty() else count(time.apply_range(write)),
        )
        for tensor, (read, write) in tensor_relations(problem).items()
    }
    return macs, pairs


def level_counters(
    imported: Imported, figures: Mapping[tuple[str, str], LevelTensor]
) -> tuple[dict[tuple[str, str], tuple[int, int]], float]:
    """Return, per (level, tensor), the elements read out of the level and written into it
    (``figures`` of :func:`tenet_figures`), and the total energy in pJ (the imported
    per-element energies, the MACs at ``energy.mac``).

    Reads: what the level inside reads from it (``reads_parent``, after multicast), its own
    writebacks, and at the innermost level holding the tensor the MACs' operand reads (from a
    shared level, once per time-stamp and element: multicast across the array). Writes: its
    fills, what the level inside writes into it (``writes_parent``, after reduction), and at
    the innermost level the MACs' results (from a shared level, reduced across the array).
    """
    problem = imported.problem
    macs, operands = _operands(problem)
    own = {
        tensor: (count(read), count(write))
        for tensor, (read, write) in tensor_relations(problem).items()
    }
    order = [lv.level for lv in imported.nest.levels]
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for tensor in dict.fromkeys(t for _, t in figures):
        chain = [lv for lv in order if (lv, tensor) in figures]
        for k, level in enumerate(chain):
            mine = figures[(level, tensor)]
            if k + 1 < len(chain):
                child = figures[(chain[k + 1], tensor)]
                served, taken = child.reads_parent, child.writes_parent
            elif level in imported.nest.per_pe:
                served, taken = own.get(tensor, (0, 0))
            else:
                served, taken = operands.get(tensor, (0, 0))
            out[(level, tensor)] = (served + mine.writebacks, mine.fills + taken)
    architecture = imported.specs.architecture
    energies = {lv.name: (lv.energy_read, lv.energy_write) for lv in architecture.levels}
    mac = architecture.energy.mac
    energy = macs * mac + sum(
        reads * energies[level][0] + writes * energies[level][1]
        for (level, _), (reads, writes) in out.items()
    )
    return out, energy


def _energy_sums(imported: Imported, context: _Context, every: bool) -> float:
    """Return the energy of the MACs' reads of partial sums (pJ), as the peer charges them:
    before every MAC (``every``: ZigZag's word accesses) or every MAC but the first of each
    output element in each instance of the level (AccelForge)."""
    energies = {lv.name: lv.energy_read for lv in imported.specs.architecture.levels}
    return sum(
        (context.macs - (0 if every else elements)) * energies[context.innermost[tensor]]
        for tensor, elements in context.outputs.items()
        if tensor in context.innermost
    )


def _causes(imported: Imported) -> dict[tuple[str, str], str]:
    """Return, per (level, tensor), why consecutive tiles share data: a loop above the level
    over a dimension the tensor does not use, and/or overlapping windows (a loop above over a
    dimension of a subscript such as ``p + r``)."""
    problem = imported.problem
    halo, used = halo_tensors(problem), loop_indices(problem)
    nest = imported.nest
    flat = [loop for _, loop in nest.loops()]
    out: dict[tuple[str, str], str] = {}
    for tensor in used:
        for level in nest.levels[1:]:
            bound = nest.above.get(tensor, {}).get(level.level, nest.boundary(level.level))
            above = [x for x in flat[:bound] if x.spatial is None and x.size > 1]
            causes = []
            if any(x.dim not in used[tensor] for x in above):
                causes.append("a loop above the level changes only other tensors")
            if tensor in halo and any(x.dim in used[tensor] for x in above):
                causes.append("consecutive tiles overlap (convolution windows)")
            out[(level.level, tensor)] = " and ".join(causes) or "tiles repeat"
    return out


@dataclass(frozen=True)
class _Context:
    """What the reasons look at: tenet's counters under the refetch rule, the causes of
    shared data per level and tensor, whether tiles are partial, the MACs, the elements of
    each output that the instances of its innermost level start (per PE at a per-PE level:
    the PEs sharing a reduction each start one), the elements of each output, and the
    innermost level holding each tensor."""

    refetch: Mapping[tuple[str, str], tuple[int, int]] | None
    causes: Mapping[tuple[str, str], str]
    child: Mapping[tuple[str, str], str]
    partial: bool
    macs: int
    outputs: Mapping[str, int]
    elements: Mapping[str, int]
    innermost: Mapping[str, str]


def _context(
    imported: Imported,
    figures: Mapping[tuple[str, str], LevelTensor],
    refetch: Mapping[tuple[str, str], tuple[int, int]] | None,
) -> _Context:
    problem = imported.problem
    macs, _ = _operands(problem)
    order = [lv.level for lv in imported.nest.levels]
    innermost = {t: max((lv for lv, u in figures if u == t), key=order.index) for _, t in figures}
    # A per-PE level holds a partial sum of an element in every PE that adds to it (a
    # reduction spread over the array): each starts its own.
    writes = {t: w for t, (_, w) in tensor_relations(problem).items() if not w.is_empty()}
    elements = {tensor: count(write.range()) for tensor, write in writes.items()}
    outputs = {
        tensor: count(problem.theta_space.reverse().apply_range(write))
        if innermost.get(tensor) in imported.nest.per_pe
        else elements[tensor]
        for tensor, write in writes.items()
    }
    child: dict[tuple[str, str], str] = {}
    for tensor in innermost:
        chain = [lv for lv in order if (lv, tensor) in figures]
        child.update({(a, tensor): b for a, b in zip(chain, chain[1:], strict=False)})
    return _Context(
        refetch, _causes(imported), child, imported.nest.partial, macs, outputs, elements, innermost
    )


_REFILL = (
    "the peer writes a partial sum coming back from the level above once for all the PEs "
    "that reduce it; tenet into each PE's buffer"
)
"""Why a per-PE level's fills of an output reduced across the array differ (ZigZag)."""


def _reason(
    key: tuple[str, str],
    mine: tuple[int, int],
    theirs: tuple[int, int],
    context: _Context,
    refill: int = 0,
) -> str:
    """Return why tenet's (reads, writes) of ``key`` differ from the peer's; empty if equal.

    Tried in turn: the MACs' reads of partial sums (the peer counts them, tenet's output is
    written, not read), with the partial sums the peer writes back into the level once for
    the PEs that reduce them (``refill``: tenet's fills less the peer's), tenet's refetch
    rule, both; then overlapping windows, partial tiles.
    """
    if mine == theirs:
        return ""
    level, tensor = key
    refetched = context.refetch.get(key) if context.refetch is not None else None
    sums, read_sums = "", 0
    if tensor in context.outputs and context.innermost[tensor] == level:
        for reads, first in (
            (context.macs - context.outputs[tensor], " but the first"),
            (
                context.macs - context.elements[tensor],
                " but the first of each element, one for all the PEs that reduce it",
            ),
            (context.macs, ""),
        ):
            if reads in (theirs[0] - mine[0], theirs[0] - (refetched or mine)[0]):
                sums = (
                    f"the peer reads the partial sum before every MAC{first} ({reads}); "
                    "tenet's output is written, not read"
                )
                read_sums = reads
                break
    if (mine[0] + read_sums, mine[1]) == theirs:
        return sums
    reasons = [sums] if sums else []
    if refill and (mine[0] + read_sums, mine[1] - refill) == theirs:
        return "; ".join([*reasons, _REFILL])
    if refetched is not None and (refetched[0] + read_sums, refetched[1]) == theirs:
        own = context.causes.get(key, "tiles repeat")
        inside = context.causes.get((context.child.get(key, ""), tensor), "tiles repeat")
        what = own if own != "tiles repeat" else inside
        reasons.append(
            f"{what}: tenet keeps what the previous tile holds, the peer refetches the whole "
            "tile (tenet's refetch rule gives the peer's figure)"
        )
    elif "overlap" in context.causes.get(key, ""):
        reasons.append("overlapping windows: tenet fetches the overlap once, the peer again")
    elif context.partial:
        reasons.append("partial tiles: the peer counts the last tile of a loop as a full one")
    elif context.innermost.get(tensor) == level and theirs[0] < mine[0]:
        reasons.append(
            "the peer keeps the operand at the MAC while the innermost loops do not change "
            "it; tenet reads it for every MAC"
        )
    else:
        reasons.append("the peer's model differs (see docs/peers.md)")
    return "; ".join(reasons)


def _fill_reason(
    key: tuple[str, str],
    mine: LevelTensor,
    fills: int,
    writebacks: int,
    context: _Context,
    refetch: Mapping[tuple[str, str], LevelTensor] | None,
) -> str:
    """Return why tenet's fills and writebacks of ``key`` differ from the peer's."""
    if (mine.fills, mine.writebacks) == (fills, writebacks):
        return ""
    if mine.fills == fills and mine.writes_parent == writebacks != mine.writebacks:
        return (
            "the peer counts the writebacks once the array has reduced the PEs' partial sums "
            "(tenet's writes into the parent level)"
        )
    if refetch is not None and refetch[key].fills == fills:
        what = context.causes.get(key, "tiles repeat")
        return (
            f"{what}: tenet keeps what the previous tile holds, the peer refetches the whole "
            "tile (tenet's refetch rule gives the peer's figure)"
        )
    tensor = key[1]
    share = context.outputs.get(tensor, 0) // context.elements.get(tensor, 1)
    if mine.writebacks == writebacks and share > 1 and fills * share == mine.fills:
        return _REFILL
    if "overlap" in context.causes.get(key, "") and fills > mine.fills:
        return "overlapping windows: tenet fetches the overlap once, the peer again"
    if context.partial:
        return "partial tiles: the peer counts the last tile of a loop as a full one"
    if writebacks != mine.writebacks and fills != mine.fills:
        return "the peer moves partial sums differently"
    return "the peer's model differs (see docs/peers.md)"


def compare_zigzag(python: str | None, workload: str, accelerator: str, mapping: str) -> Comparison:
    """Return tenet's counters beside ZigZag's, on ZigZag's own allocation of loops."""
    peer = run_zigzag(python, workload, accelerator, mapping)
    layer = read_layer(workload)
    _, memories, _, _ = read_accelerator(accelerator)
    spatial, _, links = read_zigzag_mapping(mapping, layer)
    imported = read_zigzag(workload, accelerator, mapping)
    temporal: list[tuple[str, int]] = []
    allocation: dict[str, dict[str, int]] = {}
    op0 = layer.operands[0].name
    for per_level in peer["loops"][op0]:
        temporal.extend((str(d), int(s)) for d, s in per_level)
    for op, per in peer["loops"].items():
        names = peer["levels"][op]
        total = 0
        for name, loops in zip(names, per, strict=False):
            total += len(loops)
            allocation.setdefault(name, {})[op] = total
    nest = nest_of_allocation(LayerMapping(layer, memories, spatial, temporal, links), allocation)
    specs = imported.specs
    imported = Imported(with_mapping(specs, nest, specs.require_dataflow().name), nest)
    memory = tenet_memory(imported)
    mine = {(r.level, r.tensor): r for r in memory.records}
    counters, energy = level_counters(imported, mine)
    context = _context(imported, mine, None)
    rows = []
    for op, names in peer["levels"].items():
        for name, moves in zip(names, peer["moves"][op], strict=False):
            key = (name, op)
            if key not in mine:
                continue
            theirs = (
                moves["rd_out_to_low"] + moves["rd_out_to_high"],
                moves["wr_in_by_high"] + moves["wr_in_by_low"],
            )
            fills, writebacks = moves["wr_in_by_high"], moves["rd_out_to_high"]
            r = mine[key]
            reason = (
                "" if name == names[-1] else _fill_reason(key, r, fills, writebacks, context, None)
            )
            refill = r.fills - fills if reason == _REFILL else 0
            accesses = _reason(key, counters[key], theirs, context, refill)
            rows.append(
                CounterRow(
                    name,
                    op,
                    r.fills,
                    fills,
                    r.writebacks,
                    writebacks,
                    reason,
                    *_pair(counters[key], theirs),
                    accesses,
                )
            )
    sums = _energy_sums(imported, context, every=True)
    peer_energy = float(peer.get("energy", 0.0))
    return Comparison(tuple(rows), energy, peer_energy, sums, overflow=memory.overflow)


def _pair(mine: tuple[int, int], theirs: tuple[int, int]) -> tuple[int, int, int, int]:
    return mine[0], theirs[0], mine[1], theirs[1]


def _widths(spec: Mapping[str, Any], source: str) -> tuple[dict[str, float], int]:
    """Return the bits of one read action per level (AccelForge's default: 1 bit) and the
    bits of one element."""
    bits = spec.get("workload", {}).get("bits_per_value", {"All": 8})
    width = int(bits.get("All", 8)) if isinstance(bits, dict) else 8
    per: dict[str, float] = {}
    for n, node in enumerate(spec.get("arch", {}).get("nodes", [])):
        if isinstance(node, dict) and node.get("kind") == "Memory":
            per[node["name"]] = action_bits(node, "read", source, f"arch.nodes.{n}")
    return per, width


def compare_accelforge(python: str | None, spec: str) -> Comparison:
    """Return tenet's counters beside AccelForge's (tenet under both retention rules)."""
    from tenet.peers.files import read_peer_yaml

    peer = run_accelforge(python, spec)
    actions = peer["actions"]
    imported = read_accelforge(spec)
    memory = tenet_memory(imported)
    mine = {(r.level, r.tensor): r for r in memory.records}
    refetch = tenet_figures(imported, "refetch")
    counters, energy = level_counters(imported, mine)
    refetch_counters, energy_refetch = level_counters(imported, refetch)
    context = _context(imported, mine, refetch_counters)
    per_action, width = _widths(read_peer_yaml(spec), spec)
    order = [lv.level for lv in imported.nest.levels]
    per_pe = imported.nest.per_pe
    rows = []
    for tensor in {t for _, t in mine}:
        chain = [lv for lv in order if (lv, tensor) in mine]

        def elements(level: str, action: str, tensor: str = tensor) -> int:
            count = actions.get(level, {}).get(tensor, {}).get(action, 0.0)
            if level not in per_action:
                raise SpecError(f"no !Memory {level!r} in arch.nodes", source=spec)
            return int(round(count * per_action[level] / width))

        fills = [0] * len(chain)
        writebacks = [0] * len(chain)
        results = context.macs if tensor in context.outputs else 0
        for k in range(1, len(chain)):
            parent = chain[k - 1]
            if chain[k] in per_pe and k + 1 == len(chain):
                fills[k] = elements(chain[k], "write") - results
            elif k > 1:
                fills[k] = elements(parent, "read") - writebacks[k - 1]
            else:
                fills[k] = elements(parent, "read")
            writebacks[k] = (
                elements(parent, "write") - fills[k - 1] if k > 1 else elements(parent, "write")
            )
        for k, level in enumerate(chain):
            key = (level, tensor)
            theirs = (elements(level, "read"), elements(level, "write"))
            accesses = _reason(key, counters[key], theirs, context)
            reason = (
                _fill_reason(key, mine[key], fills[k], writebacks[k], context, refetch) if k else ""
            )
            r = mine[key]
            rows.append(
                CounterRow(
                    level,
                    tensor,
                    r.fills,
                    fills[k],
                    r.writebacks,
                    writebacks[k],
                    reason,
                    *_pair(counters[key], theirs),
                    accesses,
                )
            )
    rows.sort(key=lambda row: (order.index(row.level), row.tensor))
    sums = _energy_sums(imported, context, every=False)
    peer_energy = float(peer.get("energy", 0.0))
    return Comparison(tuple(rows), energy, peer_energy, sums, energy_refetch, memory.overflow)


def _why(row: CounterRow) -> str:
    """The reasons of a row, reads and writes first, without repeats; ``equal`` if none."""
    reasons = [part for x in (row.reason_accesses, row.reason) if x for part in x.split("; ")]
    return "; ".join(dict.fromkeys(reasons)) or "equal"


def render(comparison: Comparison | Sequence[CounterRow], peer: str) -> str:
    """Return the side-by-side table as text: whether the mapping fits under tenet's count
    (a :class:`Comparison`), then per level and tensor, reads out of and writes into the
    level, fills and writebacks (elements), tenet's then the peer's; the total energies
    last."""
    head = (
        f"{'level':<14}{'tensor':<8}{'reads':>9}{peer:>11}{'writes':>9}{peer:>11}"
        f"{'fills':>9}{peer:>11}{'wbacks':>9}{peer:>11}  reason"
    )
    lines = [head]
    if isinstance(comparison, Comparison):
        fits = {"fits": comparison.overflow is None, "overflow": comparison.overflow}
        lines.insert(0, f"{fits_line(fits)} (tenet's count of the {peer} mapping)")
    for r in comparison:
        lines.append(
            f"{r.level:<14}{r.tensor:<8}{r.reads:>9}{r.reads_peer:>11}{r.writes:>9}"
            f"{r.writes_peer:>11}{r.fills:>9}{r.fills_peer:>11}{r.writebacks:>9}"
            f"{r.writebacks_peer:>11}  {_why(r)}"
        )
    if isinstance(comparison, Comparison):
        c = comparison
        refetch = (
            ""
            if c.energy_refetch is None
            else f", and under the refetch rule {c.energy_refetch + c.energy_sums:.6g}"
        )
        lines.append(
            f"energy (pJ): tenet {c.energy:.6g}, with the MACs' reads of partial sums "
            f"{c.energy + c.energy_sums:.6g}{refetch}; {peer} {c.energy_peer:.6g}"
        )
    return "\n".join(lines)
