"""Every layer of our MAESTRO mappings (and, tests marked ``shared``, of MAESTRO's own examples)
evaluates or raises a clear SpecError, and MAESTRO's known defects are computed right and
flagged (figures of MAESTRO's own runs as published with its inputs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenet.errors import SpecError
from tenet.maestro.directives import Hardware
from tenet.maestro.estimate import MaestroEstimate, estimate_network
from tenet.maestro.reader import load_hardware, load_mapping
from tests.conftest import need_shared
from tests.maestro.conftest import COMPARISON, EXAMPLES, HW

REJECTED = {"UNet_kcp_ws.m", "googlenet_ykp_os.m", "mnasnet_ykp_os.m", "squeezenet1_0_ykp_os.m"}
CRASHING = {"Resnet50_rs.m", "ResNeXt50_rs.m", "vgg16_rs.m", "UNet_RS.m"}
OUR_REJECTED = {"rejected_rs.m"}
OUR_CRASHING = {"mex_rs_256.m"}


def _hw() -> Hardware:
    return load_hardware(EXAMPLES / "hw" / "accelerator_1.m")


def _layer(path: Path, name: str) -> MaestroEstimate:
    (result,) = estimate_network(load_mapping(path), _hw(), [name])[:1]
    assert isinstance(result, MaestroEstimate)
    return result


def _check_evaluates_or_says_why(
    path: Path, hw: Hardware, rejected: set[str], crashing: set[str]
) -> None:
    results = estimate_network(load_mapping(path), hw)
    errors = [r for r in results if not isinstance(r, MaestroEstimate)]
    assert all(isinstance(e, SpecError) for e in errors)
    if path.name in rejected:
        # MAESTRO's parser rejects these files: a TemporalMap on R/S that is not the filter.
        assert errors
        assert all("to cover the whole filter" in str(e) for e in errors)
    else:
        assert not errors
    crashed = [
        r
        for r in results
        if isinstance(r, MaestroEstimate) and any("SIGFPE" in n for n in r.edge_cases)
    ]
    assert bool(crashed) == (path.name in crashing), path.name
    for r in results:
        if isinstance(r, MaestroEstimate):
            assert r.num_macs > 0 and r.runtime >= 0


@pytest.mark.parametrize("path", sorted(COMPARISON.glob("*.m")), ids=lambda p: p.name)
def test_ours_every_layer_evaluates_or_says_why(path: Path) -> None:
    hw = load_hardware(HW / "bw64_256pe.m")
    _check_evaluates_or_says_why(path, hw, OUR_REJECTED, OUR_CRASHING)


def test_ours_strided_output_reads_are_corrected() -> None:
    # tiny_net_nlr.m CONV1: K=4, 3x3 filter, 9x9 input, stride 2. MAESTRO counts the output
    # as K (Y-R+1)(X-S+1) = 4 * 7 * 7 = 196 elements; with the stride it has
    # K ((9-3)/2+1)^2 = 4 * 4 * 4 = 64.
    (e, *_) = estimate_network(load_mapping(COMPARISON / "tiny_net_nlr.m"), _hw_ours())
    assert isinstance(e, MaestroEstimate)
    assert e.output_l2_buffer_read == 64
    assert any("counts 196 output elements" in n for n in e.edge_cases)


def _hw_ours() -> Hardware:
    return load_hardware(HW / "bw64_64pe.m")


@pytest.mark.shared
def test_examples_every_layer_evaluates_or_says_why() -> None:
    need_shared()
    paths = sorted(EXAMPLES.glob("*.m"))
    assert len(paths) == 41
    for path in paths:
        _check_evaluates_or_says_why(path, _hw(), REJECTED, CRASHING)


@pytest.mark.shared
def test_examples_vgg16_rs_crashes_on_every_layer() -> None:
    need_shared()
    # README: vgg16_rs.m crashes MAESTRO on all its (13) layers.
    results = estimate_network(load_mapping(EXAMPLES / "vgg16_rs.m"), _hw())
    assert len(results) == 13
    assert all(any("SIGFPE" in n for n in r.edge_cases) for r in results)  # type: ignore[union-attr]


@pytest.mark.shared
def test_examples_unet_rs_crashes_on_its_trconv_layers_only() -> None:
    need_shared()
    net = load_mapping(EXAMPLES / "UNet_RS.m")
    results = estimate_network(net, _hw())
    crashed = {
        layer.type
        for layer, r in zip(net.layers, results, strict=True)
        if any("SIGFPE" in n for n in r.edge_cases)  # type: ignore[union-attr]
    }
    assert crashed == {"TRCONV"}
    assert sum(layer.type == "TRCONV" for layer in net.layers) == 4


@pytest.mark.shared
@pytest.mark.parametrize(
    ("name", "maestro_macs", "ratio"),
    [("CONV1", 194068224, 1.74), ("CONV5_1_1", 80740352, 3.14)],
)
def test_examples_mac_count_defect_is_corrected(name: str, maestro_macs: int, ratio: float) -> None:
    need_shared()
    # README: Resnet50_yxp_os CONV1 counts 1.74x, CONV5_1_1 3.14x the loop-bound product.
    e = _layer(EXAMPLES / "Resnet50_yxp_os.m", name)
    note = next(n for n in e.edge_cases if n.startswith("num_macs"))
    assert f"counts {maestro_macs} MACs" in note
    assert maestro_macs / e.num_macs == pytest.approx(ratio, abs=0.005)
    assert e.input_l1_buffer_read == e.num_macs


@pytest.mark.shared
def test_examples_zero_mac_layer_gets_the_loop_bound_count() -> None:
    need_shared()
    # README: ResNeXt50_yxp_os FC1000 reports 0 MACs and runtime 0; 1000 x 2048 x 7 x 7 MACs.
    e = _layer(EXAMPLES / "ResNeXt50_yxp_os.m", "FC1000")
    assert e.runtime == 0
    assert any("counts 0 MACs" in n for n in e.edge_cases)
    assert e.num_macs > 0


@pytest.mark.shared
def test_examples_strided_output_reads_are_corrected() -> None:
    need_shared()
    # README: Resnet50 CONV1 (stride 2) counts 3,041,536 output reads = 64 * 218^2, ignoring
    # the stride; the strided output has 64 * 109^2 = 760,384 elements.
    e = _layer(EXAMPLES / "Resnet50_nlr.m", "CONV1")
    assert e.output_l2_buffer_read == 760384
    assert any("counts 3041536 output elements" in n for n in e.edge_cases)


def test_comparison_mex_gemm_reuse_mac_defect() -> None:
    # README: mex_gemm_reuse_256 counts 16,121,856 = 246 * 256 * 256 MACs instead of 256^3.
    hw = load_hardware(HW / "bw64_256pe.m")
    (e,) = estimate_network(load_mapping(COMPARISON / "mex_gemm_reuse_256.m"), hw)
    assert isinstance(e, MaestroEstimate)
    assert e.num_macs == 256**3
    assert any("counts 16121856 MACs" in n for n in e.edge_cases)
    assert any(n.startswith("partial tiles at edges") and "K = 256" in n for n in e.edge_cases)


def test_comparison_mex_rs_division_by_zero_is_guarded() -> None:
    # README: the verbatim row-stationary mapping makes MAESTRO crash (SIGFPE); the fixed one
    # (the duplicate TemporalMap on S removed) runs.
    hw = load_hardware(HW / "bw64_256pe.m")
    (bad,) = estimate_network(load_mapping(COMPARISON / "mex_rs_256.m"), hw)
    (fixed,) = estimate_network(load_mapping(COMPARISON / "mex_rs_fixed_256.m"), hw)
    assert isinstance(bad, MaestroEstimate) and isinstance(fixed, MaestroEstimate)
    assert any("SIGFPE" in n for n in bad.edge_cases)
    assert not any("SIGFPE" in n for n in fixed.edge_cases)


def test_comparison_nlr_filter_reads_undercount() -> None:
    # README: mex_nlr_256 reads 72,585 filter elements although the filter has 73,728.
    hw = load_hardware(HW / "bw64_256pe.m")
    (e,) = estimate_network(load_mapping(COMPARISON / "mex_nlr_256.m"), hw)
    assert isinstance(e, MaestroEstimate)
    assert e.filter_l2_buffer_read == 72585
