"""``tenet zoo`` and ``tenet eval-network``: listings, the per-layer table, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.zoo import entries
from tests.conftest import run


@pytest.mark.parametrize(
    ("kind", "plural"),
    [
        ("architecture", "archs"),
        ("workload", "workloads"),
        ("dataflow", "dataflows"),
        ("network", "networks"),
    ],
)
def test_cli_zoo_lists_every_entry(
    capsys: pytest.CaptureFixture[str], kind: str, plural: str
) -> None:
    code, out, _ = run(capsys, "zoo", plural)
    names = {line.split()[0] for line in out.splitlines()[1:]}
    assert code == 0
    assert names == {e.name for e in entries(kind)}  # type: ignore[arg-type]


def test_cli_zoo_dataflows_say_what_they_fit(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "zoo", "dataflows")
    line = next(x for x in out.splitlines() if x.startswith("gemm-os-systolic "))
    assert "rows=8,cols=8" in line and "gemm on systolic-2d," in line


def test_cli_eval_network_prints_layers_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "eval-network", "alexnet", "--arch", "systolic-2d-16x16", "-d", "conv2d-os"
    )
    lines = out.splitlines()
    assert code == 0 and lines[0] == "alexnet on systolic-2d-16x16"
    assert lines[1].split()[:2] == ["layer", "workload"]
    assert [line.split()[0] for line in lines[2:]] == [
        "conv1", "conv2", "conv3", "conv4", "conv5", "fc6", "fc7", "fc8", "total"
    ]  # fmt: skip
    # Total MACs of AlexNet (see test_zoo_alexnet_multiply_adds): 724,406,816.
    assert lines[-1].split()[1:3] == ["8", "724406816"]


def test_cli_eval_network_json_and_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "als.json"
    args = ["eval-network", "als", "-a", "systolic-2d-8x8", "-d", "mttkrp-ij-systolic"]
    code, _, _ = run(capsys, *args, "--format", "json", "-o", str(target))
    payload = json.loads(target.read_text())
    assert code == 0 and [layer["name"] for layer in payload["layers"]][0] == "mttkrp_mode1"
    # 3 * 24 * 256³ MACs.
    assert payload["total"]["macs"] == 3 * 24 * 256**3
    code, out, _ = run(capsys, *args, "--format", "csv")
    assert code == 0 and out.splitlines()[0].startswith("layer,workload,dataflow,count,macs")


def test_cli_eval_network_without_a_fitting_dataflow(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "eval-network", "bert-base", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic"
    )
    assert code == 2
    assert "layer qkv_projection: none of the dataflows gemm-os-systolic" in err


def test_cli_eval_network_unknown_network(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "eval-network", "resnet51", "-a", "mesh4", "-d", "conv2d-os")
    assert code == 2 and "no network named 'resnet51' in the zoo" in err
