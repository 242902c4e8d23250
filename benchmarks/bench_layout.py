"""Scratchpad layouts on the zoo's conv2d dataflows: the layout-aware ingress latency of
row-major tensors against the layouts the automatic search finds, over a 16-bank
scratchpad that serves one word per bank per cycle (bandwidth 16 words x 16 bits = 256
bits/cycle, one-word transactions), on 4x4 arrays (16 PEs for the 1D ones), with K = C = 8,
4x4 outputs and 3x3 filters.

The last column is a lower bound for any layout: with one-word transactions the lines
fetched per step do not depend on the layout, so the latency with as many banks as words
(no conflict) bounds every layout's from below.

Run from the repository root: ``python benchmarks/bench_layout.py`` (``--quick``: three
dataflows, greedy only). Times are CPU seconds (``time.process_time``) of this process.
"""

from __future__ import annotations

import sys
import time

from tenet.layout.evaluate import load_layout_problem
from tenet.layout.optimiser import search_layout
from tenet.spec import load_architecture
from tenet.spec.layout import ScratchpadSpec

SCRATCHPAD = ScratchpadSpec(banks=16, bank_width=1, transaction_width=1)
CONFLICT_FREE = ScratchpadSpec(banks=1 << 20, bank_width=1, transaction_width=1)
BANDWIDTH = 16 * 16
PARAMS = {"K": 8, "C": 8, "OX": 4, "OY": 4, "RX": 3, "RY": 3}
ARRAY_2D, ARRAY_1D = "systolic-2d:rows=4,cols=4", "systolic-1d:pes=16"
DATAFLOWS = [
    ("conv2d-os:rows=4,cols=4", ARRAY_2D),
    ("conv2d-ws:rows=4,cols=4", ARRAY_2D),
    ("conv2d-is:rows=4,cols=4", ARRAY_2D),
    ("conv2d-yxp:rows=4,cols=4", ARRAY_2D),
    ("conv2d-kcp:rows=4,cols=4", ARRAY_2D),
    ("conv2d-rs:cols=4", ARRAY_2D),
    ("conv2d-os-1d:pes=16", ARRAY_1D),
    ("conv2d-kp-1d:pes=16", ARRAY_1D),
    ("conv2d-nlr:pes=16", ARRAY_1D),
    ("conv2d-rs-1d", ARRAY_1D),
]
QUICK = ["conv2d-os:rows=4,cols=4", "conv2d-ws:rows=4,cols=4", "conv2d-os-1d:pes=16"]


def main(quick: bool) -> None:
    methods = ["greedy"] if quick else ["greedy", "exhaustive"]
    print(
        f"conv2d {PARAMS}, {SCRATCHPAD.banks} banks, {BANDWIDTH} bits/cycle; "
        "layout-aware ingress latency in cycles (CPU seconds)"
    )
    header = (
        f"{'dataflow':26} {'row-major':>9}"
        + "".join(f" {m:>22}" for m in methods)
        + f" {'bound':>6}"
    )
    print(header)
    lowered, raised = 0, 0
    for dataflow, array in DATAFLOWS:
        if quick and dataflow not in QUICK:
            continue
        architecture = load_architecture(array).model_copy(
            update={"bandwidth": BANDWIDTH, "scratchpad": SCRATCHPAD}
        )
        lp = load_layout_problem("conv2d", architecture, dataflow, PARAMS)
        cells, before, chosen = [], None, ""
        for method in methods:
            start = time.process_time()
            found = search_layout(lp, method, depth=1)  # type: ignore[arg-type]
            seconds = time.process_time() - start
            before = found.latency_ingress_before
            after = found.latency_ingress_after
            lowered += after < before
            raised += after > before
            cells.append(f"{after:>8} ({before / after:4.2f}x, {seconds:5.1f} s)")
            if method == "greedy":
                chosen = ", ".join(f"{c.tensor}: {c.describe_after}" for c in found.tensors)
        free = load_layout_problem(
            "conv2d", architecture, dataflow, PARAMS, scratchpad=CONFLICT_FREE
        )
        bound = free.evaluate().latency_ingress_layout
        print(f"{dataflow:26} {before:>9}" + "".join(f" {c:>22}" for c in cells) + f" {bound:>6}")
        print(f"{'':26} greedy: {chosen}")
    print(f"searches that lowered the latency: {lowered}; that raised it: {raised}")


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
