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
