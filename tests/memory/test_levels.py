"""Memory levels in the architecture spec: loading, defaults and errors naming file and path."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from tenet.cli import cli
from tenet.errors import SpecError
from tenet.model import Architecture
from tenet.model.hierarchy import IMPLIED_DRAM, memory_levels
from tenet.spec import ArchitectureSpec, load_architecture
from tests.memory import HERE, LINE4, gemm_tiled_on


def _write(tmp_path: Path, levels: str) -> str:
    path = tmp_path / "arch.yaml"
    path.write_text(f'name: a\npe: "{{PE[i]: 0 <= i < 2}}"\nlevels:\n{levels}')
    return str(path)


def test_levels_loaded_in_order() -> None:
    levels = memory_levels(load_architecture(LINE4))
    assert [v.name for v in levels] == ["dram", "glb", "rf"]
    assert [v.feeds_array for v in levels] == [False, True, False]
    assert levels[2].per_pe and levels[1].read_bandwidth == Fraction(4)


def test_levels_capacity_in_bytes() -> None:
    spec = ArchitectureSpec.from_mapping(
        {
            "name": "a",
            "pe": "{PE[i]: i = 0}",
            "bits_per_element": 8,
            "levels": [
                {"name": "dram"},
                {"name": "glb", "capacity_bytes": 1024},
                {"name": "acc", "capacity_bytes": 1024, "bits_per_element": 32},
            ],
        }
    )
    assert [v.capacity for v in memory_levels(spec)] == [None, 1024, 256]


def test_levels_fractional_bandwidth_is_exact() -> None:
    spec = ArchitectureSpec.from_mapping(
        {"name": "a", "pe": "{PE[i]: i = 0}", "levels": [{"name": "dram", "read_bandwidth": 0.1}]}
    )
    assert memory_levels(spec)[0].read_bandwidth == Fraction(1, 10)


@pytest.mark.parametrize("name", ["systolic-2d-8x8", "eyeriss", "mesh4"])
def test_levels_default_to_one_dram(name: str) -> None:
    spec = load_architecture(name)
    if not spec.levels:
        assert memory_levels(spec) == (IMPLIED_DRAM,)


def test_levels_tenet_pe_array_keeps_working(tmp_path: Path) -> None:
    path = tmp_path / "pe.p"
    path.write_text("{PE[i,j]: 0<=i<2 and 0<=j<2}\n{PE[i,j]->PE[i+1,j]}\n256 1024 64 2\n")
    arch = Architecture.from_spec(load_architecture(str(path)), {})
    assert arch.levels == (IMPLIED_DRAM,)


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        (
            "  - {name: dram}\n  - {name: dram}\n",
            r"arch\.yaml: levels\.1\.name \(line 5\): .*listed twice",
        ),
        (
            "  - {name: dram}\n  - {name: glb, capacity: 4, capacity_bytes: 8}\n",
            r"arch\.yaml: levels\.1\.capacity_bytes \(line 5\): .*not both",
        ),
        ("  - {name: dram}\n  - {name: glb, capacity_bytes: 1}\n", "holds no element of 16 bits"),
        ("  - {name: dram, per_pe: true}\n", r"levels\.0\.per_pe \(line 4\): the outermost level"),
        (
            "  - {name: dram}\n  - {name: rf, per_pe: true}\n  - {name: glb}\n",
            r"levels\.2\.per_pe.*cannot sit inside",
        ),
        (
            "  - {name: dram, feeds_array: true}\n  - {name: glb, feeds_array: true}\n",
            r"levels\.1\.feeds_array \(line 5\): only one level",
        ),
        (
            "  - {name: dram}\n  - {name: rf, per_pe: true, feeds_array: true}\n",
            r"levels\.1\.feeds_array \(line 5\): .*shared",
        ),
        (
            "  - {name: dram}\n  - {name: glb, split: {A: -1}}\n",
            r"levels\.1\.split\.A \(line 5\): capacity of A must be >= 0",
        ),
    ],
    ids=[
        "duplicate",
        "both-capacities",
        "too-few-bytes",
        "per-pe-outermost",
        "shared-inside-per-pe",
        "two-feed-the-array",
        "per-pe-feeds-array",
        "negative-split",
    ],
)
def test_levels_error_names_file_and_field(tmp_path: Path, levels: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        memory_levels(load_architecture(_write(tmp_path, levels)))


def test_levels_error_bad_field(tmp_path: Path) -> None:
    path = _write(tmp_path, "  - {name: dram, capacity: -3}\n")
    with pytest.raises(SpecError, match=r"arch\.yaml: .*levels\.0\.capacity"):
        load_architecture(path)


def test_levels_in_eval_json() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            *gemm_tiled_on(LINE4),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    keys = {"level", "tensor", "footprint", "fills", "writebacks", "capacity", "fits"}
    assert all(keys <= set(row) for row in data["levels"])
    glb_a = next(r for r in data["levels"] if (r["level"], r["tensor"]) == ("glb", "A"))
    # the hand-derived tiled GEMM of test_memory: 32 fills of A into the global buffer.
    assert glb_a["fills"] == 32
    assert data["memory"]["bottleneck"] == "dram"


def test_levels_capacity_violation_in_eval_legality(tmp_path: Path) -> None:
    arch = (HERE / "line4.yaml").read_text().replace("capacity: 12", "capacity: 11")
    (tmp_path / "small.yaml").write_text(arch)
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            *gemm_tiled_on(str(tmp_path / "small.yaml")),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "capacity: tile glb[" in result.output
