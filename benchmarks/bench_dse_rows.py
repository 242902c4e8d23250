"""CPU time of ``tenet dse`` on GEMM 64³ on ``systolic-levels-8x8`` (the default search, the
best 10 by latency, each shown row with its memory-aware figures), run in a fresh interpreter
with the design points evaluated in that process (so that ``time.process_time`` covers every
count, the rows' included); median of several runs, the load printed beside each figure.

Run from the repository root: ``python benchmarks/bench_dse_rows.py [--quick]``. With
``--root DIR``, the tenet of the checkout ``DIR`` is timed instead (to compare two trees).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGUMENTS = ["dse", "-w", "gemm", "-a", "systolic-levels-8x8"]
ARGUMENTS += ["-p", "M=64", "-p", "N=64", "-p", "K=64", "--format", "json"]
CHILD = """
import contextlib, io, sys, time
import tenet.dse.explore as explore
from tenet.dse.run.engines import InProcessEngine
from tenet.cli.app import main
explore.make_engine = lambda *args, **kwargs: InProcessEngine()
start = time.process_time()
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(time.process_time() - start)
"""


def _cpu_seconds(root: Path) -> float:
    """CPU seconds of one search (imports left out), in a child interpreter on ``root``."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *ARGUMENTS],
        check=True,
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "CI": "1"},
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    repeats = 3 if "--quick" in sys.argv else 5
    root = Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else ROOT
    times = []
    for _ in range(repeats):
        times.append(_cpu_seconds(root))
        print(f"  {times[-1]:.2f} CPU-s (load {os.getloadavg()[0]:.2f})")
    print(
        f"tenet {' '.join(ARGUMENTS)} ({root}): median {statistics.median(times):.2f} CPU-s "
        f"over {repeats} runs (load {os.getloadavg()[0]:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
