"""The memory of a torch_npu profiler database (``ascend_pytorch_profiler_<rank>.db``), from its tables as the
database reader gives them (``model.database.memory_tables``).

``MEMORY_RECORD`` and ``NPU_MEM`` -> :class:`MemoryCurves`, ``OP_MEMORY`` (or, without it, the
allocate / release pairs of ``NPU_OP_MEM``) -> :class:`Allocations`, ``NPU_MODULE_MEM`` ->
:class:`ModuleMemory`. Sizes are bytes and times ns already; names are ids into ``STRING_IDS``
(modules into ``ENUM_MODULE``). A missing table or column, a NULL or a text where a number belongs,
a name id no table resolves: only those rows are lost, counted in the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from timelineview.model.database.bare_numbers import bare_number_note
from timelineview.model.database.memory_tables import (
    ALLOCATE,
    BAD_CELL,
    EXPECTED_TABLES,
    MEMORY_RECORD,
    MEMORY_RECORD_COLUMNS,
    MEMORY_TABLES,
    NPU_MEM,
    NPU_MEM_COLUMNS,
    NPU_MODULE_MEM,
    NPU_MODULE_MEM_COLUMNS,
    NPU_OP_MEM,
    NPU_OP_MEM_COLUMNS,
    NULL_CELL,
    OP_MEMORY,
    OP_MEMORY_COLUMNS,
    RELEASE,
    MemoryTables,
    NumericRows,
    TableColumns,
    UnreadableDatabase,
)
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

NO_VALUE = "no value"
UNKNOWN_NAME = "unknown name id"


class _Reader:
    """The checks on a database's memory rows: the rows dropped and why go to the report."""

    def __init__(self, tables: MemoryTables, report: MemoryReport) -> None:
        self.tables = tables
        self.path = tables.path
        self.report = report
        self.strings = tables.strings

    def rows(self, table: str, columns: TableColumns) -> NumericRows | None:
        """The table's rows (``MemoryTables.read``), or None with its problem in the report."""
        got = self.tables.read(table, columns)
        if got.problem:
            self.report.warn(f"{self.path.name}: {got.problem}")
        return got.rows

    def keep(self, rows: NumericRows, checks: list[tuple[np.ndarray, str]]) -> np.ndarray:
        keep = passing(checks, len(rows), lambda bad, reason: self._drop(rows, bad, reason))
        self.report.rows_read += int(keep.sum())
        return keep

    def _drop(self, rows: NumericRows, bad: np.ndarray, reason: str) -> None:
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
        return np.any([c == NULL_CELL for c in cols], axis=0) if cols else np.zeros(0, bool)

    def bad(self, *cols: np.ndarray) -> np.ndarray:
        return np.any([c == BAD_CELL for c in cols], axis=0)


def _sizes(col: np.ndarray) -> np.ndarray:
    return np.where(col < 0, MISSING, col)


def _memory_record(r: _Reader, names: Names) -> MemoryCurves:
    rows = r.rows(MEMORY_RECORD, MEMORY_RECORD_COLUMNS)
    if rows is None:
        return MemoryCurves()
    c = rows.columns
    blank = np.full(len(rows), NULL_CELL, dtype=np.int64)
    sizes = [c.get(k, blank) for k in ("totalAllocated", "totalReserved", "totalActive")]
    comp, unknown = r.name_ids(c["component"], names)
    keep = r.keep(rows, [(r.no_value(c["component"], c["timestamp"]), NO_VALUE),
                         (r.bad(c["component"], c["timestamp"], *sizes), BAD_NUMBER), (unknown, UNKNOWN_NAME)])
    return MemoryCurves(comp[keep], c["timestamp"][keep], *(_sizes(s)[keep] for s in sizes))


def _npu_mem(r: _Reader, names: Names) -> MemoryCurves:
    """``NPU_MEM``: the device's (or the application's) reserved ddr + hbm over time, one curve per type."""
    rows = r.rows(NPU_MEM, NPU_MEM_COLUMNS)
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
    rows = r.rows(OP_MEMORY, OP_MEMORY_COLUMNS)
    if rows is None:
        return Allocations()
    c = rows.columns
    nulls = np.full(len(rows), NULL_CELL, dtype=np.int64)
    release, stream = c.get("releaseTime", nulls), c.get("streamPtr", nulls)
    name, unknown = r.name_ids(c["name"], names)
    t1 = np.where(release == NULL_CELL, NEVER, release)
    keep = r.keep(rows, [(r.no_value(c["name"], c["size"], c["allocationTime"]), NO_VALUE),
                         (r.bad(c["name"], c["size"], c["allocationTime"], release), BAD_NUMBER),
                         (unknown, UNKNOWN_NAME), (t1 < c["allocationTime"], RELEASE_BEFORE_ALLOCATION)])
    r.say_bare_numbers(name[keep], names, OP_MEMORY)
    # blocks without a stream of the caching allocator are CANN graph-engine blocks (as in the CSV)
    component = np.where(stream == NULL_CELL, names.id(GE), names.id(PTA)).astype(np.int32)
    return Allocations(name[keep], component[keep], c["size"][keep], c["allocationTime"][keep], t1[keep])


def _npu_op_mem(r: _Reader, names: Names) -> Allocations:
    """Allocations from ``NPU_OP_MEM``'s events: each allocate paired with the next release of its address."""
    rows = r.rows(NPU_OP_MEM, NPU_OP_MEM_COLUMNS)
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
    r.say_bare_numbers(name[order][alloc], names, NPU_OP_MEM)
    return Allocations(name[order][alloc], comp_ids, c["size"][order][alloc], t[alloc], released)


def _say_npu_op_mem_unread(r: _Reader) -> None:
    """``NPU_OP_MEM`` is not read beside ``OP_MEMORY`` (its allocations would count twice): the report says
    so, with its rows and allocations against ``OP_MEMORY``'s rows without a stream (the same blocks,
    as torch_npu writes them), so that a difference shows."""
    rows, allocs, streamless = r.tables.npu_op_mem_counts()
    if not rows:
        return
    held = f" ({allocs:,} allocations" + (f" against OP_MEMORY's {streamless:,} without a stream)" if
                                         streamless is not None else ")") if allocs is not None else ""
    r.report.warn(f"{r.path.name}: table {NPU_OP_MEM} not read, {rows:,} rows{held}: the allocations are "
                  f"read from OP_MEMORY")


def _modules(r: _Reader, names: Names) -> ModuleMemory:
    rows = r.rows(NPU_MODULE_MEM, NPU_MODULE_MEM_COLUMNS)
    if rows is None:
        return ModuleMemory()
    c = rows.columns
    modules = r.tables.modules()
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
        with MemoryTables(path) as tables:
            if not any(tables.has(t) for t in MEMORY_TABLES):
                return DatabaseMemory(MemoryCurves(), Allocations(), ModuleMemory())
            for t in EXPECTED_TABLES:
                if not tables.has(t):
                    report.warn(f"{path.name}: no table {t}")
            r = _Reader(tables, report)
            curves = concat([_memory_record(r, names), _npu_mem(r, names)], MemoryCurves)
            if tables.has(OP_MEMORY):
                allocations = _op_memory(r, names)
                _say_npu_op_mem_unread(r)
            else:
                allocations = _npu_op_mem(r, names)
            return DatabaseMemory(curves, allocations, _modules(r, names))
    except UnreadableDatabase as exc:
        report.warn(f"{path}: cannot be read as a database ({exc})")
        return DatabaseMemory(MemoryCurves(), Allocations(), ModuleMemory())
