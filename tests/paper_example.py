"""The paper's worked example: GEMM with i, j in 0..1 and k in 0..3 on a 2x2 array whose PEs
pass data right and down, under the output-stationary skewed dataflow
Θ = S[i,j,k] -> (PE[i,j] | T[i+j+k]) and an unskewed variant T[k], as spec mappings."""

from __future__ import annotations

from tenet.api import load_problem
from tenet.model import Problem
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec

GEMM = {
    "name": "gemm-2x2x4",
    "domain": "{S[i, j, k]: 0 <= i < 2 and 0 <= j < 2 and 0 <= k < 4}",
    "accesses": {
        "A": {"read": "{S[i, j, k] -> A[i, k]}"},
        "B": {"read": "{S[i, j, k] -> B[k, j]}"},
        "C": {"write": "{S[i, j, k] -> C[i, j]}"},
    },
}


def array(name: str, delay: int) -> dict[str, object]:
    """A 2x2 array with links right and down (``delay`` 1: registered, 0: multicast wires)."""
    return {
        "name": name,
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "interconnect": [
            {"link": "{PE[i, j] -> PE[i, j + 1]}", "delay": delay},
            {"link": "{PE[i, j] -> PE[i + 1, j]}", "delay": delay},
        ],
        "bits_per_element": 16,
        "bandwidth": 64,
        "latency": 1,
        "energy": {"mac": 1.0, "l1": 1.68, "l2": 18.61},
    }


SYSTOLIC = array("systolic-2x2", 1)
MULTICAST = array("multicast-2x2", 0)
SKEWED = {
    "name": "os-skewed",
    "space_stamp": "{S[i, j, k] -> PE[i, j]}",
    "time_stamp": "{S[i, j, k] -> T[i + j + k]}",
}
UNSKEWED = {
    "name": "os-unskewed",
    "space_stamp": "{S[i, j, k] -> PE[i, j]}",
    "time_stamp": "{S[i, j, k] -> T[k]}",
}


def problem(dataflow: dict[str, object], arch: dict[str, object] = SYSTOLIC) -> Problem:
    """The Problem of the worked example under ``dataflow`` on ``arch``."""
    return load_problem(
        WorkloadSpec.from_mapping(GEMM),
        ArchitectureSpec.from_mapping(arch),
        DataflowSpec.from_mapping(dataflow),
    )
