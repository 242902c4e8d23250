"""The workload's checks of its access maps, in the wording the dataflow checks use."""

from __future__ import annotations

import islpy as isl
import pytest

from tenet.errors import CountingError, SpecError
from tenet.model import Workload
from tenet.spec import WorkloadSpec

DOMAIN = "[N] -> {S[i, j]: 0 <= i < N and 0 <= j < 2}"


def _workload(read: str) -> Workload:
    spec = WorkloadSpec.from_mapping(
        {"name": "w", "domain": DOMAIN, "accesses": {"A": {"read": read}}}
    )
    return Workload.from_spec(spec, {"N": 3})


def test_workload_access_with_other_arity_is_named_like_a_stamp() -> None:
    with pytest.raises(
        SpecError,
        match=r"accesses.A.read: maps S with 1 indices, but the workload's domain is S with 2",
    ):
        _workload("{S[i] -> A[i]}")


def test_workload_access_binds_the_size_parameters() -> None:
    # A[i + N] for i < N = 3 and j < 2: elements 3, 4, 5, each read twice
    access = _workload("[N] -> {S[i, j] -> A[i + N]}").reads["A"]
    assert access.dim(isl.dim_type.param) == 0
    assert access.range() == isl.Set("{A[e]: 3 <= e <= 5}")


def test_workload_access_with_unbound_parameter_names_its_field() -> None:
    spec = WorkloadSpec.from_mapping(
        {"name": "w", "domain": DOMAIN, "accesses": {"A": {"read": "[M] -> {S[i, j] -> A[M]}"}}}
    )
    with pytest.raises(CountingError, match=r"accesses.A.read: size parameter\(s\) M not bound"):
        Workload.from_spec(spec, {"N": 3})
