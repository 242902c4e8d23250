"""ONNX import: Conv, MatMul and Gemm nodes of a small graph built here become zoo workloads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tenet
from tenet.errors import SpecError
from tenet.spec import load_network

onnx = pytest.importorskip("onnx")
helper = onnx.helper
TensorProto = onnx.TensorProto


def _weight(name: str, shape: list[int]) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def _save(tmp_path: Path, nodes: list, inputs: list, weights: list, name: str = "m") -> Path:
    graph = helper.make_graph(nodes, "small", inputs, [], initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def _small_cnn(tmp_path: Path) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    nodes = [
        # 3 -> 8 channels, 3x3, stride 2, padding 1: 16x16 -> 8x8.
        helper.make_node(
            "Conv", ["x", "w1"], ["c1"], name="conv1", strides=[2, 2], pads=[1, 1, 1, 1]
        ),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        # Depthwise 3x3 on 8 channels (group 8), dilation 1, padding 1: 8x8 -> 8x8.
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="dw", group=8, pads=[1, 1, 1, 1]),
        # 3x3 dilation 2, no padding: 8x8 -> 4x4, 8 -> 4 channels.
        helper.make_node("Conv", ["c2", "w3"], ["c3"], name="dilated", dilations=[2, 2]),
        helper.make_node("Flatten", ["c3"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w4"], ["y"], name="fc", transB=1),
        helper.make_node("Reshape", ["y", "shape"], ["y3"], name="reshape"),
        helper.make_node("MatMul", ["y3", "y3t"], ["z"], name="bmm"),
    ]
    weights = [
        _weight("w1", [8, 3, 3, 3]),
        _weight("w2", [8, 1, 3, 3]),
        _weight("w3", [4, 8, 3, 3]),
        _weight("w4", [10, 64]),
        onnx.numpy_helper.from_array(np.array([2, 5, 1], dtype=np.int64), "shape"),
        _weight("y3t", [2, 1, 5]),
    ]
    return _save(tmp_path, nodes, [x], weights)


def test_onnx_reads_conv_and_matmul_layers(tmp_path: Path) -> None:
    network = load_network(_small_cnn(tmp_path))
    layers = {layer.name: (layer.workload, layer.params) for layer in network.layers}
    assert list(layers) == ["conv1", "dw", "dilated", "fc", "bmm"]
    assert layers["conv1"] == (
        "conv2d:stride=2",
        {"K": 8, "C": 3, "OX": 8, "OY": 8, "RX": 3, "RY": 3},
    )
    assert layers["dw"] == ("depthwise", {"C": 8, "OX": 8, "OY": 8, "RX": 3, "RY": 3})
    assert layers["dilated"] == (
        "conv2d:dilation=2",
        {"K": 4, "C": 8, "OX": 4, "OY": 4, "RX": 3, "RY": 3},
    )
    # Gemm with transB: [1, 64] x [64, 10]; MatMul [2, 5, 1] x [2, 1, 5]: 2 products 5x1 by 1x5.
    assert layers["fc"] == ("gemm", {"M": 1, "N": 10, "K": 64})
    assert layers["bmm"] == ("bmm", {"G": 2, "M": 5, "N": 5, "K": 1})


def test_onnx_network_evaluates_layer_by_layer(tmp_path: Path) -> None:
    from tenet.networks import evaluate_network

    dataflows = ["conv2d-os", "depthwise-os", "gemm-os-systolic", "bmm-os-systolic"]
    result = evaluate_network(_small_cnn(tmp_path), "systolic-2d-8x8", dataflows)
    # 8*3*8*8*9 + 8*8*8*9 + 4*8*4*4*9 + 64*10 + 2*5*5*1
    assert result.macs == 13824 + 4608 + 4608 + 640 + 50
    assert [r.dataflow for r in result.layers] == [
        "conv2d-os",
        "depthwise-os",
        "conv2d-os",
        "gemm-os-systolic",
        "bmm-os-systolic",
    ]


def test_onnx_grouped_convolution_is_refused(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="grouped", group=2)
    path = _save(tmp_path, [node], [x], [_weight("w", [8, 4, 3, 3])])
    with pytest.raises(SpecError, match=r"node grouped: grouped convolution \(group=2"):
        load_network(path)


def test_onnx_unequal_strides_are_refused(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="c", strides=[1, 2])
    path = _save(tmp_path, [node], [x], [_weight("w", [4, 3, 3, 3])])
    with pytest.raises(SpecError, match=r"node c: strides \[1, 2\] differ"):
        load_network(path)


def test_onnx_unknown_shape_is_refused(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="c")
    path = _save(tmp_path, [node], [x], [_weight("w", [4, 3, 3, 3])])
    with pytest.raises(SpecError, match=r"node c: the shape of 'x' is not known"):
        load_network(path)


def test_onnx_model_without_layers_is_refused(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])
    path = _save(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [x], [])
    with pytest.raises(SpecError, match=r"has no Conv, MatMul or Gemm node"):
        load_network(path)


def test_onnx_unreadable_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08\xff\xff\xff garbage")
    with pytest.raises(SpecError, match=r"broken.onnx: cannot read the ONNX model"):
        tenet.network(str(path))


def test_onnx_layers_name_the_output_of_the_layer_before(tmp_path: Path) -> None:
    network = load_network(_small_cnn(tmp_path))
    # conv1 -> relu -> dw, dw -> dilated, dilated -> flatten -> fc (Gemm's A), fc ->
    # reshape -> bmm (MatMul's A): each output read once, by the next layer.
    inputs = {layer.name: layer.input for layer in network.layers if layer.input is not None}
    assert {name: (i.producer, i.tensor) for name, i in inputs.items()} == {
        "dw": ("conv1", "I"),
        "dilated": ("dw", "I"),
        "fc": ("dilated", "A"),
        "bmm": ("fc", "A"),
    }


def test_onnx_output_read_twice_goes_through_dram(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="a"),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], name="b"),
        helper.make_node("Add", ["c1", "c2"], ["s"], name="residual"),
        helper.make_node("Conv", ["s", "w3"], ["c3"], name="c"),
    ]
    weights = [_weight(w, [4, 4, 1, 1]) for w in ("w1", "w2", "w3")]
    network = load_network(_save(tmp_path, nodes, [x], weights))
    # a's output feeds b and the addition; c reads the sum, not b's output alone.
    assert [layer.input for layer in network.layers] == [None, None, None]
