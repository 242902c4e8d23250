"""Every class of bad input gets its own error type and a message that locates it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tenet import (
    CountingError,
    DomainNotCoveredError,
    IslSyntaxError,
    NotAFunctionError,
    OutsideArrayError,
    SpecError,
    UnknownTensorError,
    VersionError,
    analyze,
    evaluate,
    load_problem,
)
from tenet.dse.run.execution import ExecutionOptions
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    WorkloadSpec,
    load_workload,
    read_experiment,
    read_pe_array,
    read_statement,
)

GEMM = {
    "name": "g",
    "domain": "{S[i, j, k]: 0 <= i < 4 and 0 <= j < 4 and 0 <= k < 2}",
    "accesses": {
        "A": {"read": "{S[i, j, k] -> A[i, k]}"},
        "C": {"write": "{S[i, j, k] -> C[i, j]}"},
    },
}
ARRAY = {
    "name": "a",
    "pe": "{PE[p, q]: 0 <= p < 4 and 0 <= q < 4}",
    "interconnect": [{"link": "{PE[p, q] -> PE[p, q + 1]}"}],
}
FLOW = {
    "name": "d",
    "space_stamp": "{S[i, j, k] -> PE[i, j]}",
    "time_stamp": "{S[i, j, k] -> T[k]}",
}


def _problem(
    workload: dict | None = None,
    arch: dict | None = None,
    flow: dict | None = None,
    **kwargs: object,
) -> object:
    return load_problem(
        WorkloadSpec.from_mapping(workload or GEMM),
        ArchitectureSpec.from_mapping(arch or ARRAY),
        DataflowSpec.from_mapping(flow or FLOW),
        **kwargs,  # type: ignore[arg-type]
    )


def test_errors_malformed_isl_in_statement_names_file_line_and_text(tmp_path: Path) -> None:
    path = tmp_path / "bad.s"
    path.write_text("1 1\n{S[i]: 0 <= i < 4}\n{S[i] -> A[i}\n{S[i] -> B[i]}\n")
    with pytest.raises(
        IslSyntaxError, match=r"bad\.s: line 3: malformed isl text '\{S\[i\] -> A\[i\}'"
    ):
        read_statement(path)


def test_errors_malformed_isl_in_yaml_names_key_and_line(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: w\ndomain: '{S[i]: 0 <= i < 4}'\naccesses:\n  A: {read: '{S[i] -> A[i'}\n"
    )
    with pytest.raises(IslSyntaxError, match=r"w\.yaml: accesses\.A\.read \(line 4\): malformed"):
        load_problem(
            path,
            ArchitectureSpec.from_mapping(ARRAY),
            DataflowSpec.from_mapping(
                {"name": "d", "space_stamp": "{S[i] -> PE[i, 0]}", "time_stamp": "{S[i] -> T[0]}"}
            ),
        )


def test_errors_missing_file_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match=r"nowhere\.s: file not found"):
        load_workload("nowhere.s")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_errors_unreadable_file_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.s"
    path.write_text("1 0\n{S[i]: 0 <= i < 2}\n{S[i] -> A[i]}\n")
    path.chmod(0)
    with pytest.raises(SpecError, match="cannot read file"):
        load_workload(path)


def test_errors_unreadable_file_not_utf8_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.s"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SpecError, match=r"binary\.s: a binary file, not text"):
        load_workload(path)


def test_errors_unknown_format_suffix() -> None:
    with pytest.raises(SpecError, match="cannot tell the format"):
        load_workload("layer.txt")


def test_errors_unknown_zoo_name_suggests_the_closest() -> None:
    with pytest.raises(
        SpecError, match=r"no workload named 'gemmm' in the zoo; did you mean 'gemm'"
    ):
        load_workload("gemmm")


def test_errors_unknown_zoo_name_far_from_any_points_to_the_listing() -> None:
    with pytest.raises(SpecError, match=r"no workload named 'zzz' in the zoo \(see 'tenet zoo"):
        load_workload("zzz")


def test_errors_unknown_tensor_suggests_closest() -> None:
    with pytest.raises(
        UnknownTensorError,
        match=r"tensor 'a' is not in the workload \(known: A, C\); did you mean 'A'\?",
    ):
        _problem(tensors=["a"])


def test_errors_unknown_tensor_in_dataflow_spec() -> None:
    with pytest.raises(UnknownTensorError, match="tensor 'B' is not in the workload"):
        _problem(flow={**FLOW, "tensors": ["B"]})


def test_errors_unbound_parameter_names_it() -> None:
    workload = {**GEMM, "domain": "[N] -> {S[i, j, k]: 0 <= i < N and 0 <= j < 4 and 0 <= k < 2}"}
    with pytest.raises(
        CountingError, match=r"domain: size parameter\(s\) N not bound; .*--param N=64"
    ):
        _problem(workload=workload)


def test_errors_unmapped_instances_give_a_witness() -> None:
    flow = {**FLOW, "time_stamp": "{S[i, j, k] -> T[k]: i < 3}"}
    with pytest.raises(DomainNotCoveredError, match=r"instance S\[3, \d, \d\] has no time-stamp"):
        _problem(flow=flow)


def test_errors_pe_outside_the_array_gives_a_witness() -> None:
    flow = {**FLOW, "space_stamp": "{S[i, j, k] -> PE[i + k, j]}"}
    with pytest.raises(
        OutsideArrayError, match=r"instance S\[\d, \d, 1\] runs on PE\[4, \d\], outside the PE set"
    ):
        _problem(flow=flow)


def test_errors_two_space_stamps_for_one_instance() -> None:
    flow = {**FLOW, "space_stamp": "{S[i, j, k] -> PE[i, q]: j <= q <= j + 1 and q < 4}"}
    with pytest.raises(
        NotAFunctionError, match=r"instance S\[.*\] gets two space-stamps, PE\[.*\] and PE"
    ):
        _problem(flow=flow)


def test_errors_mismatched_statement_arity() -> None:
    flow = {**FLOW, "space_stamp": "{S[i, j] -> PE[i, j]}"}
    with pytest.raises(
        SpecError,
        match=r"space_stamp: maps S with 2 indices, but the workload's domain is S with 3",
    ):
        _problem(flow=flow)


def test_errors_mismatched_pe_tuple() -> None:
    flow = {**FLOW, "space_stamp": "{S[i, j, k] -> P[i, j]}"}
    with pytest.raises(
        SpecError,
        match=r"places instances on P with 2 indices, but the architecture's PEs are PE with 2",
    ):
        _problem(flow=flow)


def test_errors_access_to_the_wrong_tensor_name() -> None:
    workload = {**GEMM, "accesses": {"A": {"read": "{S[i, j, k] -> B[i, k]}"}}}
    with pytest.raises(
        SpecError, match=r"accesses\.A\.read: access maps to 'B', expected tensor 'A'"
    ):
        _problem(workload=workload)


def test_errors_link_between_other_tuples() -> None:
    arch = {**ARRAY, "interconnect": [{"link": "{PE[p] -> PE[p + 1]}"}]}
    with pytest.raises(SpecError, match=r"interconnect\.0: link .* does not join PE tuples of 2"):
        _problem(arch=arch)


def test_errors_unknown_yaml_key_lists_all_problems() -> None:
    with pytest.raises(
        SpecError,
        match=r"invalid dataflow spec:\n  space_stamp: Field required\n  tme_stamp: unknown key; "
        r"did you mean 'time_stamp'\?",
    ):
        DataflowSpec.from_mapping(
            {"name": "d", "time_stamp": "{S[i] -> T[i]}", "tme_stamp": "{S[i] -> T[i]}"}
        )


def test_errors_version_mismatch() -> None:
    with pytest.raises(VersionError, match="version 2 is not supported"):
        WorkloadSpec.from_mapping({**GEMM, "version": 2})


def test_errors_yaml_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(SpecError, match=r"list\.yaml: expected a mapping at the top level"):
        load_workload(path)


def test_errors_pe_array_with_missing_numbers(tmp_path: Path) -> None:
    path = tmp_path / "short.p"
    path.write_text("{PE[i]: 0 <= i < 4}\n{PE[i] -> PE[i - 1]}\n256 1024 64\n")
    with pytest.raises(SpecError, match=r"short\.p: line 3: expected 4 integers"):
        read_pe_array(path)


def test_errors_experiment_with_missing_data_root(tmp_path: Path) -> None:
    path = tmp_path / "experiment_1"
    path.write_text("mapping/x.m\npe_array/y.p\nstatement/z.s\n")
    with pytest.raises(SpecError, match="cannot find the data root"):
        read_experiment(path)


def test_errors_analyze_needs_all_three_specs() -> None:
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'dataflow'"):
        analyze("gemm", "systolic-2d-8x8")


def test_errors_text_after_the_closing_brace_is_refused() -> None:
    # isl itself would read "{S[i, j, k] -> A[i, k]}" and silently drop the second map
    workload = {
        **GEMM,
        "accesses": {"A": {"read": "{S[i, j, k] -> A[i, k]};{S[i, j, k] -> A[j, k]}"}},
    }
    with pytest.raises(IslSyntaxError, match=r"accesses\.A\.read: .*unexpected text ';\{S"):
        _problem(workload=workload)


def test_errors_maps_of_one_tensor_disagree_on_arity() -> None:
    reads = ["{S[i, j, k] -> A[i, k]}", "{S[i, j, k] -> A[i]}"]
    workload = {**GEMM, "accesses": {"A": {"read": reads}}}
    with pytest.raises(SpecError, match=r"accesses\.A\.read: the maps of tensor 'A' disagree"):
        _problem(workload=workload)


def test_errors_varying_occupancy_beyond_the_walk_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import tenet.metrics.latency as latency

    monkeypatch.setattr(latency, "ENUMERATION_LIMIT", 2)
    workload = {**GEMM, "domain": "{S[i, j, k]: 0 <= j <= i < 4 and k = 0}"}
    flow = {**FLOW, "space_stamp": "{S[i, j, k] -> PE[0, 0]}", "time_stamp": "{S[i, j, k] -> T[i]}"}
    with pytest.raises(CountingError, match=r"vary within barvinok's pieces, and the 4 occupied"):
        evaluate(_problem(workload=workload, flow=flow))


def test_errors_spec_problems_give_their_yaml_lines(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "name: typo\n"
        "domain: '{S[i]: 0 <= i < 4}'\n"
        "accesses:\n"
        "  A: {rad: '{S[i] -> A[i]}'}\n"
        "  C: {write: '{S[i] -> C[i]}'}\n"
        "reductions: 3\n"
    )
    with pytest.raises(SpecError) as caught:
        load_workload(path)
    assert str(caught.value).splitlines() == [
        f"{path}: invalid workload spec:",
        "  line 4: accesses.A.rad: unknown key; did you mean 'read'?",
        "  line 6: reductions: Input should be a valid tuple",
    ]


def test_errors_sizes_below_one_refused_by_the_api() -> None:
    from tenet.api import load_problem
    from tenet.dse.explore import sweep

    with pytest.raises(SpecError, match=r"^size M=0: sizes must be at least 1$"):
        load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 0})
    with pytest.raises(SpecError, match=r"^size K=-5: sizes must be at least 1$"):
        sweep(
            [("layer", "gemm", {"K": -5})],
            ["systolic-2d-8x8"],
            execution=ExecutionOptions(workers=1),
        )


def test_errors_unknown_size_names_refused_by_the_api() -> None:
    from tenet.api import load_problem
    from tenet.dse.explore import sweep

    with pytest.raises(SpecError, match=r"has no size 'm' \(sizes: K, M, N\); did you mean 'M'"):
        load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"m": 8})
    with pytest.raises(SpecError, match=r"^layer has no size 'Q' \(sizes: K, M, N\)$"):
        sweep(
            [("layer", "gemm", {"Q": 5})],
            ["systolic-2d-8x8"],
            execution=ExecutionOptions(workers=1),
        )
