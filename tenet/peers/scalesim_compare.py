"""tenet's exact figures of SCALE-Sim's layers beside SCALE-Sim's own, with the reason for each
difference. SCALE-Sim runs in its own Python (a virtual environment with ``scalesim`` and a
numpy it runs with, given by ``--peer-python`` or ``TENET_SCALESIM_PYTHON``); tenet reads the
figures it prints.

Per layer, like with like: the cycles (SCALE-Sim's "Total Cycles", tenet's ``latency``), the
SRAM reads of the ifmap and the filter (tenet: ``accesses_read`` of ``ifmap_sram`` and
``filter_sram``), the SRAM writes of the ofmap (``accesses_write`` of ``ofmap_sram``), the DRAM
reads of each operand (the fills of its SRAM) and the DRAM writes (the ofmap SRAM's
writebacks). Each reason is checked against the figures before it is given (``docs/peers.md``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from tenet.api import assess
from tenet.counting import count
from tenet.errors import TenetError
from tenet.isl_utils import parse_map, parse_set
from tenet.metrics.assessment import Assessment
from tenet.peers.scalesim import InputKind, ScaleSimImport, read_scalesim
from tenet.report.text import fits_line

__all__ = [
    "SCALESIM_ENVIRONMENT",
    "ScaleSimError",
    "FIGURES",
    "FigureRow",
    "LayerComparison",
    "layer_figures",
    "scalesim_python",
    "run_scalesim",
    "compare_scalesim",
    "render_scalesim",
]

SCALESIM_ENVIRONMENT = "TENET_SCALESIM_PYTHON"
"""The variable naming the Python of SCALE-Sim's environment."""


class ScaleSimError(TenetError, RuntimeError):
    """SCALE-Sim is not installed, or failed on the input."""


def scalesim_python(given: str | None = None) -> str | None:
    """Return the Python of SCALE-Sim's environment: ``given``, else ``TENET_SCALESIM_PYTHON``."""
    return given or os.environ.get(SCALESIM_ENVIRONMENT) or None


_RUN = r"""
import contextlib, io, json, sys
from scalesim.layout_utils import layouts
from scalesim.scale_config import scale_config
from scalesim.single_layer_sim import single_layer_sim
from scalesim.topology_utils import topologies
config = scale_config()
config.read_conf_file(sys.argv[1])
topology = topologies()
topology.load_arrays(topofile=sys.argv[2], mnk_inputs=sys.argv[3] == "gemm")
out = []
for layer in range(topology.get_num_layers()):
    run = single_layer_sim()
    with contextlib.redirect_stdout(io.StringIO()):
        run.set_params(layer_id=layer, config_obj=config, topology_obj=topology,
                       layout_obj=layouts(), verbose=False)
        run.run()
        compute = run.get_compute_report_items()
        detail = run.get_detail_report_items()
    out.append({"layer": topology.topo_arrays[layer][0], "cycles": int(compute[1]),
                "stalls": int(compute[2]), "ifmap SRAM reads": int(detail[2]),
                "filter SRAM reads": int(detail[5]), "ofmap SRAM writes": int(detail[8]),
                "ifmap DRAM reads": int(detail[11]), "filter DRAM reads": int(detail[14]),
                "ofmap DRAM writes": int(detail[17])})
print(json.dumps(out))
"""
"""Runs every layer of a topology with SCALE-Sim's own classes (as its ``scale.py`` does,
without writing its report files) and prints each layer's counters as JSON."""


def run_scalesim(
    python: str | None, config: str, topology: str, kind: InputKind = "conv"
) -> list[dict[str, int | str]]:
    """Run SCALE-Sim on a config and a topology; return each layer's ``layer`` name,
    ``cycles`` ("Total Cycles"), ``stalls`` and the figures of :data:`FIGURES` it counts (all
    but the ofmap's DRAM reads), in words."""
    if python is None:
        raise ScaleSimError(
            f"SCALE-Sim is not installed here: give --peer-python or set "
            f"{SCALESIM_ENVIRONMENT} to the Python of a virtual environment with scalesim "
            "(make scalesim makes one)"
        )
    try:
        done = subprocess.run(
            [python, "-c", _RUN, config, topology, kind],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise ScaleSimError(f"cannot run {python}: {exc.strerror}") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ScaleSimError(f"scalesim failed: {last}")
    result: list[dict[str, int | str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@dataclass(frozen=True)
class FigureRow:
    """One figure of a layer as both tools count it."""

    figure: str
    """The figure's name, with its unit (cycles or words)."""
    tenet: int
    """tenet's value."""
    scalesim: int
    """SCALE-Sim's value."""
    reason: str = ""
    """Why the two differ (empty when they are equal)."""


@dataclass(frozen=True)
class LayerComparison:
    """The figures of one layer side by side."""

    layer: str
    schedule: str
    rows: tuple[FigureRow, ...]
    overflow: str | None = None
    """What of the layer does not fit SCALE-Sim's SRAMs under tenet's count (None: fits)."""

    def row(self, figure: str) -> FigureRow:
        """Return the row of ``figure``."""
        return next(r for r in self.rows if r.figure == figure)


FIGURES = (
    "cycles",
    "ifmap SRAM reads",
    "filter SRAM reads",
    "ofmap SRAM writes",
    "ifmap DRAM reads",
    "filter DRAM reads",
    "ofmap DRAM reads",
    "ofmap DRAM writes",
)
"""The figures compared, in the order printed."""


def layer_figures(assessment: Assessment) -> dict[str, int]:
    """Return tenet's figures of an imported layer by name (:data:`FIGURES`)."""
    memory = assessment.memory
    return {
        "cycles": int(assessment.metrics.latency),
        "ifmap SRAM reads": memory.summary("ifmap_sram").accesses_read,
        "filter SRAM reads": memory.summary("filter_sram").accesses_read,
        "ofmap SRAM writes": memory.summary("ofmap_sram").accesses_write,
        "ifmap DRAM reads": memory.record("ifmap_sram", "ifmap").fills,
        "filter DRAM reads": memory.record("filter_sram", "filter").fills,
        "ofmap DRAM reads": memory.record("ofmap_sram", "ofmap").fills,
        "ofmap DRAM writes": memory.record("ofmap_sram", "ofmap").writebacks,
    }


def _fold_outputs(imported: ScaleSimImport) -> int:
    """Return the (fold, output) pairs of a layer: each fold's outputs once, as SCALE-Sim
    writes them (its ofmap SRAM's tiles are the folds)."""
    workload, bound = imported.workload, imported.layer.params()
    domain = parse_set(workload.domain, bound)
    fold = parse_map(imported.dataflow.tiles["ofmap_sram"], bound).intersect_domain(domain)
    write = parse_map(workload.accesses["ofmap"].write[0], bound).intersect_domain(domain)
    return count(fold.reverse().apply_range(write))


def _edge_taps(imported: ScaleSimImport) -> int:
    """Return the im2col entries of a layer's ifmap that fall past the ifmap's edge (the
    taps of SCALE-Sim's last windows that read nothing; 0 for a GEMM)."""
    layer, workload = imported.layer, imported.workload
    bound = layer.params()
    domain = parse_set(workload.domain, bound)
    read = parse_map(workload.accesses["ifmap"].read[0], bound).intersect_domain(domain)
    return layer.M * layer.K - count(read) // layer.N


_UNEXPLAINED = "the models differ (see docs/peers.md)"


def _reasons(
    imported: ScaleSimImport,
    assessment: Assessment,
    mine: dict[str, int],
    theirs: dict[str, int],
) -> dict[str, str]:
    """Return the reason for each differing figure, each checked on the figures before it is
    given; a difference none explains is said to be one."""
    config = imported.config
    differ = {f for f in FIGURES if mine[f] != theirs[f]}
    out: dict[str, str] = {}
    stalls = theirs["stalls"]
    if "cycles" in differ and theirs["cycles"] - stalls == mine["cycles"] - 1:
        out["cycles"] = (
            "SCALE-Sim reports the index of its last cycle, counted from 0 (one less than the "
            "cycles)"
        )
        if stalls:
            out["cycles"] += (
                f"; its array stalled {stalls} cycles waiting for DRAM (USER mode), where tenet "
                "overlaps each level's transfers with the compute (memory latency "
                f"{float(assessment.memory.latency):g})"
            )
    outside = _edge_taps(imported)
    repeats = 1 if config.dataflow == "is" else math.ceil(imported.layer.N / config.cols)
    missing = theirs["ifmap SRAM reads"] - mine["ifmap SRAM reads"]
    if "ifmap SRAM reads" in differ and outside and missing == outside * repeats:
        out["ifmap SRAM reads"] = (
            f"SCALE-Sim's counter counts the {outside} taps of its windows past the ifmap's "
            f"edge, which address nothing{' (once per filter fold)' if repeats > 1 else ''}"
        )
    folds, outputs = imported.folds, _fold_outputs(imported)
    padded = theirs["ofmap SRAM writes"] - mine["ofmap SRAM writes"]
    if "ofmap SRAM writes" in differ:
        if config.dataflow == "os" and padded == folds * (config.rows + config.cols):
            out["ofmap SRAM writes"] = (
                "SCALE-Sim's OS counter adds the array's rows + columns once per fold "
                f"({folds} x {config.rows + config.cols}); its DRAM writes show the outputs"
            )
        elif config.dataflow != "os" and theirs["ofmap SRAM writes"] == outputs:
            out["ofmap SRAM writes"] = (
                "tenet counts a partial sum as written back when it leaves a PE, also when the "
                "PE below takes it on; SCALE-Sim writes each column's sum once per fold "
                f"({outputs})"
            )
    # SCALE-Sim's write buffer drains half its SRAM at a time, in lines of one word per column
    # (CALC mode); a line forced out part-full before the last drain counts its empty slots.
    drains = math.ceil(outputs / max(1, 1024 * config.ofmap_kb // 2))
    padding = theirs["ofmap DRAM writes"] - outputs
    if "ofmap DRAM writes" in differ and 0 <= padding <= drains * (config.cols - 1):
        reasons = []
        if mine["ofmap DRAM writes"] != outputs:
            reasons.append(
                "SCALE-Sim drains every fold's partial sums to DRAM; tenet keeps them in the "
                "ofmap SRAM while the next fold adds to the same outputs"
            )
        if padding:
            reasons.append(
                f"SCALE-Sim's write buffer drains lines of {config.cols} words and counts the "
                f"{padding} empty slots of lines it forced out part-full"
            )
        out["ofmap DRAM writes"] = "; ".join(reasons)
    over = {v.level for v in assessment.memory.violations}
    for operand in ("ifmap", "filter"):
        figure, level = f"{operand} DRAM reads", f"{operand}_sram"
        if figure not in differ:
            continue
        if config.mode == "USER":
            out[figure] = (
                "USER mode: SCALE-Sim prefetches the operand matrix in whole lines of its banks "
                "(each im2col entry, the folds' padding included), not distinct words"
            )
        elif level in over and theirs[figure] > mine[figure]:
            capacity = assessment.memory.summary(level).capacity
            out[figure] = (
                f"the {operand} exceeds the {capacity} words SCALE-Sim's read buffer keeps "
                "(tenet reports the overflow): SCALE-Sim fetches again what it dropped"
            )
    return {f: out.get(f, _UNEXPLAINED) for f in differ}


def compare_scalesim(
    python: str | None,
    config: str,
    topology: str,
    kind: InputKind = "conv",
    layers: Sequence[str] | None = None,
) -> list[LayerComparison]:
    """Run SCALE-Sim on a config and a topology and return, per layer (``layers`` only when
    given), tenet's exact figures of the imported layer beside SCALE-Sim's."""
    imported = read_scalesim(config, topology, kind)
    peer = {str(r["layer"]).strip(): r for r in run_scalesim(python, config, topology, kind)}
    out = []
    for layer in imported:
        name = layer.layer.name
        if layers is not None and name not in layers:
            continue
        assessment = assess(
            layer.workload, layer.architecture, layer.dataflow, params=layer.layer.params()
        )
        mine = layer_figures(assessment)
        # SCALE-Sim never reads the ofmap back: no DRAM reads of it.
        theirs = {
            "ofmap DRAM reads": 0,
            **{k: int(v) for k, v in peer[name].items() if k != "layer"},
        }
        reasons = _reasons(layer, assessment, mine, theirs)
        rows = tuple(FigureRow(f, mine[f], theirs[f], reasons.get(f, "")) for f in FIGURES)
        schedule = layer.config.dataflow
        out.append(LayerComparison(name, schedule, rows, assessment.memory.overflow))
    return out


def render_scalesim(comparisons: Sequence[LayerComparison]) -> str:
    """Return the comparisons as text: per layer, whether it fits the SRAMs under tenet's
    count, each figure's tenet and SCALE-Sim values and the reason they differ (``=`` when
    equal).

    Examples
    --------
    >>> row = FigureRow("cycles", 4992, 4991, "the last cycle's index")
    >>> print(render_scalesim([LayerComparison("g", "os", (row,))]))
    g (os)
      fits: yes
      figure                     tenet   SCALE-Sim  reason
      cycles                      4992        4991  the last cycle's index
    """
    lines = []
    for c in comparisons:
        lines.append(f"{c.layer} ({c.schedule})")
        lines.append(f"  {fits_line({'fits': c.overflow is None, 'overflow': c.overflow})}")
        lines.append(f"  {'figure':<20}{'tenet':>12}{'SCALE-Sim':>12}  reason")
        for r in c.rows:
            lines.append(f"  {r.figure:<20}{r.tenet:>12}{r.scalesim:>12}  {r.reason or '='}")
    return "\n".join(lines)
