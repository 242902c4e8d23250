"""Exact counting: Python ints of any size, parameters bound by name."""

from __future__ import annotations

import islpy as isl
import pytest

from tenet import CountingError, analyze, count
from tenet.isl_utils import bind_params, parse_set


def test_counting_beyond_two_to_the_63() -> None:
    n = 2**40
    domain = bind_params(parse_set("[N] -> {S[i, j]: 0 <= i < N and 0 <= j < N}"), {"N": n})
    assert count(domain) == n * n  # a square of side N: N² = 2^80 points
    assert count(domain) > 2**63


def test_counting_huge_parametric_gemm_metrics_are_exact() -> None:
    n = 2**22  # GEMM n³ = 2^66 MACs
    m = analyze("gemm", "systolic-2d-8x8", "gemm-os-systolic", params={"M": n, "N": n, "K": n})
    assert m.macs == n**3
    # A[i,k] is fetched once per column block j // 8 (it travels right within a block):
    # unique = (n / 8) · n · n, hence reuse factor 8.
    assert m.tensor("A").volume_unique == n**3 // 8
    assert m.tensor("C").volume_unique == n * n  # each output leaves its PE once
    assert m.original.MacNum == n**3
    assert m.original.Energy > 2**63


def test_counting_parametric_count_without_binding_is_refused() -> None:
    with pytest.raises(CountingError, match="unbound parameters"):
        count(isl.Set("[N] -> {S[i]: 0 <= i < N}"))


def test_counting_map_counts_pairs() -> None:
    # pairs (i, j) with 0 <= i <= j < 4: 4 + 3 + 2 + 1 = 10
    assert count(isl.Map("{S[i] -> A[j]: 0 <= i <= j < 4}")) == 10


def test_counting_empty_set_is_zero() -> None:
    assert count(isl.Set("{S[i]: 0 <= i < 0}")) == 0
