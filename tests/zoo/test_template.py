"""Templates: arguments, presets, array-size adaptation, and every malformed template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import tenet
from tenet.errors import SpecError
from tenet.spec import (
    ConstraintsSpec,
    DataflowSpec,
    NetworkSpec,
    load_constraints,
    load_dataflow,
    load_workload,
)
from tenet.spec.template import instantiate, read_entry, split_arguments
from tests.conftest import ROOT

DATAFLOW = """\
# A test dataflow.
version: 1
template:
  params:
    rows: {default: 4, min: 1, max: 64, array_dim: 0}
    cols: {default: 2, choices: [1, 2, 4], array_dim: 1}
space_stamp: "{S[i, j] -> PE[i % ${rows}, j % ${cols}]}"
time_stamp: "{S[i, j] -> T[floor(i / ${rows}), floor(j / ${cols})]}"
"""


def _write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_template_defaults_arguments_and_name(tmp_path: Path) -> None:
    path = _write(tmp_path, DATAFLOW)
    assert load_dataflow(path).space_stamp == "{S[i, j] -> PE[i % 4, j % 2]}"
    spec = load_dataflow(f"{path}:rows=8,cols=4")
    assert spec.space_stamp == "{S[i, j] -> PE[i % 8, j % 4]}"
    assert spec.name == "t:rows=8,cols=4"
    assert load_dataflow(path, rows=3).name == "t:rows=3"


def test_template_dataflow_adapts_to_the_array() -> None:
    spec = tenet.dataflow("gemm-os-systolic", "systolic-2d-16x16")
    assert spec.space_stamp == "{S[i, j, k] -> PE[i % 16, j % 16]}"
    # An argument wins over the array's extent.
    assert (
        "PE[i % 16, j % 4]"
        in tenet.dataflow("gemm-os-systolic", "systolic-2d-16x16", cols=4).space_stamp
    )
    # GEMM 16³ on 16x16 PEs, output stationary: every PE holds one C[i, j].
    metrics = tenet.analyze(
        "gemm", "systolic-2d-16x16", "gemm-os-systolic", params={"M": 16, "N": 16, "K": 16}
    )
    assert metrics.active_pes == 256


def test_template_gemm_os_systolic_default_is_8x8() -> None:
    problem = tenet.load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic")
    assert problem.dataflow.name == "gemm-os-systolic"
    assert tenet.dataflow("gemm-os-systolic", rows=8, cols=8).name == "gemm-os-systolic"


def test_template_presets_and_family_names() -> None:
    assert tenet.architecture("systolic-2d").name == "systolic-2d-8x8"
    assert tenet.architecture("systolic-2d", rows=16, cols=16).name == "systolic-2d-16x16"
    assert tenet.architecture("systolic-2d:rows=4,cols=32").name == "systolic-2d:rows=4,cols=32"
    assert tenet.architecture("systolic-2d-16x64").l2_size == 110592
    assert tenet.workload("conv2d-dilated").name == "conv2d-dilated"


def test_template_workload_stride_and_dilation() -> None:
    read = load_workload("conv2d:stride=2,dilation=3").accesses["I"].read[0]
    assert "I[c, 2 * ox + 3 * rx, 2 * oy + 3 * ry]" in read


def test_template_cli_names_with_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from tenet.cli import main

    with pytest.raises(SystemExit) as stop:
        main(
            ["eval", "-w", "conv2d:stride=2", "-a", "systolic-2d:rows=4,cols=4",
             "-d", "conv2d-os", "-p", "K=2", "-p", "C=2", "-p", "OX=4", "-p", "OY=4",
             "-p", "RX=3", "-p", "RY=3", "--format", "json"]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert stop.value.code == 0
    # 2*2*4*4*3*3 = 576 MACs; the 4x4 output tile fills the 4x4 array.
    assert '"macs": 576' in out and '"active_pes": 16' in out


def test_template_split_arguments_leaves_plain_names() -> None:
    assert split_arguments("a:b") == ("a:b", {})
    assert split_arguments("gemm") == ("gemm", {})


def test_template_unknown_argument(tmp_path: Path) -> None:
    path = _write(tmp_path, DATAFLOW)
    with pytest.raises(SpecError, match=r"unknown template parameter 'row'.*did you mean 'rows'"):
        load_dataflow(path, row=8)


def test_template_argument_out_of_bounds(tmp_path: Path) -> None:
    path = _write(tmp_path, DATAFLOW)
    with pytest.raises(SpecError, match=r"rows=0 is below the minimum 1"):
        load_dataflow(path, rows=0)
    with pytest.raises(SpecError, match=r"rows=65 is above the maximum 64"):
        load_dataflow(path, rows=65)
    with pytest.raises(SpecError, match=r"cols=3 is not one of 1, 2, 4"):
        load_dataflow(path, cols=3)


def test_template_argument_not_an_integer(tmp_path: Path) -> None:
    path = _write(tmp_path, DATAFLOW)
    with pytest.raises(SpecError, match=r"template argument 'rows=x' is not NAME=INTEGER"):
        load_dataflow(f"{path}:rows=x")
    with pytest.raises(SpecError, match=r"takes an integer, got '8'"):
        load_dataflow(path, rows="8")  # type: ignore[arg-type]


def test_template_undeclared_placeholder(tmp_path: Path) -> None:
    path = _write(tmp_path, DATAFLOW.replace('% ${cols}]}"\ntime', '% ${colz}]}"\ntime'))
    with pytest.raises(SpecError, match=r"space_stamp: placeholder \$\{colz\} is not a declared"):
        load_dataflow(path)


def test_template_unused_parameter(tmp_path: Path) -> None:
    text = DATAFLOW.replace("    cols:", "    depth: {default: 1}\n    cols:")
    with pytest.raises(SpecError, match=r"template.params.depth: .*declared but never used"):
        load_dataflow(_write(tmp_path, text))


def test_template_malformed_section(tmp_path: Path) -> None:
    text = DATAFLOW.replace("default: 4, min: 1", "default: 0, min: 1")
    with pytest.raises(SpecError, match=r"invalid template section: params.rows: .*below"):
        load_dataflow(_write(tmp_path, text))
    bad_preset = DATAFLOW.replace("space_stamp", "  presets:\n    big: {rows: 99}\nspace_stamp")
    with pytest.raises(SpecError, match=r"template.presets.big: rows=99 is above the maximum"):
        load_dataflow(_write(tmp_path, bad_preset, "p.yaml"))


def test_template_array_dim_missing_on_the_architecture() -> None:
    with pytest.raises(SpecError, match=r"parameter cols takes the extent of PE index 1"):
        tenet.load_problem("gemm", "systolic-1d-64", "gemm-os-systolic")


def test_template_array_dim_outside_a_dataflow(tmp_path: Path) -> None:
    text = "version: 1\ntemplate:\n  params:\n    n: {default: 2, array_dim: 0}\n"
    text += 'pe: "{PE[i]: 0 <= i < ${n}}"\n'
    with pytest.raises(
        SpecError, match=r"template.params.n: array_dim is meaningful in a dataflow"
    ):
        tenet.architecture(str(_write(tmp_path, text)))


def test_template_fits_outside_a_dataflow(tmp_path: Path) -> None:
    text = "version: 1\nfits: {workloads: [gemm], architectures: [mesh4]}\n"
    text += 'domain: "{S[i]: 0 <= i < 2}"\naccesses: {A: {read: "{S[i] -> A[i]}"}}\n'
    with pytest.raises(SpecError, match=r"fits: only a dataflow may state 'fits'"):
        load_workload(_write(tmp_path, text))


def test_template_arguments_on_a_tenet_text_file(tenet_data: Path) -> None:
    with pytest.raises(SpecError, match=r"template arguments need a YAML dataflow"):
        load_dataflow(f"{tenet_data / 'mapping' / 'conv2d_os.m'}:rows=4")


def test_template_arguments_on_a_spec_object() -> None:
    spec = tenet.dataflow("gemm-os-systolic")
    with pytest.raises(SpecError, match=r"template arguments need a dataflow name or file"):
        load_dataflow(spec, rows=4)


def test_template_unknown_zoo_name_lists_presets() -> None:
    with pytest.raises(
        SpecError, match=r"no architecture named 'systolic-2d-9x9'.*systolic-2d-8x8"
    ):
        tenet.architecture("systolic-2d-9x9")


def test_template_documented_examples_load(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "specs.md").read_text()
    blocks = re.findall(r"```yml\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 3
    dataflow = instantiate(read_entry(_write(tmp_path, blocks[0], "d.yaml")), DataflowSpec)
    assert dataflow.space_stamp == "{S[i, j, k] -> PE[i % 8, j % 8]}"
    network = NetworkSpec.from_mapping(yaml.safe_load(blocks[1]))
    assert [layer.count for layer in network.layers] == [1, 2, 1]
    constraints = ConstraintsSpec.from_mapping(yaml.safe_load(blocks[2]))
    zoo = load_constraints(ROOT / "workloads" / "constraints" / "gemm-levels.yaml")
    assert constraints.model_dump() == zoo.model_dump()
