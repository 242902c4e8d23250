"""Symmetries of a workload and the subtrees of the joint search they pair.

A *loop symmetry* is a permutation π of the loops that maps the iteration domain D onto itself
and, for each tensor, its access composed with π onto the same access with the tensor's axes
permuted: ``A(π(s)) = ρ_A(A(s))`` on D (a convolution with OX = OY and RX = RY, the same
stride and dilation on both axes: ox and oy swapped together with rx and ry; I, W and O are
transposed). Instance s under an array mapping Θ_S and a tiling runs on the same PE and at the
same point of the loop nest as π(s) under the image, Θ_S ∘ π⁻¹ with each band's sizes and
loop order renamed by π; s touches element e of A when π(s) touches ρ_A(e). Every set the model
counts (each level's tiles and fills, per PE, and their movement) is in bijection with its
image's: a mapping and its image have the same figures (``docs/dse.md``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import islpy as isl

from tenet.model import Workload

__all__ = ["loop_symmetries", "image_stamp", "stamp_images"]


def _permutation(space: isl.Set | isl.Map, name: str, order: Sequence[int]) -> isl.Map:
    """``name[x] -> name[y]`` with ``y[d] = x[order[d]]``, in the context of ``space``."""
    names = [f"x{k}" for k in range(len(order))]
    image = ", ".join(names[k] for k in order)
    text = f"{{ {name}[{', '.join(names)}] -> {name}[{image}] }}"
    return isl.Map(text, context=space.get_ctx())


def _loop_map(workload: Workload, order: Sequence[int]) -> isl.Map:
    """π on the instances of ``workload``: ``S[s] -> S[s']`` with ``s'[d] = s[order[d]]``."""
    domain = workload.domain
    pi = _permutation(domain, domain.get_tuple_name(), order)
    return pi.intersect_domain(domain)


def _transposes(access: isl.Map, moved: isl.Map, domain: isl.Set) -> bool:
    """Whether ``moved`` (``A ∘ π``) is ``ρ ∘ A`` on ``domain`` for some permutation ρ of the
    tensor's axes."""
    access = access.intersect_domain(domain)
    moved = moved.intersect_domain(domain)
    name = access.get_tuple_name(isl.dim_type.out)
    axes = access.dim(isl.dim_type.out)
    for rho in itertools.permutations(range(axes)):
        image = access.apply_range(_permutation(access, name, rho))
        if image.is_equal(moved):
            return True
    return False


def loop_symmetries(workload: Workload, extents: Sequence[int]) -> list[tuple[int, ...]]:
    """Return the loop symmetries of ``workload`` (loops of ``extents``), the identity left out:
    each as ``order``, π mapping instance ``s`` to ``s'`` with ``s'[d] = s[order[d]]``. Only
    permutations among loops of equal extents are tried.

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> conv = Workload.from_spec(load_workload("conv2d"),
    ...     {"K": 4, "C": 2, "OX": 5, "OY": 5, "RX": 3, "RY": 3})
    >>> loop_symmetries(conv, (4, 2, 5, 5, 3, 3))
    [(0, 1, 3, 2, 5, 4)]
    >>> gemm = Workload.from_spec(load_workload("gemm"), {"M": 4, "N": 4, "K": 4})
    >>> loop_symmetries(gemm, (4, 4, 4))
    []
    """
    groups: dict[int, list[int]] = {}
    for d, extent in enumerate(extents):
        groups.setdefault(extent, []).append(d)
    found = []
    identity = tuple(range(len(extents)))
    for choice in itertools.product(*(itertools.permutations(g) for g in groups.values())):
        order = list(identity)
        for group, permuted in zip(groups.values(), choice, strict=True):
            for d, e in zip(group, permuted, strict=True):
                order[d] = e
        if tuple(order) == identity:
            continue
        pi = _loop_map(workload, order)
        domain = workload.domain
        if not domain.apply(pi).is_equal(domain):
            continue
        accesses = [m for _, _, m in workload.accesses]
        if all(_transposes(m, pi.apply_range(m), domain) for m in accesses):
            found.append(tuple(order))
    return found


def image_stamp(workload: Workload, order: Sequence[int], stamp: isl.Map) -> isl.Map:
    """The image of a stamp (a map from the instances, e.g. a space-stamp) under the loop
    symmetry ``order``: ``stamp ∘ π⁻¹`` on the domain, so that instance π(s) takes under the
    image what s takes under ``stamp``.

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> conv = Workload.from_spec(load_workload("conv2d"),
    ...     {"K": 2, "C": 2, "OX": 4, "OY": 4, "RX": 3, "RY": 3})
    >>> stamp = isl.Map("{S[k, c, ox, oy, rx, ry] -> PE[c % 2, ox % 2]}")
    >>> other = isl.Map("{S[k, c, ox, oy, rx, ry] -> PE[c % 2, oy % 2]}")
    >>> image_stamp(conv, (0, 1, 3, 2, 5, 4), stamp).is_equal(other.intersect_domain(conv.domain))
    True
    """
    pi = _loop_map(workload, order)
    return pi.reverse().apply_range(stamp).intersect_domain(workload.domain)


def stamp_images(
    workload: Workload,
    extents: Sequence[int],
    stamps: Sequence[isl.Map],
    array: Sequence[isl.Map] = (),
) -> list[tuple[tuple[int, ...], list[int | None]]]:
    """For each loop symmetry of ``workload`` (:func:`loop_symmetries`), its order and the
    position among ``stamps`` of each stamp's image (:func:`image_stamp`; None: not among
    them), up to a symmetry of the array (``array``: maps permuting the PE coordinates; the
    identity is always tried).

    Examples
    --------
    >>> from tenet.spec import load_workload
    >>> conv = Workload.from_spec(load_workload("conv2d"),
    ...     {"K": 2, "C": 2, "OX": 4, "OY": 4, "RX": 3, "RY": 3})
    >>> stamps = [isl.Map(f"{{S[k, c, ox, oy, rx, ry] -> PE[{pe}]}}")
    ...           for pe in ("c % 2, ox % 2", "k % 2, c % 2", "c % 2, oy % 2")]
    >>> stamp_images(conv, (2, 2, 4, 4, 3, 3), stamps)
    [((0, 1, 3, 2, 5, 4), [2, 1, 0])]
    """
    domain = workload.domain
    own = [stamp.intersect_domain(domain) for stamp in stamps]
    moved = [[stamp.apply_range(sigma) for sigma in array] for stamp in own]
    found = []
    for order in loop_symmetries(workload, extents):
        images: list[int | None] = []
        for stamp in own:
            image = image_stamp(workload, order, stamp)
            images.append(
                next(
                    (
                        j
                        for j, other in enumerate(own)
                        if image.is_equal(other) or any(image.is_equal(m) for m in moved[j])
                    ),
                    None,
                )
            )
        found.append((order, images))
    return found
