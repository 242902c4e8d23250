"""One point of the design space: an affine space-time mapping written with loop digits.

Each loop ``x`` of the workload is cut into mixed-radix digits ``floor(x / stride) % radix``
(least significant first). Every digit goes to exactly one place: a term of a PE coordinate
(several terms make a mixed-radix coordinate such as ``ry + 3*(c % 4)``), an outer time-stamp
dimension, the inner skewed time-stamp dimension, or nowhere (dropped: the instances that differ
only in dropped digits share one space-time point). :class:`AffineMapping` renders the isl text of
the space-stamp and time-stamp (what :class:`~tenet.spec.DataflowSpec` holds), evaluates both on
points, and gives the space-time displacement of a step along the loops, which the pruning uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import islpy as isl

from tenet.errors import NotALoopNestError
from tenet.mapping import LoopDigit, LoopNest, Stamps, box, difference, from_digits
from tenet.mapping.tuples import TupleMapping
from tenet.vocab import PE, TIME

__all__ = ["Digit", "AffineMapping"]


@dataclass(frozen=True, order=True)
class Digit:
    """The digit ``floor(x / stride) % radix`` of loop number ``loop`` (``radix`` None: no
    modulo, the rest of the loop); ``extent`` is the number of values it takes on the domain.

    Examples
    --------
    >>> d = Digit(loop=0, stride=8, radix=None, extent=32)
    >>> d.expression(("i", "j")), d.value(70)
    ('floor(i/8)', 8)
    """

    loop: int
    stride: int
    radix: int | None
    extent: int

    def expression(self, names: Sequence[str]) -> str:
        """Return the isl text of this digit over the loop ``names``."""
        base = names[self.loop] if self.stride == 1 else f"floor({names[self.loop]}/{self.stride})"
        return base if self.radix is None else f"{base} % {self.radix}"

    def value(self, x: int) -> int:
        """Return the digit of loop value ``x``."""
        q = x // self.stride
        return q if self.radix is None else q % self.radix


Term = tuple[Digit, int]
"""A digit and its weight in a mixed-radix PE coordinate."""


@dataclass(frozen=True)
class AffineMapping(TupleMapping):
    """A space-time mapping of the loops ``loops`` of statement ``statement``.

    ``space[d]`` holds the (digit, weight) terms of PE coordinate d; ``outer`` the outer
    time-stamp digits, outermost first; the inner time-stamp (last dimension, present when
    ``skew`` has a non-zero entry or ``inner`` is set) is ``Σ_d skew[d]·PE_d + inner``;
    ``dropped`` digits appear in neither stamp.

    Examples
    --------
    >>> i8, j8 = Digit(0, 1, 8, 8), Digit(1, 1, 8, 8)
    >>> m = AffineMapping("S", ("i", "j", "k"), (((i8, 1),), ((j8, 1),)),
    ...     (Digit(0, 8, None, 2), Digit(1, 8, None, 2)), (1, 1), Digit(2, 1, None, 4), ())
    >>> space, time = m.stamp_texts
    >>> space
    '{ S[i, j, k] -> PE[i % 8, j % 8] }'
    >>> time
    '{ S[i, j, k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }'
    >>> m.stamps((9, 3, 2))
    ((1, 3), (1, 0, 6))
    """

    statement: str
    loops: tuple[str, ...]
    space: tuple[tuple[Term, ...], ...]
    outer: tuple[Digit, ...]
    skew: tuple[int, ...]
    inner: Digit | None
    dropped: tuple[Digit, ...]

    # -- structure --------------------------------------------------------------------------
    @property
    def has_inner(self) -> bool:
        """Whether the time-stamp ends with the inner (skewed) dimension."""
        return self.inner is not None or any(self.skew)

    @property
    def spatial_digits(self) -> tuple[Digit, ...]:
        """The digits placed on the array, PE dimension by dimension."""
        return tuple(digit for terms in self.space for digit, _ in terms)

    @cached_property
    def lowest(self) -> dict[int, Digit]:
        """The least significant digit of each loop (the one a unit step of the loop moves)."""
        digits = [*self.spatial_digits, *self.outer, *self.dropped]
        if self.inner is not None:
            digits.append(self.inner)
        out: dict[int, Digit] = {}
        for digit in digits:
            if digit.loop not in out or digit.stride < out[digit.loop].stride:
                out[digit.loop] = digit
        return out

    @property
    def rectangular(self) -> bool:
        """One loop per PE dimension, each loop on at most one, and no skew: the dataflows
        that data-centric directives (one spatial map per PE dimension) can write."""
        loops = [digit.loop for digit in self.spatial_digits]
        single = all(len(terms) <= 1 for terms in self.space)
        return single and len(loops) == len(set(loops)) and not self.has_inner

    @property
    def instances_per_point(self) -> int:
        """How many instances share one space-time point (product of dropped extents)."""
        product = 1
        for digit in self.dropped:
            product *= digit.extent
        return product

    @property
    def key(self) -> tuple[object, ...]:
        """A sortable identity of the mapping."""
        return (self.space, self.skew, self.inner or (), self.outer, self.dropped)

    # -- text ---------------------------------------------------------------------------------
    def _coordinate(self, terms: tuple[Term, ...]) -> str:
        parts = []
        for digit, weight in terms:
            text = digit.expression(self.loops)
            if weight != 1:
                text = f"{weight}*({text})" if digit.radix is not None else f"{weight}*{text}"
            parts.append(text)
        return " + ".join(parts) if parts else "0"

    def _inner_text(self) -> str:
        text = ""
        for coefficient, terms in zip(self.skew, self.space, strict=True):
            if coefficient == 0:
                continue
            coordinate = self._coordinate(terms)
            if len(terms) > 1:
                coordinate = f"({coordinate})"
            sign = "-" if coefficient < 0 else "+"
            scaled = coordinate if abs(coefficient) == 1 else f"{abs(coefficient)}*{coordinate}"
            text = f"{text} {sign} {scaled}" if text else (f"-{scaled}" if sign == "-" else scaled)
        if self.inner is not None:
            digit = self.inner.expression(self.loops)
            text = f"{text} + {digit}" if text else digit
        return text

    @property
    def pe_text(self) -> str:
        """The PE tuple, e.g. ``PE[i % 8, j % 8]``."""
        return f"{PE}[{', '.join(self._coordinate(terms) for terms in self.space)}]"

    @property
    def time_text(self) -> str:
        """The time tuple, e.g. ``T[floor(i/8), k]`` (``T[0]`` when every digit is dropped)."""
        dims = [digit.expression(self.loops) for digit in self.outer]
        if self.has_inner:
            dims.append(self._inner_text())
        return f"{TIME}[{', '.join(dims) or '0'}]"

    def nest(self, domain: isl.Set, pe_extents: Sequence[int] = ()) -> LoopNest:
        """Return the mapping as a loop nest of one memory level over ``domain`` (a box): the
        outer and inner time digits as temporal loops, the PE terms as spatial loops, the skew
        kept; checked to place and order the instances as the stamps do.

        Raises
        ------
        NotALoopNestError
            Dropped digits (several instances at one space-time point), a skew without an
            inner digit, or digits that no nest orders as the stamps do.

        Examples
        --------
        >>> i8, j8 = Digit(0, 1, 8, 8), Digit(1, 1, 8, 8)
        >>> m = AffineMapping("S", ("i", "j", "k"), (((i8, 1),), ((j8, 1),)),
        ...     (Digit(0, 8, None, 2), Digit(1, 8, None, 2)), (1, 1), Digit(2, 1, None, 4), ())
        >>> nest = m.nest(isl.Set("{S[i, j, k]: 0 <= i < 16 and 0 <= j < 16 and 0 <= k < 4}"))
        >>> nest.skew, [(x.dim, x.size, x.spatial) for x in nest.levels[0].loops]
        ((1, 1), [('i', 2, None), ('i', 8, 0), ('j', 2, None), ('j', 8, 1), ('k', 4, None)])
        """

        def digit(d: Digit) -> LoopDigit:
            return self.loops[d.loop], d.stride, d.radix

        if self.dropped:
            dropped = ", ".join(d.expression(self.loops) for d in self.dropped)
            raise NotALoopNestError(
                f"{self.name}: digits {dropped} are in neither stamp (several instances share "
                "a space-time point)"
            )
        if any(self.skew) and self.inner is None:
            raise NotALoopNestError(f"{self.name}: a skew without an inner time digit")
        temporal = [digit(d) for d in (*self.outer, *([self.inner] if self.inner else []))]
        spatial = [
            (axis, digit(d))
            for axis, terms in enumerate(self.space)
            for d, _ in sorted(terms, key=lambda term: -term[1])
        ]
        dims, extents = box(domain)
        nest = from_digits(
            dims,
            extents,
            temporal,
            spatial,
            pe_extents=pe_extents,
            skew=self.skew if any(self.skew) else (),
            source=self.name,
        )
        differs = difference(nest, Stamps(*self.stamp_texts, {}), domain)
        if differs is not None:
            raise NotALoopNestError(f"{self.name}: its digits, read as a nest, {differs}")
        return nest

    # -- evaluation -------------------------------------------------------------------------
    def _place(self, value: Callable[[Digit], int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the (PE, time-stamp) where each digit takes ``value(digit)``: both stamps
        are linear in the digits."""
        pe = tuple(sum(w * value(d) for d, w in terms) for terms in self.space)
        time = [value(d) for d in self.outer]
        if self.has_inner:
            inner = sum(c * p for c, p in zip(self.skew, pe, strict=True))
            if self.inner is not None:
                inner += value(self.inner)
            time.append(inner)
        return pe, tuple(time) or (0,)

    def stamps(self, point: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the (PE, time-stamp) of the instance at loop values ``point``."""
        return self._place(lambda digit: digit.value(point[digit.loop]))

    def displacement(self, step: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Return the change (ΔPE, Δtime-stamp) of a step ``step`` along the loops, taken
        inside one tile: each loop's least significant digit moves by its step, no carry.

        Examples
        --------
        >>> i8, j8 = Digit(0, 1, 8, 8), Digit(1, 1, 8, 8)
        >>> m = AffineMapping("S", ("i", "j", "k"), (((i8, 1),), ((j8, 1),)),
        ...     (Digit(0, 8, None, 2), Digit(1, 8, None, 2)), (1, 1), Digit(2, 1, None, 4), ())
        >>> m.displacement((0, 1, 0))
        ((0, 1), (0, 0, 1))
        """
        moved = {digit: step[loop] for loop, digit in self.lowest.items() if step[loop]}
        return self._place(lambda digit: moved.get(digit, 0))
