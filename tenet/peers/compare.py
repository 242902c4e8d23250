"""tenet's exact per-level, per-tensor fills and writebacks beside ZigZag's and AccelForge's
own, with the reason for each difference. The peers run in their own Python (another virtual
environment, given by ``--peer-python`` or ``TENET_PEERS_PYTHON``); tenet only reads the
figures they print, in elements.

ZigZag: ``wr_in_by_high`` (elements written into a memory from above) are its fills,
``rd_out_to_high`` its writebacks; tenet counts on ZigZag's own allocation of loops to
memories. AccelForge: per-action counts of each level and tensor, turned into elements with
the action's width; the fills and writebacks of a level follow from its parent's reads and
writes (a parent reads what its child is filled with and what it writes back to its own
parent)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tenet.api import load_problem
from tenet.errors import SpecError, TenetError
from tenet.metrics.memory import LevelTensor
from tenet.model.tiling import halo_tensors, loop_indices
from tenet.peers.accelforge import read_accelforge
from tenet.peers.loopnest import Retention, evaluate_nest
from tenet.peers.specs import Imported
from tenet.peers.zigzag import (
    LayerMapping,
    nest_of_allocation,
    read_accelerator,
    read_layer,
    read_zigzag,
    read_zigzag_mapping,
)
from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.workload import WorkloadSpec

__all__ = [
    "PeerError",
    "CounterRow",
    "peer_python",
    "run_zigzag",
    "run_accelforge",
    "compare_zigzag",
    "compare_accelforge",
    "tenet_figures",
    "render",
]

ENVIRONMENT = "TENET_PEERS_PYTHON"


class PeerError(TenetError, RuntimeError):
    """The peer is not installed, or failed on the input."""


@dataclass(frozen=True)
class CounterRow:
    """One level and tensor: tenet's fills and writebacks beside the peer's (elements)."""

    level: str
    tensor: str
    fills: int
    fills_peer: int
    writebacks: int
    writebacks_peer: int
    reason: str


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
    moves[str(op)] = rows
print(json.dumps({"levels": levels, "loops": loops, "moves": moves}))
"""

_ACCELFORGE = r"""
import json, sys
import accelforge as af
row = af.Spec.from_yaml(sys.argv[1]).evaluate_mapping().data.iloc[0]
out = {}
for column in row.index:
    parts = column.split("<SEP>")
    if len(parts) == 5 and parts[1] == "action" and parts[4] in ("read", "write"):
        out.setdefault(parts[2], {}).setdefault(parts[3], {})[parts[4]] = float(row[column])
print(json.dumps(out))
"""


def _run(python: str | None, script: str, args: Sequence[str], peer: str) -> Any:
    if python is None:
        raise PeerError(
            f"{peer} is not installed here: give --peer-python or set {ENVIRONMENT} to the "
            f"Python of a virtual environment with {peer}"
        )
    try:
        done = subprocess.run(
            [python, "-c", script, *args], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise PeerError(f"cannot run {python}: {exc.strerror}") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise PeerError(f"{peer} failed: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_zigzag(python: str | None, workload: str, accelerator: str, mapping: str) -> Any:
    """Run ZigZag on its three files; return its memories, loop allocation and data moves."""
    return _run(python, _ZIGZAG, [workload, accelerator, mapping], "zigzag-dse")


def run_accelforge(python: str | None, spec: str) -> Any:
    """Run AccelForge on a spec file; return its action counts per level, tensor, action."""
    return _run(python, _ACCELFORGE, [spec], "accelforge")


def tenet_figures(
    imported: Imported, retention: Retention = "keep"
) -> dict[tuple[str, str], LevelTensor]:
    """Return tenet's exact figures of an imported mapping, per (level, tensor)."""
    w = WorkloadSpec.from_mapping(imported.workload)
    a = ArchitectureSpec.from_mapping(imported.architecture)
    d = DataflowSpec.from_mapping(imported.dataflow)
    problem = load_problem(w, a, d)
    return {(r.level, r.tensor): r for r in evaluate_nest(problem, imported.nest, retention)}


def _causes(imported: Imported) -> dict[tuple[str, str], str]:
    """Return, per (level, tensor), why consecutive tiles share data: a loop above the level
    over a dimension the tensor does not use, and/or overlapping windows (a loop above over a
    dimension of a subscript such as ``p + r``)."""
    w = WorkloadSpec.from_mapping(imported.workload)
    a = ArchitectureSpec.from_mapping(imported.architecture)
    d = DataflowSpec.from_mapping(imported.dataflow)
    problem = load_problem(w, a, d)
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


def _reason(
    key: tuple[str, str],
    mine: LevelTensor,
    fills: int,
    writebacks: int,
    refetch: Mapping[tuple[str, str], LevelTensor] | None,
    causes: Mapping[tuple[str, str], str],
    partial: bool,
) -> str:
    if (mine.fills, mine.writebacks) == (fills, writebacks):
        return ""
    reasons = []
    if refetch is not None and refetch[key].fills == fills and mine.fills != fills:
        what = causes.get(key, "tiles repeat")
        reasons.append(
            f"{what}: tenet keeps what the previous tile holds, the peer refetches the whole "
            "tile (tenet's refetch rule gives the peer's figure)"
        )
    if "overlap" in causes.get(key, "") and fills > mine.fills and not reasons:
        reasons.append("overlapping windows: tenet fetches the overlap once, the peer again")
    if partial and not reasons:
        reasons.append("partial tiles: the peer counts the last tile of a loop as a full one")
    if writebacks != mine.writebacks and fills != mine.fills and not reasons:
        reasons.append("the peer moves partial sums differently")
    return "; ".join(reasons) or "the peer's model differs (see docs/peers.md)"


def compare_zigzag(
    python: str | None, workload: str, accelerator: str, mapping: str
) -> list[CounterRow]:
    """Return tenet's figures beside ZigZag's, on ZigZag's own allocation of loops."""
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
    imported = Imported(imported.workload, imported.architecture, imported.dataflow, nest)
    mine = tenet_figures(imported)
    causes = _causes(imported)
    rows = []
    for op, names in peer["levels"].items():
        for name, moves in zip(names, peer["moves"][op], strict=False):
            key = (name, op)
            if key not in mine or name == names[-1]:
                continue
            fills, writebacks = moves["wr_in_by_high"], moves["rd_out_to_high"]
            r = mine[key]
            reason = _reason(key, r, fills, writebacks, None, causes, nest.partial)
            rows.append(CounterRow(name, op, r.fills, fills, r.writebacks, writebacks, reason))
    return rows


def _bits(spec: Mapping[str, Any]) -> tuple[dict[str, float], int]:
    bits = spec.get("workload", {}).get("bits_per_value", {"All": 8})
    width = int(bits.get("All", 8)) if isinstance(bits, dict) else 8
    per: dict[str, float] = {}
    for node in spec.get("arch", {}).get("nodes", []):
        for act in node.get("actions", []) or []:
            if act.get("name") == "read":
                per[node["name"]] = float(act.get("bits_per_action", 1))
    return per, width


def compare_accelforge(python: str | None, spec: str) -> list[CounterRow]:
    """Return tenet's figures beside AccelForge's (tenet under both retention rules)."""
    from tenet.peers.files import read_peer_yaml

    peer = run_accelforge(python, spec)
    imported = read_accelforge(spec)
    mine = tenet_figures(imported)
    refetch = tenet_figures(imported, "refetch")
    causes = _causes(imported)
    per_action, width = _bits(read_peer_yaml(spec))
    order = [lv.level for lv in imported.nest.levels]
    rows = []
    for tensor in {t for _, t in mine}:
        chain = [lv for lv in order if (lv, tensor) in mine]

        def elements(level: str, action: str, tensor: str = tensor) -> int:
            count = peer.get(level, {}).get(tensor, {}).get(action, 0.0)
            if level not in per_action:
                raise SpecError(f"no read action for {level!r}", source=spec)
            return int(round(count * per_action[level] / width))

        fills = [0] * len(chain)
        writebacks = [0] * len(chain)
        for k in range(1, len(chain)):
            parent = chain[k - 1]
            fills[k] = (
                elements(parent, "read") - writebacks[k - 1] if k > 1 else elements(parent, "read")
            )
            writebacks[k] = (
                elements(parent, "write") - fills[k - 1] if k > 1 else elements(parent, "write")
            )
        for k in range(1, len(chain)):
            key = (chain[k], tensor)
            r = mine[key]
            reason = _reason(
                key, r, fills[k], writebacks[k], refetch, causes, imported.nest.partial
            )
            rows.append(
                CounterRow(chain[k], tensor, r.fills, fills[k], r.writebacks, writebacks[k], reason)
            )
    return sorted(rows, key=lambda row: (order.index(row.level), row.tensor))


def render(rows: Sequence[CounterRow], peer: str) -> str:
    """Return the side-by-side table as text."""
    head = f"{'level':<14}{'tensor':<8}{'fills':>8}{peer:>10}{'wbacks':>8}{peer:>10}  reason"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.level:<14}{r.tensor:<8}{r.fills:>8}{r.fills_peer:>10}{r.writebacks:>8}"
            f"{r.writebacks_peer:>10}  {r.reason or 'equal'}"
        )
    return "\n".join(lines)
