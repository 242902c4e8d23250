"""Lowering data-centric directives to relation-centric specs, checked with ``tenet.analyze``
on small sizes against hand-derived figures; the reverse expressibility check."""

from __future__ import annotations

import pytest

import tenet
from tenet.errors import InfeasibleError, SpecError
from tenet.maestro.directives import Hardware
from tenet.maestro.lowering import check_expressible, lower
from tenet.maestro.reader import load_hardware, load_mapping, parse_mapping
from tests.maestro.conftest import COMPARISON, HW


def _layer(body: str, dims: str, kind: str = "CONV"):  # type: ignore[no-untyped-def]
    return parse_mapping(
        f"Network n {{ Layer l {{ Type: {kind} Dimensions {{ {dims} }} Dataflow {{ {body} }} }} }}"
    ).layers[0]


def test_lower_gemm_output_stationary() -> None:
    layer = _layer(
        "SpatialMap(1,1) M; TemporalMap(8,8) N; TemporalMap(8,8) K;"
        " Cluster(8, P); SpatialMap(1,1) N; TemporalMap(1,1) K;",
        "M 8 N 8 K 8",
        "GEMM",
    )
    low = lower(layer, Hardware(num_pes=64))
    assert low.specs.dataflow.space_stamp == "{ S[m, n, k] -> PE[m, n] }"
    assert low.specs.dataflow.time_stamp == "{ S[m, n, k] -> T[k] }"
    m = tenet.analyze(low.specs.workload, low.specs.architecture, low.specs.dataflow)
    # 8 x 8 PEs, one per output; K = 8 steps of one MAC each.
    assert (m.macs, m.active_pes, m.timestamps, m.latency_compute) == (512, 64, 8, 8)
    # each output stays on its PE: written once.
    assert m.tensor("output").volume_unique == 64


def test_lower_conv_weight_stationary_two_levels() -> None:
    layer = _layer(
        "SpatialMap(1,1) K; TemporalMap(2,2) C; TemporalMap(Sz(R),Sz(R)) R;"
        " TemporalMap(Sz(S),Sz(S)) S; TemporalMap(Sz(R),1) Y; TemporalMap(Sz(S),1) X;"
        " Cluster(2, P); SpatialMap(1,1) C;",
        "K 4, C 4, R 3, S 3, Y 6, X 6",
    )
    low = lower(layer, Hardware(num_pes=4))
    assert low.specs.dataflow.space_stamp == "{ S[k, c, oy, ox, r, s] -> PE[(k) mod 2, (c) mod 2] }"
    assert (
        low.specs.dataflow.time_stamp
        == "{ S[k, c, oy, ox, r, s] -> T[floor((k)/2), floor((c)/2), oy, ox] }"
    )
    m = tenet.analyze(low.specs.workload, low.specs.architecture, low.specs.dataflow)
    # MACs 4*4*3*3*4*4; 2 K folds x 2 C tiles x 4 x 4 output positions; 9 MACs per step.
    assert m.macs == 2304
    assert (m.active_pes, m.timestamps, m.instances_per_step_max) == (4, 64, 9)
    assert m.latency_compute == 64 * 9
    # each weight W[k, c, r, s] is fetched once: 4 * 4 * 9.
    assert m.tensor("filter").volume_unique == 144


def test_lower_row_stationary_coupled_spatial_maps() -> None:
    layer = _layer(
        "TemporalMap(1,1) K; TemporalMap(1,1) C; SpatialMap(Sz(R),1) Y; TemporalMap(Sz(S),1) X;"
        " Cluster(Sz(R), P); SpatialMap(1,1) Y; SpatialMap(1,1) R; TemporalMap(Sz(S),1) X;",
        "K 1, C 1, R 3, S 3, Y 6, X 6",
    )
    low = lower(layer, Hardware(num_pes=6))
    # the coupled pair (Y, R): PE i of a cluster takes filter row i (Eyeriss' diagonal).
    assert low.specs.dataflow.space_stamp == "{ S[k, c, oy, ox, r, s] -> PE[(oy) mod 2, r] }"
    m = tenet.analyze(low.specs.workload, low.specs.architecture, low.specs.dataflow)
    # 2 clusters x 3 PEs; 2 output-row folds x 4 columns; 3 MACs (S) per PE per step.
    assert (m.macs, m.active_pes, m.timestamps, m.latency_compute) == (144, 6, 8, 24)


def test_lower_matches_the_tenet_counterpart() -> None:
    # conv_kcp_ws_8x8.m's header names TENET's conv2d_ws.m: PE[k%8, c%8], T[k/8, c/8, oy, ox].
    layer = load_mapping(COMPARISON / "conv_kcp_ws_8x8.m").layers[0]
    low = lower(layer, load_hardware(HW / "bw64_64pe.m"), "mesh")
    assert low.specs.dataflow.space_stamp.endswith("PE[(k) mod 8, (c) mod 8] }")
    assert low.specs.dataflow.time_stamp.endswith("T[floor((k)/8), floor((c)/8), oy, ox] }")
    assert len(low.specs.architecture.interconnect) == 2


@pytest.mark.parametrize(
    ("body", "dims", "kind", "match"),
    [
        ("SpatialMap(1,1) M; TemporalMap(4,2) N;", "M 4 N 8 K 2", "GEMM", "overlap or skip"),
        (
            "SpatialMap(1,1) M; SpatialMap(1,1) N;",
            "M 4 N 4 K 2",
            "GEMM",
            "splits M and N over the same units",
        ),
    ],
)
def test_lower_rejects_directives_without_a_relation(
    body: str, dims: str, kind: str, match: str
) -> None:
    with pytest.raises(InfeasibleError, match=match):
        lower(_layer(body, dims, kind), Hardware(num_pes=4))


def test_lower_rejects_windows_that_are_not_whole_strided_rows() -> None:
    layer = parse_mapping(
        "Network n { Layer l { Type: CONV Stride { Y: 2, X: 2 }"
        " Dimensions { K 2, C 1, R 3, S 3, Y 9, X 9 }"
        " Dataflow { SpatialMap(1,1) K; TemporalMap(2,1) Y; } } }"
    ).layers[0]
    with pytest.raises(InfeasibleError, match="not a whole number of output"):
        lower(layer, Hardware(num_pes=2))


def test_expressible_plain_tiling() -> None:
    r = check_expressible("{S[k,c,x,y]->PE[k%8,c%8]}", "{S[k,c,x,y]->T[floor(k/8),floor(c/8),y,x]}")
    assert r.expressible and r.reasons == ()
    assert r.space == (("k",), ("c",)) and str(r) == "expressible with data-centric directives"


@pytest.mark.parametrize(
    ("space", "time", "domain", "match"),
    [
        (
            "{S[i,j,k]->PE[i%8,j%8]}",
            "{S[i,j,k]->T[floor(i/8),floor(j/8),i%8+j%8+k]}",
            None,
            "skew: time-stamp coordinate 2 combines i, j, k",
        ),
        (
            "{S[k,c,ox,oy,rx,ry]->PE[ry+5*floor(oy/14),oy%14]}",
            "{S[k,c,ox,oy,rx,ry]->T[k,c,ox]}",
            None,
            "mixed dimensions on PE axis 0: it combines oy, ry",
        ),
        (
            "{S[i]->PE[0]}",
            "{S[i]->T[i]: i < 4; S[i]->T[i+10]: i >= 4}",
            None,
            "2 pieces",
        ),
        (
            "{S[a,b,c,d,e]->PE[a,b,c,d,e]}",
            "{S[a,b,c,d,e]->T[0]}",
            None,
            "5 PE axes",
        ),
        (
            "{S[i,j]->PE[i]}",
            "{S[i,j]->T[j]}",
            "{S[i,j]: 0 <= j <= i < 8}",
            "non-rectangular iteration domain",
        ),
    ],
)
def test_expressible_says_why_not(space: str, time: str, domain: str | None, match: str) -> None:
    r = check_expressible(space, time, domain)
    assert not r.expressible
    assert any(match in reason for reason in r.reasons), r.reasons


def test_expressible_bad_isl_text_raises() -> None:
    with pytest.raises(SpecError, match="malformed isl text"):
        check_expressible("{S[i]->PE[", "{S[i]->T[i]}")
