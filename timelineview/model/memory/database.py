"""The memory tables of a torch_npu profiler database (``ascend_pytorch_profiler_<rank>.db``), read-only.

``MEMORY_RECORD`` and ``NPU_MEM`` -> :class:`MemoryCurves`, ``OP_MEMORY`` (or, without it, the
allocate / release pairs of ``NPU_OP_MEM``) -> :class:`Allocations`, ``NPU_MODULE_MEM`` ->
:class:`ModuleMemory`. Sizes are bytes and times ns already; names are ids into ``STRING_IDS``
(modules into ``ENUM_MODULE``). Only the standard library's ``sqlite3``, the file opened immutable
and read-only: a capture is never written to. A missing table or column, a NULL or a text where a
number belongs, a name id no table resolves: only those rows are lost, counted in the report.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from timelineview.model.database.bare_numbers import bare_number_note
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import STRING_TABLE
from timelineview.model.memory.records import (
    BAD_NUMBER,
    EXAMPLES_PER_CHECK,
    GE,
    MISSING,
    NEVER,
    PTA,
    RELEASE_BEFORE_ALLOCATION,
    Allocations,
    MemoryCurves,
    MemoryReport,
    ModuleMemory,
    Names,
    concat,
    passing,
)

MODULE_TABLE = "ENUM_MODULE"
MEMORY_TABLES = ("MEMORY_RECORD", "OP_MEMORY", "NPU_OP_MEM", "NPU_MODULE_MEM", "NPU_MEM")
_NULL, _BAD = -2, -1  # what a numeric column reads as when NULL / not a number ≥ 0
NO_VALUE = "no value"
UNKNOWN_NAME = "unknown name id"
ALLOCATE, RELEASE = "allocate", "release"  # NPU_OP_MEM's event types
NPU_OP_MEM = "NPU_OP_MEM"


def table_columns(db: sqlite3.Connection) -> dict[str, set[str]]:
    """Each table of the database and its columns."""
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return {t: {r[1] for r in db.execute(f'PRAGMA table_info("{t}")')} for t in tables}


def id_names(db: sqlite3.Connection, table: str, schema: dict[str, set[str]]) -> dict[int, str]:
    """An id -> text table (``STRING_IDS``, ``ENUM_MODULE``); empty when absent."""
    cols = schema.get(table, set())
    value = "value" if "value" in cols else "name" if "name" in cols else None
    if "id" not in cols or value is None:
        return {}
    return {int(k): str(v) for k, v in db.execute(f'SELECT id, "{value}" FROM "{table}"') if k is not None}


def _number(column: str) -> str:
    """SQL reading ``column`` as a whole number ≥ 0, ``_NULL`` for NULL, ``_BAD`` for anything else."""
    c = f'"{column}"'
    return (f"CASE WHEN typeof({c})='integer' AND {c} >= 0 THEN {c} "
            f"WHEN typeof({c})='real' AND {c} >= 0 AND {c} < 9.2e18 THEN CAST(round({c}) AS INTEGER) "
            f"WHEN {c} IS NULL THEN {_NULL} ELSE {_BAD} END")


@dataclass
class _Rows:
    """The numeric columns of a table (int64, with _NULL / _BAD) and each row's rowid."""

    table: str
    rowid: np.ndarray
    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.rowid)


class _Reader:
    def __init__(self, db: sqlite3.Connection, path: Path, report: MemoryReport) -> None:
        self.db = db
        self.path = path
        self.report = report
        self.schema = table_columns(db)
        self.strings = id_names(db, STRING_TABLE, self.schema)

    def rows(self, table: str, needed: tuple[str, ...], optional: tuple[str, ...] = ()) -> _Rows | None:
        """The table's ``needed`` and present ``optional`` columns, or None (with a warning) when the
        table or a needed column is missing."""
        cols = self.schema.get(table)
        if cols is None:
            return None
        missing = [c for c in needed if c not in cols]
        if missing:
            self.report.warn(f"{self.path.name}: table {table} has no column {', '.join(missing)}; not read")
            return None
        names = list(needed) + [c for c in optional if c in cols]
        sql = f'SELECT rowid, {", ".join(_number(c) for c in names)} FROM "{table}"'
        try:
            data = np.array(self.db.execute(sql).fetchall(), dtype=np.int64).reshape(-1, len(names) + 1)
        except sqlite3.Error as exc:
            self.report.warn(f"{self.path.name}: table {table} cannot be read ({exc})")
            return None
        return _Rows(table, data[:, 0], {c: data[:, k + 1] for k, c in enumerate(names)})

    def keep(self, rows: _Rows, checks: list[tuple[np.ndarray, str]]) -> np.ndarray:
        keep = passing(checks, len(rows), lambda bad, reason: self._drop(rows, bad, reason))
        self.report.rows_read += int(keep.sum())
        return keep

    def _drop(self, rows: _Rows, bad: np.ndarray, reason: str) -> None:
        where = f"{self.path.name} {rows.table}"
        first = rows.rowid[bad][:EXAMPLES_PER_CHECK]
        self.report.drop_rows(reason, [f"{where} row {int(r)}" for r in first], int(bad.sum()) - len(first), where)

    def name_ids(self, ids: np.ndarray, names: Names, table: dict[int, str] | None = None,
                 transform=None) -> tuple[np.ndarray, np.ndarray]:
        """Database name ids -> (our name ids, unknown)."""
        table = self.strings if table is None else table
        uniq, inverse = np.unique(ids, return_inverse=True)
        ours = np.full(len(uniq), -1, dtype=np.int32)
        for k, v in enumerate(uniq):
            text = table.get(int(v))
            if text is not None:
                ours[k] = names.id(transform(text) if transform else text)
        mapped = ours[inverse.reshape(-1)] if len(ids) else np.zeros(0, np.int32)
        return mapped, mapped < 0

    def say_bare_numbers(self, name_ids: np.ndarray, names: Names, table: str) -> None:
        """Warn of the allocations whose operator name is a bare number (``bare_numbers``)."""
        ids, counts = np.unique(name_ids[name_ids >= 0], return_counts=True)
        note = bare_number_note((names.strings[i] for i in ids.tolist()), counts.tolist(), "allocations", table)
        if note:
            self.report.warn(f"{self.path.name}: {note}")

    def no_value(self, *cols: np.ndarray) -> np.ndarray:
        return np.any([c == _NULL for c in cols], axis=0) if cols else np.zeros(0, bool)

    def bad(self, *cols: np.ndarray) -> np.ndarray:
        return np.any([c == _BAD for c in cols], axis=0)


def _sizes(col: np.ndarray) -> np.ndarray:
    return np.where(col < 0, MISSING, col)


def _memory_record(r: _Reader, names: Names) -> MemoryCurves:
    rows = r.rows("MEMORY_RECORD", ("component", "timestamp"), ("totalAllocated", "totalReserved", "totalActive"))
    if rows is None:
        return MemoryCurves()
    c = rows.columns
    blank = np.full(len(rows), _NULL, dtype=np.int64)
    sizes = [c.get(k, blank) for k in ("totalAllocated", "totalReserved", "totalActive")]
    comp, unknown = r.name_ids(c["component"], names)
    keep = r.keep(rows, [(r.no_value(c["component"], c["timestamp"]), NO_VALUE),
                         (r.bad(c["component"], c["timestamp"], *sizes), BAD_NUMBER), (unknown, UNKNOWN_NAME)])
    return MemoryCurves(comp[keep], c["timestamp"][keep], *(_sizes(s)[keep] for s in sizes))


def _npu_mem(r: _Reader, names: Names) -> MemoryCurves:
    """``NPU_MEM``: the device's (or the application's) reserved ddr + hbm over time, one curve per type."""
    rows = r.rows("NPU_MEM", ("type", "timestampNs"), ("ddr", "hbm"))
    if rows is None:
        return MemoryCurves()
    c = rows.columns
    zero = np.zeros(len(rows), dtype=np.int64)
    ddr, hbm = c.get("ddr", zero), c.get("hbm", zero)
    comp, unknown = r.name_ids(c["type"], names, transform=str.upper)
    keep = r.keep(rows, [(r.no_value(c["type"], c["timestampNs"]), NO_VALUE),
                         (r.bad(c["type"], c["timestampNs"], ddr, hbm), BAD_NUMBER), (unknown, UNKNOWN_NAME)])
    reserved = np.maximum(ddr, 0) + np.maximum(hbm, 0)
    missing = np.full(int(keep.sum()), MISSING, dtype=np.int64)
    return MemoryCurves(comp[keep], c["timestampNs"][keep], missing, reserved[keep], missing.copy())


def _op_memory(r: _Reader, names: Names) -> Allocations:
    rows = r.rows("OP_MEMORY", ("name", "size", "allocationTime"), ("releaseTime", "streamPtr"))
    if rows is None:
        return Allocations()
    c = rows.columns
    nulls = np.full(len(rows), _NULL, dtype=np.int64)
    release, stream = c.get("releaseTime", nulls), c.get("streamPtr", nulls)
    name, unknown = r.name_ids(c["name"], names)
    t1 = np.where(release == _NULL, NEVER, release)
    keep = r.keep(rows, [(r.no_value(c["name"], c["size"], c["allocationTime"]), NO_VALUE),
                         (r.bad(c["name"], c["size"], c["allocationTime"], release), BAD_NUMBER),
                         (unknown, UNKNOWN_NAME), (t1 < c["allocationTime"], RELEASE_BEFORE_ALLOCATION)])
    r.say_bare_numbers(name[keep], names, "OP_MEMORY")
    # blocks without a stream of the caching allocator are CANN graph-engine blocks (as in the CSV)
    component = np.where(stream == _NULL, names.id(GE), names.id(PTA)).astype(np.int32)
    return Allocations(name[keep], component[keep], c["size"][keep], c["allocationTime"][keep], t1[keep])


def _npu_op_mem(r: _Reader, names: Names) -> Allocations:
    """Allocations from ``NPU_OP_MEM``'s events: each allocate paired with the next release of its address."""
    rows = r.rows("NPU_OP_MEM", ("operatorName", "addr", "type", "size", "timestampNs"), ("component",))
    if rows is None:
        return Allocations()
    c = rows.columns
    name, unknown = r.name_ids(c["operatorName"], names)
    types, inverse = np.unique(c["type"], return_inverse=True)  # a few distinct types: looked up once each
    kind = np.array([r.strings.get(int(t), "") for t in types], dtype=object)[inverse.reshape(-1)]
    cols = [c[k] for k in ("operatorName", "addr", "type", "size", "timestampNs")]
    keep = r.keep(rows, [(r.no_value(*cols), NO_VALUE), (r.bad(*cols), BAD_NUMBER), (unknown, UNKNOWN_NAME)])
    order = np.lexsort((c["timestampNs"], c["addr"]))
    order = order[keep[order]]
    addr, t, is_alloc = c["addr"][order], c["timestampNs"][order], kind[order] == ALLOCATE
    is_release = kind[order] == RELEASE
    paired = np.zeros(len(order), dtype=bool)
    paired[:-1] = is_alloc[:-1] & is_release[1:] & (addr[:-1] == addr[1:])
    alloc = np.flatnonzero(is_alloc)
    released = np.where(paired[alloc], t[np.minimum(alloc + 1, len(order) - 1)], NEVER)
    comp = c.get("component")
    ge = names.id(GE)
    if comp is not None:
        comp_ids, _ = r.name_ids(comp[order][alloc], names)
        comp_ids = np.where(comp_ids < 0, ge, comp_ids).astype(np.int32)
    else:
        comp_ids = np.full(len(alloc), ge, dtype=np.int32)
    r.say_bare_numbers(name[order][alloc], names, "NPU_OP_MEM")
    return Allocations(name[order][alloc], comp_ids, c["size"][order][alloc], t[alloc], released)


def _count(r: _Reader, sql: str) -> int | None:
    try:
        return int(r.db.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return None


def _say_npu_op_mem_unread(r: _Reader) -> None:
    """``NPU_OP_MEM`` is not read beside ``OP_MEMORY`` (its allocations would count twice): the report says
    so, with its rows and allocations against ``OP_MEMORY``'s rows without a stream (the same blocks,
    as torch_npu writes them), so that a difference shows."""
    if "NPU_OP_MEM" not in r.schema:
        return
    rows = _count(r, 'SELECT count(*) FROM "NPU_OP_MEM"')
    if not rows:
        return
    allocate = [k for k, v in r.strings.items() if v == ALLOCATE]
    allocs = _count(r, f'SELECT count(*) FROM "NPU_OP_MEM" WHERE "type" IN ({",".join(map(str, allocate))})') \
        if allocate and "type" in r.schema["NPU_OP_MEM"] else None
    streamless = _count(r, 'SELECT count(*) FROM "OP_MEMORY" WHERE "streamPtr" IS NULL') \
        if "streamPtr" in r.schema["OP_MEMORY"] else None
    held = f" ({allocs:,} allocations" + (f" against OP_MEMORY's {streamless:,} without a stream)" if
                                         streamless is not None else ")") if allocs is not None else ""
    r.report.warn(f"{r.path.name}: table {NPU_OP_MEM} not read, {rows:,} rows{held}: the allocations are "
                  f"read from OP_MEMORY")


def _modules(r: _Reader, names: Names) -> ModuleMemory:
    rows = r.rows("NPU_MODULE_MEM", ("moduleId", "timestampNs", "totalReserved"))
    if rows is None:
        return ModuleMemory()
    c = rows.columns
    modules = id_names(r.db, MODULE_TABLE, r.schema)
    module, unknown = r.name_ids(c["moduleId"], names, modules)
    cols = [c["moduleId"], c["timestampNs"], c["totalReserved"]]
    keep = r.keep(rows, [(r.no_value(*cols), NO_VALUE), (r.bad(*cols), BAD_NUMBER), (unknown, UNKNOWN_NAME)])
    return ModuleMemory(module[keep], c["timestampNs"][keep], c["totalReserved"][keep])


@dataclass
class DatabaseMemory:
    """The memory tables of one database."""

    curves: MemoryCurves
    allocations: Allocations
    modules: ModuleMemory


def read_database_memory(path: str | Path, names: Names, report: MemoryReport) -> DatabaseMemory:
    """Every memory table of the database at ``path`` (empty tables when it holds none)."""
    path = Path(path)
    try:
        db = connect(path)
        try:
            r = _Reader(db, path, report)
            present = [t for t in MEMORY_TABLES if t in r.schema]
            if not present:
                return DatabaseMemory(MemoryCurves(), Allocations(), ModuleMemory())
            for t in ("MEMORY_RECORD", "OP_MEMORY", "NPU_MODULE_MEM"):
                if t not in r.schema:
                    report.warn(f"{path.name}: no table {t}")
            curves = concat([_memory_record(r, names), _npu_mem(r, names)], MemoryCurves)
            if "OP_MEMORY" in r.schema:
                allocations = _op_memory(r, names)
                _say_npu_op_mem_unread(r)
            else:
                allocations = _npu_op_mem(r, names)
            return DatabaseMemory(curves, allocations, _modules(r, names))
        finally:
            db.close()
    except sqlite3.Error as exc:
        report.warn(f"{path}: cannot be read as a database ({exc})")
        return DatabaseMemory(MemoryCurves(), Allocations(), ModuleMemory())
