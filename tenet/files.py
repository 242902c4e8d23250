"""Files out: every output is written to a temporary name beside its target, then renamed, so
that a reader never sees a half-written file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write`` on a temporary file beside ``path``, then rename it to ``path``: a
    reader never sees a half-written file, and a failed write leaves ``path`` as it was.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = write_atomically(Path(folder) / "a.txt", lambda tmp: tmp.write_text("ok"))
    ...     out.read_text()
    'ok'
    """
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
