"""Read the convolution and matrix-product layers of an ONNX model into a :class:`NetworkSpec`.

Shapes come from ONNX shape inference, so the model's inputs need fixed sizes. ``Conv`` becomes
``conv2d`` (``conv2d-batch`` for a batch above 1; ``depthwise`` when every channel is its own
group), with ``stride``/``dilation`` template arguments; ``MatMul`` and ``Gemm`` become ``gemm``,
or ``bmm`` when both operands carry the same batch dimensions. Other operators move no MACs
through the array and are left out. Size names follow the zoo workloads: ``OX``/``RX`` are the
output and kernel width, ``OY``/``RY`` the height.

A layer whose input is the output of the layer just before, and its only reader, directly or
through operators of one data input that move no MACs (:data:`PASSING`: activations, batch
normalisation, reshapes), names it as its ``input`` (a tensor that may stay on chip between the
layers, ``docs/fusion.md``); an output that pooling, an addition or a second reader takes goes
through DRAM.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenet.errors import SpecError
from tenet.spec.network import NetworkSpec

if TYPE_CHECKING:
    import onnx

__all__ = [
    "PASSING",
    "read_onnx",
    "inferred_model",
    "tensor_shapes",
    "known_shape",
    "node_attributes",
]

PASSING = frozenset(
    {
        "Relu",
        "LeakyRelu",
        "Clip",
        "Sigmoid",
        "Tanh",
        "Gelu",
        "Softmax",
        "BatchNormalization",
        "Identity",
        "Dropout",
        "Flatten",
        "Reshape",
        "Squeeze",
        "Unsqueeze",
    }
)
"""Operators a layer's output may pass through, unchanged in its elements' number, to the next
layer's input that stays on chip."""

_Layer = dict[str, Any]


def tensor_shapes(model: onnx.ModelProto) -> dict[str, list[int | None]]:
    """The shape of every tensor of ``model``'s graph that shape inference gave (None: a
    dimension left unknown), its initializers' included."""
    graph = model.graph
    shapes: dict[str, list[int | None]] = {
        t.name: [int(d) for d in t.dims] for t in graph.initializer
    }
    for info in [*graph.input, *graph.value_info, *graph.output]:
        dims = info.type.tensor_type.shape.dim
        shapes.setdefault(
            info.name, [d.dim_value if d.HasField("dim_value") else None for d in dims]
        )
    return shapes


def node_attributes(node: onnx.NodeProto) -> dict[str, Any]:
    """The attributes of ``node`` by name, as Python values."""
    import onnx

    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def known_shape(
    shapes: dict[str, list[int | None]], name: str, node: str, source: str
) -> list[int]:
    """The shape of tensor ``name``, which ``node`` of the model ``source`` reads or writes.

    Raises
    ------
    SpecError
        Shape inference left the shape, or one of its dimensions, unknown.
    """
    shape = shapes.get(name)
    known = [int(d) for d in shape or () if d is not None]
    if shape is None or len(known) != len(shape):
        raise SpecError(
            f"node {node}: the shape of {name!r} is not known after shape inference "
            "(give the model's inputs fixed sizes)",
            source=source,
        )
    return known


def _same(values: list[int], what: str, node: str, source: str) -> int:
    if len(set(values)) != 1:
        raise SpecError(
            f"node {node}: {what} {values} differ between height and width; the zoo's "
            "convolutions take one value for both",
            source=source,
        )
    return values[0]


def _with_args(workload: str, args: dict[str, int]) -> str:
    changed = ",".join(f"{k}={v}" for k, v in args.items() if v != 1)
    return f"{workload}:{changed}" if changed else workload


def _conv(node: onnx.NodeProto, shapes: dict[str, list[int | None]], source: str) -> _Layer:
    x = known_shape(shapes, node.input[0], node.name, source)
    w = known_shape(shapes, node.input[1], node.name, source)
    y = known_shape(shapes, node.output[0], node.name, source)
    if len(x) != 4:
        raise SpecError(f"node {node.name}: only 2D convolutions are read", source=source)
    attributes = node_attributes(node)
    stride = _same(list(attributes.get("strides", [1, 1])), "strides", node.name, source)
    dilation = _same(list(attributes.get("dilations", [1, 1])), "dilations", node.name, source)
    group = int(attributes.get("group", 1))
    batch, channels = x[0], x[1]
    sizes = {"OX": y[3], "OY": y[2], "RX": w[3], "RY": w[2]}
    if group == 1:
        args = {"stride": stride, "dilation": dilation}
        params = {"K": w[0], "C": channels, **sizes}
        if batch == 1:
            return {"workload": _with_args("conv2d", args), "params": params}
        return {"workload": _with_args("conv2d-batch", args), "params": {"N": batch, **params}}
    if group == channels == w[0] and batch == 1 and dilation == 1:
        return {
            "workload": _with_args("depthwise", {"stride": stride}),
            "params": {"C": channels, **sizes},
        }
    raise SpecError(
        f"node {node.name}: grouped convolution (group={group}, {channels} channels, "
        f"batch {batch}, dilation {dilation}) has no zoo workload; depthwise is read for "
        "batch 1 without dilation",
        source=source,
    )


def _matmul(node: onnx.NodeProto, shapes: dict[str, list[int | None]], source: str) -> _Layer:
    a = known_shape(shapes, node.input[0], node.name, source)
    b = known_shape(shapes, node.input[1], node.name, source)
    if node.op_type == "Gemm":
        attributes = node_attributes(node)
        if attributes.get("transA", 0):
            a = a[::-1]
        if attributes.get("transB", 0):
            b = b[::-1]
    if len(a) < 2 or len(b) < 2:
        raise SpecError(f"node {node.name}: matrix-vector products are not read", source=source)
    m, k, n = a[-2], a[-1], b[-1]
    if len(b) == 2:
        return {"workload": "gemm", "params": {"M": math.prod(a[:-1]), "N": n, "K": k}}
    if a[:-2] == b[:-2]:
        return {"workload": "bmm", "params": {"G": math.prod(a[:-2]), "M": m, "N": n, "K": k}}
    raise SpecError(
        f"node {node.name}: operands of shapes {a} and {b} broadcast their batch dimensions; "
        "only equal batch dimensions are read",
        source=source,
    )


def inferred_model(source: str) -> onnx.ModelProto:
    """Load the ONNX model in file ``source`` and infer its tensors' shapes (strict mode).

    Raises
    ------
    SpecError
        The onnx package is missing, or the file is not a model whose shapes can be inferred.
    """
    try:
        import onnx
        from google.protobuf.message import DecodeError
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SpecError(
            "reading ONNX needs the onnx package (pip install onnx)", source=source
        ) from exc
    try:
        return onnx.shape_inference.infer_shapes(onnx.load(source), strict_mode=True)
    except (OSError, DecodeError, onnx.shape_inference.InferenceError) as exc:
        reason = f"cannot read the ONNX model ({exc})".replace("\n", " ")
        raise SpecError(reason, source=source) from exc


def _readers(model: onnx.ModelProto) -> dict[str, int]:
    """How many nodes read each value (a graph output counts as one more)."""
    readers: dict[str, int] = {o.name: 1 for o in model.graph.output}
    for node in model.graph.node:
        for value in node.input:
            readers[value] = readers.get(value, 0) + 1
    return readers


def _input(
    node: onnx.NodeProto, origin: dict[str, int], readers: dict[str, int], before: int
) -> str | None:
    """The tensor of the layer ``node`` that is the output of the layer ``before`` (the one
    just before) and is read by nothing else; None when there is none."""
    if node.op_type == "Conv":
        named = [(node.input[0], "I")]
    else:
        transposed = node_attributes(node) if node.op_type == "Gemm" else {}
        named = [
            (value, tensor)
            for value, tensor, flag in zip(node.input[:2], "AB", ("transA", "transB"), strict=False)
            if not transposed.get(flag, 0)
        ]
    for value, tensor in named:
        if before >= 0 and origin.get(value) == before and readers.get(value) == 1:
            return tensor
    return None


def read_onnx(path: str | Path) -> NetworkSpec:
    """Read the ``Conv``, ``MatMul`` and ``Gemm`` nodes of an ONNX file, in graph order.

    Raises
    ------
    SpecError
        An unreadable file, a shape left unknown by shape inference, or a layer no zoo workload
        expresses (grouped but not depthwise convolutions, 1D/3D convolutions, broadcasting).
    """
    source = str(path)
    model = inferred_model(source)
    shapes = tensor_shapes(model)
    layers: list[_Layer] = []
    readers = _readers(model)
    weights = {t.name for t in model.graph.initializer}
    origin: dict[str, int] = {}  # a value: the layer whose output it is
    for k, node in enumerate(model.graph.node):
        if node.op_type in PASSING:
            data = [v for v in node.input if v and v not in weights]
            if len(data) == 1 and data[0] in origin and readers[data[0]] == 1:
                origin.update((v, origin[data[0]]) for v in node.output)
            continue
        if node.op_type == "Conv":
            layer = _conv(node, shapes, source)
        elif node.op_type in ("MatMul", "Gemm"):
            layer = _matmul(node, shapes, source)
        else:
            continue
        name = node.name or f"{node.op_type.lower()}_{k}"
        taken = _input(node, origin, readers, len(layers) - 1)
        if taken is not None:
            layer["input"] = {"from": layers[-1]["name"], "tensor": taken}
        layers.append({"name": name, **layer})
        origin[node.output[0]] = len(layers) - 1
    if not layers:
        raise SpecError("the model has no Conv, MatMul or Gemm node", source=source)
    name = model.graph.name or Path(source).stem
    return NetworkSpec.from_mapping({"name": name, "layers": layers}, source=source)
