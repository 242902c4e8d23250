"""Read a chain of Einsums from consecutive nodes of an ONNX model (``docs/fusion.md``).

The nodes of a range, in graph order, are ``Conv`` (grouped and depthwise too), ``MatMul`` and
``Gemm`` nodes, each reading the result of the one before it, directly or through elementwise
nodes that move no MACs and keep the shape (:data:`FOLDED_OPS`, their other operands
constants: an activation, a folded ``BatchNormalization``, a bias added). Each MAC node becomes
a statement ``S0, S1, ...`` over its output's indices then its reduction's; the tensors keep
the graph's names (made isl identifiers), an intermediate the name of the tensor its consumer
reads. Sizes come from shape inference (:func:`tenet.spec.onnx.inferred_model`); an index of
extent 1 (a batch of one, a 1x1 kernel) is left out, and a padded convolution reads only its
input's elements (the padding's zeros are not fetched).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import islpy as isl

from tenet.errors import SpecError
from tenet.spec.chain import ChainSpec
from tenet.spec.onnx import inferred_model, known_shape, node_attributes, tensor_shapes

if TYPE_CHECKING:
    import onnx

__all__ = ["MAC_OPS", "FOLDED_OPS", "OnnxChain", "read_onnx_chain"]

MAC_OPS = ("Conv", "MatMul", "Gemm")
"""The operators that become statements of a chain."""

FOLDED_OPS = (
    "Relu",
    "LeakyRelu",
    "PRelu",
    "Clip",
    "Sigmoid",
    "HardSigmoid",
    "HardSwish",
    "Tanh",
    "Elu",
    "Selu",
    "Softplus",
    "Identity",
    "Dropout",
    "BatchNormalization",
    "Add",
    "Sub",
    "Mul",
    "Div",
)
"""Elementwise operators folded into the result they transform, when they keep its shape and
their other operands are constants (initializers or ``Constant`` nodes)."""

_Shapes = dict[str, list[int | None]]

_ISL_WORDS = frozenset(
    "and or not implies exists mod min max floor ceil floord ceild infty NaN true false rat "
    "dom ran".split()
)


_Access = tuple[str, isl.Map, Sequence[int]]
"""A tensor a MAC node accesses: its graph name, the access map, the tensor's shape."""


@dataclass(frozen=True)
class _Einsum:
    """One MAC node as isl relations over all its ranks, extent-1 ones included: the domain
    (the extent of each rank), each operand's read and the write of its output."""

    node: str
    domain: isl.Set
    extents: tuple[int, ...]
    reads: tuple[_Access, ...]
    write: _Access
    reduces: bool


@dataclass(frozen=True)
class OnnxChain:
    """The chain read from an ONNX model: ``spec``, the node each statement comes from
    (``nodes``: statement -> ``name (op)``) and the graph's name of each renamed tensor."""

    spec: ChainSpec
    nodes: dict[str, str]
    renamed: dict[str, str]

    def header(self) -> str:
        """YAML comment lines saying where each statement and renamed tensor comes from."""
        lines = [f"# {s}: ONNX node {n}" for s, n in self.nodes.items()]
        lines += [f"# {t}: ONNX tensor {g!r}" for t, g in self.renamed.items()]
        return "\n".join(lines) + "\n"


_Operand = tuple[str, Sequence[str], Sequence[int]]
"""A tensor of a MAC node: its graph name, its index expressions over the ranks, its shape."""


def _einsum(
    node: str,
    ranks: Sequence[tuple[str, int]],
    operands: Sequence[_Operand],
    out: _Operand,
    reduction: Sequence[str],
) -> _Einsum:
    """The relations of one MAC node: ``ranks`` (name, extent), its operands, its output and
    the ranks it reduces over. Each access reads only inside its tensor's shape (a padded
    convolution's zeros are not read)."""
    names = ", ".join(r for r, _ in ranks)
    bounds = " and ".join(f"0 <= {r} < {e}" for r, e in ranks)
    domain = isl.Set(f"{{ S[{names}] : {bounds} }}")

    def access(operand: _Operand) -> _Access:
        tensor, index, shape = operand
        box = " and ".join(f"0 <= {e} < {s}" for e, s in zip(index, shape, strict=True))
        return tensor, isl.Map(f"{{ S[{names}] -> X[{', '.join(index)}] : {box} }}"), shape

    extent = dict(ranks)
    return _Einsum(
        node,
        domain,
        tuple(e for _, e in ranks),
        tuple(access(o) for o in operands),
        access(out),
        any(extent[r] > 1 for r in reduction),
    )


def _described(node: onnx.NodeProto) -> str:
    return f"{node.name or node.output[0]} ({node.op_type})"


def _conv(node: onnx.NodeProto, shapes: _Shapes, source: str) -> _Einsum:
    name = _described(node)
    x, w, y = (known_shape(shapes, t, name, source) for t in (*node.input[:2], node.output[0]))
    spatial = len(x) - 2
    if not 1 <= spatial <= 3:
        raise SpecError(f"node {name}: a Conv over {spatial} axes; 1 to 3 are read", source=source)
    attributes = node_attributes(node)
    strides = [int(s) for s in attributes.get("strides", [1] * spatial)]
    dilations = [int(d) for d in attributes.get("dilations", [1] * spatial)]
    group = int(attributes.get("group", 1))
    axes = ("z", "y", "x")[3 - spatial :]
    kernel = [f"r{a}" for a in axes]
    per_k, per_c = w[0] // group, x[1] // group
    # Per group g: output channel per_k * g + k from input channels per_c * g + c.
    if group == 1:
        ranks, out_channel, in_channel = [("n", x[0])], "k", "c"
        within = ("k", "c")
    else:
        outer = "c" if per_k == per_c == 1 else "g"  # depthwise: one channel per group
        within = ("k", "cg") if outer == "c" else ("k", "c")
        ranks = [("n", x[0]), (outer, group)]
        out_channel = f"{per_k} * {outer} + {within[0]}"
        in_channel = f"{per_c} * {outer} + {within[1]}"
    ranks += [
        (within[0], per_k),
        *zip(axes, y[2:], strict=True),
        (within[1], per_c),
        *zip(kernel, w[2:], strict=True),
    ]
    begins = _pads(attributes, x[2:], y[2:], w[2:], strides, dilations)
    windows = [
        f"{s} * {a} + {d} * {r} - {p}"
        for a, r, s, d, p in zip(axes, kernel, strides, dilations, begins, strict=True)
    ]
    return _einsum(
        name,
        ranks,
        [
            (node.input[0], ["n", in_channel, *windows], x),
            (node.input[1], [out_channel, within[1], *kernel], w),
        ],
        (node.output[0], ["n", out_channel, *axes], y),
        [within[1], *kernel],
    )


def _pads(
    attributes: dict[str, Any],
    inputs: Sequence[int],
    outputs: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """The padding before each spatial axis, in elements (``pads``, or ``auto_pad``)."""
    auto = attributes.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    if auto == "VALID":
        return [0] * len(inputs)
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        totals = [
            max(0, (o - 1) * s + (k - 1) * d + 1 - i)
            for i, o, k, s, d in zip(inputs, outputs, kernel, strides, dilations, strict=True)
        ]
        return [t // 2 if auto == "SAME_UPPER" else t - t // 2 for t in totals]
    return [int(p) for p in attributes.get("pads", [0] * 2 * len(inputs))[: len(inputs)]]


def _matmul(node: onnx.NodeProto, shapes: _Shapes, source: str) -> _Einsum:
    """``MatMul`` (batch dimensions broadcast as numpy does) or ``Gemm`` (``transA``,
    ``transB``; its bias ``C`` adds no MACs)."""
    name = _described(node)
    a, b, y = (known_shape(shapes, t, name, source) for t in (*node.input[:2], node.output[0]))
    if len(a) < 2 or len(b) < 2:
        raise SpecError(f"node {name}: matrix-vector products are not read", source=source)
    attributes = node_attributes(node) if node.op_type == "Gemm" else {}
    a_index = ["k", "m"] if attributes.get("transA", 0) else ["m", "k"]
    b_index = ["n", "k"] if attributes.get("transB", 0) else ["k", "n"]
    m, n = y[-2], y[-1]
    k = a[-2] if attributes.get("transA", 0) else a[-1]
    batch = [f"b{j}" if len(y) > 3 else "b" for j in range(len(y) - 2)]

    def broadcast(shape: Sequence[int]) -> list[str]:
        # numpy's rule: batch dimensions aligned from the right; one of extent 1 is repeated
        dims = shape[:-2]
        lead = batch[len(batch) - len(dims) :]
        return [r if e > 1 else "0" for r, e in zip(lead, dims, strict=True)]

    ranks = [*zip(batch, y[:-2], strict=True), ("m", m), ("n", n), ("k", k)]
    return _einsum(
        name,
        ranks,
        [
            (node.input[0], [*broadcast(a), *a_index], a),
            (node.input[1], [*broadcast(b), *b_index], b),
        ],
        (node.output[0], [*batch, "m", "n"], y),
        ["k"],
    )


def _position(nodes: Sequence[onnx.NodeProto], name: str, source: str) -> int:
    """The index of the node named ``name``, or writing the tensor ``name``."""
    for k, node in enumerate(nodes):
        if name in (node.name, *node.output):
            return k
    known = [n.name or n.output[0] for n in nodes]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(known[:8]) + (f", ... ({len(known)} nodes)" if len(known) > 8 else "")
    raise SpecError(
        f"no node named {name!r} nor writing a tensor of that name (known: {listed}){hint}",
        source=source,
    )


def _check_reads(
    node: onnx.NodeProto, results: Sequence[str], writer: dict[str, str], source: str
) -> None:
    """A MAC node after the first reads the result before it, once, and nothing else the
    range writes."""
    if not results:
        return
    name, current = _described(node), results[-1]
    data = [t for t in node.input if t]
    for tensor in data:
        if tensor in writer and tensor != current:
            raise SpecError(
                f"not a chain: node {name} reads {tensor!r}, which {writer[tensor]} wrote "
                f"earlier in the range (a branch or a skip); each node reads the result of "
                f"the one before it, here {current!r} of {writer[current]}",
                source=source,
            )
    if current not in data:
        raise SpecError(
            f"not a chain: node {name} does not read {current!r}, the result of "
            f"{writer[current]} before it",
            source=source,
        )
    if data.count(current) > 1:
        raise SpecError(
            f"not a chain: node {name} reads {current!r} (of {writer[current]}) "
            f"{data.count(current)} times; a statement reads the result before it once",
            source=source,
        )


def _check_folded(
    node: onnx.NodeProto, current: str, shapes: _Shapes, constants: set[str], source: str
) -> None:
    """An elementwise node folds into the result ``current`` when that is its one operand
    that is not a constant and it keeps its shape."""
    name = _described(node)
    data = [t for t in node.input if t and t not in constants]
    if data != [current]:
        raise SpecError(
            f"not a chain: node {name} reads {', '.join(map(repr, data)) or 'only constants'}; "
            f"an elementwise node folds into the chain when its one operand that is not a "
            f"constant is the result before it, here {current!r}",
            source=source,
        )
    before = known_shape(shapes, current, name, source)
    after = known_shape(shapes, node.output[0], name, source)
    if before != after:
        raise SpecError(
            f"node {name} changes the shape {before} of {current!r} into {after}; a folded "
            "node keeps the shape",
            source=source,
        )


def _walk(
    span: Sequence[onnx.NodeProto], shapes: _Shapes, constants: set[str], source: str
) -> tuple[list[_Einsum], list[str]]:
    """The MAC nodes of ``span`` as Einsums, and the tensor holding each one's result after
    the folded nodes following it."""
    einsums: list[_Einsum] = []
    results: list[str] = []
    writer: dict[str, str] = {}
    for node in span:
        if node.op_type in MAC_OPS:
            _check_reads(node, results, writer, source)
            read = _conv if node.op_type == "Conv" else _matmul
            einsums.append(read(node, shapes, source))
            results.append(node.output[0])
        elif node.op_type in FOLDED_OPS:
            _check_folded(node, results[-1], shapes, constants, source)
            results[-1] = node.output[0]
        elif node.op_type != "Constant":
            raise SpecError(
                f"node {_described(node)} is not read into a chain: its operator is neither "
                f"a statement's ({', '.join(MAC_OPS)}) nor folded into a result "
                f"({', '.join(FOLDED_OPS)})",
                source=source,
            )
        if node.op_type != "Constant":
            writer |= {t: _described(node) for t in node.output if t}
    return einsums, results


def _outputs(model: onnx.ModelProto, span: range, results: Sequence[str], source: str) -> list[str]:
    """The chain's results read outside the range ``span`` (node indices) besides the last,
    written to DRAM too; a tensor folded into a result and read outside the range is
    refused."""
    nodes = model.graph.node
    readers: dict[str, list[str]] = {}
    for k, node in enumerate(nodes):
        if k not in span:
            for tensor in node.input:
                readers.setdefault(tensor, []).append(f"node {_described(node)}")
    for output in model.graph.output:
        readers.setdefault(output.name, []).append("the graph's output")
    outputs = []
    for k in span:
        for tensor in nodes[k].output:
            if tensor not in readers or tensor == results[-1]:
                continue
            if tensor not in results:
                raise SpecError(
                    f"not a chain: {readers[tensor][0]}, outside the range, reads "
                    f"{tensor!r}, which {_described(nodes[k])} writes and the range "
                    "transforms further (a branch)",
                    source=source,
                )
            outputs.append(tensor)
    return outputs


def _identifiers(names: Sequence[str], taken: set[str]) -> dict[str, str]:
    """An isl identifier for each graph name (letters, digits and ``_``), none in ``taken``."""
    chosen: dict[str, str] = {}
    for name in dict.fromkeys(names):
        base = re.sub(r"\W", "_", name, flags=re.ASCII)
        base = base if base and not base[0].isdigit() else f"t_{base}"
        base = f"{base}_" if base in _ISL_WORDS else base
        candidate, k = base, 1
        while candidate in taken:
            k += 1
            candidate = f"{base}_{k}"
        taken.add(candidate)
        chosen[name] = candidate
    return chosen


def _squeezed(relation: isl.Map, extents: Sequence[int], shape: Sequence[int]) -> isl.Map:
    """``relation`` without its ranks of extent 1 (fixed at 0) and its tensor's dimensions of
    extent 1 (the access's bounds there kept)."""
    for j in reversed(range(len(extents))):
        if extents[j] == 1:
            relation = relation.fix_val(isl.dim_type.in_, j, 0).project_out(isl.dim_type.in_, j, 1)
    for j in reversed(range(len(shape))):
        if shape[j] == 1:
            relation = relation.project_out(isl.dim_type.out, j, 1)
    return relation


def _statement(einsum: _Einsum, name: str, tensors: dict[str, str]) -> dict[str, Any]:
    domain = einsum.domain
    for j in reversed(range(len(einsum.extents))):
        if einsum.extents[j] == 1:
            domain = domain.fix_val(isl.dim_type.set, j, 0).project_out(isl.dim_type.set, j, 1)
    domain = domain.set_tuple_name(name)

    def text(access: _Access) -> str:
        tensor, relation, shape = access
        relation = _squeezed(relation, einsum.extents, shape)
        relation = relation.set_tuple_name(isl.dim_type.in_, name)
        relation = relation.set_tuple_name(isl.dim_type.out, tensors[tensor])
        return str(relation.gist_domain(domain))

    accesses: dict[str, dict[str, list[str]]] = {}
    for access in einsum.reads:
        accesses.setdefault(tensors[access[0]], {"read": []})["read"].append(text(access))
    written = tensors[einsum.write[0]]
    accesses[written] = {"write": [text(einsum.write)]}
    statement = {"name": name, "domain": str(domain), "accesses": accesses}
    return statement | ({"reductions": [written]} if einsum.reduces else {})


def read_onnx_chain(
    path: str | Path, first: str | None = None, last: str | None = None
) -> OnnxChain:
    """Read the chain of the nodes from ``first`` to ``last`` (names of nodes or of the
    tensors they write; default: the model's first and last ``Conv``, ``MatMul`` or ``Gemm``
    node), in graph order.

    Raises
    ------
    SpecError
        An unreadable model or a shape left unknown; an unknown node; a range that is not a
        chain (a node reading something the range wrote before the result before it, or not
        reading that result, or reading it twice; a tensor the range transforms further read
        outside it); an operator neither a statement nor folded (:data:`FOLDED_OPS`).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from onnx import TensorProto, helper, numpy_helper, save
    >>> nodes = [helper.make_node("MatMul", ["a", "b"], ["c"]),
    ...          helper.make_node("Relu", ["c"], ["r"]),
    ...          helper.make_node("MatMul", ["r", "d"], ["e"])]
    >>> weights = [numpy_helper.from_array(np.ones(s, np.float32), n)
    ...            for n, s in (("b", (3, 5)), ("d", (5, 2)))]
    >>> a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 3])
    >>> path = Path(tempfile.mkdtemp()) / "mlp.onnx"
    >>> save(helper.make_model(helper.make_graph(nodes, "mlp", [a], [], weights)), path)
    >>> chain = read_onnx_chain(path)
    >>> chain.spec.intermediates, chain.spec.statements[1].domain
    (('r',), '{ S1[m, n, k] : 0 <= m <= 3 and 0 <= n <= 1 and 0 <= k <= 4 }')
    """
    source = str(path)
    model = inferred_model(source)
    nodes = list(model.graph.node)
    macs = [k for k, n in enumerate(nodes) if n.op_type in MAC_OPS]
    if not macs:
        raise SpecError("the model has no Conv, MatMul or Gemm node", source=source)
    start = macs[0] if first is None else _position(nodes, first, source)
    end = macs[-1] if last is None else _position(nodes, last, source)
    if nodes[start].op_type not in MAC_OPS:
        raise SpecError(
            f"the range starts at node {_described(nodes[start])}, which moves no MACs; "
            f"start it at a {', '.join(MAC_OPS)} node",
            source=source,
        )
    if end < start:
        raise SpecError(
            f"the range ends at node {_described(nodes[end])}, before its first node "
            f"{_described(nodes[start])} in the graph's order",
            source=source,
        )
    span = range(start, end + 1)
    graph = model.graph
    constants = {t.name for t in graph.initializer} | {
        o for n in nodes if n.op_type == "Constant" for o in n.output
    }
    einsums, results = _walk(nodes[start : end + 1], tensor_shapes(model), constants, source)
    outputs = _outputs(model, span, results, source)
    names = [f"S{k}" for k in range(len(einsums))]
    read = [t for e in einsums for t, _, _ in e.reads]
    tensors = _identifiers([*read, *results], set(names))
    einsums = [replace(e, write=(r, *e.write[1:])) for e, r in zip(einsums, results, strict=True)]
    spec = ChainSpec.from_mapping(
        {
            "name": graph.name or Path(source).stem,
            "statements": [_statement(e, n, tensors) for e, n in zip(einsums, names, strict=True)],
        }
        | ({"outputs": [tensors[t] for t in outputs]} if outputs else {}),
        source=source,
    )
    return OnnxChain(
        spec,
        {n: e.node for n, e in zip(names, einsums, strict=True)},
        {t: g for g, t in tensors.items() if t != g},
    )
