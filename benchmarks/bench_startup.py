"""CPU time of the command line's start-up: ``tenet --help`` and ``tenet zoo archs``.

Each command runs in a fresh interpreter (as a user runs it); its CPU time (user + system) is
read from ``os.times`` of the finished children, median of several runs. Modules are
byte-compiled first, as an installed package is.
Run from the repository root: ``python benchmarks/bench_startup.py [--quick]``.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = (["--help"], ["zoo", "archs"])


def _cpu_seconds(arguments: list[str]) -> float:
    """CPU time of one ``tenet ARGUMENTS`` run in a child interpreter."""
    before = os.times()
    subprocess.run(
        [sys.executable, "-m", "tenet", *arguments],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def main() -> int:
    repeats = 3 if "--quick" in sys.argv else 7
    compileall.compile_dir(ROOT / "tenet", quiet=1)
    for arguments in COMMANDS:
        times = [_cpu_seconds(arguments) for _ in range(repeats)]
        load = os.getloadavg()[0]
        print(
            f"tenet {' '.join(arguments):12} {statistics.median(times):.3f} CPU-s (median), "
            f"load {load:.2f}"
        )
    modules = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tenet.cli; print(' '.join(sorted({m.split('.')[0] for m in sys.modules}"
            " & {'pandas', 'matplotlib', 'dask', 'distributed', 'numpy'})) or 'none')",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    print(f"heavy modules imported by the command line: {modules}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
