"""AccelForge's specs of several Einsums in and out, without the peer: the files of
tests/data/accelforge read into a chain and its nests, whose main-memory traffic equals the
oracle's walk and the figures derived by hand; every case written and read back to the
same nests; what the fused model does not express refused, naming the node."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenet.cli import cli
from tenet.errors import CapacityError, NotALoopNestError
from tenet.mapping.fusion import FusedNest, load_nests, nests_document
from tenet.model.chain import Chain
from tenet.oracle.fusion import walk_fusion
from tenet.peers.accelforge_chain import (
    main_memory_traffic,
    read_accelforge_chain,
    write_accelforge_chain,
)
from tenet.peers.files import dump
from tenet.spec.chain import ChainSpec

from .chain_cases import CASES, DATA


def _oracle(
    spec: ChainSpec, nests: list[FusedNest] | tuple[FusedNest, ...]
) -> dict[str, tuple[int, int]]:
    """Main-memory traffic per tensor by the oracle's walk: the chain fused, or statement
    by statement."""
    groups = (
        [(spec, nests[0])]
        if len(nests) == 1
        else [
            (
                ChainSpec.from_mapping(
                    {
                        "name": n,
                        "params": spec.params,
                        "statements": [
                            s.model_dump() for s in spec.statements if s.name in nest.ranks
                        ],
                    }
                ),
                nest,
            )
            for nest in nests
            for n in nest.ranks
        ]
    )
    traffic: dict[str, tuple[int, int]] = {}
    for chain, nest in groups:
        walk = walk_fusion(
            chain, {}, nest.ranks, nest.tiles, halo=nest.halo, resident=nest.resident
        )
        for tensor, seen in walk.tensors.items():
            r, w = traffic.get(tensor, (0, 0))
            traffic[tensor] = (r + seen.dram_reads, w + seen.dram_writes)
    return {t: traffic[t] for t in spec.tensors}


def _places(nests: Sequence[FusedNest]) -> list[dict[str, tuple[str, ...]]]:
    """Each nest's fused ranks, a renamed rank's suffix (the statement's place) dropped."""
    return [
        {n: tuple(re.sub(r"\d+$", "", r) for r in rs) for n, rs in nest.ranks.items()}
        for nest in nests
    ]


def test_fused_file_reads_as_one_nest_and_counts_by_hand() -> None:
    imported = read_accelforge_chain(DATA / "matmuls-fused.yaml")
    assert imported.fused and imported.width == 8
    (nest,) = imported.nests
    assert nest.ranks == {"First": ("m",), "Second": ("m",)} and nest.tiles == (1,)
    assert nest.resident == {"W0", "W1"} and (nest.level, nest.capacity) == ("GlobalBuffer", 64)
    traffic = main_memory_traffic(imported.spec, imported.nests)
    # X (4 x 3) streamed row by row, each row once: 12; the weights once: 3 x 2 and 2 x 3;
    # Y stays in the buffer; Z (4 x 3) written row by row, once each.
    assert traffic == {"X": (12, 0), "W0": (6, 0), "Y": (0, 0), "W1": (6, 0), "Z": (0, 12)}
    assert traffic == _oracle(imported.spec, imported.nests)


def test_unfused_file_reads_as_one_nest_per_statement() -> None:
    imported = read_accelforge_chain(DATA / "matmuls-unfused.yaml")
    assert not imported.fused
    assert [n.ranks for n in imported.nests] == [{"E0": ()}, {"E1": ("m",)}, {"E2": ("q",)}]
    traffic = main_memory_traffic(imported.spec, imported.nests)
    # Every tensor once through main memory: A 4 x 2, W0 2 x 3, B 4 x 3 written by E0 and
    # read by E1, W1 3 x 2, C 4 x 2, W2 2 x 2 (one column per tile of q, each once), D 4 x 2.
    assert traffic == {
        "A": (8, 0),
        "W0": (6, 0),
        "B": (12, 12),
        "W1": (6, 0),
        "C": (8, 8),
        "W2": (4, 0),
        "D": (0, 8),
    }
    assert traffic == _oracle(imported.spec, imported.nests)


@pytest.mark.parametrize("case", sorted(CASES))
def test_written_and_read_back(case: str, tmp_path: Path) -> None:
    spec, nests = CASES[case]
    path = tmp_path / "spec.yaml"
    path.write_text(dump(write_accelforge_chain(Chain.from_spec(spec), nests)))
    back = read_accelforge_chain(path)
    assert back.fused == (len(nests) == 1)
    # AccelForge has one range per rank variable: a rank may come back renamed (y1 for a y
    # of another extent).
    assert _places(back.nests) == _places(nests)
    assert [(n.tiles, n.resident) for n in back.nests] == [(n.tiles, n.resident) for n in nests]
    traffic = main_memory_traffic(spec, nests)
    assert main_memory_traffic(back.spec, back.nests) == traffic == _oracle(spec, nests)


def test_an_overflowing_group_is_refused(tmp_path: Path) -> None:
    # One row per tile: X 3, Y 2, Z 3 and the whole weights 6 + 6, 20 elements at once.
    text = (DATA / "matmuls-fused.yaml").read_text().replace("64 * 8", "19 * 8")
    path = tmp_path / "small.yaml"
    path.write_text(text)
    imported = read_accelforge_chain(path)
    message = "buffer GlobalBuffer needs 20 elements in tile Tile[0] but holds 19"
    with pytest.raises(CapacityError, match=message.replace("[", r"\[").replace("]", r"\]")):
        main_memory_traffic(imported.spec, imported.nests)


_SECOND = "      - !Storage {tensors: [Y, Z], component: GlobalBuffer}\n      - !Temporal"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "  - !Storage {tensors: [X, W0, W1, Z], component: MainMemory}",
            "  - !Storage {tensors: [X, W0, W1, Y, Z], component: MainMemory}",
            "mapping.nodes.2: a loop shared by every Einsum while the intermediates go to main",
        ),
        (
            "  - !Temporal {rank_variable: m, tile_shape: 1}\n  - !Sequential",
            "  - !Temporal {rank_variable: k, tile_shape: 1}\n  - !Sequential",
            "mapping.nodes.2: the fused loop over k is not a rank of Second",
        ),
        (
            "  - !Temporal {rank_variable: m, tile_shape: 1}\n  - !Sequential",
            "  - !Temporal {rank_variable: m, tile_shape: 1, initial_tile_shape: 2}\n"
            "  - !Sequential",
            "mapping.nodes.2: a first tile of 2 and then 1",
        ),
        (
            "      - !Storage {tensors: [X, Y], component: GlobalBuffer}",
            "      - !Storage {tensors: [Y], component: GlobalBuffer}",
            "First has no storage of X at GlobalBuffer",
        ),
        (
            _SECOND,
            "      - !Temporal {rank_variable: p, tile_shape: 1}\n" + _SECOND,
            "mapping.nodes.3.nodes.1.nodes.0: a loop of Second alone above its storage",
        ),
    ],
)
def test_what_the_fused_model_does_not_express_is_refused(
    old: str, new: str, message: str, tmp_path: Path
) -> None:
    text = (DATA / "matmuls-fused.yaml").read_text()
    assert old in text
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(NotALoopNestError, match=message) as caught:
        read_accelforge_chain(path)
    assert "\n" not in str(caught.value)


def test_a_derived_producer_is_not_written() -> None:
    spec, _ = CASES["pd-fused"]
    with pytest.raises(NotALoopNestError, match="S0 not in the fused ranks"):
        write_accelforge_chain(Chain.from_spec(spec), [FusedNest({"S1": ("y",)}, (1,))])


def test_nests_file_round_trip(tmp_path: Path) -> None:
    _, nests = CASES["mm3-unfused"]
    path = tmp_path / "fusion.yaml"
    path.write_text(dump(nests_document(nests)))
    assert load_nests(path) == tuple(nests)


def test_command_line_import_then_export(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "imported"
    result = runner.invoke(
        cli, ["import", "accelforge", str(DATA / "matmuls-fused.yaml"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    spec = tmp_path / "again.yaml"
    args = [
        "export",
        "accelforge",
        "--chain",
        str(out / "chain.yaml"),
        "--fusion",
        str(out / "fusion.yaml"),
        "-o",
        str(spec),
    ]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    back = read_accelforge_chain(spec)
    first = read_accelforge_chain(DATA / "matmuls-fused.yaml")
    assert back.nests == first.nests
    assert main_memory_traffic(back.spec, back.nests) == main_memory_traffic(
        first.spec, first.nests
    )


def test_command_line_refuses_an_overflowing_import(tmp_path: Path) -> None:
    path = tmp_path / "small.yaml"
    path.write_text((DATA / "matmuls-fused.yaml").read_text().replace("64 * 8", "19 * 8"))
    result = CliRunner().invoke(cli, ["import", "accelforge", str(path), "-o", str(tmp_path / "x")])
    assert isinstance(result.exception, CapacityError)
    assert "buffer GlobalBuffer needs 20 elements" in str(result.exception)
