"""torch_npu's memory CSV files beside ``trace_view.json``, read as columns, a chunk of rows at a time.

``memory_record.csv`` -> :class:`MemoryCurves`, ``operator_memory.csv`` -> :class:`Allocations`,
``npu_module_mem.csv`` -> :class:`ModuleMemory`. A row that cannot be used (too few fields, a bad
number or time, a release before its allocation, the unfinished last row of a file cut mid-write) is
dropped and counted with its line; a file without a needed column is not read, with a warning.
"""

from __future__ import annotations

import csv
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

import numpy as np

from timelineview.model.memory import numbers
from timelineview.model.memory.records import (
    BAD_NUMBER,
    BYTES_PER_KB,
    BYTES_PER_MB,
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

MEMORY_RECORD_CSV = "memory_record.csv"
OPERATOR_MEMORY_CSV = "operator_memory.csv"
MODULE_MEMORY_CSV = "npu_module_mem.csv"
CSV_FILES = (MEMORY_RECORD_CSV, OPERATOR_MEMORY_CSV, MODULE_MEMORY_CSV)
CHUNK_BYTES = 16 << 20  # text parsed at a time (bounds the memory of a million-row file)
GE_NAME_PREFIX = "cann::"  # torch_npu names CANN's graph-engine allocations so

COMPONENT, TIME, ALLOCATED, RESERVED, ACTIVE = (
    "Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)")
NAME, SIZE, ALLOC_TIME, RELEASE_TIME, STREAM = (
    "Name", "Size(KB)", "Allocation Time(us)", "Release Time(us)", "Stream Ptr")

BAD_TIME = "bad time"
NO_NAME = "no name"
SHORT_ROW = "too few fields"
UNFINISHED_ROW = "unfinished last row"


@dataclass
class _Chunk:
    """Some rows of a file: the text of each wanted column and each row's line number."""

    columns: dict[str, list[str]]
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.lines)


class _Table:
    """One CSV file being read: its place, its report, the rows kept so far."""

    def __init__(self, path: Path, report: MemoryReport) -> None:
        self.path = path
        self.report = report

    def drop(self, chunk: _Chunk, bad: np.ndarray, reason: str) -> None:
        """Count the rows of ``chunk`` where ``bad`` holds (not counted before) under ``reason``."""
        lines = chunk.lines[bad]
        places = [f"{self.path.name}:{int(line)}" for line in lines[:EXAMPLES_PER_CHECK + 1]]
        self.report.drop_rows(reason, places[:EXAMPLES_PER_CHECK], len(lines) - EXAMPLES_PER_CHECK, places[-1])


@contextmanager
def _no_cyclic_gc():
    """Millions of row lists would each trip the cyclic garbage collector, which then walks all of
    them (it took 90 % of a read); rows hold only strings, so no cycle is missed."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _parse_lines(lines: list[str], first_line: int, report: MemoryReport, name: str) -> list[list[str]]:
    """The fields of each line (one row a line: these files quote no line break)."""
    try:
        rows = list(csv.reader(lines))
        if len(rows) == len(lines):
            return rows
    except csv.Error:
        pass
    rows = []  # a line csv refuses (a NUL byte in older Pythons, a stray quote): line by line
    for k, line in enumerate(lines):
        try:
            parsed = list(csv.reader([line]))
            rows.append(parsed[0] if parsed else [])
        except csv.Error as exc:
            report.drop(f"unreadable row ({exc})", f"{name}:{first_line + k}")
            rows.append([])
    return rows


def _chunks(path: Path, wanted: tuple[str, ...], needed: tuple[str, ...], report: MemoryReport
            ) -> Iterator[_Chunk]:
    """The rows of ``path`` as chunks of the ``wanted`` columns (those the header has); nothing when a
    ``needed`` column is missing or the file cannot be read (a warning says which)."""
    try:
        f = open(path, encoding="utf-8", errors="replace", newline="")
    except OSError as exc:
        report.warn(f"{path}: cannot be read ({exc.strerror or exc})")
        return
    with f:
        try:
            head = f.readline()
        except OSError as exc:
            report.warn(f"{path}: cannot be read ({exc})")
            return
        if not head.strip():
            report.warn(f"{path}: empty file")
            return
        header = _parse_lines([head], 1, report, path.name)[0]
        names = [h.strip().lstrip("\ufeff") for h in header]
        missing = [c for c in needed if c not in names]
        if missing:
            report.warn(f"{path}: no column {', '.join(missing)}; file not read")
            return
        index = {c: names.index(c) for c in wanted if c in names}
        width = max(index.values()) + 1
        table = _Table(path, report)
        line = 2
        while True:
            try:
                lines = f.readlines(CHUNK_BYTES)
            except OSError as exc:
                report.warn(f"{path}: read stopped at line {line} ({exc})")
                return
            if not lines:
                return
            first = line
            line += len(lines)
            if not lines[-1].endswith(("\n", "\r")):  # the file was cut while its last row was being written
                report.drop(UNFINISHED_ROW, f"{path.name}:{line - 1}")
                lines.pop()
            with _no_cyclic_gc():
                rows = _parse_lines(lines, first, report, path.name)
                del lines
                if rows and min(map(len, rows)) >= width:  # the usual chunk: no blank nor short row
                    chunk = _split(rows, np.arange(first, first + len(rows)), index, width, table, checked=True)
                else:
                    kept = [k for k, r in enumerate(rows) if r and (len(r) > 1 or r[0].strip())]  # blank: no row
                    if len(kept) < len(rows):
                        rows = [rows[k] for k in kept]
                    chunk = _split(rows, [first + k for k in kept], index, width, table) if rows else None
                del rows
            if chunk is not None:
                yield chunk


def _split(rows: list[list[str]], lines, index: dict[str, int], width: int, table: _Table,
           checked: bool = False) -> _Chunk:
    """The wanted columns of ``rows``; rows with too few fields dropped (``checked``: none has)."""
    line_arr = np.asarray(lines, dtype=np.int64)
    short = np.zeros(len(rows), dtype=bool) if checked else np.fromiter((len(r) < width for r in rows), dtype=bool,
                                                                         count=len(rows))
    if short.any():
        table.drop(_Chunk({}, line_arr), short, SHORT_ROW)
        rows = [r for r, s in zip(rows, short, strict=True) if not s]
        line_arr = line_arr[~short]
    columns = {c: list(map(itemgetter(k), rows)) for c, k in index.items()}
    return _Chunk(columns, line_arr)


def _keep(chunk: _Chunk, table: _Table, checks: list[tuple[np.ndarray, str]]) -> np.ndarray:
    """Rows that pass every check; each failing row is counted once, under its first failed check."""
    return passing(checks, len(chunk), lambda bad, reason: table.drop(chunk, bad, reason))


def _names(texts: list[str]) -> tuple[list[str], np.ndarray]:
    stripped = [t.strip() for t in texts]
    return stripped, np.array([not t for t in stripped], dtype=bool)


def _optional_mb(chunk: _Chunk, column: str) -> tuple[np.ndarray, np.ndarray]:
    """(bytes with MISSING where blank, bad) of an optional MB column."""
    if column not in chunk.columns:
        return np.full(len(chunk), MISSING, dtype=np.int64), np.zeros(len(chunk), dtype=bool)
    values, ok, empty = numbers.floats(chunk.columns[column])
    return numbers.scaled_bytes(values, ok, BYTES_PER_MB), ~ok & ~empty


def read_memory_record(path: Path, names: Names, report: MemoryReport) -> MemoryCurves:
    """``memory_record.csv``: each component's allocated / reserved / active totals over time."""
    table = _Table(path, report)
    parts = []
    for chunk in _chunks(path, (COMPONENT, TIME, ALLOCATED, RESERVED, ACTIVE), (COMPONENT, TIME), report):
        component, no_name = _names(chunk.columns[COMPONENT])
        t, t_ok, _ = numbers.micros_to_ns(chunk.columns[TIME])
        allocated, bad_a = _optional_mb(chunk, ALLOCATED)
        reserved, bad_r = _optional_mb(chunk, RESERVED)
        active, bad_c = _optional_mb(chunk, ACTIVE)
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~t_ok, BAD_TIME), (bad_a | bad_r | bad_c, BAD_NUMBER)])
        report.rows_read += int(keep.sum())
        kept = [c for c, k in zip(component, keep, strict=True) if k]
        parts.append(MemoryCurves(names.ids(kept), t[keep], allocated[keep], reserved[keep], active[keep]))
    return concat(parts, MemoryCurves)


def _components(names_: list[str], streams: list[str] | None, names: Names) -> np.ndarray:
    """GE for CANN's graph-engine blocks (named ``cann::…``, no stream of the caching allocator), else PTA."""
    ge = np.array([n.startswith(GE_NAME_PREFIX) for n in names_], dtype=bool)
    if streams is not None:
        ge |= np.array([not s.strip() for s in streams], dtype=bool)
    return np.where(ge, names.id(GE), names.id(PTA)).astype(np.int32)


def read_operator_memory(path: Path, names: Names, report: MemoryReport) -> Allocations:
    """``operator_memory.csv``: one row per allocated block; an empty release time: still held."""
    table = _Table(path, report)
    parts = []
    wanted = (NAME, SIZE, ALLOC_TIME, RELEASE_TIME, STREAM)
    for chunk in _chunks(path, wanted, (NAME, SIZE, ALLOC_TIME), report):
        name, no_name = _names(chunk.columns[NAME])
        size_kb, size_ok, _ = numbers.floats(chunk.columns[SIZE])
        t0, t0_ok, _ = numbers.micros_to_ns(chunk.columns[ALLOC_TIME])
        if RELEASE_TIME in chunk.columns:
            t1, t1_ok, t1_empty = numbers.micros_to_ns(chunk.columns[RELEASE_TIME])
        else:
            t1, t1_ok, t1_empty = np.zeros(len(chunk), np.int64), np.zeros(len(chunk), bool), np.ones(len(chunk), bool)
        t1 = np.where(t1_empty, NEVER, t1)
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~size_ok, BAD_NUMBER), (~t0_ok, BAD_TIME),
                                    (~t1_ok & ~t1_empty, BAD_TIME), (t1 < t0, RELEASE_BEFORE_ALLOCATION)])
        report.rows_read += int(keep.sum())
        kept = [n for n, k in zip(name, keep, strict=True) if k]
        streams = chunk.columns.get(STREAM)
        kept_streams = [s for s, k in zip(streams, keep, strict=True) if k] if streams is not None else None
        size = numbers.scaled_bytes(size_kb, size_ok, BYTES_PER_KB)
        parts.append(Allocations(names.ids(kept), _components(kept, kept_streams, names), size[keep], t0[keep],
                                 t1[keep]))
    return concat(parts, Allocations)


def read_module_memory(path: Path, names: Names, report: MemoryReport) -> ModuleMemory:
    """``npu_module_mem.csv``: each driver module's reserved memory over time."""
    table = _Table(path, report)
    parts = []
    for chunk in _chunks(path, (COMPONENT, TIME, RESERVED), (COMPONENT, TIME, RESERVED), report):
        module, no_name = _names(chunk.columns[COMPONENT])
        t, t_ok, _ = numbers.micros_to_ns(chunk.columns[TIME])
        values, ok, _ = numbers.floats(chunk.columns[RESERVED])
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~t_ok, BAD_TIME), (~ok, BAD_NUMBER)])
        report.rows_read += int(keep.sum())
        kept = [m for m, k in zip(module, keep, strict=True) if k]
        reserved = numbers.scaled_bytes(values, ok, BYTES_PER_MB)
        parts.append(ModuleMemory(names.ids(kept), t[keep], reserved[keep]))
    return concat(parts, ModuleMemory)
