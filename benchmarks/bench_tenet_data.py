"""CPU time of the full analysis (every metric, every tensor) of each of TENET's 52
experiments, against the original C++ TENET's CPU time on the same experiment.

The original's figures are ``analysis_cpu_ms_median`` of ``tenet-timing.csv`` (all 52
experiments; a copy is in ``tests/data/reference/``): the CPU time of all its metrics for one
experiment, process start excluded. Ours is ``time.process_time`` (and any child process) of
``tenet.analyze_experiment(...)``, reading and parsing the three text files included; the
median of ``--repeats`` runs. Prints each experiment's ratio (ours / original; below 1 is
faster), the maximum and the median ratio, the totals, and the size-independence check (GEMM
64³ against 4096³). The experiment files are the original's, in ``../shared/tenet-data``.

Run from the repository root: ``python benchmarks/bench_tenet_data.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

from cputime import median_cpu_ms

from tenet import analyze, analyze_experiment

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "tenet-data"
TIMING = ROOT / "tests" / "data" / "reference" / "tenet-timing.csv"


def _original_cpu_ms() -> dict[str, float]:
    with TIMING.open() as f:
        return {
            f"{r['experiment_dir']}/{r['experiment']}": float(r["analysis_cpu_ms_median"])
            for r in csv.DictReader(f)
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per experiment (median)")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"skipped: TENET's experiment files are not in {DATA} (../shared beside the repo)")
        return 0
    original = _original_cpu_ms()
    analyze_experiment(DATA / "reuse_factor_experiment/experiment/experiment_11")  # warm-up
    print(f"{'experiment':40} {'tenet CPU ms':>12} {'TENET CPU ms':>12} {'ratio':>7}")
    ours: dict[str, float] = {}
    for key in sorted(original, key=lambda k: (k.split("/")[0], int(k.split("_")[-1]))):
        folder, name = key.split("/")
        path = DATA / folder / "experiment" / name
        ours[key] = median_cpu_ms(lambda path=path: analyze_experiment(path), args.repeats)
        print(f"{key:40} {ours[key]:12.1f} {original[key]:12.1f} {ours[key] / original[key]:7.3f}")
    ratios = [ours[k] / original[k] for k in ours]
    worst = max(ours, key=lambda k: ours[k] / original[k])
    print(
        f"\nCPU time over {len(ours)} experiments: tenet {sum(ours.values()) / 1000:.2f} s, "
        f"the original TENET {sum(original.values()) / 1000:.2f} s "
        f"(ratio {sum(ours.values()) / sum(original.values()):.3f})"
    )
    print(
        f"per-experiment ratio (tenet / original): max {max(ratios):.3f} ({worst}), "
        f"median {statistics.median(ratios):.3f}; {sum(r < 1 for r in ratios)} of "
        f"{len(ratios)} faster"
    )
    sizes = {}
    for n in (64, 4096):
        sizes[n] = median_cpu_ms(
            lambda n=n: analyze(
                "gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": n, "N": n, "K": n}
            ),
            args.repeats,
        )
        print(f"GEMM {n}^3 on systolic-2d-8x8 (output-stationary): {sizes[n]:.1f} CPU ms")
    print(f"GEMM 4096^3 / 64^3 CPU time ratio: {sizes[4096] / sizes[64]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
