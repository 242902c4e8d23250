"""The fused dataflow file of a chain: loading, and its errors naming the file and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet.errors import SpecError, UnknownTensorError
from tenet.spec.chain import load_chain
from tenet.spec.fused import group_chain, load_fused
from tests.conftest import ROOT


def _checked(tmp_path: Path, groups: list[dict[str, Any]], chain: str = "conv-conv") -> None:
    path = tmp_path / "fused.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "groups": groups}))
    load_fused(path).check_chain(load_chain(chain))


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "fused").glob("*.yaml")))
def test_examples_load_and_fit_their_chain(path: Path) -> None:
    spec = load_fused(path)
    assert spec.chain is not None
    spec.check_chain(load_chain(spec.chain))


@pytest.mark.parametrize(
    ("groups", "words"),
    [
        ([{"statements": ["S0", "S9"], "tiles": {"y": 2}}], ["groups.0.statements.1", "'S9'"]),
        ([{"statements": ["S1", "S0"], "tiles": {"y": 2}}], ["groups", "in order: S0, S1"]),
        ([{"statements": ["S1"], "tiles": {"y": 2}}], ["groups", "once, in order"]),
        ([{"statements": ["S0", "S1"], "tiles": {"q": 2}}], ["groups.0.tiles.q", "no rank 'q'"]),
        ([{"statements": ["S0", "S1"], "tiles": {}}], ["groups.0.tiles", "no tile size"]),
        (
            [{"statements": ["S0", "S1"], "tiles": {"y": 2}, "ranks": {"S0": ["z"]}}],
            ["groups.0.ranks.S0", "ranks (c, y, x, i, ry, rx)"],
        ),
        (
            [{"statements": ["S0", "S1"], "tiles": {"y": 2}, "ranks": {"S1": ["x"]}}],
            ["groups.0.ranks.S1", "those of tiles (y)"],
        ),
        (
            [{"statements": ["S0", "S1"], "tiles": {"y": 2}, "resident": ["T"]}],
            ["groups.0.resident.0", "T is an intermediate"],
        ),
    ],
)
def test_errors_name_the_field(
    tmp_path: Path, groups: list[dict[str, Any]], words: list[str]
) -> None:
    with pytest.raises(SpecError) as error:
        _checked(tmp_path, groups)
    assert str(tmp_path / "fused.yaml") in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_unknown_resident_tensor(tmp_path: Path) -> None:
    with pytest.raises(
        UnknownTensorError, match=r"groups\.0\.resident\.0.*'W'.*known: F, G, I, O, T"
    ):
        _checked(tmp_path, [{"statements": ["S0", "S1"], "tiles": {"y": 1}, "resident": ["W"]}])
    with pytest.raises(UnknownTensorError, match="'G'"):  # S0's group reads no G
        _checked(
            tmp_path,
            [
                {"statements": ["S0"], "tiles": {"y": 1}, "resident": ["G"]},
                {"statements": ["S1"], "tiles": {"y": 1}},
            ],
        )


@pytest.mark.parametrize("size", [0, -2])
def test_non_positive_tile_is_refused_on_loading(tmp_path: Path, size: int) -> None:
    path = tmp_path / "fused.yaml"
    path.write_text(f"groups:\n  - statements: [S0, S1]\n    tiles: {{y: {size}}}\n")
    with pytest.raises(SpecError, match=r"line 3.*groups\.0\.tiles\.y.*greater than 0"):
        load_fused(path)


def test_group_chain_sends_what_later_groups_read_through_dram() -> None:
    """T of conv-conv is the first group's output and the second's input."""
    chain = load_chain("conv-conv")
    first, second = group_chain(chain, ("S0",)), group_chain(chain, ("S1",))
    assert (first.inputs, first.final) == (("I", "F"), ("T",))
    assert (second.inputs, second.final) == (("T", "G"), ("O",))


@pytest.mark.parametrize(
    ("subtiles", "words"),
    [
        ({"S2": {"k": 1}}, ["groups.0.subtiles.S2", "S2 is not in the group (S0, S1)"]),
        ({"S0": {"p": 1}}, ["groups.0.subtiles.S0.p", "S0 has no rank 'p' (its ranks: m, n, k)"]),
        (
            {"S0": {"k": 3}},
            [
                "groups.0.subtiles.S0.k",
                "sub-tile size 3 of S0's rank k: expected a divisor of its extent 64",
            ],
        ),
    ],
)
def test_subtile_errors_name_the_field(
    tmp_path: Path, subtiles: dict[str, Any], words: list[str]
) -> None:
    group = {"statements": ["S0", "S1"], "tiles": {"m": 64}, "subtiles": subtiles}
    with pytest.raises(SpecError) as error:
        _checked(tmp_path, [group], "matmul-matmul")
    assert str(tmp_path / "fused.yaml") in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_subtile_size_checked_at_the_chain_s_sizes(tmp_path: Path) -> None:
    path = tmp_path / "fused.yaml"
    group = {"statements": ["S0", "S1"], "tiles": {"m": 4}, "subtiles": {"S0": {"k": 2}}}
    path.write_text(yaml.safe_dump({"version": 1, "groups": [group]}))
    load_fused(path).check_chain(load_chain("matmul-matmul"), {"K": 4})
    with pytest.raises(SpecError, match="expected a divisor of its extent 3"):
        load_fused(path).check_chain(load_chain("matmul-matmul"), {"K": 3})


@pytest.mark.parametrize("size", [0, -1])
def test_non_positive_subtile_is_refused_on_loading(tmp_path: Path, size: int) -> None:
    path = tmp_path / "fused.yaml"
    path.write_text(
        "groups:\n  - statements: [S0, S1]\n    tiles: {m: 4}\n"
        f"    subtiles: {{S0: {{k: {size}}}}}\n"
    )
    with pytest.raises(SpecError, match=r"groups\.0\.subtiles\.S0\.k.*greater than 0"):
        load_fused(path)
