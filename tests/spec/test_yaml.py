"""The YAML forms: documented examples load, and YAML and TENET text give the same problem."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tenet import analyze, analyze_experiment
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.spec.chain import ChainSpec
from tenet.spec.fused import FusedSpec
from tests.conftest import ROOT

KINDS = {
    "statements": ChainSpec,
    "domain": WorkloadSpec,
    "pe": ArchitectureSpec,
    "space_stamp": DataflowSpec,
    "groups": FusedSpec,
}


def _doc_examples() -> list[str]:
    text = (ROOT / "docs" / "specs.md").read_text()
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("block", _doc_examples())
def test_yaml_documented_examples_load(block: str) -> None:
    data = yaml.safe_load(block)
    kind = next(model for key, model in KINDS.items() if key in data)
    assert kind.from_mapping(data).name == data["name"]


def test_yaml_zoo_gemm_equals_tenet_text_experiment(tenet_data: Path) -> None:
    # experiment_11: matmul 256³, output-stationary systolic mapping, systolic.p.
    text = analyze_experiment(tenet_data / "reuse_factor_experiment/experiment/experiment_11")
    zoo = analyze(
        "gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": 256, "N": 256, "K": 256}
    )
    assert zoo.original.to_dict() == text.original.to_dict()
    assert zoo.to_dict() | {"name": ""} == text.to_dict() | {"name": ""}


def test_yaml_keys_and_lines_are_remembered(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("name: d\n\nspace_stamp: '{S[i] -> PE[i]}'\ntime_stamp: '{S[i] -> T[0]}'\n")
    spec = DataflowSpec.from_yaml(path)
    assert spec.where("time_stamp") == "time_stamp (line 4)"
    assert spec.source == str(path)
