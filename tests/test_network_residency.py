"""A network's outputs kept on chip between layers: the spec's ``input`` and its refusals,
``tenet eval-network`` and ``tenet map -n`` with ``--residency`` and ``--no-residency``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet.dse import LayerEntry, kept_between, map_layers, network_entries
from tenet.errors import SpecError
from tenet.networks import evaluate_network
from tenet.spec import NetworkSpec, load_network
from tests.conftest import run

ARCH = "systolic-levels-8x8"
FC1 = {"name": "fc1", "workload": "gemm", "params": {"M": 4, "N": 6, "K": 8}}
FC2 = {"name": "fc2", "workload": "gemm", "params": {"M": 4, "N": 5, "K": 6}}
EDGE = {"from": "fc1", "tensor": "A"}


def _network(*layers: dict[str, Any]) -> NetworkSpec:
    return NetworkSpec.from_mapping({"name": "two", "layers": list(layers)})


@pytest.mark.parametrize(
    ("layers", "message"),
    [
        ([FC1, {**FC2, "input": {"from": "fc0", "tensor": "A"}}], "'fc0' is not a layer"),
        ([{**FC1, "input": {"from": "fc2", "tensor": "A"}}, FC2], "it is first"),
        (
            [FC1, FC2, {**FC2, "name": "fc3", "input": EDGE}],
            "does not run just before it (the layer just before is 'fc2')",
        ),
        ([FC1, {**FC2, "count": 2, "input": EDGE}], "both need the same count"),
        ([FC1, {**FC2, "input": {"form": "fc1", "tensor": "A"}}], "unknown key"),
    ],
)
def test_an_input_from_elsewhere_than_the_layer_before_is_refused(
    layers: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(SpecError, match="invalid network spec") as error:
        _network(*layers)
    assert message in str(error.value)


def test_the_input_is_written_back_as_given(tmp_path: Path) -> None:
    net = _network(FC1, {**FC2, "input": EDGE})
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(net.document()))
    assert load_network(path).layers[1].input == net.layers[1].input
    assert net.document()["layers"][1]["input"] == EDGE


def test_the_zoo_networks_name_their_inputs() -> None:
    resnet = load_network("resnet50")
    edges = [(layer.input.producer, layer.name) for layer in resnet.layers if layer.input]
    assert len(edges) == 16 and ("conv2_1a", "conv2_1b") in edges
    assert ("conv5_2b", "conv5_2c") in edges
    bert = load_network("bert-base")
    assert [layer.input.producer for layer in bert.layers if layer.input] == [
        "attention_scores",
        "attention_output",
        "feed_forward_1",
    ]


def test_a_network_without_inputs_is_as_before() -> None:
    net = _network(FC1, FC2)
    on = evaluate_network(net, ARCH, ["gemm-os-systolic"])
    off = evaluate_network(net, ARCH, ["gemm-os-systolic"], residency=False)
    assert on == off and on.edges == () and on.dram_saved == 0
    with_edge = evaluate_network(
        _network(FC1, {**FC2, "input": EDGE}), ARCH, ["gemm-os-systolic"], residency=False
    )
    assert [r.headline for r in with_edge.layers] == [r.headline for r in off.layers]


def test_eval_network_keeps_the_output_on_chip(capsys: pytest.CaptureFixture[str]) -> None:
    net = _network(FC1, {**FC2, "input": EDGE})
    result = evaluate_network(net, ARCH, ["gemm-os-systolic"])
    # Untiled, the buffer holds every tensor whole: fc1 (4 x 6 x 8) reads A (32) and B
    # (48) and writes C (24) back; fc2 (4 x 5 x 6) reads A (24) and B (30), writes C (20).
    # C of fc1 is A of fc2: fc1 saves its 24 writebacks, fc2 its 24 reads.
    assert [r.dram_saved for r in result.layers] == [24, 24]
    assert [r.headline["traffic_dram_elements"] for r in result.layers] == [80, 50]
    # DRAM moves 4 elements per cycle each way: fc1 20 cycles (was 104 / 4 = 26), fc2
    # 50 / 4 = 12.5 below its compute latency, 13 (was 74 / 4 = 18.5).
    assert [r.headline["latency_cycles"] for r in result.layers] == [20, 13]
    # Each saved element: a DRAM access (200) and the buffer's side of it (6).
    off = evaluate_network(net, ARCH, ["gemm-os-systolic"], residency=False)
    pairs = zip(result.layers, off.layers, strict=True)
    assert [b.headline["energy"] - a.headline["energy"] for a, b in pairs] == [24 * 206] * 2
    assert result.rows()[-1]["dram_saved_elements"] == 48


def test_eval_network_prints_what_stayed_on_chip(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(_network(FC1, {**FC2, "input": EDGE}).document()))
    args = ["eval-network", str(path), "-a", ARCH, "-d", "gemm-os-systolic"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "fc1.C -> fc2.A (24 elements): kept on chip in glb" in out
    assert "C to fc2" in out and "A from fc1" in out
    code, out, _ = run(capsys, *args, "--format", "json")
    payload = json.loads(out)
    assert payload["total"]["dram_saved_elements"] == 48
    assert [layer["resident"] for layer in payload["layers"]] == ["C to fc2", "A from fc1"]
    assert payload["edges"][0]["level"] == "glb"
    code, out, _ = run(capsys, *args, "--no-residency", "--format", "csv")
    assert code == 0 and "dram_saved_elements" in out.splitlines()[0]
    code, out, _ = run(capsys, *args, "--no-residency")
    assert "through DRAM (residency off)" in out


def test_eval_network_refuses_an_input_its_workload_does_not_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "two.yaml"
    wrong = {**FC2, "input": {"from": "fc1", "tensor": "C"}}
    path.write_text(yaml.safe_dump(_network(FC1, wrong).document()))
    code, _, err = run(capsys, "eval-network", str(path), "-a", ARCH, "-d", "gemm-os-systolic")
    assert code == 2 and "input.tensor 'C' is not read by its workload" in err


def test_map_keeps_the_output_of_the_entry_before_on_chip() -> None:
    net = _network(FC1, {**FC2, "input": EDGE})
    on = map_layers(network_entries(net), ARCH, network=net)
    off = map_layers(network_entries(net), ARCH, network=net, residency=False)
    rows_on, rows_off = on.rows(), off.rows()
    assert [r["dram_saved_elements"] for r in rows_off] == [0, 0]
    assert [r["resident"] for r in rows_on] == ["C to fc2", "A from fc1"]
    # fc1's best keeps C in the buffer: its writebacks (24) go. fc2's best bypasses A
    # there; kept on chip, the buffer keeps A too and only its 24 DRAM reads go.
    assert [r["dram_saved_elements"] for r in rows_on] == [24, 24]
    for a, b in zip(rows_on, rows_off, strict=True):
        assert a["traffic_dram_elements"] == b["traffic_dram_elements"] - 24
        assert a["value"] == b["value"]  # the search's own
    assert "A" in rows_on[1]["kept"]["glb"] and "A" not in rows_off[1]["kept"]["glb"]
    total = on.total()
    assert total is not None and total["dram_saved_elements"] == 48
    # Counted from each search's best: residency undone, and done again, gives the same.
    figures = ("traffic_dram_elements", "energy", "latency_cycles", "kept", "resident")
    undone = kept_between(on, False).rows()
    assert [[r[k] for k in figures] for r in undone] == [[r[k] for k in figures] for r in rows_off]
    assert kept_between(kept_between(on, False), True).rows() == rows_on


def test_map_of_one_layer_has_nothing_to_keep() -> None:
    mapped = map_layers([LayerEntry("gemm", "gemm", {"M": 2, "N": 2, "K": 2})], ARCH)
    assert mapped.rows()[0]["dram_saved_elements"] == 0 and mapped.edges == ()
