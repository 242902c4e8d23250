"""CPU time of ``tenet eval`` (evaluation and legality check) on every TENET experiment.

Prints, per experiment, the CPU time of the legality check, of the evaluation and of both, the
original TENET's median CPU time (``analysis_cpu_ms_median`` of
../shared/reference/tenet-timing.csv) and the ratio of both to it; then the totals in one
process. CPU time is ``time.process_time`` (the check runs in this process).
Run from the repository root: ``python benchmarks/bench_legality.py [--quick]``.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from tenet.api import load_experiment
from tenet.metrics.evaluate import evaluate
from tenet.model.legality import check_dataflow

SHARED = Path(__file__).resolve().parents[2] / "shared"
DATA = SHARED / "tenet-data"


def _reference_cpu_ms() -> dict[str, float]:
    path = SHARED / "reference" / "tenet-timing.csv"
    with path.open() as f:
        return {
            f"{r['experiment_dir']}/{r['experiment']}": float(r["analysis_cpu_ms_median"])
            for r in csv.DictReader(f)
        }


def main() -> int:
    quick = "--quick" in sys.argv
    if not DATA.is_dir():
        print(f"no TENET data at {DATA}: nothing to time")
        return 0
    reference = _reference_cpu_ms()
    experiments = sorted(
        DATA.glob("*/experiment/experiment_*"),
        key=lambda p: (p.parts[-3], int(p.name.split("_")[1])),
    )
    if quick:
        experiments = experiments[:8]
    print(f"{'experiment':40} {'legal ms':>9} {'eval ms':>9} {'TENET ms':>9} {'ratio':>7}")
    start_all = time.process_time()
    total_legality = total_eval = 0.0
    ratios = []
    for path in experiments:
        key = f"{path.parts[-3]}/{path.name}"
        start = time.process_time()
        problem = load_experiment(path)
        legality = check_dataflow(problem.workload, problem.architecture, problem.dataflow)
        middle = time.process_time()
        evaluate(problem)
        end = time.process_time()
        legal_ms, eval_ms = (middle - start) * 1000, (end - middle) * 1000
        total_legality += legal_ms
        total_eval += eval_ms
        original = reference.get(key)
        ratio = (legal_ms + eval_ms) / original if original else float("nan")
        ratios.append(ratio)
        mark = "" if legality.legal else " (violations)"
        print(f"{key:40} {legal_ms:9.1f} {eval_ms:9.1f} {original or 0:9.1f} {ratio:7.3f}{mark}")
    total = time.process_time() - start_all
    print(
        f"\n{len(experiments)} experiments in one process: {total:.2f} CPU-s "
        f"(legality {total_legality / 1000:.2f} s, evaluation {total_eval / 1000:.2f} s)"
    )
    print(f"ratio to the original's CPU time: max {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
