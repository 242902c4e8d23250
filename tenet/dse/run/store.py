"""The results store of explorations: one SQLite file, one row per evaluated design point.

Rows are committed as they arrive, so a sweep that is killed keeps every finished row; a sweep
started again with the same arguments finds its run (the key is a hash of the arguments),
skips the design points already stored and adds the rest. ``(run, idx)`` is the primary key:
a row is never stored twice.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenet.dse.run.worker import METRIC_COLUMNS
from tenet.errors import SpecError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultStore", "run_key", "ROW_COLUMNS", "APPLICATION_ID"]

ROW_COLUMNS: dict[str, str] = {
    "name": "TEXT",
    "space_stamp": "TEXT",
    "time_stamp": "TEXT",
    "data_centric": "INTEGER",
    "scratchpad": "TEXT",
    "movement": "TEXT",
    "status": "TEXT",
    "reason": "TEXT",
    "energy_unit": "TEXT",
    **METRIC_COLUMNS,
}
"""Columns of a stored design point besides ``run`` and ``idx``."""


APPLICATION_ID = 0x54454E54
"""SQLite's ``application_id`` of a results store (``TENT``)."""

_INT64 = 2**63


def _storable(value: Any) -> Any:
    """``value`` as SQLite takes it: an integer beyond 64 bits as its decimal text.

    Examples
    --------
    >>> _storable(10**30), _storable(7)
    ('1000000000000000000000000000000', 7)
    """
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        return str(value)
    return value


def run_key(arguments: Mapping[str, Any]) -> str:
    """Return the key of a run: a hash of its arguments (JSON, keys sorted).

    Examples
    --------
    >>> run_key({"a": 1, "b": [2]}) == run_key({"b": [2], "a": 1})
    True
    """
    text = json.dumps(arguments, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ResultStore:
    """Rows of design points by run, in a SQLite file (``None``: in memory).

    Examples
    --------
    >>> store = ResultStore(None)
    >>> store.open_run("r1", {"workload": "gemm"}, total=2)
    >>> store.add("r1", [{"idx": 1, "name": "b", "status": "ok"}])
    >>> store.add("r1", [{"idx": 1, "name": "b", "status": "ok"}])
    >>> sorted(store.done("r1")), len(store.rows("r1"))
    ([1], 1)
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        source = str(self.path) if self.path else None
        try:
            self._db = sqlite3.connect(str(self.path) if self.path else ":memory:")
            self._check_owner()
            self._db.execute(
                "PRAGMA journal_mode=WAL" if self.path else "PRAGMA journal_mode=MEMORY"
            )
            self._db.execute("PRAGMA synchronous=NORMAL")
            # integer figures have no column type: SQLite keeps what it is given, an INTEGER
            # up to 64 bits or the decimal text of a larger one (see _storable), exactly
            columns = ", ".join(
                f"{name} {'' if kind == 'INTEGER' else kind}".rstrip()
                for name, kind in ROW_COLUMNS.items()
            )
            with self._db:
                self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS runs (run TEXT PRIMARY KEY, arguments TEXT, "
                    "total INTEGER)"
                )
                self._db.execute(
                    f"CREATE TABLE IF NOT EXISTS results (run TEXT, idx INTEGER, {columns}, "
                    "PRIMARY KEY (run, idx))"
                )
        except sqlite3.DatabaseError as exc:
            raise SpecError(f"not a readable results store ({exc})", source=source) from exc

    def _check_owner(self) -> None:
        """Refuse a file that is not a tenet results store: not SQLite, damaged, or another
        application's database."""
        source = str(self.path)
        try:
            application = self._db.execute("PRAGMA application_id").fetchone()[0]
            tables = {
                name
                for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            health = [row[0] for row in self._db.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            if "malformed" in str(exc):
                raise SpecError(f"a damaged results store ({exc})", source=source) from exc
            reason = "not an SQLite database" if "not a database" in str(exc) else str(exc)
            raise SpecError(f"not a tenet results store ({reason})", source=source) from exc
        if health != ["ok"]:
            raise SpecError(f"a damaged results store (SQLite finds: {health[0]})", source=source)
        if tables and (application not in (0, APPLICATION_ID) or tables != {"runs", "results"}):
            raise SpecError(
                "an SQLite database of another application, not a tenet results store "
                f"(tables: {', '.join(sorted(tables))})",
                source=source,
            )
        if tables:
            self._check_columns(source)

    def _check_columns(self, source: str) -> None:
        """Refuse a store whose design-point columns are not this version's (a store written
        before the columns took their metric names, such as ``sbw_elements_per_cycle``)."""
        stored = [row[1] for row in self._db.execute("PRAGMA table_info(results)")]
        expected = ["run", "idx", *ROW_COLUMNS]
        if stored != expected:
            missing = ", ".join(name for name in expected if name not in stored) or "none"
            unknown = ", ".join(name for name in stored if name not in expected) or "none"
            raise SpecError(
                "a results store of another tenet version: its design-point columns differ "
                f"(missing: {missing}; unknown: {unknown})"
                "; delete it or give --store another file to explore afresh",
                source=source,
            )

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def open_run(self, run: str, arguments: Mapping[str, Any], total: int) -> None:
        """Record run ``run`` (its arguments and number of design points) if it is new."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO runs VALUES (?, ?, ?)",
                (run, json.dumps(arguments, sort_keys=True, default=str), total),
            )

    def runs(self) -> list[tuple[str, dict[str, Any], int]]:
        """Return every run of the store in the order they were opened: its key, its recorded
        arguments and its number of design points.

        Examples
        --------
        >>> store = ResultStore(None)
        >>> store.open_run("r2", {"label": "net/fc"}, total=3)
        >>> store.open_run("r1", {"label": "net/conv"}, total=5)
        >>> store.open_run("r2", {"label": "net/fc again"}, total=3)  # known: kept as it was
        >>> store.runs()
        [('r2', {'label': 'net/fc'}, 3), ('r1', {'label': 'net/conv'}, 5)]
        """
        cursor = self._db.execute("SELECT run, arguments, total FROM runs ORDER BY rowid")
        return [(run, json.loads(arguments), total) for run, arguments, total in cursor]

    def done(self, run: str) -> dict[int, str]:
        """Return the stored design points of ``run``: index -> name."""
        cursor = self._db.execute("SELECT idx, name FROM results WHERE run = ?", (run,))
        return dict(cursor.fetchall())

    def add(self, run: str, rows: Iterable[Mapping[str, Any]]) -> None:
        """Store ``rows`` (each with ``idx``) of ``run`` in one transaction; rows already
        stored are left as they are."""
        names = ["run", "idx", *ROW_COLUMNS]
        values = [(run, *(_storable(row.get(n)) for n in names[1:])) for row in rows]
        marks = ", ".join("?" for _ in names)
        with self._db:
            self._db.executemany(
                f"INSERT OR IGNORE INTO results ({', '.join(names)}) VALUES ({marks})", values
            )

    def rows(self, run: str) -> pd.DataFrame:
        """Return the rows of ``run`` ordered by design point index."""
        import pandas as pd

        frame = pd.read_sql_query(
            "SELECT * FROM results WHERE run = ? ORDER BY idx", self._db, params=(run,)
        )
        for name, kind in ROW_COLUMNS.items():
            if kind == "INTEGER" and frame[name].dtype == object:
                frame[name] = [int(v) if isinstance(v, str) else v for v in frame[name]]
        frame["data_centric"] = frame["data_centric"].astype("boolean")
        return frame.drop(columns=["run"]).rename(columns={"idx": "index"})

    def resume(self, run: str, arguments: Mapping[str, Any], names: Mapping[int, str]) -> None:
        """Open ``run`` (:meth:`open_run`) for the design points ``names`` (index -> name) and
        check that its stored rows are among them (:meth:`check_names`)."""
        self.open_run(run, arguments, total=len(names))
        self.check_names(run, names)

    def reasons(self, run: str) -> dict[int, str]:
        """Return the ``reason`` text of every stored row of ``run``, by index (where the
        tiling and joint searches keep each finished part's result)."""
        return {int(r["index"]): str(r["reason"]) for _, r in self.rows(run).iterrows()}

    def check_names(self, run: str, names: Mapping[int, str]) -> None:
        """Raise :class:`SpecError` when stored rows of ``run`` are not the design points
        ``names`` (index -> name) that this run enumerates."""
        for index, name in self.done(run).items():
            if names.get(index) != name:
                raise SpecError(
                    f"design point {index} of the stored run is {name!r}, but this run has "
                    f"{names.get(index)!r}: the store belongs to another version of the space",
                    source=str(self.path) if self.path else None,
                )
