"""tenet's exact per-level reads, writes, fills and writebacks beside ZigZag's and
AccelForge's, on the GEMM and convolution mappings of ``tests/peers/mappings`` written in the
peers' own formats: output-stationary registers, the reduction loop outermost (partial sums
back to main memory), weight-stationary registers, a 3x3 convolution, a convolution whose
buffer tiles overlap (halo), a tile that does not divide its loop and tensors stored at their
own places; and the peers' own search bests (``*-search-*``, from
``benchmarks/bench_peers_search.py``). Where the figures differ, the reason is printed and
tenet's figure is checked against the brute-force walk of the tiles (``tenet.oracle.tiles``),
except on mappings over more than ``ORACLE_POINTS`` instances (the search bests at full
size), whose scaled-down copies (``-small``) are walked instead; the total energies are
printed under tenet's rules and the peer's.

The peers run in their own virtual environment, never tenet's:

    python3.12 -m venv PEERS && PEERS/bin/pip install accelforge zigzag-dse six
    python benchmarks/bench_peers.py --peer-python PEERS/bin/python

(or set ``TENET_PEERS_PYTHON``). Without a peer the benchmark says so and skips it. Times are
CPU time of this process (the peers' own runs are separate processes, not counted).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from math import prod
from pathlib import Path

from tenet.mapping import tensor_tiles
from tenet.oracle.tiles import reference_memory
from tenet.peers.compare import (
    Comparison,
    PeerError,
    compare_accelforge,
    compare_zigzag,
    peer_python,
)
from tenet.peers.specs import Imported

ROOT = Path(__file__).resolve().parents[1]

MAPPINGS = ROOT / "tests" / "peers" / "mappings"
ORACLE_POINTS = 100_000
"""The largest iteration space (instances) whose tiles the benchmark walks by brute force."""
ACCELFORGE = {
    path.stem.removeprefix("accelforge-"): path.read_text()
    for path in sorted(MAPPINGS.glob("accelforge-*.yaml"))
}
"""AccelForge spec files by mapping name (each file says what it shows, with hand counts)."""
ZIGZAG = {
    path.stem.removeprefix("zigzag-").removesuffix("-mapping"): tuple(
        (MAPPINGS / path.name.replace("-mapping", f"-{part}")).read_text()
        for part in ("workload", "accelerator", "mapping")
    )
    for path in sorted(MAPPINGS.glob("zigzag-*-mapping.yaml"))
}
"""ZigZag's workload, accelerator and mapping files by mapping name."""


def _oracle_check(imported: Imported, rows: Comparison) -> str:
    """Compare tenet's figures of the differing rows with the brute-force walk of the tiles
    (each tensor alone, on the levels that keep it), if it has at most ``ORACLE_POINTS``
    instances."""
    if prod(loop.size for _, loop in imported.nest.loops()) > ORACLE_POINTS:
        return f"over {ORACLE_POINTS} instances: not walked"
    work, arch = imported.specs.workload, imported.specs.architecture
    checked = 0
    for row in rows:
        if not (row.reason or row.reason_accesses) or row.level == imported.nest.levels[0].level:
            continue
        nest = imported.nest
        kept = [lv.level for lv in nest.levels if lv.keep is None or row.tensor in lv.keep]
        arch_t = arch.model_copy(
            update={"levels": tuple(lv for lv in arch.levels if lv.name in kept)}
        )
        tiles = {k: v for k, v in tensor_tiles(nest, row.tensor).items() if k in kept}
        flow = imported.specs.require_dataflow().model_copy(
            update={"tiles": tiles, "places": {}, "tensors": (row.tensor,)}
        )
        figures, _ = reference_memory(work, arch_t, flow)
        ref = figures[(row.level, row.tensor)]
        if (ref.fills, ref.writebacks) != (row.fills, row.writebacks):
            return f"ORACLE MISMATCH at {row.level}/{row.tensor}: {ref}"
        checked += 1
    return f"oracle agrees on {checked} differing row(s)" if checked else "all equal"


def _print(name: str, peer: str, rows: Comparison, note: str, seconds: float) -> None:
    print(f"\n{peer} / {name}  (tenet {seconds:.2f} s CPU; {note})")
    heads = ("reads", "peer", "writes", "peer", "fills", "peer", "wback", "peer")
    print(f"  {'level':<13}{'tensor':<7}" + "".join(f"{h:>10}" for h in heads) + "  reason")
    for r in rows:
        parts = [p for x in (r.reason_accesses, r.reason) if x for p in x.split("; ")]
        reason = "; ".join(dict.fromkeys(parts))
        figures = (r.reads, r.reads_peer, r.writes, r.writes_peer, r.fills, r.fills_peer)
        figures += (r.writebacks, r.writebacks_peer)
        print(
            f"  {r.level:<13}{r.tensor:<7}"
            + "".join(f"{n:>10}" for n in figures)
            + f"  {reason or 'equal'}"
        )
    sums = rows.energy + rows.energy_sums
    rule = sums if rows.energy_refetch is None else rows.energy_refetch + rows.energy_sums
    gap = abs(rule - rows.energy_peer) / max(rows.energy_peer, 1e-12)
    print(
        f"  energy (pJ): tenet {rows.energy:.6g}, with the MACs' reads of partial sums "
        f"{sums:.6g}, and the peer's retention rule {rule:.6g}; {peer} {rows.energy_peer:.6g} "
        f"({gap:.2%} apart)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", help="Python of the peers' virtual environment.")
    args = parser.parse_args()
    python = peer_python(args.peer_python)
    if python is None:
        print("bench_peers: no peers' Python (--peer-python or TENET_PEERS_PYTHON): skipped")
        return
    from tenet.peers.accelforge import read_accelforge
    from tenet.peers.zigzag import read_zigzag

    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        for name, text in ACCELFORGE.items():
            path = base / f"af-{name}.yaml"
            path.write_text(text)
            start = time.process_time()
            try:
                rows = compare_accelforge(python, str(path))
            except PeerError as exc:
                print(f"\naccelforge / {name}: {exc}")
                continue
            note = _oracle_check(read_accelforge(path), rows)
            _print(name, "accelforge", rows, note, time.process_time() - start)
        for name, (w, a, m) in ZIGZAG.items():
            paths = [base / f"zz-{name}-{part}.yaml" for part in ("w", "a", "m")]
            for p, t in zip(paths, (w, a, m), strict=True):
                p.write_text(t)
            start = time.process_time()
            try:
                rows = compare_zigzag(python, *map(str, paths))
            except PeerError as exc:
                print(f"\nzigzag / {name}: {exc}")
                continue
            imported = read_zigzag(*paths)
            note = _oracle_check(imported, rows)
            _print(name, "zigzag", rows, note, time.process_time() - start)


if __name__ == "__main__":
    sys.exit(main())
