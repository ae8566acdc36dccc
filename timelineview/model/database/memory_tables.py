"""The memory tables of a torch_npu profiler database (``ascend_pytorch_profiler_<rank>.db``), read-only, as
numeric columns: what the memory model (``model.memory``) checks and turns into curves and allocations.

Each table is read on demand (:meth:`MemoryTables.read`), so that the caller holds one table's rows at a
time. A number column reads as int64: a whole number ≥ 0 as itself (a real rounded), NULL as
:data:`NULL_CELL`, anything else (text, a negative number) as :data:`BAD_CELL`. Names stay ids into
``STRING_IDS`` (:attr:`MemoryTables.strings`) and modules ids into ``ENUM_MODULE``. Only the standard
library's ``sqlite3``, the file opened immutable and read-only: a capture is never written to. Any
``sqlite3`` failure comes out as :class:`UnreadableDatabase`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import STRING_TABLE, Schema, read_schema

NULL_CELL, BAD_CELL = -2, -1  # what a number column reads as when NULL / not a whole number ≥ 0
MODULE_TABLE = "ENUM_MODULE"
MEMORY_RECORD, OP_MEMORY, NPU_OP_MEM, NPU_MODULE_MEM, NPU_MEM = (
    "MEMORY_RECORD", "OP_MEMORY", "NPU_OP_MEM", "NPU_MODULE_MEM", "NPU_MEM")
MEMORY_TABLES = (MEMORY_RECORD, OP_MEMORY, NPU_OP_MEM, NPU_MODULE_MEM, NPU_MEM)
# The tables a card's memory is expected to have (the others stand in for them in older captures)
EXPECTED_TABLES = (MEMORY_RECORD, OP_MEMORY, NPU_MODULE_MEM)
# NPU_OP_MEM's event types (names in STRING_IDS)
ALLOCATE, RELEASE = "allocate", "release"


class TableColumns(NamedTuple):
    """The columns read of a table: those it must have and those read when present."""

    needed: tuple[str, ...]
    optional: tuple[str, ...] = ()


# Memory curves: each component's allocated / reserved / active over time
MEMORY_RECORD_COLUMNS = TableColumns(("component", "timestamp"), ("totalAllocated", "totalReserved", "totalActive"))
# The device's (or the application's) reserved ddr and hbm over time, a curve per type
NPU_MEM_COLUMNS = TableColumns(("type", "timestampNs"), ("ddr", "hbm"))
# One row per allocation
OP_MEMORY_COLUMNS = TableColumns(("name", "size", "allocationTime"), ("releaseTime", "streamPtr"))
# Allocate and release events, an allocation being an allocate and the next release of its address
NPU_OP_MEM_COLUMNS = TableColumns(("operatorName", "addr", "type", "size", "timestampNs"), ("component",))
# Each driver module's reserved memory over time
NPU_MODULE_MEM_COLUMNS = TableColumns(("moduleId", "timestampNs", "totalReserved"))


class UnreadableDatabase(Exception):
    """The database (or a table the reader needs to find the others) cannot be read."""


@dataclass
class NumericRows:
    """The number columns of a table (int64, with ``NULL_CELL`` / ``BAD_CELL``) and each row's rowid."""

    table: str
    rowid: np.ndarray
    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.rowid)


class TableRead(NamedTuple):
    """A table's rows, or None with why (``problem``; "" when the table is simply absent)."""

    rows: NumericRows | None
    problem: str = ""


class NpuOpMemCounts(NamedTuple):
    """``NPU_OP_MEM``'s size when it is not read: its rows, its allocate events, and ``OP_MEMORY``'s rows
    without a stream (None where a count cannot be made)."""

    rows: int | None
    allocations: int | None
    streamless: int | None


def _table_columns(db: sqlite3.Connection) -> Schema:
    """Each table of the database and its columns (the shared reader's); a table whose columns cannot
    be read makes the database unreadable, as the memory model needs every table it finds."""
    schema = read_schema(db)
    if schema.unreadable:
        raise sqlite3.DatabaseError(next(iter(schema.unreadable.values())))
    return schema


def _id_names(db: sqlite3.Connection, table: str, schema: Schema) -> dict[int, str]:
    """An id -> text table (``STRING_IDS``, ``ENUM_MODULE``); empty when absent."""
    cols = schema.columns.get(table, {})
    value = "value" if "value" in cols else "name" if "name" in cols else None
    if "id" not in cols or value is None:
        return {}
    return {int(k): str(v) for k, v in db.execute(f'SELECT id, "{value}" FROM "{table}"') if k is not None}


def _number(column: str) -> str:
    """SQL reading ``column`` as a whole number ≥ 0, ``NULL_CELL`` for NULL, ``BAD_CELL`` otherwise."""
    c = f'"{column}"'
    return (f"CASE WHEN typeof({c})='integer' AND {c} >= 0 THEN {c} "
            f"WHEN typeof({c})='real' AND {c} >= 0 AND {c} < 9.2e18 THEN CAST(round({c}) AS INTEGER) "
            f"WHEN {c} IS NULL THEN {NULL_CELL} ELSE {BAD_CELL} END")


class MemoryTables:
    """An open profiler database's memory tables. A context manager: the database closes on leaving."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = connect(self.path)
            try:
                self.schema = _table_columns(self._db)
                self.strings = _id_names(self._db, STRING_TABLE, self.schema)
            except sqlite3.Error:
                self._db.close()
                raise
        except sqlite3.Error as exc:
            raise UnreadableDatabase(str(exc)) from exc

    def __enter__(self) -> MemoryTables:
        return self

    def __exit__(self, *exc: object) -> None:
        self._db.close()

    def has(self, table: str) -> bool:
        """Whether the database holds ``table``."""
        return table in self.schema.columns

    def read(self, table: str, columns: TableColumns) -> TableRead:
        """The table's needed and present optional columns; no rows when the table is absent, or (with the
        problem) when a needed column is missing or the table cannot be read."""
        cols = self.schema.columns.get(table)
        if cols is None:
            return TableRead(None)
        missing = [c for c in columns.needed if c not in cols]
        if missing:
            return TableRead(None, f"table {table} has no column {', '.join(missing)}; not read")
        names = list(columns.needed) + [c for c in columns.optional if c in cols]
        sql = f'SELECT rowid, {", ".join(_number(c) for c in names)} FROM "{table}"'
        try:
            data = np.array(self._db.execute(sql).fetchall(), dtype=np.int64).reshape(-1, len(names) + 1)
        except sqlite3.Error as exc:
            return TableRead(None, f"table {table} cannot be read ({exc})")
        return TableRead(NumericRows(table, data[:, 0], {c: data[:, k + 1] for k, c in enumerate(names)}))

    def modules(self) -> dict[int, str]:
        """``ENUM_MODULE``: module id -> name (empty when absent)."""
        try:
            return _id_names(self._db, MODULE_TABLE, self.schema)
        except sqlite3.Error as exc:
            raise UnreadableDatabase(str(exc)) from exc

    def _count(self, sql: str) -> int | None:
        try:
            return int(self._db.execute(sql).fetchone()[0])
        except sqlite3.Error:
            return None

    def npu_op_mem_counts(self) -> NpuOpMemCounts:
        """``NPU_OP_MEM``'s rows and allocate events, and ``OP_MEMORY``'s rows without a stream (the same
        blocks, as torch_npu writes them): counted without reading the rows."""
        rows = self._count(f'SELECT count(*) FROM "{NPU_OP_MEM}"') if self.has(NPU_OP_MEM) else None
        if not rows:
            return NpuOpMemCounts(rows, None, None)
        allocate = [k for k, v in self.strings.items() if v == ALLOCATE]
        allocs = self._count(f'SELECT count(*) FROM "{NPU_OP_MEM}" WHERE "type" IN ({",".join(map(str, allocate))})') \
            if allocate and self.schema.has(NPU_OP_MEM, "type") else None
        streamless = self._count(f'SELECT count(*) FROM "{OP_MEMORY}" WHERE "streamPtr" IS NULL') \
            if self.schema.has(OP_MEMORY, "streamPtr") else None
        return NpuOpMemCounts(rows, allocs, streamless)
