"""Design points: loading a designs file, labelling, evaluating; bad entries name the entry."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from tenet.designs import design_point, evaluate_designs, label_designs, load_designs
from tenet.errors import SpecError
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tests.paper_example import GEMM, SKEWED, SYSTOLIC

GEMM_SPEC = WorkloadSpec.from_mapping(GEMM)
ARCH_SPEC = ArchitectureSpec.from_mapping(SYSTOLIC)
SKEWED_SPEC = DataflowSpec.from_mapping(SKEWED)


def test_designs_file_resolves_paths_beside_it(spec_files: dict[str, Path]) -> None:
    points = load_designs(spec_files["designs"])
    assert [(p.specs.architecture.name, p.specs.dataflow.name) for p in points] == [
        ("systolic-2x2", "os-skewed"),
        ("systolic-2x2", "os-unskewed"),
        ("multicast-2x2", "os-unskewed"),
    ]


def test_designs_labels_add_the_architecture_when_dataflows_repeat(
    spec_files: dict[str, Path],
) -> None:
    labels = [p.label for p in label_designs(load_designs(spec_files["designs"]))]
    assert labels == [
        "os-skewed @ systolic-2x2",
        "os-unskewed @ systolic-2x2",
        "os-unskewed @ multicast-2x2",
    ]


def test_designs_labels_keep_given_ones_and_use_dataflow_names_when_unique() -> None:
    a = design_point(GEMM_SPEC, ARCH_SPEC, SKEWED_SPEC)
    b = design_point(GEMM_SPEC, ARCH_SPEC, SKEWED_SPEC, label="mine")
    assert [p.label for p in label_designs([a, b])] == ["os-skewed", "mine"]


def test_designs_labels_add_size_parameters_last() -> None:
    a = design_point(GEMM_SPEC, ARCH_SPEC, SKEWED_SPEC)
    labels = [p.label for p in label_designs([a, replace(a, specs=a.specs.with_params({"N": 2}))])]
    assert labels == [
        "gemm-2x2x4: os-skewed @ systolic-2x2",
        "gemm-2x2x4: os-skewed @ systolic-2x2 (N=2)",
    ]


def test_designs_refuse_points_no_label_tells_apart() -> None:
    a = design_point(GEMM_SPEC, ARCH_SPEC, SKEWED_SPEC)
    with pytest.raises(SpecError, match="design points repeat 'gemm-2x2x4: os-skewed"):
        label_designs([a, a])


def test_designs_refuse_repeated_given_labels() -> None:
    a = design_point(GEMM_SPEC, ARCH_SPEC, SKEWED_SPEC, label="x")
    with pytest.raises(SpecError, match="given labels repeat 'x'"):
        label_designs([a, a])


def test_designs_evaluate_keys_by_label_and_names(spec_files: dict[str, Path]) -> None:
    results = evaluate_designs(load_designs(spec_files["designs"])[:1])
    [(key, metrics)] = results.items()
    assert key == ("os-skewed", "gemm-2x2x4", "systolic-2x2", "os-skewed")
    assert metrics.name == "os-skewed"
    assert metrics.macs == 16  # 2·2·4


def test_designs_file_reads_tenet_experiments(tmp_path: Path, tenet_data: Path) -> None:
    experiment = tenet_data / "reuse_factor_experiment" / "experiment" / "experiment_1"
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump({"designs": [{"experiment": str(experiment)}]}))
    [point] = load_designs(path)
    assert point.key[1:] == (
        "conv2d",
        "lineral",
        "conv2d_kp",
    )


def _designs(tmp_path: Path, entry: dict[str, object]) -> Path:
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump({"params": {"N": 2}, "designs": [entry]}))
    return path


def test_designs_entry_refuses_experiment_and_specs_together(tmp_path: Path) -> None:
    entry = {"experiment": "e", "workload": "gemm"}
    with pytest.raises(SpecError, match=r"d\.yaml: .*designs\.0: .*give either experiment"):
        load_designs(_designs(tmp_path, entry))


def test_designs_entry_needs_all_three_specs(tmp_path: Path) -> None:
    entry = {"workload": "gemm", "architecture": "systolic-2d-8x8"}
    with pytest.raises(SpecError, match="give experiment, or all of workload"):
        load_designs(_designs(tmp_path, entry))


def test_designs_entry_refuses_unknown_keys(tmp_path: Path) -> None:
    entry = {"workload": "gemm", "arch": "systolic-2d-8x8", "dataflow": "gemm-os-systolic"}
    with pytest.raises(
        SpecError, match=r"designs\.0\.arch: unknown key; did you mean 'architecture'\?"
    ):
        load_designs(_designs(tmp_path, entry))


def test_designs_entry_with_unknown_zoo_name_names_the_entry(tmp_path: Path) -> None:
    entry = {"workload": "gemm", "architecture": "no-such-array", "dataflow": "gemm-os-systolic"}
    with pytest.raises(SpecError, match=r"d\.yaml: designs\.0: no architecture named"):
        load_designs(_designs(tmp_path, entry))


def test_designs_file_needs_at_least_one_point(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump({"designs": []}))
    with pytest.raises(SpecError, match="designs: List should have at least 1 item"):
        load_designs(path)
