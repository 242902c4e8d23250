"""A chain of Einsums read from ONNX nodes: small models built here equal the zoo's chains of
the same sizes (domains and accesses as isl sets and maps), run under ``tenet eval`` and
``tenet map``, and each range that is not a chain is refused with its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import islpy as isl
import numpy as np
import pytest

from tenet.counting import count
from tenet.errors import SpecError
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fusion import assess_fusion
from tenet.model.chain import Chain
from tenet.oracle.fusion import walk_fusion
from tenet.spec.chain import is_chain, load_chain
from tenet.spec.onnx_chain import read_onnx_chain
from tests.conftest import run

onnx = pytest.importorskip("onnx")
helper = onnx.helper
FLOAT = onnx.TensorProto.FLOAT


def _weight(name: str, shape: list[int]) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.ones(shape, dtype=np.float32), name)


def _save(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: dict[str, list[int | str]],
    weights: dict[str, list[int]],
    outputs: tuple[str, ...] = (),
) -> Path:
    graph = helper.make_graph(
        nodes,
        "small",
        [helper.make_tensor_value_info(n, FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, FLOAT, None) for n in outputs],
        initializer=[_weight(n, s) for n, s in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))
    return path


def _node(op: str, inputs: list[str], output: str, **attributes: object) -> onnx.NodeProto:
    return helper.make_node(op, inputs, [output], name=f"{op.lower()}_{output}", **attributes)


def _matmuls(tmp_path: Path) -> Path:
    """E = relu(A B) D: A 4x3, B 3x5, D 5x2 (matmul-matmul at M=4, K=3, N=5, P=2)."""
    nodes = [
        _node("MatMul", ["a", "b"], "c"),
        _node("Relu", ["c"], "c.relu"),
        _node("MatMul", ["c.relu", "d"], "e"),
    ]
    return _save(tmp_path / "mm.onnx", nodes, {"a": [4, 3]}, {"b": [3, 5], "d": [5, 2]})


MATMULS = {"M": 4, "K": 3, "N": 5, "P": 2}


def _differences(zoo: str, sizes: dict[str, int], path: Path, tensors: dict[str, str]) -> list[str]:
    """Where the chain read from ``path`` differs from the zoo chain at ``sizes``: each
    statement's domain, reads and write as isl sets and maps (zoo tensor -> ONNX tensor by
    ``tensors``); empty when equal."""
    ours = Chain.from_spec(load_chain(path))
    theirs = Chain.from_spec(load_chain(zoo), sizes)
    if len(ours.statements) != len(theirs.statements):
        return ["statements"]
    out = []
    for mine, zoos in zip(ours.statements, theirs.statements, strict=True):
        written = zoos.write.set_tuple_name(isl.dim_type.out, mine.written)
        if not mine.domain.is_equal(zoos.domain):
            out.append(f"{mine.name} domain")
        if mine.written != tensors[zoos.written] or not mine.write.is_equal(written):
            out.append(f"{mine.name} write")
        if set(mine.reads) != {tensors[t] for t in zoos.reads}:
            out.append(f"{mine.name} reads")
            continue
        for tensor, read in zoos.reads.items():
            renamed = tensors[tensor]
            if not mine.reads[renamed].is_equal(read.set_tuple_name(isl.dim_type.out, renamed)):
                out.append(f"{mine.name} read of {renamed}")
    return out


def test_matmul_relu_matmul_is_the_zoo_chain(tmp_path: Path) -> None:
    """The Relu folds into C: the intermediate is the tensor the second MatMul reads."""
    path = _matmuls(tmp_path)
    tensors = {"A": "a", "B": "b", "C": "c_relu", "D": "d", "E": "e"}
    assert _differences("matmul-matmul", MATMULS, path, tensors) == []
    read = read_onnx_chain(path)
    assert read.spec.intermediates == ("c_relu",) and read.spec.final == ("e",)
    assert read.nodes == {"S0": "matmul_c (MatMul)", "S1": "matmul_e (MatMul)"}
    assert read.renamed == {"c_relu": "c.relu"}


def test_pointwise_then_depthwise_is_the_zoo_chain(tmp_path: Path) -> None:
    """A 1x1 Conv (its kernel's indices of extent 1 left out) then a 3x3 depthwise Conv
    (group = channels), unpadded: pointwise-depthwise at CI=3, C=4, H=6, W=5."""
    nodes = [
        _node("Conv", ["x", "p"], "t"),
        _node("Conv", ["t", "dw"], "o", group=4),
    ]
    weights = {"p": [4, 3, 1, 1], "dw": [4, 1, 3, 3]}
    path = _save(tmp_path / "pd.onnx", nodes, {"x": [1, 3, 8, 7]}, weights)
    sizes = {"CI": 3, "C": 4, "H": 6, "W": 5}
    tensors = {"I": "x", "P": "p", "T": "t", "D": "dw", "O": "o"}
    assert _differences("pointwise-depthwise", sizes, path, tensors) == []


def test_conv_batchnorm_conv_is_the_zoo_chain(tmp_path: Path) -> None:
    """Two 3x3 Convs, a folded BatchNormalization and Clip between them: conv-conv at CI=2,
    C=3, K=2, H=4, W=3."""
    nodes = [
        _node("Conv", ["i", "f"], "t0"),
        _node("BatchNormalization", ["t0", "s", "b", "mean", "var"], "t1"),
        _node("Clip", ["t1", "", "six"], "t"),
        _node("Conv", ["t", "g"], "o"),
    ]
    weights = {"f": [3, 2, 3, 3], "g": [2, 3, 3, 3], "six": []}
    weights |= {n: [3] for n in ("s", "b", "mean", "var")}
    path = _save(tmp_path / "cc.onnx", nodes, {"i": [1, 2, 8, 7]}, weights)
    sizes = {"CI": 2, "C": 3, "K": 2, "H": 4, "W": 3}
    tensors = {"I": "i", "F": "f", "T": "t", "G": "g", "O": "o"}
    assert _differences("conv-conv", sizes, path, tensors) == []


def test_a_padded_conv_reads_only_its_input(tmp_path: Path) -> None:
    """A 3x3 Conv padded by 1 on a 3x3 input, one channel in and out: the output positions
    0, 1, 2 of each axis see 2, 3, 2 taps inside the input, so the pairs read number
    (2 + 3 + 2)^2 = 49 (the padding's zeros are not read), and every input element is read."""
    nodes = [
        _node("Conv", ["x", "w0"], "t", pads=[1, 1, 1, 1]),
        _node("Conv", ["t", "w1"], "o", pads=[1, 1, 1, 1]),
    ]
    weights = {"w0": [1, 1, 3, 3], "w1": [1, 1, 3, 3]}
    chain = Chain.from_spec(
        load_chain(_save(tmp_path / "pad.onnx", nodes, {"x": [1, 1, 3, 3]}, weights))
    )
    for statement, tensor in zip(chain.statements, ("x", "t"), strict=True):
        assert statement.ranks == ("y", "x", "ry", "rx")
        assert count(statement.reads[tensor]) == 49
        assert count(statement.reads[tensor].range()) == 9


@pytest.mark.parametrize("halo", ["keep", "recompute"])
def test_a_padded_strided_chain_counts_as_the_simulator_walks(
    tmp_path: Path, halo: Literal["keep", "recompute"]
) -> None:
    """A padded 3x3 Conv then a padded 3x3 Conv of stride 2, fused over the output rows two at
    a time: every exact count equals the simulator's (tenet.oracle.fusion)."""
    nodes = [
        _node("Conv", ["x", "w0"], "t", pads=[1, 1, 1, 1]),
        _node("Conv", ["t", "w1"], "o", pads=[1, 1, 1, 1], strides=[2, 2]),
    ]
    weights = {"w0": [2, 1, 3, 3], "w1": [1, 2, 3, 3]}
    spec = load_chain(_save(tmp_path / "s.onnx", nodes, {"x": [1, 1, 6, 5]}, weights))
    nest = FusedNest({"S1": ("y",)}, (2,), halo=halo, resident=frozenset({"w0", "w1"}))
    counts = assess_fusion(Chain.from_spec(spec), nest)
    walk = walk_fusion(spec, {}, {"S1": ("y",)}, (2,), halo=halo, resident={"w0", "w1"})
    assert list(counts.tiles) == walk.tiles
    for name, tensor in counts.tensors.items():
        walked = walk.tensors[name]
        assert tensor.dram_reads == walked.dram_reads and tensor.dram_writes == walked.dram_writes
        assert tensor.fills == walked.fills and list(tensor.halos) == walked.halos
        assert list(tensor.footprints) == walked.footprints
    assert counts.macs == walk.macs and counts.recomputed == walk.recomputed


def test_gemm_transposed_grouped_and_same_padded_conv(tmp_path: Path) -> None:
    """Gemm with transB reads its weights as B[n, k]; a Conv of 2 groups of 2 channels,
    1x1, is S[g, k, y, x, c] reading x[2g + c, y, x] and W[2g + k, c]; SAME_UPPER padding of a
    3x3 kernel at stride 1 pads 1 before each axis, as pads = 1 does."""
    nodes = [_node("Gemm", ["a", "b"], "c", transB=1), _node("Gemm", ["c", "d"], "e", transB=1)]
    path = _save(tmp_path / "g.onnx", nodes, {"a": [4, 3]}, {"b": [5, 3], "d": [2, 5]})
    read = Chain.from_spec(load_chain(path)).statements[0].reads["b"]
    assert read.is_equal(
        isl.Map("{ S0[m, n, k] -> b[n, k] : 0 <= m < 4 and 0 <= n < 5 and 0 <= k < 3 }")
    )
    nodes = [_node("Conv", ["x", "w0"], "t", group=2), _node("Conv", ["t", "w1"], "o")]
    weights = {"w0": [4, 2, 1, 1], "w1": [1, 4, 1, 1]}
    path = _save(tmp_path / "grouped.onnx", nodes, {"x": [1, 4, 3, 2]}, weights)
    grouped = Chain.from_spec(load_chain(path)).statements[0]
    box = "0 <= g < 2 and 0 <= k < 2 and 0 <= y < 3 and 0 <= x < 2 and 0 <= c < 2"
    assert grouped.domain.is_equal(isl.Set(f"{{ S0[g, k, y, x, c] : {box} }}"))
    expected = {"x": "x[2g + c, y, x]", "w0": "w0[2g + k, c]"}
    for tensor, element in expected.items():
        wanted = isl.Map(f"{{ S0[g, k, y, x, c] -> {element} : {box} }}")
        assert grouped.reads[tensor].is_equal(wanted)
    assert grouped.write.is_equal(isl.Map(f"{{ S0[g, k, y, x, c] -> t[2g + k, y, x] : {box} }}"))
    chains = []
    for padding in ({"auto_pad": "SAME_UPPER"}, {"pads": [1, 1, 1, 1]}):
        nodes = [_node("Conv", ["x", "w0"], "t", **padding), _node("Conv", ["t", "w1"], "o")]
        weights = {"w0": [1, 1, 3, 3], "w1": [1, 1, 3, 3]}
        path = _save(tmp_path / "same.onnx", nodes, {"x": [1, 1, 5, 4]}, weights)
        chains.append(Chain.from_spec(load_chain(path)).statements[0].reads["x"])
    assert chains[0].is_equal(chains[1])


def test_a_result_read_outside_the_range_goes_to_dram(tmp_path: Path) -> None:
    """The first MatMul's result is also the graph's output: the chain writes it to DRAM."""
    nodes = [_node("MatMul", ["a", "b"], "c"), _node("MatMul", ["c", "d"], "e")]
    path = _save(tmp_path / "m.onnx", nodes, {"a": [4, 3]}, {"b": [3, 5], "d": [5, 2]}, ("c",))
    assert read_onnx_chain(path).spec.final == ("c", "e")


def test_a_constant_node_in_the_range_is_an_input(tmp_path: Path) -> None:
    """The second MatMul's weights come from a Constant node inside the range: an input."""
    weights = onnx.numpy_helper.from_array(np.ones((5, 2), dtype=np.float32), "d")
    nodes = [
        _node("MatMul", ["a", "b"], "c"),
        helper.make_node("Constant", [], ["d"], name="weights", value=weights),
        _node("MatMul", ["c", "d"], "e"),
    ]
    path = _save(tmp_path / "k.onnx", nodes, {"a": [4, 3]}, {"b": [3, 5]})
    spec = read_onnx_chain(path).spec
    assert spec.inputs == ("a", "b", "d") and spec.intermediates == ("c",)


def _branches(tmp_path: Path) -> Path:
    """c feeds two MatMuls; c2 is the Relu of e2, which an Add outside the MatMuls reads."""
    nodes = [
        _node("MatMul", ["a", "b"], "c"),
        _node("MatMul", ["c", "d"], "e"),
        _node("MatMul", ["c", "d"], "e2"),
        _node("MatMul", ["e2", "e2t"], "sq"),
        _node("Relu", ["sq"], "r"),
        _node("MatMul", ["r", "f"], "out"),
        _node("Add", ["sq", "r"], "sum"),
    ]
    weights = {"b": [3, 4], "d": [4, 4], "e2t": [4, 4], "f": [4, 4]}
    return _save(tmp_path / "branch.onnx", nodes, {"a": [4, 3]}, weights)


@pytest.mark.parametrize(
    ("first", "last", "reason"),
    [
        # the third MatMul reads c, written before e, the result of the second: a branch
        ("matmul_c", "matmul_e2", "node matmul_e2 (MatMul) reads 'c', which matmul_c"),
        # the second MatMul does not read e, the result of the first
        ("matmul_e", "matmul_e2", "node matmul_e2 (MatMul) does not read 'e'"),
        # the Add outside the range reads sq, which the Relu transforms further
        ("matmul_sq", "matmul_out", "node add_sum (Add), outside the range, reads 'sq'"),
    ],
)
def test_a_range_that_is_not_a_chain_is_refused(
    tmp_path: Path, first: str, last: str, reason: str
) -> None:
    with pytest.raises(SpecError, match="not a chain") as error:
        read_onnx_chain(_branches(tmp_path), first, last)
    assert reason in str(error.value)


def test_a_result_read_twice_is_refused(tmp_path: Path) -> None:
    nodes = [_node("MatMul", ["a", "b"], "c"), _node("MatMul", ["c", "c"], "e")]
    path = _save(tmp_path / "twice.onnx", nodes, {"a": [3, 3]}, {"b": [3, 3]})
    with pytest.raises(SpecError, match="node matmul_e \\(MatMul\\) reads 'c' .* 2 times"):
        read_onnx_chain(path)


def test_an_operator_neither_a_statement_nor_folded_is_refused(tmp_path: Path) -> None:
    nodes = [
        _node("Conv", ["x", "w0"], "t"),
        _node("MaxPool", ["t"], "p", kernel_shape=[2, 2]),
        _node("Conv", ["p", "w1"], "o"),
    ]
    weights = {"w0": [2, 1, 1, 1], "w1": [2, 2, 1, 1]}
    path = _save(tmp_path / "pool.onnx", nodes, {"x": [1, 1, 4, 4]}, weights)
    with pytest.raises(SpecError, match="node maxpool_p \\(MaxPool\\) is not read into a chain"):
        read_onnx_chain(path)


def test_an_unknown_node_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no node named 'matmul_cc' .*did you mean 'matmul_c'"):
        read_onnx_chain(_matmuls(tmp_path), "matmul_cc")


def test_an_unknown_shape_is_refused(tmp_path: Path) -> None:
    nodes = [_node("MatMul", ["a", "b"], "c"), _node("MatMul", ["c", "d"], "e")]
    path = _save(tmp_path / "dyn.onnx", nodes, {"a": ["M", 3]}, {"b": [3, 5], "d": [5, 2]})
    with pytest.raises(SpecError, match="the shape of 'a' is not known after shape inference"):
        read_onnx_chain(path)


def test_map_and_eval_run_on_an_onnx_chain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``tenet import onnx`` writes chain.yaml; ``tenet map`` on it, on the ONNX file itself
    and on the zoo chain of the same sizes find the same value; ``tenet eval`` of the saved
    dataflow gives the same figures."""
    model = _matmuls(tmp_path)
    code, _, err = run(capsys, "import", "onnx", str(model), "-o", str(tmp_path / "chain"))
    assert code == 0, err
    imported = tmp_path / "chain" / "chain.yaml"
    assert is_chain(imported) and is_chain(model)
    assert "# S0: ONNX node matmul_c (MatMul)" in imported.read_text()
    arch = ("-a", "systolic-levels-8x8", "--format", "json")
    sizes = [a for n, v in MATMULS.items() for a in ("-p", f"{n}={v}")]
    values: list[object] = []
    for workload, extra in ((str(imported), []), (str(model), []), ("matmul-matmul", sizes)):
        saved = tmp_path / f"best{len(values)}.yaml"
        code, out, err = run(
            capsys,
            "map",
            "-w",
            workload,
            *arch,
            *extra,
            "--objective",
            "energy",
            "--save-dataflow",
            str(saved),
        )
        assert code == 0, err
        values.append(json.loads(out)["value"])
    assert values[0] == values[1] == values[2]
    code, out, err = run(
        capsys, "eval", "-w", str(model), "-d", str(tmp_path / "best1.yaml"), *arch
    )
    assert code == 0, err
    assert json.loads(out)["headline"]["energy"] == values[1]


def test_import_onnx_names_the_unknown_node(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    model = str(_matmuls(tmp_path))
    code, _, err = run(capsys, "import", "onnx", model, "--to", "nope", "-o", str(tmp_path))
    assert code != 0 and "no node named 'nope'" in err
