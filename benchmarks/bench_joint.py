"""The joint search and its certificate: GEMM 256³ on ``systolic-levels-16x16`` searched
exhaustively by branch and bound (every array mapping of the design space, every choice of the
tensors the buffer keeps, every divisor tiling of the buffer and the register file, every band
order), in this process and on a pool of two workers, then by energy (at most
``ENERGY_BUDGET`` seconds); then every layer of ResNet-50 on the same
array with the constructive search and tiling, each layer's best with its gap to the bound over
the whole declared space. CPU seconds include the workers; the load average is printed beside
each timing. ``--only gemm|resnet`` runs one part.
"""

from __future__ import annotations

import sys

from benchmarks.cputime import cpu_seconds, load_text
from tenet.dse.joint.seeds import constructive_certificate
from tenet.dse.joint.tree import joint_search
from tenet.dse.ranking.certificate import Certificate
from tenet.dse.run.execution import ExecutionOptions
from tenet.spec import load_network

ARCH = "systolic-levels-16x16"
GEMM = {"M": 256, "N": 256, "K": 256}
ENERGY_BUDGET = 300.0
"""Seconds of the search by energy."""


def _gap(found: Certificate) -> str:
    return f"{float(found.gap):,.0f} ({float(found.relative_gap):.1%})"


def _gemm() -> None:
    for label, execution in (
        ("in this process", ExecutionOptions(None)),
        ("local pool, 2 workers; CPU of this process only", ExecutionOptions("local", workers=2)),
    ):
        start = cpu_seconds()
        found = joint_search("gemm", ARCH, None, GEMM, execution=execution)
        seconds = cpu_seconds() - start
        row = found.row()
        print(
            f"GEMM 256³ joint ({label}): best {row['latency_cycles']:,} cycles "
            f"({row['bottleneck']}), bound {row['bound_latency_cycles']:,}, gap {_gap(found)}, "
            f"complete {found.complete}; {found.evaluated} exact evaluations of a space of "
            f"{found.space:,}, {found.pruned:,} nodes pruned; {seconds:.1f} CPU-s; {load_text()}"
        )
        print(f"  mapping {row['space_stamp']} {row['time_stamp']}")
        print(f"  tiling {row['tiling']}, kept {row.get('keep', {})}")
    start = cpu_seconds()
    found = joint_search(
        "gemm",
        ARCH,
        None,
        GEMM,
        objective="energy",
        execution=ExecutionOptions(None, time_budget=ENERGY_BUDGET),
    )
    seconds = cpu_seconds() - start
    print(
        f"GEMM 256³ joint by energy (in this process, at most {ENERGY_BUDGET:.0f} s): best "
        f"{float(found.best.value):,.0f} {found.energy_unit}, bound {float(found.bound):,.0f}, "
        f"gap {_gap(found)}, complete {found.complete}; best after {found.cpu_to_best:.1f} "
        f"CPU-s; {found.evaluated} exact evaluations, {found.pruned:,} nodes pruned; "
        f"{seconds:.1f} CPU-s; {load_text()}"
    )


def _resnet() -> None:
    network = load_network("resnet50")
    start = cpu_seconds()
    layers = 0
    seen: dict[tuple[str, tuple[tuple[str, int], ...]], Certificate] = {}
    print(
        f"{'layer':<16} {'n':>2} {'latency':>11} {'bottleneck':<10} {'bound':>11} "
        f"{'gap':>16} {'DRAM elements':>14}"
    )
    for layer in network.layers:
        key = (layer.workload, tuple(sorted(layer.params.items())))
        if key not in seen:
            seen[key] = constructive_certificate(layer.workload, ARCH, layer.params, top_k=2)
        found = seen[key]
        row = found.row()
        layers += layer.count
        print(
            f"{layer.name:<16} {layer.count:>2} {row['latency_cycles']:>11,} "
            f"{row['bottleneck']:<10} {row['bound_latency_cycles']:>11,} {_gap(found):>16} "
            f"{row['traffic_dram_elements']:>14,}"
        )
    seconds = cpu_seconds() - start
    print(
        f"ResNet-50, {layers} layers ({len(seen)} distinct) on {ARCH}: constructive search and "
        f"tiling with every gap in {seconds:.1f} CPU-s; {load_text()}"
    )


def main(argv: list[str]) -> None:
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    if only in (None, "gemm"):
        _gemm()
    if only in (None, "resnet"):
        _resnet()


if __name__ == "__main__":
    main(sys.argv[1:])
