"""MAESTRO's description language and hardware files: every file of ours (and, tests marked
``shared``, of MAESTRO's) parses; bad input raises SpecError naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenet.errors import SpecError
from tenet.maestro.directives import ClusterDirective, MapDirective
from tenet.maestro.reader import load_hardware, load_mapping, parse_hardware, parse_mapping
from tests.conftest import ROOT, need_shared
from tests.maestro.conftest import COMPARISON, EXAMPLES, HW, MAESTRO_DATA

OURS = ROOT / "examples" / "maestro"
MAPPINGS = sorted(COMPARISON.glob("*.m")) + [OURS / "gemm_os.m"]
HARDWARE = sorted(HW.glob("*.m")) + [OURS / "hw_16pe.m"]


def _check_mapping_parses(path: Path) -> None:
    network = load_mapping(path)
    assert network.layers
    for layer in network.layers:
        assert layer.dims and layer.directives


@pytest.mark.parametrize("path", MAPPINGS, ids=lambda p: p.name)
def test_reader_parses_every_mapping(path: Path) -> None:
    _check_mapping_parses(path)


@pytest.mark.parametrize("path", HARDWARE, ids=lambda p: p.name)
def test_reader_parses_every_hardware_file(path: Path) -> None:
    assert load_hardware(path).num_pes > 0


@pytest.mark.shared
def test_reader_parses_every_maestro_file() -> None:
    need_shared()
    mappings = sorted(p for p in MAESTRO_DATA.rglob("*.m") if p.parent.name != "hw")
    assert mappings
    for path in mappings:
        _check_mapping_parses(path)
    for path in sorted(MAESTRO_DATA.rglob("hw/*.m")):
        assert load_hardware(path).num_pes > 0


def test_reader_counts_layers() -> None:
    # tiny_net_nlr.m has 3 "Layer" lines, rejected_rs.m 2
    assert len(load_mapping(COMPARISON / "tiny_net_nlr.m").layers) == 3
    assert len(load_mapping(COMPARISON / "rejected_rs.m").layers) == 2


@pytest.mark.shared
def test_reader_counts_layers_of_examples() -> None:
    need_shared()
    # Resnet50 has 66 "Layer" lines in its file (grep), MobileNetV2 56, vgg16 13.
    assert len(load_mapping(EXAMPLES / "Resnet50_nlr.m").layers) == 66
    assert len(load_mapping(EXAMPLES / "MobileNetV2_kcp_ws.m").layers) == 56
    assert len(load_mapping(EXAMPLES / "vgg16_nlr.m").layers) == 13


def test_reader_resolves_constants_and_sz() -> None:
    net = load_mapping(COMPARISON / "mex_gemm_reuse_256.m")
    layer = net.layers[0]
    # Constants SzK = SzM = SzN = 256, MTileSz 10, NTileSz 50, KTileSz 100 (file header).
    assert layer.dims == {"K": 256, "M": 256, "N": 256}
    texts = [d.text() for d in layer.directives]
    assert texts[:4] == [
        "TemporalMap(50,50) N",
        "SpatialMap(10,10) M",
        "TemporalMap(100,100) K",
        "Cluster(100,P)",
    ]


def test_reader_keeps_strides_names_and_lines_of_ours() -> None:
    layer = load_mapping(COMPARISON / "tiny_net_nlr.m").layers[0]
    assert layer.name == "CONV1"
    assert layer.strides == {"X": 2, "Y": 2}
    first = layer.directives[0]
    # lines 1-2 are comments, 3 opens the network, 4 the layer, 9 holds the first directive
    assert isinstance(first, MapDirective) and first.dim == "K" and first.line == 9
    rs = load_mapping(COMPARISON / "conv_rs_12x14.m").layers[0]
    assert isinstance(rs.directives[6], ClusterDirective)


@pytest.mark.shared
def test_reader_keeps_strides_names_and_lines() -> None:
    need_shared()
    layer = load_mapping(EXAMPLES / "googlenet_rs.m").layers[0]
    assert layer.name == "Conv2d-1"
    assert layer.strides == {"X": 2, "Y": 2}
    first = layer.directives[0]
    assert isinstance(first, MapDirective) and first.dim == "Y'" and first.line == 7
    assert isinstance(layer.directives[6], ClusterDirective)


def test_reader_layer_without_dataflow_reuses_previous() -> None:
    net = parse_mapping(
        "Network n { Layer a { Type: GEMM Dimensions { M 4 N 4 K 4 }"
        " Dataflow { SpatialMap(1,1) M; } }"
        " Layer b { Type: GEMM Dimensions { M 8 N 8 K 8 } } }"
    )
    assert net.layers[1].directives == net.layers[0].directives


def test_reader_hardware_defaults_and_keys() -> None:
    hw = parse_hardware("num_pes: 24\nnoc_bw_cstr: 4 // comment\noffchip_bw_cstr: 7")
    assert (hw.num_pes, hw.noc_bandwidth, hw.noc_latency, hw.offchip_bandwidth) == (24, 4, 1, 7)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("Network n { Layer a { Type: FC Dimensions { K 1 } } }", "FC is recognised by MAESTRO"),
        ("Network n { Layer a { Type: WEIRD } }", "unknown type 'WEIRD'"),
        (
            "Network n { Layer a { Type: GEMM Dimensions { M 4 } Dataflow { Spread(1,1) M; } } }",
            "expected SpatialMap, TemporalMap or Cluster",
        ),
        (
            "Network n { Layer a { Type: GEMM Dimensions { M 4 }"
            " Dataflow { SpatialMap(Sz(Q),1) M; } } }",
            r"Sz\(Q\): Q is not among",
        ),
        (
            "Network n { Layer a { Type: GEMM Dimensions { M 4 } Dataflow { Cluster(2, X); } } }",
            "Cluster type must be P or L",
        ),
        ("Network n { Layer a { Type: GEMM Dimensions { M zero } } }", "neither an integer"),
        ("Network n { Layer a { Type: GEMM Dimensions { M 0 } } }", "positive integer"),
        (
            "Network n { Layer a { Dimensions { M 4 } Dataflow { SpatialMap(1,1) M; } } }",
            "has no Type",
        ),
        ("Network n { Layer a { Type: GEMM Dimensions { M 4 }", "unexpected end of file"),
        ("Layer a { }", "expected Constant or Network"),
        ("Constant T 4;", "no Network with layers"),
    ],
)
def test_reader_bad_mapping_raises(text: str, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        parse_mapping(text, source="bad.m")


def test_reader_error_names_file_and_line() -> None:
    with pytest.raises(SpecError, match=r"^bad\.m: line 2: "):
        parse_mapping("Network n {\n Layer a { Type: NOPE } }", source="bad.m")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("num_pes: 64\nbogus: 1", "unknown hardware key 'bogus'"),
        ("num_pes: many", "not an integer"),
        ("num_pes: 0", "num_pes: "),
        ("noc_bw_cstr:", "unexpected end of file"),
    ],
)
def test_reader_bad_hardware_raises(text: str, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        parse_hardware(text)


def test_reader_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"nope\.m: file not found"):
        load_mapping(tmp_path / "nope.m")
    with pytest.raises(SpecError, match=r"nope\.m: file not found"):
        load_hardware(tmp_path / "nope.m")
