"""The design space of affine space-time mappings of a workload on a rectangular PE array.

A point (:class:`~tenet.dse.space.mapping.AffineMapping`) is built in five choices:

1. the *space-stamp*: for each PE dimension of size P, up to ``pe_digits`` loop digits in mixed
   radix (``x % P``, a whole small loop such as ``ry``, or ``ry + 3*(c % 4)``); a loop may
   spread over several PE dimensions, its least significant digit on the last of them. With
   ``blocks``, a loop's least significant digit on the array may also be *blocked*:
   ``floor(x/B) % P`` for a block size B, each PE taking B consecutive values of the loop
   (``x % B`` stays in time), when B divides the loop's extent and P divides the number of
   blocks (a whole loop of blocks ``floor(x/B)`` when they fit the PE dimension);
2. the *temporal digits*: what is left of each loop (``floor(x/P)`` for a placed loop, the whole
   loop otherwise; ``x % B`` below a blocked digit), the rest optionally split once more by
   one of ``temporal_tiles``;
3. the *dropped digits*: temporal digits left out of the time-stamp, so that several instances
   share one (PE, time-stamp) — only when the array runs that many per step;
4. the *inner time-stamp*: ``Σ_d s_d·PE_d (+ one whole temporal loop)`` with skews s_d in
   ``skew`` (systolic skews); absent when all s_d are 0 and no loop is in it;
5. the *order of the outer time-stamp digits*: every order when ``order_depth`` is None,
   otherwise every choice of the ``order_depth`` innermost digits with the others outside them
   in the workload's loop order (more significant digit first).

Candidates are then reduced: symmetric duplicates (a permutation of PE coordinates that is a
symmetry of the array) are removed, each tensor's movement is classified
(:mod:`tenet.dse.space.movement`), and with ``prune_scratchpad`` the candidates that feed a
tensor from the scratchpad are removed. Every candidate is legal by construction (covers the
domain, stays in the array, at most ``instances_per_step`` instances per point); dependences
other than reductions are checked when the candidate is evaluated.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import islpy as isl
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from tenet.api import load_specs
from tenet.dse.space.mapping import AffineMapping, Digit, Term
from tenet.dse.space.movement import (
    LinkDisplacements,
    Movement,
    movements,
    reuse_directions,
)
from tenet.dse.space.symmetry import automorphisms
from tenet.errors import SpecError
from tenet.model import Architecture, Workload
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    Specs,
    WorkloadSpec,
)
from tenet.vocab import TensorName

__all__ = ["SpaceOptions", "Candidate", "SpaceSizes", "DesignSpace", "space_options"]


class SpaceOptions(BaseModel):
    """What the design space enumerates (every field has a default).

    Examples
    --------
    >>> SpaceOptions(skew=(-1, 0, 1)).order_depth
    2
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pe_digits: int = Field(1, ge=1, le=4, description="Most loop digits on one PE dimension.")
    skew: tuple[int, ...] = Field(
        (0, 1), description="Coefficients of PE coordinates in the inner time-stamp."
    )
    temporal_tiles: tuple[int, ...] = Field(
        (), description="Sizes by which a loop's temporal part may be split once more."
    )
    blocks: tuple[int, ...] = Field(
        (),
        description="Block sizes B of blocked spatial digits floor(x/B) % P, x % B in time.",
    )
    order_depth: int | None = Field(
        2, ge=1, description="Outer time digits whose order is searched (None: every order)."
    )
    instances_per_step: int | None = Field(
        None,
        ge=1,
        description="Instances a PE runs per step (None: the architecture's, default 1).",
    )
    prune_scratchpad: bool = Field(
        False, description="Remove candidates that feed some tensor from the scratchpad."
    )
    symmetry: bool = Field(True, description="Remove duplicates under symmetries of the array.")

    @field_validator("skew")
    @classmethod
    def _skew(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if 0 not in value or any(abs(c) > 1 for c in value):
            raise ValueError("skew coefficients are a subset of (-1, 0, 1) holding 0")
        return tuple(sorted(set(value)))

    @field_validator("temporal_tiles", "blocks")
    @classmethod
    def _sizes(cls, value: tuple[int, ...], info: ValidationInfo) -> tuple[int, ...]:
        if any(t < 2 for t in value):
            what = "block sizes" if info.field_name == "blocks" else "temporal tile sizes"
            raise ValueError(f"{what} are at least 2")
        return tuple(sorted(set(value)))


def space_options(**fields: object) -> SpaceOptions:
    """Return the :class:`SpaceOptions` of ``fields``, or raise one :class:`SpecError` naming
    every field out of its range.

    Examples
    --------
    >>> space_options(skew=(0, 1), pe_digits=9, order_depth=None, temporal_tiles=(),
    ...               instances_per_step=None, prune_scratchpad=False)
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: pe_digits: Input should be less than or equal to 4
    """
    try:
        return SpaceOptions.model_validate(fields)
    except ValidationError as exc:
        reasons = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SpecError(reasons) from exc


@dataclass(frozen=True)
class Candidate:
    """A design point: its position in the space, its mapping and each tensor's movement."""

    index: int
    mapping: AffineMapping
    movement: tuple[tuple[TensorName, Movement], ...]

    @property
    def name(self) -> str:
        """The readable name of the mapping."""
        return self.mapping.name

    @property
    def data_centric(self) -> bool:
        """Whether data-centric directives can write this dataflow (it is rectangular)."""
        return self.mapping.rectangular

    @property
    def scratchpad(self) -> tuple[TensorName, ...]:
        """Tensors fed from the scratchpad under this mapping."""
        return tuple(t for t, m in self.movement if m == "scratchpad")

    def spec(self) -> DataflowSpec:
        """Return the dataflow spec (isl text) of this candidate."""
        return self.mapping.spec()


@dataclass(frozen=True)
class SpaceSizes:
    """Sizes of the design space at each stage of the reduction, in candidates."""

    every_order: int
    """Structures times every order of their outer digits."""
    generated: int
    """Candidates enumerated (orders limited by ``order_depth``)."""
    distinct: int
    """After removing symmetric duplicates."""
    kept: int
    """After pruning scratchpad-fed candidates (equal to ``distinct`` without pruning)."""
    scratchpad_fed: int
    """Distinct candidates that feed at least one tensor from the scratchpad."""
    data_centric: int
    """Kept candidates that data-centric directives can write."""


_State = tuple[tuple[int, int, int], ...]
"""Per loop: (stride of its next digit, number of values left above it, the size of the
block below its blocked digit on the array, 1 when none)."""


def _orders(digits: Sequence[Digit], depth: int | None) -> Iterator[tuple[Digit, ...]]:
    canonical = sorted(digits, key=lambda d: (d.loop, -d.stride))
    if depth is None or depth >= len(canonical) - 1:
        yield from itertools.permutations(canonical)
        return
    for tail in itertools.permutations(canonical, depth):
        yield tuple(d for d in canonical if d not in tail) + tail


def _order_counts(n: int, depth: int | None) -> tuple[int, int]:
    every = math.factorial(n)
    if depth is None or depth >= n - 1:
        return every, every
    return every, math.perm(n, depth)


@dataclass(frozen=True)
class DesignSpace:
    """The affine mappings of ``workload`` on ``architecture`` (iterate it for
    :class:`Candidate` objects, in a deterministic order).

    Examples
    --------
    >>> space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    >>> sizes = space.sizes
    >>> sizes.generated, sizes.distinct
    (222, 132)
    >>> [c.name for c in space if c.data_centric][0]
    'PE[i % 8, j % 8] T[floor(i/8), floor(j/8), k]'
    """

    specs: Specs
    """The workload and the architecture (no dataflow: the space is of dataflows) and the
    size parameters."""
    options: SpaceOptions

    @classmethod
    def build(
        cls,
        workload: str | WorkloadSpec,
        architecture: str | ArchitectureSpec,
        params: Mapping[str, int] | None = None,
        options: SpaceOptions | None = None,
    ) -> DesignSpace:
        """Make the space from specs, files or zoo names; ``params`` bind size parameters."""
        specs = load_specs(workload, architecture, params=params)
        return cls(specs, options or SpaceOptions())

    # -- the model ----------------------------------------------------------------------------
    @cached_property
    def workload(self) -> Workload:
        """The workload with its parameters bound."""
        return Workload.from_spec(self.specs.workload, self.specs.bound)

    @cached_property
    def architecture(self) -> Architecture:
        """The architecture with its parameters bound."""
        return Architecture.from_spec(self.specs.architecture, self.specs.bound)

    @cached_property
    def instances_per_step(self) -> int:
        """Instances one PE may run per time-stamp."""
        return self.options.instances_per_step or self.specs.architecture.instances_per_step

    @cached_property
    def loops(self) -> tuple[str, ...]:
        """Names of the loops (domain dimensions)."""
        domain = self.workload.domain
        return tuple(
            domain.get_dim_name(isl.dim_type.set, k) or f"i{k}"
            for k in range(domain.dim(isl.dim_type.set))
        )

    @cached_property
    def extents(self) -> tuple[int, ...]:
        """Extent of each loop (its bounding box; loops start at 0)."""
        return _box(self.workload.domain, self.specs.workload, "domain", "loop")

    @cached_property
    def pe_sizes(self) -> tuple[int, ...]:
        """Size of each PE dimension."""
        return _box(self.architecture.pe_set, self.specs.architecture, "pe", "PE dimension")

    @cached_property
    def directions(self) -> dict[TensorName, tuple[tuple[int, ...], ...]]:
        """Reuse directions of each tensor."""
        return reuse_directions(self.workload)

    @cached_property
    def links(self) -> LinkDisplacements:
        """Displacements of the array's links."""
        return LinkDisplacements(self.architecture)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """PE coordinate permutations that are symmetries of the array (identity first)."""
        if not self.options.symmetry:
            return (tuple(range(len(self.pe_sizes))),)
        return automorphisms(self.architecture)

    # -- enumeration -------------------------------------------------------------------------
    def _dim_choices(self, size: int, state: _State) -> list[tuple[tuple[Term, ...], _State]]:
        """Term lists of one PE dimension of ``size``, given what is left of each loop."""
        found: list[tuple[tuple[Term, ...], _State]] = []

        def extend(terms: tuple[Term, ...], weight: int, state: _State, open_: bool) -> None:
            if terms and not open_:
                found.append((terms, state))
            cap = size // weight
            if len(terms) == self.options.pe_digits or cap < 2:
                return
            used = {digit.loop for digit, _ in terms}
            more = len(terms) + 1 < self.options.pe_digits
            for loop, (stride, left, block) in enumerate(state):
                if left <= 1 or loop in used:
                    continue
                for below, radix, extent, partial in _digit_options(
                    stride, left, block, cap, more, self.options.blocks
                ):
                    digit = Digit(loop, stride * below, radix, extent)
                    rest = list(state)
                    span = below * extent
                    rest[loop] = (stride * span, -(-left // span), below if below > 1 else block)
                    extend((*terms, (digit, weight)), weight * extent, tuple(rest), partial)

        extend((), 1, state, False)
        return found

    def spaces(self) -> Iterator[tuple[tuple[tuple[Term, ...], ...], _State]]:
        """Space-stamps (term lists per PE dimension) and what they leave of each loop."""
        start: _State = tuple((1, n, 1) for n in self.extents)

        def place(dim: int, state: _State) -> Iterator[tuple[tuple[tuple[Term, ...], ...], _State]]:
            if dim < 0:
                yield (), state
                return
            choices = self._dim_choices(self.pe_sizes[dim], state) if self.pe_sizes[dim] > 1 else []
            for terms, rest in choices or [((), state)]:
                for inner, final in place(dim - 1, rest):
                    yield (*inner, terms), final

        yield from place(len(self.pe_sizes) - 1, start)

    def temporal_digits(self, state: _State) -> Iterator[tuple[Digit, ...]]:
        """Temporal digits left by a space-stamp, with every optional split."""
        per_loop: list[list[tuple[Digit, ...]]] = []
        for loop, (stride, left, block) in enumerate(state):
            inside: tuple[Digit, ...] = (Digit(loop, 1, block, block),) if block > 1 else ()
            if left <= 1:
                per_loop.append([inside])
                continue
            options: list[tuple[Digit, ...]] = [(*inside, Digit(loop, stride, None, left))]
            for tile in self.options.temporal_tiles:
                if tile < left:
                    options.append(
                        (
                            *inside,
                            Digit(loop, stride, tile, tile),
                            Digit(loop, stride * tile, None, -(-left // tile)),
                        )
                    )
            per_loop.append(options)
        for combination in itertools.product(*per_loop):
            yield tuple(d for digits in combination for d in digits)

    def drops(self, digits: tuple[Digit, ...]) -> Iterator[tuple[Digit, ...]]:
        """Subsets of ``digits`` whose extents multiply to at most ``instances_per_step``."""
        limit = self.instances_per_step

        def grow(
            start: int, chosen: tuple[Digit, ...], product: int
        ) -> Iterator[tuple[Digit, ...]]:
            yield chosen
            for k in range(start, len(digits)):
                if product * digits[k].extent <= limit:
                    yield from grow(k + 1, (*chosen, digits[k]), product * digits[k].extent)

        yield from grow(0, (), 1)

    def _variants(
        self, space: tuple[tuple[Term, ...], ...], state: _State
    ) -> Iterator[tuple[tuple[int, ...], Digit | None, tuple[Digit, ...], tuple[Digit, ...]]]:
        """Time-stamp structures of one space-stamp: (skew, inner loop digit, outer digits
        to order, dropped digits)."""
        for temporal in self.temporal_digits(state):
            for dropped in self.drops(temporal):
                for skew, inner, outer in self.time_structures(space, temporal, dropped):
                    yield skew, inner, outer, dropped

    def time_structures(
        self,
        space: tuple[tuple[Term, ...], ...],
        temporal: tuple[Digit, ...],
        dropped: tuple[Digit, ...],
    ) -> Iterator[tuple[tuple[int, ...], Digit | None, tuple[Digit, ...]]]:
        """(skew, inner loop digit, outer digits to order) for given temporal and dropped
        digits of the space-stamp ``space``."""
        placed = {digit.loop for terms in space for digit, _ in terms}
        kept = tuple(d for d in temporal if d not in dropped)
        lowest: dict[int, Digit] = {}
        for d in kept:
            if d.loop not in placed and (d.loop not in lowest or d.stride < lowest[d.loop].stride):
                lowest[d.loop] = d
        for skew in itertools.product(*[self.options.skew if terms else (0,) for terms in space]):
            for inner in (None, *lowest.values()):
                if inner is not None and not any(skew):
                    continue
                yield skew, inner, tuple(d for d in kept if d != inner)

    @property
    def statement(self) -> str:
        """Tuple name of the statement instances."""
        return self.workload.domain.get_tuple_name() or "S"

    def space_mappings(
        self, space: tuple[tuple[Term, ...], ...], state: _State
    ) -> Iterator[AffineMapping]:
        """Every mapping with the space-stamp ``space`` (``state``: what it leaves of each
        loop), before the symmetry reduction."""
        for skew, inner, outer, dropped in self._variants(space, state):
            for order in self.orders(outer):
                yield AffineMapping(self.statement, self.loops, space, order, skew, inner, dropped)

    def orders(self, outer: Sequence[Digit]) -> Iterator[tuple[Digit, ...]]:
        """Orders of the outer digits ``outer`` the space holds, outermost first."""
        return _orders(outer, self.options.order_depth)

    def _mappings(self) -> Iterator[AffineMapping]:
        for space, state in self.spaces():
            yield from self.space_mappings(space, state)

    def _images(self, mapping: AffineMapping) -> Iterator[AffineMapping]:
        """The images of ``mapping`` under the array's symmetries that the space holds."""
        for order in self.symmetries[1:]:
            space = tuple(mapping.space[k] for k in order)
            if _digits_descend(space):
                yield replace(mapping, space=space, skew=tuple(mapping.skew[k] for k in order))

    def canonical(self, mapping: AffineMapping) -> AffineMapping:
        """Return the representative of ``mapping`` kept by the symmetry reduction."""
        return min((mapping, *self._images(mapping)), key=lambda m: m.key)

    def _canonical(self, mapping: AffineMapping) -> bool:
        """Whether ``mapping`` is the least of its images under the array's symmetries."""
        return all(mapping.key <= image.key for image in self._images(mapping))

    def _walk(self) -> Iterator[tuple[AffineMapping, tuple[tuple[TensorName, Movement], ...]]]:
        for mapping in self._mappings():
            if not self._canonical(mapping):
                continue
            yield mapping, movements(mapping, self.directions, self.links)

    def __iter__(self) -> Iterator[Candidate]:
        index = 0
        for mapping, movement in self._walk():
            if self.options.prune_scratchpad and any(m == "scratchpad" for _, m in movement):
                continue
            yield Candidate(index, mapping, movement)
            index += 1

    @cached_property
    def sizes(self) -> SpaceSizes:
        """The size of the space at each stage of its reduction."""
        every = generated = 0
        for space, state in self.spaces():
            for _, _, outer, _ in self._variants(space, state):
                counts = _order_counts(len(outer), self.options.order_depth)
                every += counts[0]
                generated += counts[1]
        distinct = fed = kept = data_centric = 0
        for mapping, movement in self._walk():
            distinct += 1
            scratch = any(m == "scratchpad" for _, m in movement)
            fed += scratch
            if not (self.options.prune_scratchpad and scratch):
                kept += 1
                data_centric += mapping.rectangular
        return SpaceSizes(every, generated, distinct, kept, fed, data_centric)

    # -- looking a dataflow up -------------------------------------------------------------------
    @cached_property
    def samples(self) -> tuple[tuple[int, ...], ...]:
        """Instances of the domain used to tell mappings apart quickly (deterministic)."""
        rng = random.Random(0)
        points = {tuple(0 for _ in self.extents), tuple(n - 1 for n in self.extents)}
        for _ in range(24):
            base = tuple(rng.randrange(n) for n in self.extents)
            points.add(base)
            for k, n in enumerate(self.extents):
                if base[k] + 1 < n:
                    points.add(tuple(v + (j == k) for j, v in enumerate(base)))
        domain = self.workload.domain
        return tuple(sorted(p for p in points if _contains(domain, p)))


def _digit_options(
    stride: int, left: int, block: int, cap: int, more: bool, blocks: Sequence[int]
) -> list[tuple[int, int | None, int, bool]]:
    """The digits a PE dimension with room for ``cap`` more may take of a loop whose next
    digit has ``stride`` and ``left`` values above it (``block``: the size of the block below
    its blocked digit, 1 when none): (block size below the digit, radix or None for the whole
    rest, extent, whether more digits must follow on the dimension); ``more``: the dimension
    may take another digit after this one. A blocked digit ``floor(x/B) % P`` is a loop's
    first on the array, with B in ``blocks`` dividing its extent and P the number of blocks.

    Examples
    --------
    >>> _digit_options(1, 64, 1, 4, False, (8,))  # x % 4, floor(x/8) % 4
    [(1, 4, 4, False), (8, 4, 4, False)]
    >>> _digit_options(1, 8, 1, 4, False, (2, 4))  # x % 4, floor(x/2), floor(x/4)
    [(1, 4, 4, False), (2, None, 4, False), (4, None, 2, False)]
    """
    out: list[tuple[int, int | None, int, bool]] = []
    first = stride == 1 and block == 1
    for below in (1, *(b for b in blocks if first and b < left and left % b == 0)):
        rest = left // below
        if rest <= cap:
            out.append((below, None, rest, False))
            continue
        if below > 1 and rest % cap:
            continue
        out.append((below, cap, cap, False))
        if more:
            out += [
                (below, r, r, True)
                for r in range(2, cap)
                if cap % r == 0 and (below == 1 or rest % r == 0)
            ]
    return out


def _contains(domain: isl.Set, point: Sequence[int]) -> bool:
    single = isl.Set.universe(domain.get_space())
    for k, value in enumerate(point):
        single = single.fix_val(isl.dim_type.set, k, isl.Val(str(value), domain.get_ctx()))
    return single.is_subset(domain)


def _digits_descend(space: tuple[tuple[Term, ...], ...]) -> bool:
    """Whether each loop's spatial digits get more significant towards the first PE dimension
    (the convention of the space)."""
    last: dict[int, int] = {}
    for terms in reversed(space):
        for digit, _ in terms:
            if digit.loop in last and digit.stride < last[digit.loop]:
                return False
            last[digit.loop] = digit.stride
    return True


def _box(
    points: isl.Set, spec: WorkloadSpec | ArchitectureSpec, field: str, what: str
) -> tuple[int, ...]:
    extents = []
    for k in range(points.dim(isl.dim_type.set)):
        low, high = points.dim_min_val(k), points.dim_max_val(k)
        if not (low.is_int() and high.is_int()):
            raise SpecError(f"{what} {k} is unbounded", source=spec.source, location=field)
        if low.to_python() != 0:
            raise SpecError(
                f"the design space needs every {what} to start at 0 ({what} {k} starts at "
                f"{low.to_python()})",
                source=spec.source,
                location=field,
            )
        extents.append(int(high.to_python()) + 1)
    return tuple(extents)
