"""Round trips through AccelForge and ZigZag (tests marked ``peers``: ``make test-peers``).

From the peer's files: imported, evaluated by tenet, every per-level, per-tensor read and
write beside the peer's own count is equal or has its reason, tenet's differing fills and
writebacks equal the brute-force walk of the tiles, and the energies agree once the peer's
rules for what differs (partial-sum reads, refetches) are applied. The other way: exported,
loaded and evaluated by the peer, whose figures equal its own on the original files. The
expected figures are the peers' own runs on the original files.

The peers' own search bests (``*-search-*``) are full-size layers, too large for the
brute-force walk: each whose fills or writebacks differ from the peer's has a scaled-down
copy (``<name>-small``: the same loops, spatial mapping and places with smaller loop bounds)
that differs from the peer on the same rows for the same reasons, and whose own round trip
walks the tiles."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from math import prod
from pathlib import Path

import pytest

from tenet import load_specs
from tenet.mapping import tensor_tiles
from tenet.metrics.memory import evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.peers import ACCELFORGE_UNITS, ZIGZAG_UNITS
from tenet.peers.accelforge import read_accelforge, write_accelforge
from tenet.peers.compare import (
    Comparison,
    compare_accelforge,
    compare_zigzag,
    run_accelforge,
    run_zigzag,
    tenet_figures,
)
from tenet.peers.files import dump, read_peer_yaml, write_specs
from tenet.peers.specs import Imported
from tenet.peers.zigzag import read_zigzag, write_zigzag

pytestmark = pytest.mark.peers

MAPPINGS = Path(__file__).parent / "mappings"
ACCELFORGE = sorted(p.stem.removeprefix("accelforge-") for p in MAPPINGS.glob("accelforge-*"))
ZIGZAG = sorted(
    p.stem.removeprefix("zigzag-").removesuffix("-mapping")
    for p in MAPPINGS.glob("zigzag-*-mapping*")
)


def _zigzag_files(name: str) -> list[str]:
    return [
        str(MAPPINGS / f"zigzag-{name}-{part}.yaml")
        for part in ("workload", "accelerator", "mapping")
    ]


ORACLE_POINTS = 100_000
"""The largest iteration space (instances) whose tiles these tests walk by brute force."""


@cache
def _accelforge_rows(python: str, spec: str) -> Comparison:
    return compare_accelforge(python, spec)


@cache
def _zigzag_rows(python: str, *files: str) -> Comparison:
    return compare_zigzag(python, *files)


def _differing(rows: Comparison) -> set[tuple[str, str, str, str]]:
    """The rows that differ from the peer's and their reasons, without the figures."""

    def words(reason: str) -> str:
        return re.sub(r" \(\d+\)", "", reason)

    return {
        (r.level, r.tensor, words(r.reason), words(r.reason_accesses))
        for r in rows
        if (r.reads, r.writes, r.fills, r.writebacks)
        != (r.reads_peer, r.writes_peer, r.fills_peer, r.writebacks_peer)
    }


def _check_rows(
    imported: Imported, rows: Comparison, small: Callable[[], Comparison] | None = None
) -> None:
    """Every row equal or with its reason; the differing fills and writebacks of tenet equal
    the brute-force walk of the tiles (each tensor alone, on the levels that keep it). On a
    mapping too large for the walk, the scaled-down copy's rows (``small``) differ on the same
    rows for the same reasons (its own round trip walks them)."""
    work, arch = imported.specs.workload, imported.specs.architecture
    for row in rows:
        if (row.reads, row.writes) != (row.reads_peer, row.writes_peer):
            assert row.reason_accesses, row
        if (row.fills, row.writebacks) != (row.fills_peer, row.writebacks_peer):
            assert row.reason, row
    walked = [r for r in rows if (r.fills, r.writebacks) != (r.fills_peer, r.writebacks_peer)]
    if walked and prod(loop.size for _, loop in imported.nest.loops()) > ORACLE_POINTS:
        assert small is not None, "too large for the brute-force walk: no scaled-down copy"
        assert _differing(small()) == _differing(rows)
        return
    for row in walked:
        kept = [lv.level for lv in imported.nest.levels if lv.keep is None or row.tensor in lv.keep]
        arch_t = arch.model_copy(
            update={"levels": tuple(lv for lv in arch.levels if lv.name in kept)}
        )
        tiles = {k: v for k, v in tensor_tiles(imported.nest, row.tensor).items() if k in kept}
        flow = imported.specs.require_dataflow().model_copy(
            update={"tiles": tiles, "places": {}, "tensors": (row.tensor,)}
        )
        figures, _ = reference_memory(work, arch_t, flow)
        ref = figures[(row.level, row.tensor)]
        assert (ref.fills, ref.writebacks) == (row.fills, row.writebacks), row


def _small(
    rows: Callable[..., Comparison], python: str, *files: Path
) -> Callable[[], Comparison] | None:
    """The rows of the scaled-down copy of a mapping, if it has one."""
    if not all(f.exists() for f in files):
        return None
    return lambda: rows(python, *map(str, files))


def _eval_equals_nest(imported: Imported) -> None:
    """``tenet eval`` of the imported specs (each tensor at its own place) counts what the
    comparison counts."""
    records = {(r.level, r.tensor): r for r in evaluate_memory(imported.problem).records}
    for key, r in tenet_figures(imported).items():
        assert (records[key].fills, records[key].writebacks) == (r.fills, r.writebacks), key


@pytest.mark.parametrize("name", ACCELFORGE)
def test_roundtrip_accelforge_files(name: str, peers_python: str) -> None:
    spec = str(MAPPINGS / f"accelforge-{name}.yaml")
    imported = read_accelforge(spec)
    rows = _accelforge_rows(peers_python, spec)
    small = MAPPINGS / f"accelforge-{name}-small.yaml"
    _check_rows(imported, rows, _small(_accelforge_rows, peers_python, small))
    _eval_equals_nest(imported)
    # Under AccelForge's rules (refetch, a read of the partial sum before every MAC but the
    # first), tenet's counts give AccelForge's own total energy.
    assert rows.energy_refetch is not None
    assert rows.energy_refetch + rows.energy_sums == pytest.approx(rows.energy_peer, rel=1e-3)


def _elements(path: str, actions: dict[str, dict[str, dict[str, float]]]) -> dict[str, float]:
    from tenet.peers.compare import _widths

    per, width = _widths(read_peer_yaml(path), path)
    return {
        f"{level}.{tensor}.{action}": n * per[level] / width
        for level, tensors in actions.items()
        for tensor, counts in tensors.items()
        for action, n in counts.items()
        if n
    }


@pytest.mark.parametrize("name", ACCELFORGE)
def test_roundtrip_accelforge_export(name: str, peers_python: str, tmp_path: Path) -> None:
    spec = str(MAPPINGS / f"accelforge-{name}.yaml")
    imported = read_accelforge(spec)
    write_specs(tmp_path / "specs", imported.documents())
    specs = load_specs(
        *(str(tmp_path / "specs" / f"{k}.yaml") for k in ("workload", "architecture", "dataflow"))
    )
    exported = tmp_path / "exported.yaml"
    exported.write_text(ACCELFORGE_UNITS + dump(write_accelforge(specs)))
    original, again = (
        run_accelforge(peers_python, spec),
        run_accelforge(peers_python, str(exported)),
    )
    assert _elements(str(exported), again["actions"]) == _elements(spec, original["actions"])
    assert again["energy"] == pytest.approx(original["energy"], rel=1e-3)
    back = read_accelforge(exported)
    assert {k: (r.fills, r.writebacks) for k, r in tenet_figures(back).items()} == {
        k: (r.fills, r.writebacks) for k, r in tenet_figures(imported).items()
    }


@pytest.mark.parametrize("name", ZIGZAG)
def test_roundtrip_zigzag_files(name: str, peers_python: str) -> None:
    files = _zigzag_files(name)
    rows = _zigzag_rows(peers_python, *files)
    small = map(Path, _zigzag_files(f"{name}-small"))
    imported = read_zigzag(*files)
    _check_rows(imported, rows, _small(_zigzag_rows, peers_python, *small))
    _eval_equals_nest(imported)
    # The search bests' ports move one element per bandwidth_min word (tenet's export): where
    # tenet's reads and writes differ only by the partial sums and an operand kept at the MAC,
    # ZigZag's total is tenet's counts with every MAC's partial-sum read and ZigZag's reads of
    # the kept operand, at the per-element energies.
    kept = "the peer keeps the operand at the MAC"
    if name.startswith("search-") and all(
        (r.reads, r.writes) == (r.reads_peer, r.writes_peer)
        or r.reason_accesses.startswith(kept)
        or r.reason_accesses.startswith("the peer reads the partial sum")
        and r.reason_accesses.count(";") == 1
        for r in rows
    ):
        energy = {lv.name: lv.energy_read for lv in imported.specs.architecture.levels}
        at_mac = sum(
            (r.reads_peer - r.reads) * energy[r.level]
            for r in rows
            if r.reason_accesses.startswith(kept)
        )
        assert rows.energy + rows.energy_sums + at_mac == pytest.approx(rows.energy_peer, rel=1e-3)


@pytest.mark.parametrize("name", ZIGZAG)
def test_roundtrip_zigzag_export(name: str, peers_python: str, tmp_path: Path) -> None:
    files = _zigzag_files(name)
    imported = read_zigzag(*files)
    write_specs(tmp_path / "specs", imported.documents())
    specs = load_specs(
        *(str(tmp_path / "specs" / f"{k}.yaml") for k in ("workload", "architecture", "dataflow"))
    )
    write_specs(tmp_path / "zz", write_zigzag(specs), ZIGZAG_UNITS)
    exported = [str(tmp_path / "zz" / f"{k}.yaml") for k in ("workload", "accelerator", "mapping")]
    original, again = run_zigzag(peers_python, *files), run_zigzag(peers_python, *exported)
    assert (again["levels"], again["loops"], again["moves"]) == (
        original["levels"],
        original["loops"],
        original["moves"],
    )
    # The export's ports move one element per bandwidth_min word: ZigZag's energy is then
    # tenet's counts at the per-element energies, where the counts agree.
    rows = compare_zigzag(peers_python, *exported)
    sums_only = all(
        (r.reads, r.writes) == (r.reads_peer, r.writes_peer)
        or r.reason_accesses.startswith("the peer reads the partial sum")
        and ";" not in r.reason_accesses
        for r in rows
    )
    if sums_only:
        assert rows.energy + rows.energy_sums == pytest.approx(rows.energy_peer, rel=1e-3)


def test_roundtrip_tenet_best_to_accelforge(peers_python: str, tmp_path: Path) -> None:
    specs = load_specs(
        "gemm", "simba", str(MAPPINGS / "tenet-gemm-best.yaml"), {"M": 8, "N": 8, "K": 8}
    )
    exported = tmp_path / "best.yaml"
    exported.write_text(ACCELFORGE_UNITS + dump(write_accelforge(specs)))
    rows = compare_accelforge(peers_python, str(exported))
    _check_rows(read_accelforge(exported), rows)
    assert rows.energy_refetch is not None
    assert rows.energy_refetch + rows.energy_sums == pytest.approx(rows.energy_peer, rel=1e-3)


def test_roundtrip_tenet_best_to_zigzag(peers_python: str, tmp_path: Path) -> None:
    specs = load_specs(
        "gemm", "simba", str(MAPPINGS / "tenet-gemm-best.yaml"), {"M": 8, "N": 8, "K": 8}
    )
    write_specs(tmp_path, write_zigzag(specs), ZIGZAG_UNITS)
    files = [str(tmp_path / f"{k}.yaml") for k in ("workload", "accelerator", "mapping")]
    rows = compare_zigzag(peers_python, *files)
    _check_rows(read_zigzag(*files), rows)
    assert {r.level for r in rows} == {"dram", "glb", "pe_buffer"}
