"""Files out: every output is written to a temporary name beside its target, then renamed, so
that a reader never sees a half-written file; values kept by key, one such file each."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["write_atomically", "KeyedFiles"]


def write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write`` on a temporary file beside ``path``, then rename it to ``path``: a
    reader never sees a half-written file, and a failed write leaves ``path`` as it was (the
    ``OSError`` raised names ``path``).

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
    except OSError as exc:  # named by the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
    finally:
        tmp.unlink(missing_ok=True)
    return target


Value = TypeVar("Value")


class KeyedFiles(Generic[Value]):
    """Values by key in memory (the ``memory`` most recently used, None: all) and, given
    ``folder``, one file ``<key><suffix>`` per key there, turned to and from bytes by ``dump``
    and ``load``.

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rows = KeyedFiles(folder, ".json", lambda v: json.dumps(v).encode(), json.loads)
    ...     rows.put("k", [1, 2])
    ...     again = KeyedFiles(folder, ".json", lambda v: json.dumps(v).encode(), json.loads)
    ...     again.get("k"), again.get("other")
    ([1, 2], None)
    """

    def __init__(
        self,
        folder: str | Path | None,
        suffix: str,
        dump: Callable[[Value], bytes],
        load: Callable[[bytes], Value],
        memory: int | None = None,
    ) -> None:
        self.folder = Path(folder) if folder is not None else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.suffix = suffix
        self.dump = dump
        self.load = load
        self.memory = memory
        self._known: OrderedDict[str, Value] = OrderedDict()

    def get(self, key: str) -> Value | None:
        """Return the value of ``key`` in memory, else in its file, else None."""
        found = self._known.get(key)
        if found is None and self.folder is not None:
            path = self.folder / f"{key}{self.suffix}"
            if path.is_file():
                found = self.load(path.read_bytes())
        return found

    def keep(self, key: str, value: Value) -> None:
        """Keep ``value`` for ``key`` in memory (dropping the least recently used)."""
        self._known[key] = value
        self._known.move_to_end(key)
        if self.memory is not None and len(self._known) > self.memory:
            self._known.popitem(last=False)

    def put(self, key: str, value: Value) -> None:
        """Keep ``value`` for ``key`` in memory and, given a folder, in its file."""
        self.keep(key, value)
        if self.folder is not None:
            data = self.dump(value)
            write_atomically(self.folder / f"{key}{self.suffix}", lambda tmp: tmp.write_bytes(data))
