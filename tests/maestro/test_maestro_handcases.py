"""The estimator on small layers whose figures are derived by hand from MAESTRO's model
(iteration cases, per-step delays latency + ceil(V / bandwidth) - 1, multicast, stationarity)."""

from __future__ import annotations

import pytest

from tenet.errors import SpecError
from tenet.maestro.directives import Hardware
from tenet.maestro.estimate import estimate, estimate_network, loop_bound_macs
from tenet.maestro.reader import parse_mapping

GEMM_MNK = """Network g { Layer mnk { Type: GEMM Dimensions { M 8 N 8 K 8 }
  Dataflow { SpatialMap(1,1) M; TemporalMap(1,1) N; TemporalMap(1,1) K; } } }"""
GEMM_OS = """Network g { Layer os { Type: GEMM Dimensions { M 8 N 8 K 8 }
  Dataflow { SpatialMap(1,1) M; TemporalMap(8,8) N; TemporalMap(8,8) K;
             Cluster(8, P); SpatialMap(1,1) N; TemporalMap(1,1) K; } } }"""
IDEAL = Hardware(num_pes=8, noc_latency=0)


def test_estimate_gemm_one_mac_per_step() -> None:
    e = estimate(parse_mapping(GEMM_MNK).layers[0], IDEAL)
    # 8 PEs over M, 8 x 8 (N, K) steps of one MAC each; transfers take 0 cycles.
    assert e.num_macs == 512
    assert e.runtime == 64
    assert e.average_number_of_utilized_pes == 8
    # B[k, n] is not indexed by the spatial M: multicast, one element per step.
    assert e.filter_l2_buffer_read == 64
    # A[m, k]: 8 per step when K advances; stationary when N advances (K wraps: reloads
    # not counted): 8 + 7*8 + 49*8 = 456 (the README's verified figure, 512 really).
    assert e.input_l2_buffer_read == 456
    # every step writes the 8 one-element output tiles: 8 * 64.
    assert e.output_l2_buffer_write == 512
    assert e.input_l2_buffer_write == 64 and e.output_l2_buffer_read == 64
    # energy: 18.61 * L2 (456 + 64 + 64 + 64 + 64 + 512) + 1.68 * L1 + MACs,
    # L1 = reads 3 * 512, writes 456 + 64 + 512.
    l1 = 3 * 512 + 456 + 64 + 512
    assert e.total_energy_consumption == pytest.approx(18.61 * 1224 + 1.68 * l1 + 512)
    assert e.edge_cases == ()


def test_estimate_gemm_step_delays_with_bandwidth_and_latency() -> None:
    hw = Hardware(num_pes=8, noc_bandwidth=4, noc_latency=1)
    e = estimate(parse_mapping(GEMM_MNK).layers[0], hw)
    # all-Init case: ingress 8 + 1 = 9 -> 1 + ceil(9/4) - 1 = 3, plus compute 1 = 4;
    # K advancing (7 + 49 cases): ingress 9 -> 3, egress 8 -> 2, step 3;
    # N advancing with K at Init (7): ingress 1 -> 1, egress 2, step 2.
    assert e.runtime == 4 + 7 * 3 + 7 * 2 + 49 * 3
    assert e.ingress_delay_max == 3 and e.egress_delay_max == 2
    # peak NoC requirement: max(9, 8) // compute 1.
    assert e.peak_bandwidth_requirement == 9


def test_estimate_gemm_cluster_keeps_partial_sums_inside() -> None:
    e = estimate(parse_mapping(GEMM_OS).layers[0], Hardware(num_pes=64, noc_latency=0))
    # one top step; each cluster's 8 PEs walk K for 8 cycles: runtime 8 + ingress 0.
    assert e.runtime == 8
    assert e.num_macs == 512
    assert e.average_number_of_utilized_pes == 64
    # the whole reduction is inside the cluster: each output leaves once.
    assert e.output_l2_buffer_write == 64
    # A rows spread over the 8 clusters (8 x 8), B multicast to all of them (64).
    assert e.input_l2_buffer_read == 64 and e.filter_l2_buffer_read == 64


def test_estimate_conv_kp_folds_over_pes() -> None:
    text = """Network c { Layer kp { Type: CONV Dimensions { K 4, C 2, R 3, S 3, Y 5, X 5 }
      Dataflow { SpatialMap(1,1) K; TemporalMap(1,1) C; TemporalMap(Sz(R),1) Y;
                 TemporalMap(Sz(S),1) X; } } }"""
    e = estimate(parse_mapping(text).layers[0], Hardware(num_pes=2, noc_latency=0))
    # K = 4 on 2 PEs: 2 folds; C 2 x Y' 3 x X' 3 steps each; 9 MACs (R x S) per PE per step.
    assert e.num_macs == 4 * 2 * 9 * 9
    assert e.runtime == 2 * 2 * 3 * 3 * 9
    assert e.filter_l2_buffer_write == 4 * 2 * 9 and e.input_l2_buffer_write == 2 * 5 * 5


def test_loop_bound_macs_uses_the_stride() -> None:
    layer = parse_mapping(
        "Network c { Layer s { Type: CONV Stride { X: 2, Y: 2 }"
        " Dimensions { K 1, C 1, R 3, S 3, Y 7, X 7 } Dataflow { SpatialMap(1,1) K; } } }"
    ).layers[0]
    # output rows (7 - 3) // 2 + 1 = 3, so 3 * 3 * 9 MACs.
    assert loop_bound_macs(layer) == 81


@pytest.mark.parametrize(
    ("dataflow", "hw", "match"),
    [
        ("TemporalMap(1,1) M;", 8, "has no SpatialMap"),
        ("SpatialMap(1,1) M; SpatialMap(1,1) N; SpatialMap(1,1) K;", 8, "3 SpatialMaps"),
        ("SpatialMap(1,1) M; Cluster(16, P); SpatialMap(1,1) N;", 8, "need 16 PEs"),
        ("SpatialMap(1,1) Q;", 8, "unknown dimension Q"),
    ],
)
def test_estimate_rejects_inexpressible_layers(dataflow: str, hw: int, match: str) -> None:
    layer = parse_mapping(
        f"Network g {{ Layer l {{ Type: GEMM Dimensions {{ M 8 N 8 K 8 }} "
        f"Dataflow {{ {dataflow} }} }} }}"
    ).layers[0]
    with pytest.raises(SpecError, match=match):
        estimate(layer, Hardware(num_pes=hw))


def test_estimate_rejects_partial_filter_temporal_map() -> None:
    layer = parse_mapping(
        "Network c { Layer l { Type: CONV Dimensions { K 2, C 2, R 3, S 3, Y 8, X 8 }"
        " Dataflow { SpatialMap(1,1) K; TemporalMap(1,1) R; } } }"
    ).layers[0]
    with pytest.raises(SpecError, match="TemporalMap on R to cover the whole filter"):
        estimate(layer, Hardware(num_pes=2))


def test_estimate_rejects_missing_dimensions() -> None:
    layer = parse_mapping(
        "Network c { Layer l { Type: CONV Dimensions { K 2, C 2, R 3, Y 8, X 8 }"
        " Dataflow { SpatialMap(1,1) K; } } }"
    ).layers[0]
    with pytest.raises(SpecError, match="dimension S is missing"):
        estimate(layer, Hardware(num_pes=2))


def test_estimate_network_keeps_going_after_a_bad_layer() -> None:
    net = parse_mapping(
        "Network g { Layer bad { Type: GEMM Dimensions { M 2 N 2 K 2 }"
        " Dataflow { TemporalMap(1,1) M; } }"
        " Layer good { Type: GEMM Dimensions { M 2 N 2 K 2 } Dataflow { SpatialMap(1,1) M; } } }"
    )
    bad, good = estimate_network(net, Hardware(num_pes=2))
    assert isinstance(bad, SpecError)
    assert not isinstance(good, Exception) and good.num_macs == 8
