"""The SCALE-Sim runs the tests write themselves: GEMMs and strided convolutions, each of
SCALE-Sim's schedules, square and non-square arrays, folds that divide the layer and partial
ones; their input files, and SCALE-Sim's figures derived by hand from its source (scalesim
3.0.0, ``compute/systolic_compute_*.py`` and ``memory/read_buffer_estimate_bw.py``)."""

from __future__ import annotations

from math import ceil
from pathlib import Path

from tenet.peers.scalesim import ScaleSimLayer, conv_layer, reuse_words

ARRAYS = ((4, 4), (3, 5))
"""(rows, columns): a square array and a non-square one."""

SCHEDULES = ("os", "ws", "is")

KB = 1
"""Every SRAM's size: 1 kB keeps 499 words for reuse, more than any operand below."""

GEMMS = (
    ScaleSimLayer("g8", "gemm", 8, 8, 8),
    ScaleSimLayer("g7", "gemm", 7, 5, 6),
    ScaleSimLayer("g3", "gemm", 3, 9, 2),
)
"""8 x 8 x 8 divides the square array; the others leave partial folds."""

CONVS = (
    conv_layer("c1", 4, 4, 3, 3, 2, 2, 1),
    conv_layer("c2", 7, 7, 3, 3, 1, 4, 2),
    conv_layer("c3", 4, 6, 2, 3, 1, 3, 2),
)
"""Ifmap rows x columns x channels, filter rows x columns, filters, stride: 3 x 3 windows
overlapping (stride 1 and 2), a 2 x 3 window on a non-square ifmap whose last column of
windows runs past the ifmap's edge (SCALE-Sim's ceil((6 - 3 + 2) / 2) = 3 columns)."""

LAYERS = {"gemm": GEMMS, "conv": CONVS}

CASES = [
    (schedule, rows, cols, kind, layer)
    for schedule in SCHEDULES
    for rows, cols in ARRAYS
    for kind, layers in LAYERS.items()
    for layer in layers
]
"""36 runs: each layer with each schedule on each array."""


def case_id(case: tuple[str, int, int, str, ScaleSimLayer]) -> str:
    schedule, rows, cols, _, layer = case
    return f"{schedule}-{rows}x{cols}-{layer.name}"


def config_text(schedule: str, rows: int, cols: int, mode: str = "CALC") -> str:
    """A SCALE-Sim 3.0.0 config: every section its reader needs."""
    return f"""[general]
run_name = t

[architecture_presets]
ArrayHeight : {rows}
ArrayWidth : {cols}
IfmapSramSzkB : {KB}
FilterSramSzkB : {KB}
OfmapSramSzkB : {KB}
IfmapOffset : 0
FilterOffset : 10000000
OfmapOffset : 20000000
Dataflow : {schedule}
Bandwidth : 10
ReadRequestBuffer : 32
WriteRequestBuffer : 32

[layout]
IfmapCustomLayout : False
IfmapSRAMBankBandwidth : 10
IfmapSRAMBankNum : 10
IfmapSRAMBankPort : 2
FilterCustomLayout : False
FilterSRAMBankBandwidth : 10
FilterSRAMBankNum : 10
FilterSRAMBankPort : 2

[sparsity]
SparsitySupport : false
SparseRep : ellpack_block
OptimizedMapping : false
BlockSize : 8
RandomNumberGeneratorSeed : 40

[run_presets]
InterfaceBandwidth : {mode}
UseRamulatorTrace : False
"""


def topology_text(kind: str, layers: tuple[ScaleSimLayer, ...]) -> str:
    head = "Layer, M, N, K," if kind == "gemm" else "Layer name, H, W, R, S, C, N, Stride,"
    return "\n".join([head, *(layer.row() for layer in layers)]) + "\n"


def write_inputs(folder: Path, schedule: str, rows: int, cols: int, kind: str) -> tuple[str, str]:
    """Write the config and the topology of every layer of ``kind``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / f"{schedule}-{rows}x{cols}.cfg"
    topology = folder / f"{kind}.csv"
    config.write_text(config_text(schedule, rows, cols))
    topology.write_text(topology_text(kind, LAYERS[kind]))
    return str(config), str(topology)


def taps(layer: ScaleSimLayer) -> tuple[int, int]:
    """The im2col entries of a layer's ifmap, and the distinct ifmap elements they read:
    every tap of every window (SCALE-Sim's M x K), those inside the ifmap address one."""
    if layer.kind == "gemm":
        return layer.M * layer.K, layer.M * layer.K
    out_rows = layer.M // layer.out_width
    inside = [
        (y, x, c)
        for oy in range(out_rows)
        for ox in range(layer.out_width)
        for fy in range(layer.fh)
        for fx in range(layer.fw)
        for c in range(layer.channels)
        for y, x in [(layer.stride * oy + fy, layer.stride * ox + fx)]
        if y < layer.height and x < layer.width
    ]
    return len(inside), len(set(inside))


def by_hand(schedule: str, rows: int, cols: int, layer: ScaleSimLayer) -> dict[str, int]:
    """SCALE-Sim's figures of a layer in CALC mode, from its source.

    The im2col GEMM is M x K times K x N. Per schedule, the array's rows take Sr, its
    columns Sc, and T streams through: os (M, N, K), ws (K, N, M), is (K, M, N); the folds
    are ceil(Sr / rows) x ceil(Sc / cols), a partial one padded to the array. A fold lasts
    T + rows + cols - 2 cycles (fill, skew, drain), plus rows for the stationary operand's
    load in ws and is; "Total Cycles" is the last cycle's index, one less than the cycles.
    SRAM reads: each fold reads its ifmap and filter blocks once (the im2col entries, without
    the padding, with the taps of windows past the ifmap's edge, which address nothing);
    ofmap writes: each fold writes its outputs (ws, is: partial sums), and the
    os counter adds rows + cols per fold. DRAM: every distinct address once while the
    operand fits the reuse buffer (it does here); every ofmap SRAM write drains to DRAM.
    """
    M, N, K = layer.M, layer.N, layer.K
    Sr, Sc, T = {"os": (M, N, K), "ws": (K, N, M), "is": (K, M, N)}[schedule]
    row_folds, col_folds = ceil(Sr / rows), ceil(Sc / cols)
    folds = row_folds * col_folds
    length = T + rows + cols - 2 + (rows if schedule != "os" else 0)
    _, distinct = taps(layer)
    assert distinct < reuse_words(KB) and K * N < reuse_words(KB)
    ifmap_reads = {"os": M * K * col_folds, "ws": M * K * col_folds, "is": M * K}[schedule]
    filter_reads = {"os": K * N * row_folds, "ws": K * N, "is": K * N * col_folds}[schedule]
    outputs = M * N * (1 if schedule == "os" else row_folds)
    return {
        "cycles": folds * length - 1,
        "ifmap SRAM reads": ifmap_reads,
        "filter SRAM reads": filter_reads,
        "ofmap SRAM writes": outputs + (folds * (rows + cols) if schedule == "os" else 0),
        "ifmap DRAM reads": distinct,
        "filter DRAM reads": K * N,
        "ofmap DRAM reads": 0,
        "ofmap DRAM writes": outputs,
    }


def corrected(schedule: str, rows: int, cols: int, layer: ScaleSimLayer) -> dict[str, int]:
    """tenet's figures of the layer, from SCALE-Sim's after the named corrections
    (``docs/peers.md``): one cycle more (SCALE-Sim reports the last cycle's index); the
    ifmap's SRAM reads without the taps past its edge, which SCALE-Sim's counter counts (os,
    ws: once per column fold); no rows + columns per fold in the os ofmap writes (SCALE-Sim's
    counter); in ws and is, a
    partial sum written back by every MAC (tenet writes back what leaves a PE, also to the
    PE below) and the outputs written to DRAM once (tenet keeps partial sums in the ofmap
    SRAM between folds)."""
    figures = by_hand(schedule, rows, cols, layer)
    M, N, K = layer.M, layer.N, layer.K
    Sr, Sc = {"os": (M, N), "ws": (K, N), "is": (K, M)}[schedule]
    folds = ceil(Sr / rows) * ceil(Sc / cols)
    figures["cycles"] += 1
    entries, _ = taps(layer)
    outside = M * K - entries
    figures["ifmap SRAM reads"] -= outside * (1 if schedule == "is" else ceil(Sc / cols))
    if schedule == "os":
        figures["ofmap SRAM writes"] -= folds * (rows + cols)
    else:
        figures["ofmap SRAM writes"] = M * N * K
        figures["ofmap DRAM writes"] = M * N
    return figures
