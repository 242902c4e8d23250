"""Symmetries of a PE array: the permutations of PE coordinates that map the PE set and every
link family (with its delay) onto themselves. Two mappings that differ by such a permutation
have the same metrics, so the design space keeps one of them."""

from __future__ import annotations

import itertools

import islpy as isl

from tenet.model import Architecture
from tenet.vocab import PE

__all__ = ["automorphisms", "permutation_map"]


def permutation_map(pe_set: isl.Set, order: tuple[int, ...]) -> isl.Map:
    """Return ``PE[x] -> PE[y]`` with ``y[d] = x[order[d]]``.

    Examples
    --------
    >>> permutation_map(isl.Set("{PE[i, j]: 0 <= i < 2 and 0 <= j < 3}"), (1, 0))
    Map("{ PE[x0, x1] -> PE[x1, x0] }")
    """
    names = [f"x{k}" for k in range(pe_set.dim(isl.dim_type.set))]
    image = ", ".join(names[k] for k in order)
    return isl.Map(f"{{ {PE}[{', '.join(names)}] -> {PE}[{image}] }}", context=pe_set.get_ctx())


def _links(architecture: Architecture, delay: int) -> isl.Map:
    pe = architecture.pe_set
    union = isl.Map.empty(pe.get_space().map_from_set())
    for link in architecture.links:
        if link.delay == delay:
            union = union.union(link.relation.intersect_domain(pe).intersect_range(pe))
    return union


def automorphisms(architecture: Architecture) -> tuple[tuple[int, ...], ...]:
    """Return the coordinate permutations that are symmetries of ``architecture`` (the
    identity first).

    Examples
    --------
    >>> from tenet.spec import load_architecture
    >>> arch = Architecture.from_spec(load_architecture("systolic-2d-8x8"), {})
    >>> automorphisms(arch)
    ((0, 1), (1, 0))
    """
    pe = architecture.pe_set
    classes = [_links(architecture, delay) for delay in (0, 1)]
    found = []
    for order in itertools.permutations(range(pe.dim(isl.dim_type.set))):
        sigma = permutation_map(pe, order)
        if not pe.apply(sigma).is_equal(pe):
            continue
        if all(links.apply_domain(sigma).apply_range(sigma).is_equal(links) for links in classes):
            found.append(order)
    return tuple(found)
