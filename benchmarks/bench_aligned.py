"""The joint search with aligned tile sizes: convolutions with the 14×14 and 7×7 outputs of
ResNet-50's later stages (no multiple of 4 divides them), on ``systolic-levels-16x16`` with
one array mapping, searched over nested divisors and over ``--aligned 4`` (the multiples of 4
too, the last tile partial), by latency and by energy, each within ``BUDGET`` seconds: best,
bound, gap, leaves of the declared space, exact evaluations, CPU seconds and the load
average. ``--layer conv14|res5``, ``--objective`` run one of them, ``--budget`` sets the
seconds.
"""

from __future__ import annotations

import sys
from typing import cast

from benchmarks.cputime import cpu_seconds, load_text
from tenet.dse.joint.tree import joint_search
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.tiling.sizes import TilingSpace
from tenet.vocab import MemoryObjective

ARCH = "systolic-levels-16x16"
LAYERS = {
    "conv14": {"K": 32, "C": 32, "OX": 14, "OY": 14, "RX": 3, "RY": 3},
    "res5": {"K": 512, "C": 512, "OX": 7, "OY": 7, "RX": 3, "RY": 3},
}
MAPPING = "conv2d-kcp"
BUDGET = 60.0
"""Seconds of each search."""


def main(argv: list[str]) -> None:
    objectives: list[MemoryObjective] = ["latency", "energy"]
    if "--objective" in argv:
        objectives = [cast(MemoryObjective, argv[argv.index("--objective") + 1])]
    budget = float(argv[argv.index("--budget") + 1]) if "--budget" in argv else BUDGET
    layers = [argv[argv.index("--layer") + 1]] if "--layer" in argv else list(LAYERS)
    for name, objective in ((n, o) for n in layers for o in objectives):
        for aligned in (None, 4):
            start = cpu_seconds()
            found = joint_search(
                "conv2d",
                ARCH,
                [MAPPING],
                LAYERS[name],
                TilingSpace(aligned=aligned),
                objective=objective,
                execution=ExecutionOptions(None, time_budget=budget),
            )
            seconds = cpu_seconds() - start
            row = found.row()
            sizes = "divisors" if aligned is None else f"aligned {aligned}"
            print(
                f"{name} {objective}, {sizes}: best {float(found.best.value):,.0f}, bound "
                f"{float(found.bound or 0):,.0f}, gap {float(found.relative_gap):.2%}, complete "
                f"{found.complete}; leaves {found.space:,}, {found.evaluated} exact "
                f"evaluations, {found.pruned:,} pruned; {seconds:.1f} CPU-s; {load_text()}"
            )
            print(f"  tiling {row['tiling']}")


if __name__ == "__main__":
    main(sys.argv[1:])
