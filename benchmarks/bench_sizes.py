"""CPU time of counting one (workload, dataflow, array) at many sizes: the formulas with the
varying sizes symbolic, built once (``symbolic_metrics``) then evaluated per size, against
counting each size directly (``evaluate``). Prints the pieces of the formulas, the one-off
cost, the cost per size both ways and the number of sizes from which the formulas pay off;
this is the rule of :mod:`tenet.metrics.sizes`. CPU time is ``time.process_time`` of this
process, which does all the counting. Run from the repository root:
``python benchmarks/bench_sizes.py [--quick]`` (``--quick``: GEMM only).
"""

from __future__ import annotations

import random
import sys
import time

from tenet.metrics.evaluate import evaluate
from tenet.metrics.sizes import figures
from tenet.metrics.symbolic import symbolic_metrics
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.spec import Specs, load_architecture, load_dataflow, load_workload

ARRAY = "systolic-2d-16x16"
CASES = [
    # (workload, dataflow, values of the sizes to vary, bound sizes)
    ("gemm", "gemm-os-systolic", {"M": (128, 100, 37), "N": (768, 3072, 50), "K": (768, 64)}, {}),
    ("gemm", "gemm-ws-systolic", {"M": (128, 100, 37), "N": (768, 3072, 50), "K": (768, 64)}, {}),
    ("gemm", "gemm-os", {"M": (128, 100, 37), "N": (768, 3072, 50), "K": (768, 64)}, {}),
    (
        "conv2d",
        "conv2d-os",
        {"K": (64, 128, 256), "C": (64, 256)},
        {"OX": 14, "OY": 14, "RX": 3, "RY": 3},
    ),
    (
        "conv2d",
        "conv2d-os",
        {"K": (64, 128, 256), "C": (64, 256), "OX": (7, 14, 28)},
        {"OY": 14, "RX": 3, "RY": 3},
    ),
]
SIZES = 6


def _case(workload: str, dataflow: str, choices: dict[str, tuple[int, ...]], bound: dict) -> None:
    w, a = load_workload(workload), load_architecture(ARRAY)
    d = load_dataflow(dataflow, architecture=a)
    rng = random.Random(1)
    sizes = [{n: rng.choice(v) for n, v in choices.items()} for _ in range(SIZES)]
    start = time.process_time()
    formulas = symbolic_metrics(Specs(w, a, d, bound))
    once = time.process_time() - start
    pieces = sum(len(f.pieces()) for f in formulas.formulas.values())
    start = time.process_time()
    for s in sizes:
        formulas.at(**s)
    per_size = (time.process_time() - start) / len(sizes)
    start = time.process_time()
    for s in sizes:
        p = Specs(w, a, d, bound).with_params(s).bound
        problem = Problem(
            Workload.from_spec(w, p), Architecture.from_spec(a, p), Dataflow.from_spec(d, p)
        )
        figures(evaluate(problem))
    direct = (time.process_time() - start) / len(sizes)
    gain = direct - per_size
    from_n = f"{once / gain:.1f}" if gain > 0 else "never"
    print(
        f"{workload} {dataflow} on {ARRAY}, symbols {','.join(choices)}: {pieces} pieces, "
        f"built in {once:.2f} CPU-s; per size {per_size * 1000:.1f} ms from the formulas, "
        f"{direct * 1000:.1f} ms counted; pays off from {from_n} sizes"
    )


def main() -> int:
    quick = "--quick" in sys.argv
    for case in CASES[:1] if quick else CASES:
        _case(*case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
