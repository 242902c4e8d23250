"""The worked examples of automatic data layout (reorder, split) and of bank padding, with
figures derived by hand and checked against the oracle too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from tenet.layout.evaluate import load_layout_problem
from tenet.layout.metrics import LayoutMetrics
from tenet.oracle.layout import reference_layout
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.spec.layout import ScratchpadSpec, TransformSpec


def one_pe(n: int = 1) -> ArchitectureSpec:
    return ArchitectureSpec.from_mapping({"name": "line", "pe": f"{{PE[p]: 0 <= p < {n}}}"})


def figures(
    w: WorkloadSpec,
    a: ArchitectureSpec,
    d: DataflowSpec,
    layouts: Mapping[str, Sequence[TransformSpec]],
    scratchpad: ScratchpadSpec,
) -> dict[str, dict[str, object]]:
    """Figures per tensor, after checking that the engine and the oracle agree."""
    got: LayoutMetrics = load_layout_problem(
        w, a, d, layouts=layouts, scratchpad=scratchpad
    ).evaluate()
    rows = [{k: v for k, v in r.items() if k not in ("layout", "size")} for r in got.rows()]
    assert rows == reference_layout(w, a, d, layouts, scratchpad)["tensors"]
    return {str(r["tensor"]): r for r in rows}


# f(x, y, z, b) = input(y, x, z) * b, swept by one PE in the order b, z, y, x (x innermost).
X, Y, Z, B = 4, 3, 4, 4
REORDER_WORKLOAD = WorkloadSpec.from_mapping(
    {
        "name": "reorder",
        "domain": f"{{S[x, y, z, b]: 0 <= x < {X} and 0 <= y < {Y} and 0 <= z < {Z} and "
        f"0 <= b < {B}}}",
        "accesses": {"In": {"read": "{S[x, y, z, b] -> In[y, x, z]}"}},
    }
)
REORDER_DATAFLOW = DataflowSpec.from_mapping(
    {
        "name": "sweep",
        "space_stamp": "{S[x, y, z, b] -> PE[0]}",
        "time_stamp": "{S[x, y, z, b] -> T[b, z, y, x]}",
    }
)


def test_reorder_cuts_line_misses_by_the_reuse_factor_b() -> None:
    # Lines of W = b words. Row-major In[y, x, z]: a = (y X + x) Z + z; consecutive accesses
    # (x -> x + 1) are Z = 4 >= W words apart, and a new (y, z, b) jumps further: every one
    # of the x·y·z·b accesses touches a new line: 4·3·4·4 = 192 misses.
    # REORDER (permute to (z, y, x)): a = (z Y + y) X + x, so one sweep over (z, y, x) walks
    # addresses 0..xyz-1 in order: a new line every W accesses, xyz/W per sweep, b sweeps:
    # b·xyz/W = xyz = 48 misses (W = b): the cost falls from x·y·z·b to x·y·z, a factor b.
    lines = ScratchpadSpec(banks=1, transaction_width=B)
    before = figures(REORDER_WORKLOAD, one_pe(), REORDER_DATAFLOW, {}, lines)["In"]
    reorder = {"In": [TransformSpec(op="permute", order=(2, 0, 1))]}
    after = figures(REORDER_WORKLOAD, one_pe(), REORDER_DATAFLOW, reorder, lines)["In"]
    assert before["misses_line"] == X * Y * Z * B
    assert after["misses_line"] == X * Y * Z
    # use distance after REORDER: each of the b sweeps makes xyz - 1 = 47 steps of 1 word,
    # and the b - 1 = 3 restarts jump back 47 words: (4·47 + 3·47) / (xyzb - 1 = 191) pairs
    assert after["distance_use_mean"] == Fraction(4 * 47 + 3 * 47, 191)


# func(x, y, b) += A(k, y, b) * B(x, k, b): with x fastest in B (row-major B[b, k, x]),
# consecutive k are M words apart. One PE per (b, x) walks k.
M, K, NB = 32, 4, 2
SPLIT_WORKLOAD = WorkloadSpec.from_mapping(
    {
        "name": "split",
        "domain": f"{{S[b, x, k]: 0 <= b < {NB} and 0 <= x < {M} and 0 <= k < {K}}}",
        "accesses": {"B": {"read": "{S[b, x, k] -> B[b, k, x]}"}},
    }
)
SPLIT_ARRAY = ArchitectureSpec.from_mapping(
    {"name": "grid", "pe": f"{{PE[p, q]: 0 <= p < {NB} and 0 <= q < {M}}}"}
)
SPLIT_DATAFLOW = DataflowSpec.from_mapping(
    {
        "name": "per-x",
        "space_stamp": "{S[b, x, k] -> PE[b, x]}",
        "time_stamp": "{S[b, x, k] -> T[k]}",
    }
)


def test_splitting_x_by_16_cuts_the_use_distance_from_m_to_16() -> None:
    # Row-major B[b, k, x] over [2, 4, 32]: a = 128 b + 32 k + x, k -> k + 1 moves M = 32.
    # Split x by 16, outer part out (the method's Bi(x % 16, k, x / 16, b), i.e. row-major
    # (b, xo, k, xi)): a = 128 b + 64 floor(x/16) + 16 k + x % 16, k -> k + 1 moves 16.
    # interleave puts xo outermost instead, (xo, b, k, xi): a = 128 xo + 64 b + 16 k + xi.
    pad = ScratchpadSpec()
    before = figures(SPLIT_WORKLOAD, SPLIT_ARRAY, SPLIT_DATAFLOW, {}, pad)["B"]
    assert before["distance_use_max"] == before["distance_use_mean"] == M
    halide = [
        TransformSpec(op="split", dim=2, factor=16),
        TransformSpec(op="permute", order=(0, 2, 1, 3)),
    ]
    for layout in (halide, [TransformSpec(op="interleave", dim=2, factor=16)]):
        after = figures(SPLIT_WORKLOAD, SPLIT_ARRAY, SPLIT_DATAFLOW, {"B": layout}, pad)["B"]
        assert after["distance_use_max"] == after["distance_use_mean"] == 16


def test_reordering_makes_both_matmul_operands_contiguous_in_k() -> None:
    # C[i, j] += A[i, k] B[k, j] on 4x4 PEs, PE[i, j] walks k. Row-major A[i, k]: a = 4i + k,
    # k -> k + 1 moves 1; row-major B[k, j]: a = 4k + j moves N = 4. Column-major B: a = k + 4j
    # moves 1: both operands are contiguous in k.
    w = WorkloadSpec.from_mapping(
        {
            "name": "mm",
            "domain": "{S[i, j, k]: 0 <= i < 4 and 0 <= j < 4 and 0 <= k < 4}",
            "accesses": {
                "A": {"read": "{S[i, j, k] -> A[i, k]}"},
                "B": {"read": "{S[i, j, k] -> B[k, j]}"},
            },
        }
    )
    a = ArchitectureSpec.from_mapping({"name": "g", "pe": "{PE[i, j]: 0 <= i < 4 and 0 <= j < 4}"})
    d = DataflowSpec.from_mapping(
        {
            "name": "os",
            "space_stamp": "{S[i, j, k] -> PE[i, j]}",
            "time_stamp": "{S[i, j, k] -> T[k]}",
        }
    )
    before = figures(w, a, d, {}, ScratchpadSpec())
    assert before["A"]["distance_use_max"] == 1
    assert before["B"]["distance_use_max"] == 4
    after = figures(w, a, d, {"B": [TransformSpec(op="column_major")]}, ScratchpadSpec())
    assert after["A"]["distance_use_max"] == after["B"]["distance_use_max"] == 1


def test_padding_by_one_removes_the_bank_conflicts_of_a_column_read() -> None:
    # A [3, 4] block over 4 banks of one word, read in [3, 1] pieces: three PEs read column j
    # at step j. Row-major a = 4i + j: bank (4i + j) mod 4 = j for all three rows, so the
    # busiest bank serves 3 rows: 2 conflicts per step, 8 over the 4 steps; each step takes
    # max(ceil(3 lines · 16 bits / 64 bits), 3) = 3 cycles, 12 in all.
    # Padded to [3, 5]: a = 5i + j, bank (i + j) mod 4 differs for i = 0, 1, 2: no conflict,
    # max(1, 1) = 1 cycle per step, 4 in all.
    w = WorkloadSpec.from_mapping(
        {
            "name": "block",
            "domain": "{S[i, j]: 0 <= i < 3 and 0 <= j < 4}",
            "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}},
        }
    )
    d = DataflowSpec.from_mapping(
        {"name": "columns", "space_stamp": "{S[i, j] -> PE[i]}", "time_stamp": "{S[i, j] -> T[j]}"}
    )
    banks = ScratchpadSpec(banks=4, bank_width=1, transaction_width=1)
    before = figures(w, one_pe(3), d, {}, banks)["A"]
    after = figures(w, one_pe(3), d, {"A": [TransformSpec(op="pad", dim=1, by=1)]}, banks)["A"]
    assert (before["conflicts_bank"], before["cycles"]) == (8, 12)
    assert (after["conflicts_bank"], after["cycles"]) == (0, 4)
