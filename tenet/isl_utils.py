"""The isl boundary: parse text into isl objects with located errors, bind parameters, and
small helpers on relations. Nothing above this module calls an isl constructor on user text.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import TYPE_CHECKING, TypedDict, TypeVar

import islpy as isl

from tenet.errors import CountingError, IslSyntaxError, SpecError
from tenet.vocab import ParamBinding

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "parse_set",
    "parse_map",
    "bind_params",
    "parameters_of",
    "single_map",
    "coalesce",
    "point_text",
    "witness",
    "tuple_signature",
    "Relation",
    "Located",
]

if not hasattr(isl.Set, "card"):  # pragma: no cover - depends on the installed wheel
    raise ImportError(
        "tenet needs barvinok counting (Set.card), which plain islpy lacks: "
        "pip uninstall -y islpy && pip install islpy-barvinok"
    )

Relation = TypeVar("Relation", isl.Set, isl.Map)


class Located(TypedDict, total=False):
    """Where a text comes from, named in its errors: the file and the dotted field."""

    source: str | None
    location: str | None


def _trailing(text: str) -> str:
    """Return what follows the closing brace of the first ``{...}`` (isl ignores it)."""
    depth = 0
    for k, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[k + 1 :].strip()
    return ""


Parsed = TypeVar("Parsed", isl.Set, isl.UnionMap)


def _parse(kind: type[Parsed], text: str, where: Located) -> Parsed:
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"expected isl text, got {text!r}", **where)
    if rest := _trailing(text):
        raise IslSyntaxError(text, detail=f"unexpected text {rest!r} after '}}'", **where)
    try:
        return kind(text.strip())
    except isl.Error as exc:
        detail = _complaint(kind, text.strip()) or "not isl syntax"
        raise IslSyntaxError(text, detail=detail, **where) from exc


_COMPLAINT = re.compile(r"syntax error \((\d+), (\d+)\): (.*)")


def _complaint(kind: type[Parsed], text: str) -> str | None:
    """Parse ``text`` again with isl's error report captured (isl writes it to the C
    stderr), and return its first complaint with the spot in ``text`` it points at."""
    context = isl.DEFAULT_CONTEXT
    saved_mode = context.get_on_error()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            context.set_on_error(isl.on_error.WARN)
            kind(text)
        except isl.Error:
            pass
        finally:
            context.set_on_error(saved_mode)
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        report = captured.read().decode(errors="replace").splitlines()
    for k, line in enumerate(report):
        if match := _COMPLAINT.match(line):
            row, column, message = int(match[1]), int(match[2]), match[3]
            got = report[k + 1].strip() if k + 1 < len(report) else ""
            if got.startswith("got "):
                message += f", {got}"
            before = text.splitlines()[row - 1][: column - 1] if row <= text.count("\n") + 1 else ""
            where = f"line {row} column {column}" if "\n" in text else f"column {column}"
            return f"{message} at {where}, after {before[-30:]!r}"
    return None


def parse_set(text: str, params: ParamBinding | None = None, **where: Unpack[Located]) -> isl.Set:
    """Parse an isl set such as ``{S[i,j]: 0 <= i < 4}``; given ``params``, fix its
    parameters to their values there (:func:`bind_params`). ``where`` (``source=``,
    ``location=``) names the text in errors.

    Examples
    --------
    >>> parse_set("{S[i]: 0 <= i < 3}")
    Set("{ S[i] : 0 <= i <= 2 }")
    >>> parse_set("[N] -> {S[i]: 0 <= i < N}", {"N": 2})
    Set("{ S[i] : 0 <= i <= 1 }")
    """
    parsed = _parse(isl.Set, text, where)
    return parsed if params is None else bind_params(parsed, params, **where)


def parse_map(text: str, params: ParamBinding | None = None, **where: Unpack[Located]) -> isl.Map:
    """Parse an isl map; several pieces joined by ``;`` must share one space. Given
    ``params``, fix its parameters to their values there (:func:`bind_params`). ``where``
    (``source=``, ``location=``) names the text in errors.

    Examples
    --------
    >>> parse_map("{S[i] -> A[i]; S[i] -> A[i+1]}").n_basic_map()
    2
    """
    if not isinstance(text, str):
        raise SpecError(f"expected isl text, got {text!r}", **where)
    union = _parse(isl.UnionMap, text, where)
    if union.n_map() != 1:
        raise SpecError(
            f"expected one relation between two tuples, found {union.n_map()} in {text!r}",
            **where,
        )
    parsed = isl.Map.from_union_map(union)
    return parsed if params is None else bind_params(parsed, params, **where)


def parameters_of(obj: isl.Set | isl.Map) -> list[str]:
    """Return the names of the parameters of ``obj``."""
    return [str(name) for name in obj.get_var_names(isl.dim_type.param)]


def bind_params(obj: Relation, params: ParamBinding, **where: Unpack[Located]) -> Relation:
    """Fix every parameter of ``obj`` to its value in ``params`` and drop it; ``where``
    (``source=``, ``location=``) names ``obj`` in errors.

    Raises
    ------
    CountingError
        When a parameter has no value.

    Examples
    --------
    >>> bind_params(parse_set("[N] -> {S[i]: 0 <= i < N}"), {"N": 2})
    Set("{ S[i] : 0 <= i <= 1 }")
    """
    names = parameters_of(obj)
    missing = [n for n in names if n not in params]
    if missing:
        raise CountingError(
            f"size parameter(s) {', '.join(missing)} not bound; "
            f"give a value (e.g. --param {missing[0]}=64)",
            **where,
        )
    ctx = obj.get_ctx()
    for k, name in enumerate(names):
        obj = obj.fix_val(isl.dim_type.param, k, isl.Val(str(int(params[name])), ctx))
    return obj.project_out(isl.dim_type.param, 0, len(names))


def single_map(union: isl.UnionMap, space_hint: str) -> isl.Map:
    """Return ``union`` as one map (it must live in one space); empty gives an empty map."""
    if union.n_map() == 0:
        raise CountingError(f"relation {space_hint} is empty")
    return isl.Map.from_union_map(union)


def coalesce(obj: Relation) -> Relation:
    """Coalesce ``obj``; some isl versions fail on rare inputs, then ``obj`` is kept as is."""
    try:
        return obj.coalesce()
    except isl.Error:
        return obj


def _render(space: isl.Space, values: list[int]) -> str:
    if space.is_wrapping():
        relation = space.unwrap()
        n_in = relation.dim(isl.dim_type.in_)
        return (
            f"[{_render(relation.domain(), values[:n_in])} -> "
            f"{_render(relation.range(), values[n_in:])}]"
        )
    name = space.get_tuple_name(isl.dim_type.set) or ""
    return f"{name}[{', '.join(str(v) for v in values)}]"


def point_text(point: isl.Point) -> str:
    """Render an isl point as ``S[0, 1]`` or ``[PE[0] -> T[1]]``.

    Examples
    --------
    >>> point_text(isl.Set("{[PE[i] -> T[t]]: i = 2 and t = 5}").sample_point())
    '[PE[2] -> T[5]]'
    """
    space = point.get_space()
    values = [
        int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
        for k in range(space.dim(isl.dim_type.set))
    ]
    return _render(space, values)


def witness(obj: isl.Set | isl.Map) -> str:
    """Return one point of a non-empty set, or one pair ``x -> y`` of a map, as text.

    Examples
    --------
    >>> witness(isl.Map("{S[i] -> PE[i + 1]: i = 3}"))
    'S[3] -> PE[4]'
    """
    if isinstance(obj, isl.Map):
        return point_text(obj.wrap().sample_point()).removeprefix("[").removesuffix("]")
    return point_text(obj.sample_point())


def tuple_signature(obj: isl.Set | isl.Map, dim: isl.dim_type) -> tuple[str | None, int]:
    """Return (tuple name, arity) of one side of ``obj``."""
    if isinstance(obj, isl.Set):
        return obj.get_tuple_name(), obj.dim(isl.dim_type.set)
    return obj.get_tuple_name(dim), obj.dim(dim)
