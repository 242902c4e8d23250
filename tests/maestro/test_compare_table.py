"""``tenet.maestro``: exact counts next to estimates, one entry point per notation given;
synthesis of directives from relation-centric dataflows; the network table and its bar plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenet.api import load_problem
from tenet.errors import InfeasibleError, SpecError
from tenet.maestro import (
    COLUMNS,
    compare_layer,
    compare_network,
    compare_problem,
    compare_problem_with_layer,
    match_tensors,
    synthesize,
)
from tenet.maestro.directives import Hardware
from tenet.maestro.reader import load_hardware, load_mapping, parse_mapping
from tenet.report import plot_comparison
from tenet.spec import ArchitectureSpec
from tests.maestro.conftest import COMPARISON, HW

GEMM = """Network g { Layer mnk { Type: GEMM Dimensions { M 8 N 8 K 8 }
  Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(1,1) K; } } }"""
LINE64 = ArchitectureSpec.from_mapping({"name": "line64", "pe": "{PE[i]: 0 <= i < 64}"})


def _rows(df):  # type: ignore[no-untyped-def]
    return df.set_index(["quantity", "tensor"])


def test_compare_data_centric_against_its_lowering() -> None:
    df = compare_layer(parse_mapping(GEMM).layer(), Hardware(num_pes=8, noc_latency=0))
    assert tuple(df.columns) == COLUMNS
    rows = _rows(df)
    # exact: A[m, k] is needed afresh at each (n, k) step by each of the 8 PEs: 8*8*8;
    # MAESTRO counts 456 (K wraps when N advances: reloads not counted).
    assert rows.loc[("volume_unique", "input"), "exact"] == 512
    assert rows.loc[("volume_unique", "input"), "estimate"] == 456
    assert rows.loc[("volume_unique", "input"), "relative_error"] == pytest.approx(456 / 512 - 1)
    assert "wrapped inner loop" in rows.loc[("volume_unique", "input"), "reason"]
    # exact: each output C[m, n] stays on its PE for the 8 K steps and leaves once: 64;
    # MAESTRO writes each one-element tile every step: 512.
    assert rows.loc[("volume_unique", "output"), "exact"] == 64
    assert rows.loc[("volume_unique", "output"), "estimate"] == 512
    assert "every step" in rows.loc[("volume_unique", "output"), "reason"]
    # both: 512 MACs, 64 steps of one MAC, all 8 PEs busy.
    for q in ("macs", "latency_array", "active_pes_avg", "utilisation"):
        assert rows.loc[(q, ""), "relative_error"] == 0 and rows.loc[(q, ""), "reason"] == ""
    assert rows.loc[("latency_array", ""), "exact"] == 64


def test_compare_relation_centric_only_synthesises_directives(tenet_data: Path) -> None:
    problem = (
        tenet_data / "statement" / "conv2d.s",
        tenet_data / "pe_array" / "pe_8_8.p",
        tenet_data / "mapping" / "conv2d_ws.m",
    )
    df = compare_problem(load_problem(*problem))
    rows = _rows(df)
    # conv2d.s: K=128 C=64 3x3 112x112 MACs; both sides keep W[k, c] on one PE: 128*64*9.
    assert rows.loc[("macs", ""), "exact"] == 128 * 64 * 9 * 112 * 112
    assert rows.loc[("volume_unique", "filter"), "exact"] == 73728
    assert rows.loc[("volume_unique", "filter"), "estimate"] == 73728


def test_compare_both_notations_given(tenet_data: Path) -> None:
    problem = load_problem(
        tenet_data / "statement" / "matmul.s",
        tenet_data / "pe_array" / "systolic.p",
        tenet_data / "mapping" / "matmul_systolic_ws.m",
    )
    layer = load_mapping(COMPARISON / "gemm256_ws_8x8.m").layer()
    df = compare_problem_with_layer(problem, layer, load_hardware(HW / "bw64_64pe.m"))
    rows = _rows(df)
    # reference CSV (bw64_64pe): MAESTRO reads B once (65,536) and runs 263,201 cycles.
    assert rows.loc[("volume_unique", "filter"), "estimate"] == 65536
    assert rows.loc[("latency_array", ""), "estimate"] == 263201
    assert rows.loc[("macs", ""), "exact"] == 256**3


def test_network_layer_by_name() -> None:
    network = parse_mapping(GEMM)
    assert network.layer("mnk") == network.layer() == network.layers[0]
    with pytest.raises(SpecError, match=r"no layer 'x' in the network \(layers: mnk\)"):
        network.layer("x")


def test_compare_problem_on_given_hardware_keeps_the_synthesised_pe_count() -> None:
    problem = load_problem("gemm", "systolic-2d-8x8", "gemm-os", {"M": 8, "N": 8, "K": 8})
    df = compare_problem(problem, Hardware(num_pes=1, noc_latency=0))
    rows = _rows(df)
    # gemm-os: PE[i, j] for 8 x 8 outputs, each reducing K = 8 on its PE: 8 steps of 64 MACs,
    # on the 64 PEs of the synthesised directives (not the hardware's single PE)
    assert rows.loc[("macs", ""), "estimate"] == 512
    assert rows.loc[("latency_array", ""), "estimate"] == 8


def test_match_tensors_conv_and_gemm(tenet_data: Path) -> None:
    conv = load_problem(
        tenet_data / "statement" / "conv2d.s",
        tenet_data / "pe_array" / "pe_8_8.p",
        tenet_data / "mapping" / "conv2d_ws.m",
    )
    assert match_tensors(conv) == {"input": "I", "filter": "W", "output": "O"}


def test_synthesize_conv_output_stationary(tenet_data: Path) -> None:
    p = load_problem(
        tenet_data / "statement" / "conv2d.s",
        tenet_data / "pe_array" / "pe_8_8.p",
        tenet_data / "mapping" / "conv2d_os.m",
    )
    found = synthesize(p)
    # PE[oy%8, ox%8], T[k, oy/8, ox/8, c] (TENET's first window pair ox+rx is MAESTRO's Y):
    # the reduction C moves inside the cluster so partial sums stay there.
    assert found.layer.dataflow_text().split("\n") == [
        "TemporalMap(1,1) K;",
        "SpatialMap(3,1) X;",
        "TemporalMap(10,8) Y;",
        "Cluster(8,P);",
        "SpatialMap(3,1) Y;",
        "TemporalMap(1,1) C;",
    ]
    assert found.hardware.num_pes == 64


def test_synthesize_one_dimensional_array(tenet_data: Path) -> None:
    p = load_problem(
        tenet_data / "statement" / "conv2d.s", LINE64, tenet_data / "mapping" / "conv2d_kp.m"
    )
    found = synthesize(p)
    assert found.layer.directives[0].text() == "SpatialMap(1,1) K"
    assert found.hardware.num_pes == 64


@pytest.mark.parametrize(
    ("statement", "arch", "mapping", "match"),
    [
        ("matmul.s", "systolic.p", "matmul_systolic_os.m", "skew: time-stamp coordinate 2"),
        ("conv2d.s", "pe_8_8.p", "conv2d_eyeriss2d.m", "filter dimension S is split"),
        ("mttkrp.s", "systolic.p", "mttkrp_systolic1.m", "not expressible|not a MAESTRO operator"),
    ],
)
def test_synthesize_says_why_not(
    statement: str, arch: str, mapping: str, match: str, tenet_data: Path
) -> None:
    p = load_problem(
        tenet_data / "statement" / statement,
        tenet_data / "pe_array" / arch,
        tenet_data / "mapping" / mapping,
    )
    with pytest.raises(InfeasibleError, match=match):
        synthesize(p)


def test_compare_network_with_an_error_row(tmp_path: Path) -> None:
    path = tmp_path / "net.m"
    path.write_text(
        "Network two {\n"
        " Layer a { Type: GEMM Dimensions { M 4 N 4 K 4 }"
        " Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(4,4) K; } }\n"
        " Layer b { Type: GEMM Dimensions { M 4 N 4 K 4 }"
        " Dataflow { SpatialMap(1,1) M; TemporalMap(2,1) N; } }\n"
        "}\n"
    )
    df = compare_network(load_mapping(path), Hardware(num_pes=4, noc_latency=0))
    assert set(df["dataflow"]) == {"a", "b"}
    error = df[df["quantity"] == "error"]
    assert list(error["dataflow"]) == ["b"] and "overlap or skip" in error["reason"].iloc[0]
    assert len(df[df["dataflow"] == "a"]) == 12


def test_plot_comparison_returns_axes() -> None:
    from matplotlib.figure import Figure

    df = compare_layer(parse_mapping(GEMM).layer(), Hardware(num_pes=8, noc_latency=0))
    ax = Figure().subplots()
    assert plot_comparison(df, ax=ax) is ax
    assert [p.get_label() for p in ax.containers] == ["exact", "MAESTRO-style"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert "volume_unique[output]" in labels and "latency_array" in labels
    assert ax.get_yscale() == "log"


def test_plot_comparison_network_bars_per_layer() -> None:
    import pandas as pd

    df = pd.DataFrame(
        {
            "dataflow": ["a", "a", "b", "b"],
            "quantity": ["latency", "energy", "latency", "energy"],
            "tensor": ["", "", "", ""],
            "exact": [10, 5, 10, 5],
            "estimate": [20, 5, 5, 5],
        }
    )
    ax = plot_comparison(df, quantities=["latency"])
    assert [p.get_label() for p in ax.containers] == ["a", "b"]
    assert [b.get_height() for c in ax.containers for b in c] == [2.0, 0.5]
