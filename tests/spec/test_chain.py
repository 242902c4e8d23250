"""Chains of statements: the zoo's chains load, and each malformed chain gets a clear error
naming the statement and the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenet.errors import IslSyntaxError, SpecError, UnknownTensorError
from tenet.spec.chain import ChainSpec, chain_names, load_chain

MATMUL = "[M, N, K] -> {S0[m, n, k]: 0 <= m < M and 0 <= n < N and 0 <= k < K}"


def _statement(name: str, domain: str, **accesses: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "domain": domain, "accesses": accesses}


def _two(first_reads: str = "{S0[i] -> A[i]}", second_reads: str = "{S1[i] -> B[i]}") -> Any:
    """S0 reads A and writes B; S1 reads B and writes C (the accesses may be replaced)."""
    return [
        _statement(
            "S0",
            "{S0[i]: 0 <= i < 4}",
            **{first_reads.split("-> ")[1][0]: {"read": first_reads}},
            B={"write": "{S0[i] -> B[i]}"},
        ),
        _statement(
            "S1",
            "{S1[i]: 0 <= i < 4}",
            **{second_reads.split("-> ")[1][0]: {"read": second_reads}},
            C={"write": "{S1[i] -> C[i]}"},
        ),
    ]


def test_chain_zoo_entries_load() -> None:
    assert {"matmul-matmul", "conv-conv", "pointwise-depthwise"} <= set(chain_names())
    for name in chain_names():
        spec = load_chain(name)
        assert len(spec.intermediates) == 1 and spec.final == (spec.statements[-1].written[0],)


def test_chain_matmul_roles() -> None:
    spec = load_chain("matmul-matmul")
    assert (spec.inputs, spec.intermediates, spec.final) == (("A", "B", "D"), ("C",), ("E",))


def test_chain_input_read_by_several_statements_is_fine() -> None:
    """A tensor no statement writes is an input, whichever statements read it."""
    statements = _two()
    statements[1]["accesses"]["A"] = {"read": "{S1[i] -> A[i]}"}
    spec = ChainSpec.from_mapping({"name": "c", "statements": statements})
    assert spec.inputs == ("A",)


def test_chain_rank_count_of_an_intermediate() -> None:
    with pytest.raises(SpecError, match=r"statements.1.accesses.B.read: S1 accesses B with 2 "):
        ChainSpec.from_mapping({"name": "c", "statements": _two(second_reads="{S1[i] -> B[i, 0]}")})


def test_chain_unknown_output() -> None:
    with pytest.raises(UnknownTensorError, match=r"outputs.0: tensor 'c' .*did you mean 'C'"):
        ChainSpec.from_mapping({"name": "c", "statements": _two(), "outputs": ["c"]})


def test_chain_output_that_is_an_input() -> None:
    with pytest.raises(SpecError, match="outputs.0: A is an input: no statement writes it"):
        ChainSpec.from_mapping({"name": "c", "statements": _two(), "outputs": ["A"]})


def test_chain_cycle() -> None:
    with pytest.raises(SpecError, match="a cycle: S0 reads C, which the later S1 writes, and S1"):
        ChainSpec.from_mapping({"name": "c", "statements": _two(first_reads="{S0[i] -> C[i]}")})


def test_chain_read_before_the_write() -> None:
    """S0 reads C, which S1 writes later from the input X alone: no cycle, a wrong order."""
    statements = _two(first_reads="{S0[i] -> C[i]}", second_reads="{S1[i] -> X[i]}")
    with pytest.raises(SpecError, match="S0 reads C before S1 writes it; list S1 first"):
        ChainSpec.from_mapping({"name": "c", "statements": statements})


def test_chain_malformed_isl_names_statement_and_field(tmp_path: Path) -> None:
    text = (
        "name: c\nstatements:\n"
        "  - name: S0\n    domain: '{S0[i]: 0 <= i < 4}'\n"
        "    accesses: {A: {read: '{S0[i] -> A[i]}'}, B: {write: '{S0[i] -> B[i]}'}}\n"
        "  - name: S1\n    domain: '{S1[i]: 0 <= i < }'\n"
        "    accesses: {B: {read: '{S1[i] -> B[i]}'}, C: {write: '{S1[i] -> C[i]}'}}\n"
    )
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(IslSyntaxError, match=r"c.yaml: statements.1.domain \(line 7\) of S1: "):
        load_chain(path)


def test_chain_domain_tuple_is_the_statement() -> None:
    statements = _two()
    statements[1]["domain"] = "{S0[i]: 0 <= i < 4}"
    with pytest.raises(SpecError, match=r"statements.1.domain: the domain of S1 is over S0"):
        ChainSpec.from_mapping({"name": "c", "statements": statements})


def test_chain_one_writer_per_tensor() -> None:
    statements = _two()
    statements[1]["accesses"]["C"] = {"write": "{S1[i] -> B[i]}"}
    with pytest.raises(SpecError, match="the access of C lands in B"):
        ChainSpec.from_mapping({"name": "c", "statements": statements})
    statements[1]["accesses"]["B"] = {"read": "{S1[i] -> B[i]}", "write": "{S1[i] -> B[i]}"}
    statements[1]["accesses"].pop("C")
    with pytest.raises(SpecError, match="B is written by S0 and S1; a tensor has one writer"):
        ChainSpec.from_mapping({"name": "c", "statements": statements})


def test_chain_statement_writes_one_tensor() -> None:
    statements = _two()
    statements[1]["accesses"].pop("C")
    with pytest.raises(SpecError, match="S1 writes 0 tensors"):
        ChainSpec.from_mapping({"name": "c", "statements": statements})


def test_chain_unknown_zoo_name() -> None:
    with pytest.raises(SpecError, match="no chain named 'matmul' in the zoo"):
        load_chain("matmul")


def test_chain_matmul_domain_text() -> None:
    """The zoo's first statement is the workload zoo's gemm over S0."""
    assert load_chain("matmul-matmul").statements[0].domain == MATMUL
