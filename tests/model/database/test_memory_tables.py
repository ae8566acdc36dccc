"""The database reader's memory tables: number cells as int64 with NULL and bad values told apart, a table
without a needed column not read (and said), the unread NPU_OP_MEM counted."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from timelineview.model.database.memory_tables import (
    BAD_CELL,
    NULL_CELL,
    OP_MEMORY_COLUMNS,
    MemoryTables,
    NpuOpMemCounts,
    TableColumns,
    UnreadableDatabase,
)


def _db(path, statements):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
    db.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", [(1, "allocate"), (2, "release"), (3, "aten::mm")])
    for sql in statements:
        db.execute(sql)
    db.commit()
    db.close()
    return path


def test_cells_read_as_numbers_null_and_bad_apart(tmp_path):
    path = _db(tmp_path / "a.db", [
        "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER)",
        "INSERT INTO OP_MEMORY VALUES (3, 4096, 100, NULL)",
        "INSERT INTO OP_MEMORY VALUES (3, 'big', 200.6, -5)",
    ])
    with MemoryTables(path) as tables:
        assert tables.strings == {1: "allocate", 2: "release", 3: "aten::mm"}
        got = tables.read("OP_MEMORY", OP_MEMORY_COLUMNS)
    assert got.problem == ""
    rows = got.rows
    assert rows.table == "OP_MEMORY" and len(rows) == 2 and rows.rowid.tolist() == [1, 2]
    # streamPtr is optional and absent: not in the columns
    assert sorted(rows.columns) == ["allocationTime", "name", "releaseTime", "size"]
    assert rows.columns["size"].tolist() == [4096, BAD_CELL]  # text where a number belongs
    assert rows.columns["allocationTime"].tolist() == [100, 201]  # a real, rounded
    assert rows.columns["releaseTime"].tolist() == [NULL_CELL, BAD_CELL]  # NULL, and a negative number
    assert all(c.dtype == np.int64 for c in rows.columns.values())


def test_a_missing_needed_column_is_said_and_an_absent_table_is_not(tmp_path):
    path = _db(tmp_path / "b.db", ["CREATE TABLE OP_MEMORY (name INTEGER, allocationTime INTEGER)"])
    with MemoryTables(path) as tables:
        got = tables.read("OP_MEMORY", OP_MEMORY_COLUMNS)
        absent = tables.read("MEMORY_RECORD", TableColumns(("component",)))
    assert got.rows is None and got.problem == "table OP_MEMORY has no column size; not read"
    assert absent.rows is None and absent.problem == ""


def test_npu_op_mem_counted_without_reading_it(tmp_path):
    path = _db(tmp_path / "c.db", [
        "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, streamPtr INTEGER)",
        "INSERT INTO OP_MEMORY VALUES (3, 1, 1, NULL)", "INSERT INTO OP_MEMORY VALUES (3, 1, 1, 9)",
        "CREATE TABLE NPU_OP_MEM (operatorName INTEGER, type INTEGER)",
        *(f"INSERT INTO NPU_OP_MEM VALUES (3, {t})" for t in (1, 2, 1)),
    ])
    with MemoryTables(path) as tables:
        assert tables.npu_op_mem_counts() == NpuOpMemCounts(rows=3, allocations=2, streamless=1)


def test_a_file_that_is_not_a_database_raises_unreadable(tmp_path):
    path = tmp_path / "d.db"
    path.write_bytes(b"not a database at all, but long enough to have a header" * 4)
    with pytest.raises(UnreadableDatabase):
        MemoryTables(path)
