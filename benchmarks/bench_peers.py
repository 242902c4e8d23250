"""tenet's exact per-level fills and writebacks beside ZigZag's and AccelForge's, on GEMM and
convolution mappings written in the peers' own formats: output-stationary registers, the
reduction loop outermost (partial sums back to main memory), weight-stationary registers, a
3x3 convolution, a convolution whose buffer tiles overlap (halo) and a tile that does not
divide its loop. Where the figures differ, the reason is printed and tenet's figure is checked
against the brute-force walk of the tiles (``tenet.oracle.tiles``).

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
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec

ROOT = Path(__file__).resolve().parents[1]

GEMM_ARCH = """arch:
  nodes:
  - !Memory
    name: MainMemory
    area: 0
    leak_power: 0
    size: inf
    actions:
    - {name: read, energy: 200, throughput: inf, bits_per_action: 16}
    - {name: write, energy: 200, throughput: inf, bits_per_action: 16}
  - !Memory
    name: GlobalBuffer
    area: 0
    leak_power: 0
    size: 8192 * 16
    actions:
    - {name: read, energy: 6, throughput: inf, bits_per_action: 16}
    - {name: write, energy: 6, throughput: inf, bits_per_action: 16}
  - !Container
    name: PE
    spatial:
    - {name: rows, fanout: 4}
  - !Memory
    name: Register
    area: 0
    leak_power: 0
    size: 64 * 16
    actions:
    - {name: read, energy: 1, throughput: inf, bits_per_action: 16}
    - {name: write, energy: 1, throughput: inf, bits_per_action: 16}
  - !Compute
    name: MAC
    area: 0
    leak_power: 0
    actions:
    - {name: compute, energy: 1, throughput: inf}
"""


def _gemm_workload(m: int, n: int, k: int) -> str:
    return f"""workload:
  iteration_space_shape:
    m: 0 <= m < {m}
    n: 0 <= n < {n}
    k: 0 <= k < {k}
  bits_per_value: {{All: 16}}
  einsums:
  - name: Matmul
    tensor_accesses:
    - {{name: A, projection: [m, k]}}
    - {{name: B, projection: [k, n]}}
    - {{name: Z, projection: [m, n], output: true}}
"""


def _mapping(*nodes: str) -> str:
    return "mapping:\n  nodes:\n" + "".join(f"  - {node}\n" for node in nodes)


ALL = "!Storage {tensors: [A, B, Z], component: %s}"

ACCELFORGE = {
    # Hand count (GlobalBuffer): A and Z change with every m tile (2 x 96, 2 x 64 written
    # back); B stays whole over both m tiles: 96 (keep), 192 when refetched.
    "gemm-os": (ROOT / "examples" / "peers" / "accelforge-gemm.yaml").read_text(),
    # Hand count: k outermost in 3 tiles of 4, then m in 2 tiles of 4: each of the 6 buffer
    # tiles holds a 4x8 block of Z; tiles after the first k tile read back the 2 x 32 partial
    # sums written before: fills(Z) = 2 x 2 x 32 = 128, writebacks(Z) = 6 x 32 = 192.
    "gemm-k-outer": GEMM_ARCH
    + _gemm_workload(8, 8, 12)
    + _mapping(
        ALL % "MainMemory",
        "!Temporal {rank_variable: k, tile_shape: 4}",
        "!Temporal {rank_variable: m, tile_shape: 4}",
        ALL % "GlobalBuffer",
        "!Spatial {rank_variable: m, tile_shape: 1, name: rows, component: PE}",
        "!Temporal {rank_variable: n, tile_shape: 1}",
        "!Storage {tensors: [Z], component: Register}",
        "!Temporal {rank_variable: k, tile_shape: 1}",
        "!Compute {einsum: Matmul, component: MAC}",
    ),
    # Weights stay in each PE's register while m runs below them: fills(Register, B) = |B|.
    "gemm-ws": GEMM_ARCH
    + _gemm_workload(8, 8, 6)
    + _mapping(
        ALL % "MainMemory",
        ALL % "GlobalBuffer",
        "!Spatial {rank_variable: n, tile_shape: 2, name: rows, component: PE}",
        "!Temporal {rank_variable: n, tile_shape: 1}",
        "!Temporal {rank_variable: k, tile_shape: 1}",
        "!Storage {tensors: [B], component: Register}",
        "!Temporal {rank_variable: m, tile_shape: 1}",
        "!Compute {einsum: Matmul, component: MAC}",
    ),
    # m = 10 in tiles of 4: the last buffer tile holds 2 rows.
    "gemm-partial": GEMM_ARCH
    + _gemm_workload(10, 8, 6)
    + _mapping(
        ALL % "MainMemory",
        "!Temporal {rank_variable: m, tile_shape: 4}",
        ALL % "GlobalBuffer",
        "!Spatial {rank_variable: m, tile_shape: 1, name: rows, component: PE}",
        "!Temporal {rank_variable: n, tile_shape: 1}",
        "!Storage {tensors: [Z], component: Register}",
        "!Temporal {rank_variable: k, tile_shape: 1}",
        "!Compute {einsum: Matmul, component: MAC}",
    ),
    "conv3x3": (ROOT / "tests" / "peers" / "accelforge-conv.yaml").read_text(),
    # Output rows p outermost: consecutive buffer tiles of the input overlap in 2 of 3 rows.
    "conv-halo": (ROOT / "tests" / "peers" / "accelforge-conv.yaml")
    .read_text()
    .replace(
        "  - !Temporal {rank_variable: k, tile_shape: 2}\n",
        "  - !Temporal {rank_variable: p, tile_shape: 1}\n",
    )
    .replace(
        "  - !Spatial {rank_variable: k, tile_shape: 1, name: cols, component: PE}\n"
        "  - !Temporal {rank_variable: p, tile_shape: 1}\n",
        "  - !Spatial {rank_variable: k, tile_shape: 2, name: cols, component: PE}\n"
        "  - !Temporal {rank_variable: k, tile_shape: 1}\n",
    ),
}

ZIGZAG_MAPPING = """- name: default
  spatial_mapping:
    D1:
      - {spatial}
  temporal_ordering:
{loops}
  memory_operand_links: {{O: O, W: I2, I: I1}}
"""


def _zz_mapping(spatial: str, *loops: tuple[str, int]) -> str:
    text = "\n".join(f"    - [{d}, {s}]" for d, s in loops)
    return ZIGZAG_MAPPING.format(spatial=spatial, loops=text)


def _zz_gemm(m: int, n: int, k: int) -> str:
    return (
        (ROOT / "examples" / "peers" / "zigzag-gemm-workload.yaml")
        .read_text()
        .replace("loop_sizes: [16, 8, 12]", f"loop_sizes: [{m}, {n}, {k}]")
    )


ZZ_ACCEL = (ROOT / "examples" / "peers" / "zigzag-accelerator.yaml").read_text()
ZIGZAG = {
    "gemm-os": (
        _zz_gemm(16, 8, 12),
        ZZ_ACCEL,
        (ROOT / "examples" / "peers" / "zigzag-gemm-mapping.yaml").read_text(),
    ),
    # An 8-element register and a 96-element buffer: the reduction's outer loop (k, 3 trips)
    # stays in DRAM, and the partial sums of O go back to it between k tiles.
    "gemm-k-outer": (
        _zz_gemm(8, 8, 12),
        ZZ_ACCEL.replace("size: 16384", "size: 1536").replace("size: 256", "size: 128"),
        _zz_mapping("M, 4", ("K", 4), ("N", 8), ("M", 2), ("K", 3)),
    ),
    "gemm-ws": (
        _zz_gemm(8, 8, 6),
        ZZ_ACCEL,
        _zz_mapping("N, 4", ("M", 8), ("K", 6), ("N", 2)),
    ),
    "conv3x3": tuple(
        (ROOT / "tests" / "peers" / name).read_text()
        for name in (
            "zigzag-conv-workload.yaml",
            "../../examples/peers/zigzag-accelerator.yaml",
            "zigzag-conv-mapping.yaml",
        )
    ),
}


def _oracle_check(imported: Imported, rows: Comparison) -> str:
    """Compare tenet's figures of the differing rows with the brute-force walk of the tiles
    (each tensor alone, on the levels that keep it)."""
    work = WorkloadSpec.from_mapping(imported.workload)
    arch = ArchitectureSpec.from_mapping(imported.architecture)
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
        flow = DataflowSpec.from_mapping({**imported.dataflow, "tiles": tiles, "places": {}})
        flow = flow.model_copy(update={"tensors": (row.tensor,)})
        figures, _ = reference_memory(work, arch_t, flow)
        ref = figures[(row.level, row.tensor)]
        if (ref.fills, ref.writebacks) != (row.fills, row.writebacks):
            return f"ORACLE MISMATCH at {row.level}/{row.tensor}: {ref}"
        checked += 1
    return f"oracle agrees on {checked} differing row(s)" if checked else "all equal"


def _print(name: str, peer: str, rows: Comparison, note: str, seconds: float) -> None:
    print(f"\n{peer} / {name}  (tenet {seconds:.2f} s CPU; {note})")
    print(
        f"  {'level':<13}{'tensor':<7}{'reads':>7}{'peer':>7}{'writes':>7}{'peer':>7}"
        f"{'fills':>7}{'peer':>7}{'wback':>7}{'peer':>7}  reason"
    )
    for r in rows:
        reason = "; ".join(dict.fromkeys(x for x in (r.reason_accesses, r.reason) if x))
        print(
            f"  {r.level:<13}{r.tensor:<7}{r.reads:>7}{r.reads_peer:>7}{r.writes:>7}"
            f"{r.writes_peer:>7}{r.fills:>7}{r.fills_peer:>7}{r.writebacks:>7}"
            f"{r.writebacks_peer:>7}  {reason or 'equal'}"
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
