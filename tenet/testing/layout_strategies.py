"""Hypothesis strategies for layouts and banked scratchpads (small, so that
:mod:`tenet.oracle.layout` can enumerate them). Needs the ``hypothesis`` package."""

from __future__ import annotations

from hypothesis import strategies as st

from tenet.spec.layout import ScratchpadSpec, TransformSpec

__all__ = ["transforms", "scratchpads"]


@st.composite
def transforms(draw: st.DrawFn, arity: int, *, max_length: int = 3) -> tuple[TransformSpec, ...]:
    """Draw 0..``max_length`` valid transforms of a layout of ``arity`` dimensions: any
    permutation, column-major, a split or interleave by 2 or 3, a pad by 0..2."""
    drawn: list[TransformSpec] = []
    dims = arity
    for _ in range(draw(st.integers(0, max_length))):
        op = draw(st.sampled_from(["column_major", "permute", "split", "interleave", "pad"]))
        if op == "column_major":
            drawn.append(TransformSpec(op="column_major"))
        elif op == "permute":
            order = draw(st.permutations(list(range(dims))))
            drawn.append(TransformSpec(op="permute", order=tuple(order)))
        elif op == "pad":
            dim = draw(st.integers(0, dims - 1))
            drawn.append(TransformSpec(op="pad", dim=dim, by=draw(st.integers(0, 2))))
        else:
            dim = draw(st.integers(0, dims - 1))
            factor = draw(st.integers(2, 3))
            drawn.append(TransformSpec(op=op, dim=dim, factor=factor))
            dims += 1
    return tuple(drawn)


@st.composite
def scratchpads(draw: st.DrawFn) -> ScratchpadSpec:
    """Draw a scratchpad of 1..4 banks, bank rows of 1..2 words, lines of 1..4 words."""
    return ScratchpadSpec(
        banks=draw(st.integers(1, 4)),
        bank_width=draw(st.integers(1, 2)),
        transaction_width=draw(st.integers(1, 4)),
    )
