"""Time the full analysis (every metric, every tensor) of every TENET experiment.

Prints, per experiment, the median wall time of tenet's analysis, the original TENET's median
(``analysis_ms_median`` of ../shared/reference/tenet-reference.csv, same kind of machine) and
their ratio; then the total, and the size-independence check (GEMM 64³ vs 4096³).
Run from the repository root: ``python benchmarks/bench_tenet_data.py``.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tenet import analyze

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "tenet-data"
REPEATS = 3


def _median_ms(run: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _reference_ms() -> dict[str, float]:
    path = SHARED / "reference" / "tenet-reference.csv"
    with path.open() as f:
        return {
            f"{r['experiment_dir']}/{r['experiment']}": float(r["analysis_ms_median"])
            for r in csv.DictReader(f)
        }


def main() -> int:
    reference = _reference_ms()
    experiments = sorted(
        DATA.glob("*/experiment/experiment_*"),
        key=lambda p: (p.parts[-3], int(p.name.split("_")[1])),
    )
    analyze(experiment=experiments[0])  # warm-up: imports and the isl context
    print(f"{'experiment':48} {'tenet ms':>9} {'TENET ms':>9} {'ratio':>7}")
    total = 0.0
    ratios = []
    for path in experiments:
        key = f"{path.parts[-3]}/{path.name}"
        ms = _median_ms(lambda path=path: analyze(experiment=path))
        total += ms
        original = reference.get(key)
        ratio = f"{ms / original:7.3f}" if original else f"{'-':>7}"
        if original:
            ratios.append(ms / original)
        print(f"{key:48} {ms:9.1f} {original or float('nan'):9.1f} {ratio}")
    print(
        f"\n{len(experiments)} experiments: total {total / 1000:.2f} s "
        f"(original TENET: 87 s for all 52)"
    )
    print(
        f"ratio to the original over {len(ratios)} experiments: max {max(ratios):.3f}, "
        f"median {statistics.median(ratios):.3f}"
    )
    sizes = {}
    for n in (64, 4096):
        sizes[n] = _median_ms(
            lambda n=n: analyze(
                "gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": n, "N": n, "K": n}
            )
        )
        print(f"GEMM {n}^3 on systolic-2d-8x8 (output-stationary): {sizes[n]:.1f} ms")
    print(f"GEMM 4096^3 / 64^3 time ratio: {sizes[4096] / sizes[64]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
