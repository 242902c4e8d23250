"""AccelForge's fused mapper on a chain, without the peer: the spec it is given is tenet's
fused model of the architecture, and a best of the shapes its mapper returns (a buffer's
storage under an Einsum's own loops, a nested ``!Sequential``, no shared loop) is put in the
form tenet reads, main memory's traffic unchanged (by hand and by the simulator). With the
peers (marked ``peers``): the mapper runs on a small three-matrix chain; AccelForge's main
memory traffic is the same before and after the rewrite and equals tenet's count, and
``tenet map``'s best energy is at most AccelForge's best counted by tenet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenet.dse.fusion import search_fusion
from tenet.errors import NotALoopNestError
from tenet.metrics.fused_chain import FusionCosts
from tenet.model.chain import Chain
from tenet.oracle.fusion import walk_fusion
from tenet.peers.accelforge_chain import (
    ImportedChain,
    main_memory_traffic,
    peer_main_memory,
    read_accelforge_chain,
)
from tenet.peers.chain_mapper import accelforge_chain_spec, fused_form, search_accelforge_chain
from tenet.peers.compare import PeerError
from tenet.peers.files import dump, read_peer_yaml

from .chain_cases import MM, MM3

COSTS = FusionCosts("glb", 64, 200.0, 210.0, 6.0, 7.0, 1.0, "MAC", 4)


def _storage(component: str, *tensors: str) -> dict[str, Any]:
    return {"kind": "Storage", "tensors": list(tensors), "component": component}


def _loop(variable: str, tile: int = 1) -> dict[str, Any]:
    return {"kind": "Temporal", "rank_variable": variable, "tile_shape": tile}


def _compute(einsum: str) -> dict[str, Any]:
    return {"kind": "Compute", "einsum": einsum, "component": "MAC"}


def _branches(*branches: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Sequential", "nodes": [{"kind": "Nested", "nodes": b} for b in branches]}


def _read(chain: Chain, nodes: list[dict[str, Any]], tmp_path: Path) -> ImportedChain:
    """The best ``nodes`` on ``chain`` put in tenet's form, written and read back."""
    best = {**accelforge_chain_spec(chain, COSTS), "mapping": {"nodes": nodes}}
    path = tmp_path / "fused.yaml"
    path.write_text(dump(fused_form(best)))
    return read_accelforge_chain(path)


def _walked(imported: ImportedChain) -> dict[str, tuple[int, int]]:
    """The simulator's DRAM reads and writes of a fused import, per tensor."""
    (nest,) = imported.nests
    walk = walk_fusion(imported.spec, {}, nest.ranks, nest.tiles, resident=nest.resident)
    return {t: (w.dram_reads, w.dram_writes) for t, w in walk.tensors.items()}


def test_spec_is_the_costs_architecture() -> None:
    chain = Chain.from_spec(MM)
    memory, buffer, mac = accelforge_chain_spec(chain, COSTS)["arch"]["nodes"]
    energies = [(a["name"], a["energy"], a["bits_per_action"]) for a in memory["actions"]]
    assert energies == [("read", 200.0, 8), ("write", 210.0, 8)]
    assert memory["tensors"] == {"keep": "~Intermediates", "may_keep": "All"}
    assert [a["energy"] for a in buffer["actions"]] == [6.0, 7.0]
    # 64 elements of 8 bits; the buffer keeps every tensor, as tenet's fused buffer does.
    assert (buffer["name"], buffer["size"], buffer["tensors"]) == ("glb", 512, {"keep": "All"})
    assert mac["actions"][0]["energy"] == 1.0


def test_intermediate_whole_in_the_buffer_reads_as_one_fused_tile(tmp_path: Path) -> None:
    # MM: A 4 x 3, B 3 x 2, C 4 x 2, D 2 x 2, E 4 x 2. AccelForge's shape of best: C kept
    # whole in the buffer, each Einsum streaming its operands under its own loops.
    chain = Chain.from_spec(MM)
    nodes = [
        _storage("glb", "C"),
        _branches(
            [_storage("MainMemory", "A", "B"), _loop("k"), _storage("glb", "A"), _loop("n")]
            + [_storage("glb", "B"), _loop("m"), _compute("S0")],
            [_storage("MainMemory", "D", "E"), _loop("p"), _storage("glb", "D"), _loop("m")]
            + [_storage("glb", "E"), _loop("n"), _compute("S1")],
        ),
    ]
    imported = _read(chain, nodes, tmp_path)
    (nest,) = imported.nests
    # One tile over m (its whole 4 rows), every tensor streamed in it.
    assert imported.fused and nest.tiles == (4,) and nest.resident == frozenset()
    traffic = main_memory_traffic(imported.spec, imported.nests)
    # Every input read once (A 12, B 6, D 4), E written once (8), C never leaves the buffer.
    assert traffic == {"A": (12, 0), "B": (6, 0), "C": (0, 0), "D": (4, 0), "E": (0, 8)}
    assert traffic == _walked(imported)


def test_nested_sequential_opens_into_branches(tmp_path: Path) -> None:
    # MM3 (A 4 x 2, W0 2 x 3, W1 3 x 2, W2 2 x 2): S0 and S1 fused over rows of B under a
    # loop of their own, C whole in the buffer, S2 after them.
    chain = Chain.from_spec(MM3)
    inner = [_storage("MainMemory", "A", "W0", "W1"), _storage("glb", "A", "W0", "W1")]
    inner += [_loop("m"), _storage("glb", "B")]
    inner.append(
        _branches(
            [_loop("k"), _loop("n"), _compute("S0")], [_loop("n"), _loop("p"), _compute("S1")]
        )
    )
    last = [_storage("MainMemory", "W2", "D"), _storage("glb", "W2", "D"), _loop("m")]
    last += [_loop("p"), _loop("q"), _compute("S2")]
    nodes = [_storage("glb", "C"), _branches(inner, last)]
    imported = _read(chain, nodes, tmp_path)
    (nest,) = imported.nests
    assert nest.ranks == {"S0": ("m",), "S1": ("m",), "S2": ("m",)} and nest.tiles == (4,)
    # One tile under the loop added above every storage: each input streamed in it, read
    # once; D written once; B and C stay in the buffer.
    assert nest.resident == frozenset()
    traffic = _walked(imported)
    assert traffic == {
        "A": (8, 0),
        "W0": (6, 0),
        "B": (0, 0),
        "W1": (6, 0),
        "C": (0, 0),
        "W2": (4, 0),
        "D": (0, 8),
    }


def test_unfused_branch_storage_lifted_to_its_first(tmp_path: Path) -> None:
    # C through main memory. S0 tiled over m by 2 rows; B under its own loop over k (B's
    # subscript), lifted to A's storage: per tile of m, B read whole (6), twice in all.
    chain = Chain.from_spec(MM)
    nodes = [
        _storage("MainMemory", "A", "B", "C", "D", "E"),
        _branches(
            [_loop("m", 2), _storage("glb", "A", "C"), _loop("k"), _storage("glb", "B")]
            + [_loop("n"), _loop("m"), _compute("S0")],
            [_storage("glb", "C", "D", "E"), _loop("m"), _loop("p"), _loop("n"), _compute("S1")],
        ),
    ]
    imported = _read(chain, nodes, tmp_path)
    assert not imported.fused
    assert [(n.ranks, n.tiles) for n in imported.nests] == [
        ({"S0": ("m",)}, (2,)),
        ({"S1": ()}, ()),
    ]
    # A 12 once; B 6 per tile of 2 rows, 2 tiles; C 8 written and read back; D 4; E 8.
    assert main_memory_traffic(imported.spec, imported.nests) == {
        "A": (12, 0),
        "B": (12, 0),
        "C": (8, 8),
        "D": (4, 0),
        "E": (0, 8),
    }


def test_storage_under_a_loop_it_does_not_index_is_refused() -> None:
    chain = Chain.from_spec(MM)
    nodes = [
        _storage("glb", "C"),
        _branches(
            [_storage("MainMemory", "A", "B"), _loop("m"), _storage("glb", "A", "B")]
            + [_loop("k"), _loop("n"), _compute("S0")],
            [_storage("MainMemory", "D", "E"), _storage("glb", "D", "E")]
            + [_loop("m"), _loop("p"), _loop("n"), _compute("S1")],
        ),
    ]
    best = {**accelforge_chain_spec(chain, COSTS), "mapping": {"nodes": nodes}}
    # B[k, n] refetched for every row m: moved above m it would be read once.
    with pytest.raises(NotALoopNestError, match=r"nodes\.1\.nodes\.0\.nodes\.2: B .* over m"):
        fused_form(best)


def test_no_peer_python_says_how_to_give_it() -> None:
    with pytest.raises(PeerError, match="TENET_PEERS_PYTHON"):
        search_accelforge_chain(None, Chain.from_spec(MM), COSTS)


@pytest.mark.peers
def test_fused_mapper_best_counted_by_tenet(peers_python: str, tmp_path: Path) -> None:
    chain = Chain.from_spec(MM3, {"M": 8, "K": 8, "N": 8, "P": 8, "Q": 8})
    costs = FusionCosts("glb", 512, 200.0, 200.0, 6.0, 6.0, 1.0, "MAC", 64)
    found = search_accelforge_chain(peers_python, chain, costs, objective="energy")
    assert found.figures is not None and found.imported is not None, found.reason
    for name, text in found.files.items():
        (tmp_path / name).write_text(text)
    opened = read_peer_yaml(tmp_path / "fused.yaml")
    opened["arch"]["nodes"][1]["size"] = "inf"  # AccelForge refuses a buffer over its size
    (tmp_path / "opened.yaml").write_text(dump(opened))
    before = peer_main_memory(peers_python, tmp_path / "best.yaml")
    assert peer_main_memory(peers_python, tmp_path / "opened.yaml") == before
    tenet = {t: (f["dram_reads"], f["dram_writes"]) for t, f in found.figures.tensors().items()}
    assert {t: rw for t, rw in tenet.items() if rw != (0, 0)} == before
    best = search_fusion(chain, "energy", costs).best
    assert best.energy is not None and found.figures.energy is not None
    assert best.energy <= found.figures.energy
