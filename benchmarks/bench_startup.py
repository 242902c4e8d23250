"""CPU time of the command line's start-up, against its dependencies' import.

Pairs of fresh interpreters, run one after the other so that both see the same machine load:
``tenet --help`` and ``python -c "import islpy, click, yaml, pydantic"`` (the libraries every
command needs); the ratio of their medians over 7 pairs (3 with ``--quick``) is the start-up's
cost over what no command can avoid. Then ``tenet zoo archs`` and ``tenet eval-network
resnet50 -a systolic-2d-16x16 -d conv2d-os`` (a whole network, counted exactly). CPU time is
user + system time of the finished children (``os.times``). Modules are byte-compiled first
and the children may write bytecode, as an installed package does (a shell's
``PYTHONDONTWRITEBYTECODE`` is left out of their environment).
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
DEPENDENCIES = [sys.executable, "-c", "import islpy, click, yaml, pydantic"]
TENET = [sys.executable, "-m", "tenet"]
NETWORK = ["eval-network", "resnet50", "-a", "systolic-2d-16x16", "-d", "conv2d-os"]


def _cpu_seconds(command: list[str]) -> float:
    """CPU time of one run of ``command`` in a child process."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = os.times()
    subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
        env=environment,
    )  # fmt: skip
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def main() -> int:
    repeats = 3 if "--quick" in sys.argv else 7
    compileall.compile_dir(ROOT / "tenet", quiet=1)
    _cpu_seconds([*TENET, "--help"])  # the bytecode of whatever compileall left out
    pairs = [(_cpu_seconds([*TENET, "--help"]), _cpu_seconds(DEPENDENCIES)) for _ in range(repeats)]
    help_cpu = statistics.median(p[0] for p in pairs)
    imports = statistics.median(p[1] for p in pairs)
    load = os.getloadavg()[0]
    print(f"{'tenet --help':36} {help_cpu:.3f} CPU-s (median of {repeats})")
    print(f"{'import islpy, click, yaml, pydantic':36} {imports:.3f} CPU-s (median of {repeats})")
    print(f"{'start-up ratio':36} {help_cpu / imports:.2f} (goal: at most 1.3)")
    for arguments in (["zoo", "archs"], NETWORK):
        times = [_cpu_seconds([*TENET, *arguments]) for _ in range(repeats)]
        print(f"tenet {' '.join(arguments)}: {statistics.median(times):.3f} CPU-s (median)")
    print(f"load {load:.2f} (1 min), {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
