"""AccelForge runs the chains tenet writes, fused and unfused, and the files of
tests/data/accelforge: its main memory's reads and writes per tensor (summed over the
Einsums) equal tenet's counts of the same mapping. Marked ``peers``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenet.model.chain import Chain
from tenet.peers.accelforge_chain import (
    main_memory_traffic,
    peer_main_memory,
    read_accelforge_chain,
    write_accelforge_chain,
)
from tenet.peers.files import dump

from .chain_cases import CASES, DATA

pytestmark = pytest.mark.peers


def _moved(traffic: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """The tensors that pass through main memory (AccelForge lists no other)."""
    return {t: rw for t, rw in traffic.items() if rw != (0, 0)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_accelforge_main_memory_equals_tenet(case: str, peers_python: str, tmp_path: Path) -> None:
    spec, nests = CASES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(dump(write_accelforge_chain(Chain.from_spec(spec), nests)))
    peer = _moved(peer_main_memory(peers_python, path))
    assert peer == _moved(main_memory_traffic(spec, nests))


@pytest.mark.parametrize("name", ["matmuls-fused", "matmuls-unfused"])
def test_accelforge_main_memory_of_the_files(name: str, peers_python: str) -> None:
    path = DATA / f"{name}.yaml"
    imported = read_accelforge_chain(path)
    peer = _moved(peer_main_memory(peers_python, path))
    assert peer == _moved(main_memory_traffic(imported.spec, imported.nests))
