"""Values kept by key: in memory up to a limit, and in one file each when given a folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenet.files import KeyedFiles, write_atomically


def _rows(folder: Path | None, memory: int | None = None) -> KeyedFiles[list[int]]:
    return KeyedFiles(folder, ".json", lambda v: json.dumps(v).encode(), json.loads, memory)


def test_files_memory_drops_the_least_recently_used() -> None:
    rows = _rows(None, memory=2)
    rows.put("a", [1])
    rows.put("b", [2])
    assert rows.get("a") == [1]
    rows.keep("a", [1])  # "a" used last: "b" goes first
    rows.put("c", [3])
    assert (rows.get("a"), rows.get("b"), rows.get("c")) == ([1], None, [3])


def test_files_folder_keeps_what_memory_dropped(tmp_path: Path) -> None:
    rows = _rows(tmp_path, memory=1)
    rows.put("a", [1])
    rows.put("b", [2])
    assert rows.get("a") == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_files_keep_writes_nothing(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    rows.keep("a", [1])
    assert rows.get("a") == [1]
    assert list(tmp_path.iterdir()) == []


def test_files_failed_write_names_the_file_asked_for(tmp_path: Path) -> None:
    target = tmp_path / "nodir" / "out.txt"
    with pytest.raises(OSError) as failed:
        write_atomically(target, lambda tmp: tmp.write_text("x"))
    assert failed.value.filename == str(target)
