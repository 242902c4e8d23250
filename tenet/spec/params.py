"""Size parameters by name: the names a spec declares, and the check that every size given
is one of them (a misspelt name would otherwise be ignored and the default size used)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from tenet.errors import SpecError

__all__ = ["param_names", "check_param_names", "check_sizes", "check_params"]

_DECLARED = re.compile(r"^\s*\[([^\]]*)\]\s*->\s*\{")


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def param_names(*specs: BaseModel) -> set[str]:
    """Return the size parameters of ``specs``: those with a default (``params``) and those
    declared by an isl text (``[M, N] -> {...}``).

    Examples
    --------
    >>> from tenet.zoo import workload
    >>> sorted(param_names(workload("gemm")))
    ['K', 'M', 'N']
    """
    names: set[str] = set()
    for spec in specs:
        names.update(getattr(spec, "params", None) or {})
        for text in _texts(spec.model_dump()):
            if match := _DECLARED.match(text):
                names.update(n.strip() for n in match.group(1).split(",") if n.strip())
    return names


def check_param_names(
    params: Iterable[str], known: Iterable[str], what: str, *, source: str | None = "--param"
) -> None:
    """Refuse a size parameter name that is not in ``known`` (the parameters of ``what``),
    suggesting the closest known name.

    Examples
    --------
    >>> check_param_names(["m"], ["M", "N", "K"], "gemm")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --param: gemm has no size 'm' (sizes: K, M, N); did you mean 'M'?
    """
    known = sorted(set(known))
    for name in params:
        if name in known:
            continue
        lowered = {k.lower(): k for k in known}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
        raise SpecError(
            f"{what} has no size {name!r} (sizes: {', '.join(known) or 'none'}){hint}",
            source=source,
        )


def check_sizes(params: Mapping[str, int], source: str | None = "--param") -> None:
    """Refuse size parameters that are not positive (an empty loop has nothing to count).

    Examples
    --------
    >>> check_sizes({"M": 0})
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --param: size M=0: sizes must be at least 1
    """
    for name, value in params.items():
        if value < 1:
            raise SpecError(f"size {name}={value}: sizes must be at least 1", source=source)


def check_params(
    params: Mapping[str, int] | None, *specs: BaseModel, what: str, source: str | None = None
) -> None:
    """Refuse size parameters that are not positive or that none of ``specs`` (named ``what``
    in the message) has: :func:`check_sizes`, then :func:`check_param_names`.

    Examples
    --------
    >>> from tenet.zoo import workload
    >>> check_params({"Q": 3}, workload("gemm"), what="gemm")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: gemm has no size 'Q' (sizes: K, M, N)
    """
    if params:
        check_sizes(params, source=source)
        check_param_names(params, param_names(*specs), what, source=source)
