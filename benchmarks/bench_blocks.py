"""Blocked spatial digits in the joint search: GEMM 256³ and ResNet-50's res2 3×3 layer
(K = C = 64, 56×56) on ``systolic-levels-16x16``, searched over the design space without
blocks and with ``blocks=(2, 4)`` (``floor(x/B) % P`` on a PE axis, ``x % B`` in time), by
latency or energy, each search stopped after ``BUDGET`` seconds: the subtrees declared (array
mappings times choices of kept tensors), the best, its bound and gap, whether it finished, its
CPU seconds and the load beside it. Run from the repository root: ``python
benchmarks/bench_blocks.py [--budget SECONDS] [--only gemm|res2] [--objective energy]``.
"""

from __future__ import annotations

import sys

from benchmarks.cputime import cpu_seconds, load_text
from tenet.dse.joint.declared import kept_choices
from tenet.dse.joint.tree import joint_search
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.spec import Specs, load_architecture, load_workload
from tenet.vocab import MemoryObjective

ARCH = "systolic-levels-16x16"
CASES = {
    "gemm": ("GEMM 256³", "gemm", {"M": 256, "N": 256, "K": 256}),
    "res2": (
        "res2 3x3",
        "conv2d",
        {"K": 64, "C": 64, "OX": 56, "OY": 56, "RX": 3, "RY": 3},
    ),
}
BUDGET = 120.0
"""Seconds of each search."""


def _case(
    label: str,
    workload: str,
    params: dict[str, int],
    budget: float,
    objective: MemoryObjective,
) -> None:
    arch = load_architecture(ARCH)
    spec = load_workload(workload)
    for options in (SpaceOptions(), SpaceOptions(blocks=(2, 4))):
        mappings = DesignSpace(Specs(spec, arch, None, params), options).sizes.kept
        subtrees = mappings * len(kept_choices(arch.levels, list(spec.accesses), True))
        start = cpu_seconds()
        found = joint_search(
            spec,
            arch,
            None,
            params,
            objective=objective,
            execution=ExecutionOptions(None, time_budget=budget),
            design=options,
        )
        seconds = cpu_seconds() - start
        row = found.row()
        print(
            f"{label} by {objective}, blocks {options.blocks or 'none'}: {mappings} array "
            f"mappings, {subtrees:,} subtrees; best {float(found.best.value):,.0f} "
            f"({row['latency_cycles']:,} cycles, {row['bottleneck']}; energy "
            f"{row['energy']:,.0f}), bound {float(found.bound or 0):,.0f}, gap "
            f"{float(found.gap or 0):,.0f} ({float(found.relative_gap):.1%}), complete "
            f"{found.complete}; {found.evaluated} exact evaluations, {found.pruned:,} pruned; "
            f"{seconds:.1f} CPU-s; {load_text()}"
        )
        print(f"  mapping {row['space_stamp']} {row['time_stamp']}; tiling {row['tiling']}")


def main(argv: list[str]) -> None:
    budget = float(argv[argv.index("--budget") + 1]) if "--budget" in argv else BUDGET
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    objective: MemoryObjective = "energy" if "energy" in argv else "latency"
    for key, (label, workload, params) in CASES.items():
        if only in (None, key):
            _case(label, workload, params, budget, objective)


if __name__ == "__main__":
    main(sys.argv[1:])
