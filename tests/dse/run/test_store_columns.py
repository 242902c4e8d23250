"""A results store written with other design-point columns (the names before the columns took
their metric names) is refused with a message naming the file; the current one reopens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tenet.dse.run.store import APPLICATION_ID, ROW_COLUMNS, ResultStore
from tenet.errors import SpecError

OLD = {
    "bandwidth_scratchpad_elements_per_cycle": "sbw_elements_per_cycle",
    "bandwidth_pe_elements_per_cycle": "ibw_elements_per_cycle",
}


def test_store_with_the_old_column_names_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    columns = ", ".join(OLD.get(name, name) for name in ROW_COLUMNS)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute("CREATE TABLE runs (run TEXT PRIMARY KEY, arguments TEXT, total INTEGER)")
        db.execute(
            f"CREATE TABLE results (run TEXT, idx INTEGER, {columns}, PRIMARY KEY (run, idx))"
        )
    db.close()
    with pytest.raises(SpecError, match=r"old\.db.*another tenet version.*sbw_elements_per_cycle"):
        ResultStore(path)


def test_store_of_this_version_reopens(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = ResultStore(path)
    store.open_run("r", {}, total=1)
    store.add("r", [{"idx": 0, "name": "a", "status": "ok"}])
    store.close()
    again = ResultStore(path)
    assert list(again.rows("r")["name"]) == ["a"]
    again.close()
