"""A statement's own loops under the fused tile (sub-tiles of its streamed tensors): exact
counts against hand derivations on two matrix multiplies, and against the literal simulator
(tenet.oracle.fusion) on the zoo's chains and random small chains with random sub-tiles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tenet.dse.fusion import evaluate_chain, fused_dataflow_text, search_fusion
from tenet.errors import InfeasibleError, NotALoopNestError, SpecError
from tenet.mapping.fusion import FusedNest, load_nests, nests_document
from tenet.metrics.fusion import FusedCounts, assess_fusion
from tenet.model.chain import Chain
from tenet.peers.accelforge_chain import write_accelforge_chain
from tenet.spec.chain import ChainSpec, load_chain
from tenet.testing.chain_strategies import FusedCase, fused_cases
from tenet.vocab import Halo
from tests.conftest import ROOT
from tests.metrics.fused_figures import both


def _matmul(n: int, subtiles: dict[str, dict[str, int]], t: int | None = None) -> FusedCounts:
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": n, "K": n, "N": n, "P": n})
    return assess_fusion(chain, FusedNest({"S1": ("m",)}, (t or n,), subtiles=subtiles))


def _figures(counts: FusedCounts) -> dict[str, tuple[int, int, int, tuple[int, ...]]]:
    return {
        name: (t.dram_reads, t.dram_writes, t.fills, t.footprints)
        for name, t in counts.tensors.items()
    }


def test_subtiles_matmul_over_k_and_n() -> None:
    # M = K = N = P = 4, one fused tile (all rows m): C (4 x 4) lives whole in the tile.
    # S0 over k by 1: sub-tile k holds A[:, k] and B[k, :] (4 + 4), each read once: 16 each.
    # S1 over n by 1: sub-tile n holds D[n, :] (4) and all of E (16): E's 16 partial sums are
    # written back at each of the 4 sub-tiles' ends (64) and read back at the 3 after the
    # first (48); each of the 4 fills it again (64).
    counts = _matmul(4, {"S0": {"k": 1}, "S1": {"n": 1}})
    assert _figures(counts) == {
        "A": (16, 0, 16, (4,)),
        "B": (16, 0, 16, (4,)),
        "C": (0, 0, 16, (16,)),
        "D": (16, 0, 16, (4,)),
        "E": (48, 64, 64, (16,)),
    }
    assert {t: c.held for t, c in counts.tensors.items()} == {
        "A": "sub-tiled",
        "B": "sub-tiled",
        "C": "live",
        "D": "sub-tiled",
        "E": "sub-tiled",
    }
    # Need: C through the tile (16) + the larger of S0's sub-tile (4 + 4) and S1's (4 + 16).
    assert counts.subtile_needs == {"S0": (8,), "S1": (20,)}
    assert counts.needs == (16 + 20,)


def test_subtiles_matmul_over_k_and_p() -> None:
    # S1 over p by 1 instead: sub-tile p holds D[:, p] (4) and E[:, p] (4), whole sums: E is
    # written once (16) and never read back. Need: 16 + max(4 + 4, 4 + 4) = 24.
    counts = _matmul(4, {"S0": {"k": 1}, "S1": {"p": 1}})
    assert _figures(counts)["E"] == (0, 16, 16, (4,))
    assert _figures(counts)["D"] == (16, 0, 16, (4,))
    assert counts.need == 24


def test_subtiles_refetch_under_a_loop_not_indexing() -> None:
    # S0 over k by 2 and n by 1 (k outer, the domain's order is m, n, k: n outer, k inner).
    # Sub-tile (n, k') holds A[:, 2k', 2k' + 1] (4 x 2 = 8) and B[2k'..2k'+1, n] (2): A is
    # fetched again for every n (4 x 16 = 64), B once (16). Need: 16 + max(10, S1 whole:
    # D 16 + E 16 = 32) = 48 with S1 sub-tiled by nothing (one sub-tile of its tile).
    counts = _matmul(4, {"S0": {"k": 2, "n": 1}, "S1": {}})
    assert _figures(counts)["A"] == (64, 0, 64, (8,))
    assert _figures(counts)["B"] == (16, 0, 16, (2,))
    assert counts.subtile_needs == {"S0": (10,), "S1": (32,)}
    assert counts.need == 48


def test_subtiles_with_several_tiles() -> None:
    # Tiles of 2 rows m (2 tiles); S0 over k by 1: sub-tile holds A[2 rows, k] (2) and B[k, :]
    # (4): B is read again in the second tile (2 x 16 = 32). C: 2 rows (8) per tile; S1 not
    # sub-tiled: D (16) and E's 2 rows (8) through the tile. Need 8 + 16 + 8 + max(6) = 38.
    counts = _matmul(4, {"S0": {"k": 1}}, t=2)
    assert _figures(counts)["A"] == (16, 0, 16, (2, 2))
    assert _figures(counts)["B"] == (32, 0, 32, (4, 4))
    assert counts.needs == (38, 38)


def test_subtiles_matmul_256_fits() -> None:
    # M = K = N = P = 256, one fused tile, S0 over k by 1, S1 over p by 1: every input and
    # E cross once: 4 x 65536 = 262144. Need: C (65536) + max(A column + B row, D column + E
    # column) = 65536 + 512 = 66048, within 110592.
    counts = _matmul(256, {"S0": {"k": 1}, "S1": {"p": 1}})
    moved = sum(t.dram_reads + t.dram_writes for t in counts.tensors.values())
    assert moved == 4 * 256 * 256
    assert counts.need == 256 * 256 + 2 * 256


@pytest.mark.parametrize(
    "subtiles",
    [
        {"S0": {"k": 1}, "S1": {"n": 1}},
        {"S0": {"n": 2, "k": 1}, "S1": {"p": 1}},
        {"S1": {"n": 2, "p": 1}},
        {"S0": {}},
    ],
)
@pytest.mark.parametrize("resident", [frozenset(), frozenset({"B"})])
def test_subtiles_oracle_matmul(
    subtiles: dict[str, dict[str, int]], resident: frozenset[str]
) -> None:
    sizes = {"M": 4, "K": 2, "N": 4, "P": 2}
    case = FusedCase(load_chain("matmul-matmul"), {"S1": ("m",)}, (2,), "keep", resident)
    exact, walked = both(case, sizes, subtiles)
    assert exact == walked


@pytest.mark.parametrize("halo", ["keep", "recompute"])
def test_subtiles_oracle_conv_conv(halo: Halo) -> None:
    sizes = {"CI": 1, "C": 2, "K": 2, "H": 4, "W": 2}
    spec = load_chain("conv-conv")
    subtiles = {"S0": {"ry": 1}, "S1": {"k": 1, "c": 1}}
    exact, walked = both(
        FusedCase(spec, {"S1": ("y",)}, (2,), halo, frozenset({"F"})), sizes, subtiles
    )
    assert exact == walked


@settings(max_examples=40, deadline=None)
@given(fused_cases(), st.data())
def test_subtiles_oracle_random_chains(case: Any, data: st.DataObject) -> None:
    chain = Chain.from_spec(case.chain)
    subtiles: dict[str, dict[str, int]] = {}
    for statement in chain.statements:
        if not data.draw(st.booleans()):
            continue
        sizes = {}
        for k, rank in enumerate(statement.ranks):
            extent = statement.domain.dim_max_val(k).to_python() + 1
            divisors = [d for d in range(1, extent + 1) if extent % d == 0]
            if data.draw(st.booleans()):
                sizes[rank] = data.draw(st.sampled_from(divisors))
        subtiles[statement.name] = sizes
    exact, walked = both(case, None, subtiles)
    assert exact == walked


@pytest.mark.parametrize(
    ("subtiles", "message"),
    [
        ({"S9": {"k": 1}}, r"^subtiles: no statement 'S9' in the chain \(known: S0, S1\)"),
        ({"S0": {"p": 1}}, r"^subtiles\.S0\.p: S0 has no rank 'p' \(its ranks: m, n, k\)"),
        (
            {"S0": {"k": 3}},
            r"^subtiles\.S0\.k: sub-tile size 3 of S0's rank k: expected a divisor of its "
            "extent 4",
        ),
        ({"S0": {"k": 0}}, r"sub-tile size 0 of S0's rank k: expected a divisor"),
    ],
)
def test_subtiles_refused(subtiles: dict[str, dict[str, int]], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        _matmul(4, subtiles)


def test_subtiles_refused_for_part_of_a_tensor_s_readers() -> None:
    # A is read by both statements, as a user writes the chain
    text = """
    name: shared
    statements:
      - {name: S0, domain: "{S0[i]: 0 <= i < 2}",
         accesses: {A: {read: "{S0[i] -> A[i]}"}, B: {write: "{S0[i] -> B[i]}"}}}
      - {name: S1, domain: "{S1[i]: 0 <= i < 2}",
         accesses: {A: {read: "{S1[i] -> A[i]}"}, B: {read: "{S1[i] -> B[i]}"},
                    C: {write: "{S1[i] -> C[i]}"}}}
    """
    spec = ChainSpec.from_mapping(yaml.safe_load(text))
    nest = FusedNest({"S1": ("i",)}, (1,), subtiles={"S0": {"i": 1}})
    with pytest.raises(SpecError, match=r"A is streamed to S0, S1, sub-tiled in S0 only"):
        assess_fusion(Chain.from_spec(spec), nest)
    resident = FusedNest({"S1": ("i",)}, (1,), resident=frozenset("A"), subtiles={"S0": {"i": 1}})
    assess_fusion(Chain.from_spec(spec), resident)


def test_subtiles_file_evaluates_and_round_trips(tmp_path: Path) -> None:
    # examples/fused/matmul-matmul-subtiles.yaml at the zoo's size 64: one tile, S0 over k,
    # S1 over p by 1: A, B, D read once and E written once (4 x 4096); the buffer holds C
    # (4096) and the larger sub-tile (a column of A and a row of B: 128).
    example = ROOT / "examples" / "fused" / "matmul-matmul-subtiles.yaml"
    figures = evaluate_chain("matmul-matmul", str(example))
    headline = figures.headline()
    assert (headline["dram_reads"], headline["dram_writes"]) == (3 * 4096, 4096)
    assert (headline["need"], headline["capacity"], headline["fits"]) == (4096 + 128, 4224, True)
    saved = tmp_path / "saved.yaml"
    saved.write_text(fused_dataflow_text(figures))
    assert evaluate_chain("matmul-matmul", str(saved)).headline() == headline


def test_subtiles_in_a_nests_file(tmp_path: Path) -> None:
    nest = FusedNest({"S1": ("m",)}, (4,), subtiles={"S0": {"k": 1}, "S1": {"p": 2}})
    path = tmp_path / "nests.yaml"
    path.write_text(yaml.safe_dump(nests_document([nest])))
    assert load_nests(path) == (nest,)
    path.write_text(path.read_text().replace("p: 2", "p: two"))
    with pytest.raises(SpecError, match=r"nests\.0\.subtiles\.S1: expected rank: size"):
        load_nests(path)
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 4, "K": 4, "N": 4, "P": 4})
    with pytest.raises(NotALoopNestError, match="S0, S1 sub-tiled under the fused tile"):
        write_accelforge_chain(chain, [nest])


def test_search_fuses_with_subtiles_where_a_whole_tile_does_not_fit() -> None:
    # M = K = N = P = 2 on 8 elements. Fused without sub-tiles, the least need is 14 (m by 1:
    # a row of A, C and E, 2 each, with B and D whole, 4 each). Fused in one tile with S0
    # over k by 1 and S1 over p by 1 it is 4 (C) + 2 + 2: A, B, D read and E written once,
    # 4 x 4 = 16, the least any mapping moves; unfused, C adds 4 out and 4 back.
    chain = Chain.from_spec(load_chain("matmul-matmul"), {"M": 2, "K": 2, "N": 2, "P": 2})
    found = search_fusion(chain, "dram", capacity=8)
    assert found.value == 16 and found.best.need <= 8
    (group,) = found.best.groups.groups
    assert group.statements == ("S0", "S1") and group.nest.subtiles
    with pytest.raises(InfeasibleError):
        search_fusion(chain, "dram", capacity=8, split=(("S0", "S1"),), subtiles=False)
