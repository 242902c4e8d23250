"""The way back from stamps to a loop nest: each stamp term read as a loop index, the loops
placed at their levels, and the nest checked to induce the same relations as the stamps.

Two mappings are the same when they place every instance on the same PE (the space-stamps are
equal), run the instances in the same order (the "runs before" relations, lexicographic order of
the time-stamps pulled back to S×S, are equal) and group them into the same tiles at every level
in the same order. Stamps that no nest expresses (a skewed or modulo-wrapped term) stay
relations: :func:`from_stamps` raises :class:`~tenet.errors.NotALoopNestError` naming the term.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from math import ceil

import islpy as isl

from tenet.errors import NotALoopNestError
from tenet.isl_utils import bind_params, parse_map
from tenet.mapping.nest import LevelLoops, Loop, LoopNest
from tenet.mapping.stamps import Stamps, tensor_tiles, to_stamps

__all__ = [
    "LoopDigit",
    "from_stamps",
    "from_digits",
    "difference",
    "box",
    "normal_form",
    "equivalence",
    "array_blocks",
    "array_spread",
    "array_cut",
    "cuts_array",
]

LoopDigit = tuple[str, int, int | None]
"""A digit of a loop index, ``floor(dim / stride) mod trips``: (dim, stride, trips or None for
the outermost digit of its dimension)."""

_TERM = re.compile(
    r"^\(?\s*(?:floor\(\s*\(?\s*(?P<fd>\w+)\s*\)?\s*/\s*(?P<s>\d+)\s*\)|(?P<d>\w+))\s*\)?"
    r"(?:\s*%\s*(?P<n>\d+))?$"
)


def _split(text: str, separator: str) -> list[str]:
    """Return the parts of ``text`` between its ``separator``s outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == separator and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    return [*out, cur.strip()]


def _terms(text: str) -> list[str]:
    """Return the terms of the range tuple of the isl map ``text``."""
    body = text[text.index("->") :]
    inner = body[body.index("[") + 1 : body.rindex("]")]
    return [term for term in _split(inner, ",") if term] if inner.strip() else []


def _balanced(text: str) -> bool:
    """Return whether the parentheses of ``text`` close in order."""
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _loop(term: str, dims: Sequence[str], where: str) -> LoopDigit | None:
    """Return (dim, stride, size or None for an outermost loop) of a stamp term; None for a
    constant."""
    if term.lstrip("-").isdigit():
        return None
    while term.startswith("(") and term.endswith(")") and _balanced(term[1:-1]):
        term = term[1:-1].strip()
    m = _TERM.match(term)
    dim = (m.group("fd") or m.group("d")) if m else None
    if m is None or dim is None or dim not in dims:
        raise NotALoopNestError(
            f"{where}: {term!r} is not a loop index (floor(d / s) mod n): a skewed or modulo "
            "placement has no loop nest"
        )
    size = int(m.group("n")) if m.group("n") else None
    return dim, int(m.group("s") or 1), size


def box(domain: isl.Set) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Return the dimension names of ``domain`` (parameters bound) and the number of values
    each takes."""
    n = domain.dim(isl.dim_type.set)
    dims = tuple(domain.get_dim_name(isl.dim_type.set, k) or f"i{k}" for k in range(n))
    extents = tuple(
        int(domain.dim_max_val(k).to_python()) - int(domain.dim_min_val(k).to_python()) + 1
        for k in range(n)
    )
    return dims, extents


def from_stamps(
    stamps: Stamps,
    domain: isl.Set,
    levels: Sequence[str],
    *,
    per_pe: Collection[str] = (),
    pe_extents: Sequence[int] = (),
    params: Mapping[str, int] | None = None,
    source: str | None = None,
) -> LoopNest:
    """Return the loop nest of ``stamps`` over ``domain`` (a box, parameters bound by
    ``params``) on the memory ``levels`` (outermost first; ``per_pe`` those with one instance
    per PE; each level keeping the tensors ``stamps.keep`` names for it) of an array with
    ``pe_extents`` PEs along each axis, checked to induce the same relations
    (:func:`difference`).

    Raises
    ------
    NotALoopNestError
        A stamp term that is not a loop index, loops over a dimension that do not nest, or a
        nest whose relations differ from the stamps' (the message says which).

    Examples
    --------
    >>> stamps = Stamps("{S[i, k] -> PE[i]}", "{S[i, k] -> T[floor(k / 3), (k) % 3]}",
    ...     {"glb": "{S[i, k] -> GLB[floor(k / 3)]}"})
    >>> domain = isl.Set("{S[i, k]: 0 <= i < 4 and 0 <= k < 6}")
    >>> nest = from_stamps(stamps, domain, ["dram", "glb"], pe_extents=[4])
    >>> [[(x.dim, x.size, x.spatial) for x in lv.loops] for lv in nest.levels]
    [[('k', 2, None)], [('i', 4, 0), ('k', 3, None)]]
    >>> from_stamps(Stamps("{S[i, k] -> PE[i]}", "{S[i, k] -> T[i + k]}", {}), domain, ["dram"])
    Traceback (most recent call last):
    ...
    tenet.errors.NotALoopNestError: time_stamp: 'i + k' adds the PE coordinates i to its loop ...
    """
    bound = dict(params or {})
    dims, extents = box(domain)
    src = f"{source}: " if source else ""
    levels = list(levels) or ["dram"]
    axes = _axes(stamps.space_stamp, dims, f"{src}space_stamp")
    time_terms, skew, written = _unskewed(_terms(stamps.time_stamp), axes, dims, f"{src}time_stamp")
    if skew:
        raise NotALoopNestError(
            f"{src}time_stamp: {_terms(stamps.time_stamp)[-1]!r} adds the PE coordinates "
            f"{' + '.join(written)} to its loop (a systolic skew: each PE starts later): a "
            "skewed placement has no loop nest"
        )
    temporal = [
        t for t in (_loop(x, dims, f"{src}time_stamp") for x in time_terms) if t is not None
    ]
    spatial = _interleaved(axes)
    runs: dict[str, int] = {}
    for name in levels[1:]:
        tile = stamps.tiles.get(name)
        if tile is None:
            continue
        terms = [_loop(x, dims, f"{src}tiles.{name}") for x in _terms(tile)]
        runs[name] = len([t for t in terms if t is not None])
    nest = from_digits(
        dims,
        extents,
        temporal,
        spatial,
        levels,
        runs=runs,
        per_pe=per_pe,
        keep={level: frozenset(tensors) for level, tensors in stamps.keep.items()},
        pe_extents=pe_extents,
        source=source,
    )
    differs = difference(nest, stamps, domain, bound)
    if differs is not None:
        raise NotALoopNestError(
            f"{src}its loops, read as a nest, {differs} (a skewed or modulo placement, or "
            "several instances in one time-stamp)"
        )
    return _placed(nest, stamps, domain, dims, bound, src)


def _interleaved(axes: Sequence[Sequence[tuple[int, LoopDigit]]]) -> list[tuple[int, LoopDigit]]:
    """Return the (axis, digit) pairs of every PE axis, each axis's most significant first,
    the axes interleaved so that the digits of a dimension come by decreasing stride (a
    dimension split over two axes, its outer digit on one and its inner on the other, nests);
    where no order does, each axis in turn (:func:`from_digits` says why)."""
    queues = [[loop for _, loop in sorted(digits, key=lambda d: -d[0])] for digits in axes]
    out: list[tuple[int, LoopDigit]] = []
    while any(queues):
        pending = [loop for q in queues for loop in q]
        heads = [a for a, q in enumerate(queues) if q]
        ready = [
            a
            for a in heads
            if not any(d == queues[a][0][0] and s > queues[a][0][1] for d, s, _ in pending)
        ]
        axis = (ready or heads)[0]
        out.append((axis, queues[axis].pop(0)))
    return out


def _axes(space_stamp: str, dims: Sequence[str], where: str) -> list[list[tuple[int, LoopDigit]]]:
    """Return, per PE axis of ``space_stamp``, its digits with their weights (a mixed-radix
    coordinate ``4 * (floor(i / 4) % 4) + i % 4``)."""
    axes = []
    for text in _terms(space_stamp):
        digits: list[tuple[int, LoopDigit]] = []
        for part in text.split("+"):
            weight = re.match(r"^\s*(\d+)\s*\*\s*", part)
            loop = _loop(part[weight.end() if weight else 0 :].strip(), dims, where)
            if loop is not None:
                digits.append((int(weight.group(1)) if weight else 1, loop))
        axes.append(digits)
    return axes


def _unskewed(
    time: Sequence[str],
    axes: Sequence[Sequence[tuple[int, LoopDigit]]],
    dims: Sequence[str],
    where: str,
) -> tuple[list[str], tuple[int, ...], list[str]]:
    """Return the time-stamp's terms with the PE coordinates taken out of its last one,
    their coefficient per PE axis and their summands as written (the systolic skew
    ``T[..., i % 8 + j % 8 + k]``: each PE starts its stream that many steps later; none when
    the last term adds no coordinate).

    Raises
    ------
    NotALoopNestError
        A last term that adds part of a PE coordinate, two loops, or a coordinate with
        coefficients out of proportion to its digits' weights.
    """
    parts = _split(time[-1], "+") if time else []
    if len(parts) < 2:
        return list(time), (), []
    where_of = {loop: (a, w) for a, digits in enumerate(axes) for w, loop in digits}
    loops: list[str] = []
    written: list[str] = []
    found: dict[LoopDigit, int] = {}
    for part in parts:
        coefficient = re.match(r"^\s*(-?\d+)\s*\*\s*", part)
        text = part[coefficient.end() if coefficient else 0 :].strip()
        try:
            digit = _loop(text, dims, where)
        except NotALoopNestError:
            digit = None
        if digit is not None and digit in where_of:
            found[digit] = int(coefficient.group(1)) if coefficient else 1
            written.append(part)
        else:
            loops.append(part)
    if not found or len(loops) > 1:
        return list(time), (), []
    skew = []
    for digits in axes:
        mine = [found.get(loop) for _, loop in digits]
        if not any(c is not None for c in mine):
            skew.append(0)
            continue
        ratios = {c / w if c is not None else None for c, (w, _) in zip(mine, digits, strict=True)}
        ratio = next(iter(ratios))
        if len(ratios) != 1 or ratio is None or ratio != int(ratio):
            raise NotALoopNestError(
                f"{where}: {time[-1]!r} adds part of a PE coordinate to the time-stamp, not "
                "whole coordinates (a systolic skew): no loop nest runs it"
            )
        skew.append(int(ratio))
    while skew and skew[-1] == 0:
        skew.pop()
    return [*time[:-1], *(loops or ["0"])], tuple(skew), written


def _placed(
    nest: LoopNest,
    stamps: Stamps,
    domain: isl.Set,
    dims: Sequence[str],
    params: Mapping[str, int],
    src: str,
) -> LoopNest:
    """Return ``nest`` with the storage places of ``stamps`` (a tensor's tile stamp at a
    level) as ``above``: the number of loops above the storage whose tiles group the
    instances as the place does (isl equality; keyed by the PE at a per-PE level), the one
    just below the last loop the place lists tried first.

    Raises
    ------
    NotALoopNestError
        A place that no position among the nest's loops gives.
    """
    if not stamps.places:
        return nest
    bound = dict(params)

    def load(text: str) -> isl.Map:
        return bind_params(parse_map(text), bound).intersect_domain(domain)

    pe = load(stamps.space_stamp)
    flat = nest.loops()
    temporal = [n for n, (_, loop) in enumerate(flat) if loop.spatial is None]
    above: dict[str, dict[str, int]] = {}
    for level, per in stamps.places.items():
        for tensor, text in per.items():
            where = f"{src}places.{level}.{tensor}"
            n = len(_digits(text, dims, where))
            guess = temporal[n - 1] + 1 if 0 < n <= len(temporal) else 0
            wanted = _grouping(load(text), pe, level in nest.per_pe)
            for at in [guess, *(b for b in range(len(flat) + 1) if b != guess)]:
                trial = replace(nest, above={tensor: {level: at}})
                mine = tensor_tiles(trial, tensor).get(level)
                tiles = load(mine) if mine is not None else isl.Map.from_domain(domain)
                if _grouping(tiles, pe, level in nest.per_pe).is_equal(wanted):
                    above.setdefault(tensor, {})[level] = at
                    break
            else:
                raise NotALoopNestError(
                    f"{where}: no position among the loops of the nest stores {tensor} in "
                    "these tiles"
                )
    return replace(nest, above=above)


def _grouping(tiles: isl.Map, pe: isl.Map, keyed: bool) -> isl.Map:
    """The same-tile relation of ``tiles`` on S×S (the same PE too when ``keyed``)."""
    key = pe.flat_range_product(tiles) if keyed else tiles
    return key.apply_range(key.reverse())


def from_digits(
    dims: Sequence[str],
    extents: Sequence[int],
    temporal: Sequence[LoopDigit],
    spatial: Sequence[tuple[int, LoopDigit]],
    levels: Sequence[str] = ("dram",),
    *,
    runs: Mapping[str, int] | None = None,
    per_pe: Collection[str] = (),
    keep: Mapping[str, frozenset[str]] | None = None,
    pe_extents: Sequence[int] = (),
    skew: Sequence[int] = (),
    source: str | None = None,
) -> LoopNest:
    """Return the loop nest whose time-stamp lists the ``temporal`` digits in order (the
    last one plus ``skew``) and whose PE axes are made of the ``spatial`` (axis, digit) pairs,
    most significant first: each temporal digit at the level whose tiles it iterates over
    (``runs``: the number of digits of each level's tile stamp), each spatial one in the level
    just above the per-PE ones, after the loops of its dimension with a larger stride. A
    digit's trips are its ``trips``, else the stride of the next digit out over its
    dimension divided by its own, else the rest of the extent. The relations are not checked
    here (:func:`difference` does).

    Raises
    ------
    NotALoopNestError
        The digits of a dimension that do not nest (strides out of order, tiles not made of
        whole inner tiles, a digit left out between two).

    Examples
    --------
    >>> nest = from_digits(("i", "j"), (8, 8), [("i", 4, None), ("j", 1, None)],
    ...     [(0, ("i", 1, 4))], pe_extents=[4])
    >>> [(x.dim, x.size, x.spatial) for x in nest.levels[0].loops]
    [('i', 2, None), ('i', 4, 0), ('j', 8, None)]
    """
    src = f"{source}: " if source else ""
    dims = tuple(dims)
    levels = list(levels) or ["dram"]
    runs = runs or {}
    shared = [k for k, name in enumerate(levels) if name not in per_pe]
    host = shared[-1] if shared[-1] + 1 < len(levels) else len(levels) - 1
    # Temporal loops in time-stamp order, each at the level whose tiles it iterates over.
    owner: list[int] = []
    for k, name in enumerate(levels[1:]):
        owner.extend([k] * runs.get(name, 0))
    owner = owner[: len(temporal)]
    owner += [len(levels) - 1] * (len(temporal) - len(owner))
    flat: list[tuple[int, str, int, int | None, int | None]] = [
        (lv, d, st, n, None) for lv, (d, st, n) in zip(owner, temporal, strict=True)
    ]
    # A spatial loop goes after the temporal loops of its dimension with a larger stride and
    # the spatial loops before it in the space-stamp (and no earlier than the level just
    # above the per-PE ones).
    cursor = 0
    for axis, (d, st, n) in spatial:
        after = [k for k, f in enumerate(flat) if f[1] == d and f[2] > st]
        start = next((k for k, f in enumerate(flat) if f[0] >= host), len(flat))
        at = max(start, cursor, after[-1] + 1 if after else 0)
        cursor = at + 1
        lv = flat[at - 1][0] if at > start and at > 0 else host
        lv = max(lv, host) if at >= start else lv
        flat.insert(at, (lv, d, st, n, axis))
    outer_stride: dict[int, int] = {}
    point: list[Loop] = []
    for dim in dims:
        mine = [k for k, f in enumerate(flat) if f[1] == dim]
        strides = [flat[k][2] for k in mine]
        if strides != sorted(strides, reverse=True) or len(set(strides)) < len(strides):
            raise NotALoopNestError(
                f"{src}the loops over {dim!r} are not nested (strides {strides} in loop order)"
            )
        for outer, inner in zip(mine, mine[1:], strict=False):
            if flat[outer][2] % flat[inner][2]:
                raise NotALoopNestError(
                    f"{src}tiles of {flat[outer][2]} over {dim!r} are not made of whole "
                    f"tiles of {flat[inner][2]}"
                )
            _, _, stride, trips, _ = flat[inner]
            if trips is not None and stride * trips != flat[outer][2]:
                raise NotALoopNestError(
                    f"{src}the loops over {dim!r} leave digits out: {trips} trips of stride "
                    f"{stride} inside a loop of stride {flat[outer][2]} (several instances "
                    "share a PE and a time-stamp)"
                )
            outer_stride[inner] = flat[outer][2]
        if mine and flat[mine[-1]][2] > 1:
            point.append(Loop(dim, flat[mine[-1]][2]))
        elif not mine:
            point.append(Loop(dim, extents[dims.index(dim)]))
    per_level: list[list[Loop]] = [[] for _ in levels]
    for k, (lv, d, st, n, a) in enumerate(flat):
        if n is not None:
            size = n
        elif k in outer_stride:
            size = outer_stride[k] // st
        elif a is not None and a < len(pe_extents):
            size = min(ceil(extents[dims.index(d)] / st), pe_extents[a])
        else:
            size = ceil(extents[dims.index(d)] / st)
        per_level[lv].append(Loop(d, size, spatial=a))
    per_level[-1].extend(point)
    return LoopNest(
        dims,
        tuple(extents),
        tuple(
            LevelLoops(name, tuple(loops), (keep or {}).get(name))
            for name, loops in zip(levels, per_level, strict=True)
        ),
        per_pe=frozenset(per_pe),
        skew=tuple(skew),
    )


def _before(stamp: isl.Map) -> isl.Map:
    """Instance -> instances with a later stamp (the "runs before" relation on S×S)."""
    return stamp.lex_lt_map(stamp)


def _placement(
    nest: LoopNest, stamps: Stamps, domain: isl.Set, params: Mapping[str, int] | None
) -> tuple[Callable[[str], isl.Map], Stamps, str | None]:
    """Return a reader of isl text (sizes bound, restricted to ``domain``), the stamps of
    ``nest``, and how ``nest`` places the instances differently from ``stamps`` (None when it
    places them alike)."""
    bound = dict(params or {})

    def load(text: str) -> isl.Map:
        return bind_params(parse_map(text), bound).intersect_domain(domain)

    mine = to_stamps(nest)
    same = load(mine.space_stamp).is_equal(load(stamps.space_stamp))
    return load, mine, None if same else "places the instances on other PEs"


def difference(
    nest: LoopNest, stamps: Stamps, domain: isl.Set, params: Mapping[str, int] | None = None
) -> str | None:
    """Return what ``nest`` does differently from ``stamps`` on ``domain`` (isl equality of
    the placement, the "runs before" relation, and the same-tile relation and tile order of
    every level, outermost first), or None when it does the same.

    Examples
    --------
    >>> nest = LoopNest(("i",), (4,), (LevelLoops("dram", (Loop("i", 4),)),))
    >>> domain = isl.Set("{S[i]: 0 <= i < 4}")
    >>> difference(nest, Stamps("{S[i] -> PE[0]}", "{S[i] -> T[i]}", {}), domain) is None
    True
    >>> difference(nest, Stamps("{S[i] -> PE[0]}", "{S[i] -> T[-i]}", {}), domain)
    'runs the instances in another order'
    """
    load, mine_stamps, placed = _placement(nest, stamps, domain, params)
    if placed is not None:
        return placed
    if not _before(load(mine_stamps.time_stamp)).is_equal(_before(load(stamps.time_stamp))):
        return "runs the instances in another order"
    mine = isl.Map.from_domain(domain)
    theirs = isl.Map.from_domain(domain)
    for level in nest.levels[1:]:
        name = level.level
        if name in mine_stamps.tiles:
            mine = mine.flat_range_product(load(mine_stamps.tiles[name]))
        if name in stamps.tiles:
            theirs = theirs.flat_range_product(load(stamps.tiles[name]))
        if not mine.apply_range(mine.reverse()).is_equal(theirs.apply_range(theirs.reverse())):
            return f"groups the instances into other tiles of {name}"
        if not _before(mine).is_equal(_before(theirs)):
            return f"orders the tiles of {name} differently"
    return None


def _digit_text(digit: LoopDigit) -> str:
    dim, stride, trips = digit
    base = dim if stride == 1 else f"floor({dim} / {stride})"
    return base if trips is None else f"({base}) % {trips}"


def _digits(text: str, dims: Sequence[str], where: str) -> list[LoopDigit]:
    return [d for d in (_loop(x, dims, where) for x in _terms(text)) if d is not None]


def _head(text: str) -> tuple[str, str]:
    """Return the domain tuple (``S[i, j]``) and the range tuple's name of a stamp's text."""
    body = text.strip().lstrip("{").strip()
    arrow = body.index("->")
    name = body[arrow + 2 :].strip()
    return body[:arrow].strip(), name[: name.index("[")].strip()


def normal_form(
    stamps: Stamps, dims: Sequence[str], levels: Sequence[str], per_pe: Collection[str] = ()
) -> Stamps:
    """Return ``stamps`` in the form :func:`from_stamps` reads as a nest, when they are one
    written otherwise: every loop index relative to the loops of its dimension with a larger
    stride (``floor(d / s)`` becomes ``floor(d / s) mod (S / s)`` below a loop of stride
    ``S``: the same tiles, in the same order), a tile stamp without the loops of the levels
    outside (the tiles nest in theirs) and, at a per-PE level, without the PE's own loops (its
    tiles are keyed by the PE), and the time-stamp in tile order (the tile
    stamps' loops first, outermost level first, then the time-stamp's own order inside
    each tile). Stamps with a term that is not a loop index are returned unchanged.

    Examples
    --------
    >>> s = normal_form(Stamps("{S[i] -> PE[0]}", "{S[i] -> T[i]}",
    ...     {"glb": "{S[i] -> GLB[floor(i / 4)]}", "rf": "{S[i] -> RF[floor(i / 2)]}"}),
    ...     ["i"], ["dram", "glb", "rf"])
    >>> s.time_stamp, s.tiles["rf"]
    ('{S[i] -> T[floor(i / 4), (floor(i / 2)) % 2, (i) % 2]}', '{S[i] -> RF[(floor(i / 2)) % 2]}')
    """
    try:
        time = _digits(stamps.time_stamp, dims, "time_stamp")
        space = [
            [_loop(part.split("*")[-1].strip(), dims, "space_stamp") for part in t.split("+")]
            for t in _terms(stamps.space_stamp)
        ]
        tiles = {name: _digits(text, dims, f"tiles.{name}") for name, text in stamps.tiles.items()}
    except NotALoopNestError:
        return stamps
    on_array = {d for axis in space for d in axis if d is not None}
    strides: dict[str, set[int]] = {}
    for dim, stride, _ in [*time, *on_array, *(d for ds in tiles.values() for d in ds)]:
        strides.setdefault(dim, set()).add(stride)

    def relative(digit: LoopDigit) -> LoopDigit:
        dim, stride, trips = digit
        larger = [t for t in strides[dim] if t > stride]
        if trips is None and larger and min(larger) % stride == 0:
            return dim, stride, min(larger) // stride
        return digit

    def spread(digit: LoopDigit) -> list[LoopDigit]:
        """The relative digits a whole index ``floor(d / s)`` stands for: one per stride of
        ``d`` from ``s`` up (outermost first), when each stride divides the next."""
        dim, stride, trips = digit
        chain = sorted(t for t in strides[dim] if t >= stride)
        if trips is not None or any(b % a for a, b in zip(chain, chain[1:], strict=False)):
            return [relative(digit)]
        return [relative((dim, t, None)) for t in reversed(chain)]

    array = {relative(d) for d in on_array}
    new_tiles: dict[str, str] = {}
    ordered: list[LoopDigit] = []
    for name in levels[1:]:
        if name not in tiles:
            continue
        digits = [d for x in tiles[name] for d in spread(x) if d not in ordered]
        if name in per_pe:
            digits = [d for d in digits if d not in array]
        ordered += digits
        if digits:
            head, tuple_name = _head(stamps.tiles[name])
            parts = ", ".join(_digit_text(d) for d in digits)
            new_tiles[name] = f"{{{head} -> {tuple_name}[{parts}]}}"
    ordered += [d for d in (relative(d) for d in time) if d not in ordered and d not in array]
    head, tuple_name = _head(stamps.time_stamp)
    time_text = f"{{{head} -> {tuple_name}[{', '.join(_digit_text(d) for d in ordered) or '0'}]}}"
    return Stamps(stamps.space_stamp, time_text, new_tiles, dict(stamps.places), dict(stamps.keep))


def array_blocks(space: isl.Map, domain: isl.Set) -> dict[str, int]:
    """Return, per loop of the box ``domain``, the tile size that the tiles of a level shared
    by the PEs must be a multiple of (or span the whole loop) not to cut the array's digits
    of that loop: the period of the PE coordinates ``space`` gives along the loop (the span
    ``s * n`` of a digit ``floor(d / s) % n``; the whole loop for a digit without modulo; 1
    for a loop not on the array).

    Examples
    --------
    >>> domain = isl.Set("{S[i, j, k]: 0 <= i < 256 and 0 <= j < 64 and 0 <= k < 56}")
    >>> array_blocks(isl.Map("{S[i, j, k] -> PE[floor(i / 16), i % 16]}"), domain)
    {'i': 256, 'j': 1, 'k': 1}
    >>> array_blocks(isl.Map("{S[i, j, k] -> PE[k % 16, floor(j / 2) % 4]}"), domain)
    {'i': 1, 'j': 8, 'k': 16}
    """
    return {
        dim: next(
            (
                p
                for p in range(1, len(row))
                if row[p] == row[0] and all(row[x] == row[x + p] for x in range(len(row) - p))
            ),
            len(row),
        )
        for dim, row in _lines(space, domain).items()
    }


def array_spread(space: isl.Map, domain: isl.Set) -> dict[str, int]:
    """Return, per loop of the box ``domain``, over how many PEs the space-stamp ``space``
    spreads its values (the distinct PE coordinates along the loop, the others fixed): no
    PE takes fewer than ``ceil(t / spread)`` of ``t`` values of the loop.

    Examples
    --------
    >>> domain = isl.Set("{S[i, j, k]: 0 <= i < 256 and 0 <= j < 64 and 0 <= k < 56}")
    >>> array_spread(isl.Map("{S[i, j, k] -> PE[k % 16, floor(j / 2) % 4]}"), domain)
    {'i': 1, 'j': 4, 'k': 16}
    """
    return {dim: len(set(row)) for dim, row in _lines(space, domain).items()}


def array_coverage(space: isl.Map, domain: isl.Set) -> dict[str, dict[int, int]] | None:
    """Return, per loop of the box ``domain`` and per size ``r`` dividing its extent, the
    fewest distinct PE coordinates of ``space`` that ``r`` consecutive values of the loop
    starting at a multiple of ``r`` take (the others fixed); None unless every PE axis of
    ``space`` involves at most one loop, so that the PEs of a box of loop values are the
    product of each loop's coordinates.

    Examples
    --------
    >>> domain = isl.Set("{S[i, j]: 0 <= i < 32 and 0 <= j < 4}")
    >>> array_coverage(isl.Map("{S[i, j] -> PE[i % 16]}"), domain)["i"]
    {1: 1, 2: 2, 4: 4, 8: 8, 16: 16, 32: 16}
    """
    functions = space.as_pw_multi_aff()
    loops = range(space.dim(isl.dim_type.in_))
    for axis in range(space.dim(isl.dim_type.out)):
        used: set[int] = set()
        for where, aff in functions.get_pw_aff(axis).get_pieces():
            # a piece chosen by another loop's value breaks the product as its formula does
            used |= {k for k in loops if aff.involves_dims(isl.dim_type.in_, k, 1)}
            used |= {k for k in loops if where.involves_dims(isl.dim_type.set, k, 1)}
        if len(used) > 1:
            return None
    out: dict[str, dict[int, int]] = {}
    for dim, row in _lines(space, domain).items():
        n = len(row)
        out[dim] = {
            r: min(len(set(row[a : a + r])) for a in range(0, n, r))
            for r in range(1, n + 1)
            if n % r == 0
        }
    return out


def _lines(space: isl.Map, domain: isl.Set) -> dict[str, list[tuple[int, ...]]]:
    """Return, per loop of the box ``domain``, the PE coordinates of ``space`` along the loop
    (the other loops at their lowest), in order."""
    dims, extents = box(domain)
    lows = [int(domain.dim_min_val(k).to_python()) for k in range(len(dims))]
    out = {}
    for q, (dim, extent) in enumerate(zip(dims, extents, strict=True)):
        line = domain
        for k, low in enumerate(lows):
            if k != q:
                line = line.fix_val(isl.dim_type.set, k, low)
        out[dim] = _coordinates(space.intersect_domain(line), q, lows[q], extent)
    return out


def _coordinates(space: isl.Map, q: int, low: int, extent: int) -> list[tuple[int, ...]]:
    """Return the PE coordinates of ``space`` (on a line of its domain along loop ``q``,
    which starts at ``low``) at each of the line's ``extent`` points, in order."""
    n = space.dim(isl.dim_type.in_)
    found: dict[int, tuple[int, ...]] = {}

    def keep(point: isl.Point) -> None:
        values = [
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
            for k in range(point.get_space().dim(isl.dim_type.set))
        ]
        found[values[q] - low] = tuple(values[n:])

    space.wrap().foreach_point(keep)
    return [found[x] for x in range(extent)]


def cuts_array(block: int, size: int, extent: int) -> bool:
    """Whether tiles of ``size`` over a loop of ``extent`` cut the array's digits of that
    loop, whose tiles must be multiples of ``block`` (:func:`array_blocks`)."""
    return size < extent and size % block != 0


def array_cut(
    stamps: Stamps,
    space: isl.Map,
    domain: isl.Set,
    levels: Sequence[str],
    per_pe: Collection[str] = (),
) -> str | None:
    """Return how the tiles of a level shared by the PEs cut a loop of the array (a tile
    size over a PE coordinate's loop that is not a multiple of the coordinate's period,
    :func:`array_blocks`, e.g. tiles of 2 over ``i`` with ``PE[i % 16]``), which no loop nest
    does (its spatial loops run inside every shared level's tiles); None when none does or a
    tile stamp is no loop index. ``space`` is the space-stamp with its sizes bound."""
    dims, extents = box(domain)
    try:
        tiles = {name: _digits(text, dims, f"tiles.{name}") for name, text in stamps.tiles.items()}
    except NotALoopNestError:
        return None
    blocks = array_blocks(space, domain)
    extent = dict(zip(dims, extents, strict=True))
    for name in levels[1:]:
        if name in per_pe or name not in tiles:
            continue
        for dim, stride, trips in tiles[name]:
            if trips != 1 and cuts_array(blocks[dim], stride, extent[dim]):
                return (
                    f"the tiles of {name} (shared by the PEs) cut the array's loop over "
                    f"{dim!r}: {_digit_text((dim, stride, trips))} runs in time while the PEs "
                    f"take blocks of {blocks[dim]} of it; a loop nest runs its spatial loops "
                    "inside the tiles of every shared level"
                )
    return None


def equivalence(
    nest: LoopNest,
    stamps: Stamps,
    domain: isl.Set,
    levels: Sequence[str],
    params: Mapping[str, int] | None = None,
    per_pe: Collection[str] = (),
) -> str | None:
    """Return how ``nest`` differs from ``stamps`` as a mapping over memory ``levels``
    (placement, the tiles of every level, keyed by the PE at the ``per_pe`` ones, and their
    order, and the order of the instances inside one tile of the innermost level), or None
    when it is the same mapping, though its time-stamp may list the tiles' loops first.

    Examples
    --------
    >>> nest = LoopNest(("i",), (4,), (LevelLoops("dram", (Loop("i", 2),)),
    ...     LevelLoops("glb", (Loop("i", 2),))))
    >>> domain = isl.Set("{S[i]: 0 <= i < 4}")
    >>> glb = {"glb": "{S[i] -> GLB[floor(i / 2)]}"}
    >>> stamps = Stamps("{S[i] -> PE[0]}", "{S[i] -> T[-i]}", glb)
    >>> equivalence(nest, stamps, domain, ["dram", "glb"])
    'runs the instances of one glb tile in another order'
    """
    load, mine_stamps, placed = _placement(nest, stamps, domain, params)
    if placed is not None:
        return placed
    mine = isl.Map.from_domain(domain)
    theirs = isl.Map.from_domain(domain)
    innermost = levels[0]
    for name in levels[1:]:
        if name in mine_stamps.tiles:
            mine = mine.flat_range_product(load(mine_stamps.tiles[name]))
        if name in stamps.tiles:
            theirs = theirs.flat_range_product(load(stamps.tiles[name]))
            innermost = name
        keyed_mine, keyed_theirs = mine, theirs
        if name in per_pe:
            pe = load(stamps.space_stamp)
            keyed_mine, keyed_theirs = pe.flat_range_product(mine), pe.flat_range_product(theirs)
        same_mine = keyed_mine.apply_range(keyed_mine.reverse())
        if not same_mine.is_equal(keyed_theirs.apply_range(keyed_theirs.reverse())):
            return f"groups the instances into other tiles of {name}"
        if not _before(keyed_mine).is_equal(_before(keyed_theirs)):
            return f"orders the tiles of {name} differently"
    same_tile = theirs.apply_range(theirs.reverse())
    inside_mine = _before(load(mine_stamps.time_stamp)).intersect(same_tile)
    inside_theirs = _before(load(stamps.time_stamp)).intersect(same_tile)
    if not inside_mine.is_equal(inside_theirs):
        return f"runs the instances of one {innermost} tile in another order"
    return None
