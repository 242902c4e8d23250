"""tenet beside SCALE-Sim on full-size layers: each layer's figures, the reason for each
difference, and the CPU time of tenet's exact count and of SCALE-Sim's simulation (its own
process), with the load average. GEMM 256³ and a 28 x 28 x 64 3 x 3 convolution with 64
filters on a 32 x 32 array with 64 kB SRAMs, each of SCALE-Sim's schedules; ``--quick``: the
example files (``examples/peers/``, an 8 x 8 array).

SCALE-Sim runs in its own virtual environment (``make scalesim``):

    python benchmarks/bench_scalesim.py --peer-python .scalesim/bin/python

(or set ``TENET_SCALESIM_PYTHON``). Without it the benchmark counts tenet's figures alone.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from tenet.api import assess
from tenet.peers.scalesim import InputKind, read_scalesim
from tenet.peers.scalesim_compare import (
    ScaleSimError,
    compare_scalesim,
    layer_figures,
    render_scalesim,
    scalesim_python,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "peers"

LAYERS: dict[InputKind, str] = {
    "gemm": "Layer, M, N, K,\ngemm256, 256, 256, 256,\n",
    "conv": (
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
        "Num Filter, Strides,\nconv28, 28, 28, 3, 3, 64, 64, 1,\n"
    ),
}
"""The full-size layers, as SCALE-Sim's topology CSVs."""


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _config(schedule: str, rows: int, folder: Path) -> Path:
    text = (EXAMPLES / "scalesim.cfg").read_text()
    text = text.replace("Dataflow : ws", f"Dataflow : {schedule}")
    text = text.replace("ArrayHeight : 8", f"ArrayHeight : {rows}")
    text = text.replace("ArrayWidth : 8", f"ArrayWidth : {rows}")
    path = folder / f"{schedule}-{rows}.cfg"
    path.write_text(text)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", help="Python of SCALE-Sim's environment.")
    parser.add_argument("--quick", action="store_true", help="The example files only.")
    args = parser.parse_args()
    python = scalesim_python(args.peer_python)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        topologies: dict[InputKind, Path] = {}
        if args.quick:
            rows = 8
            topologies = {
                "gemm": EXAMPLES / "scalesim-gemm.csv",
                "conv": EXAMPLES / "scalesim-conv.csv",
            }
        else:
            rows = 32
            for kind, text in LAYERS.items():
                topologies[kind] = folder / f"{kind}.csv"
                topologies[kind].write_text(text)
        for schedule in ("os", "ws", "is"):
            config = str(_config(schedule, rows, folder))
            for kind, topology in topologies.items():
                start, children = time.process_time(), _children()
                if python is None:
                    for layer in read_scalesim(config, str(topology), kind):
                        found = assess(
                            layer.workload,
                            layer.architecture,
                            layer.dataflow,
                            params=layer.layer.params(),
                        )
                        print(layer.layer.name, schedule, layer_figures(found))
                else:
                    try:
                        found_all = compare_scalesim(python, config, str(topology), kind)
                    except ScaleSimError as exc:
                        print(f"SCALE-Sim: {exc}", file=sys.stderr)
                        return 1
                    print(render_scalesim(found_all))
                tenet_cpu = time.process_time() - start
                peer_cpu = _children() - children
                load = os.getloadavg()[0]
                print(
                    f"  CPU seconds: tenet {tenet_cpu:.2f}, SCALE-Sim {peer_cpu:.2f} "
                    f"(load {load:.1f})"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
