"""torch_npu's memory CSV files beside ``trace_view.json``, read as columns, a chunk of rows at a time.

``memory_record.csv`` -> :class:`MemoryCurves`, ``operator_memory.csv`` -> :class:`Allocations`,
``npu_module_mem.csv`` -> :class:`ModuleMemory`. A row that cannot be used (too few fields, a bad
number or time, a release before its allocation, the unfinished last row of a file cut mid-write) is
dropped and counted with its line; a file without a needed column is not read, with a warning.
"""

from __future__ import annotations

import csv
import gc
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from timelineview.model.memory import csv_kernels, fields, numbers
from timelineview.model.memory.csv_kernels import Kernels
from timelineview.model.memory.fields import PAD, Fields, Text, blank_buffer, concat_fields
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
    SIZE_BEYOND_INT64,
    Allocations,
    MemoryCurves,
    MemoryReport,
    ModuleMemory,
    Names,
    concat,
    passing,
)
from timelineview.model.store.regular_file import open_regular
from timelineview.producers import torch_npu

MEMORY_RECORD_CSV = torch_npu.MEMORY_RECORD_CSV
OPERATOR_MEMORY_CSV = torch_npu.OPERATOR_MEMORY_CSV
MODULE_MEMORY_CSV = torch_npu.MODULE_MEMORY_CSV
CSV_FILES = (MEMORY_RECORD_CSV, OPERATOR_MEMORY_CSV, MODULE_MEMORY_CSV)
CHUNK_BYTES = 16 << 20  # text parsed at a time (bounds the memory of a million-row file)
LINE_END_SEARCH = 1 << 16  # the last line end of a block is looked for in its last bytes first
COMPILED_MIN_BYTES = 8 << 20  # a smaller file is read by numpy: the loops' first compile would cost more
GE_NAME_PREFIX = "cann::"  # torch_npu names CANN's graph-engine allocations so

COMPONENT, TIME, ALLOCATED, RESERVED, ACTIVE = (
    "Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)")
NAME, SIZE, ALLOC_TIME, RELEASE_TIME, STREAM = (
    "Name", "Size(KB)", "Allocation Time(us)", "Release Time(us)", "Stream Ptr")

BAD_TIME = "bad time"
NO_NAME = "no name"
SHORT_ROW = "too few fields"
UNFINISHED_ROW = "unfinished last row"
_LF, _CR, _COMMA, _QUOTE, _NOT_ASCII = ord("\n"), ord("\r"), ord(","), ord('"'), 128
_SPECIAL = np.zeros(256, dtype=bool)  # bytes that send their row to ``csv``: a quote, a NUL, not ASCII
_SPECIAL[[ord('"'), 0]] = True
_SPECIAL[128:] = True


@dataclass
class _Chunk:
    """Some rows of a file: the fields of each wanted column and each row's line number."""

    columns: dict[str, Fields]
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
        self.drop_lines(chunk.lines[bad], reason)

    def drop_lines(self, lines: np.ndarray, reason: str) -> None:
        places = [f"{self.path.name}:{int(line)}" for line in lines[:EXAMPLES_PER_CHECK + 1]]
        self.report.drop_rows(reason, places[:EXAMPLES_PER_CHECK], len(lines) - EXAMPLES_PER_CHECK, places[-1])


@contextmanager
def _no_cyclic_gc():
    """Many row lists would each trip the cyclic garbage collector, which then walks all of them (it
    took 90 % of a read by rows); rows hold only strings, so no cycle is missed."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _parse_lines(lines: list[str], line_numbers: list[int], report: MemoryReport, name: str) -> list[list[str]]:
    """The fields of each line (one row a line: these files quote no line break)."""
    try:
        rows = list(csv.reader(lines))
        if len(rows) == len(lines):
            return rows
    except csv.Error:
        pass
    rows = []  # a line csv refuses (a NUL byte in older Pythons, a stray quote): line by line
    for line, number in zip(lines, line_numbers, strict=True):
        try:
            parsed = list(csv.reader([line]))
            rows.append(parsed[0] if parsed else [])
        except csv.Error as exc:
            report.drop(f"unreadable row ({exc})", f"{name}:{number}")
            rows.append([])
    return rows


def _header(f, path: Path, report: MemoryReport) -> list[str] | None:
    """The column names of the file's first line (None, with a warning, when it has none)."""
    try:
        head = f.readline()
    except OSError as exc:
        report.warn(f"{path}: cannot be read ({exc})")
        return None
    text = head.decode("utf-8", "replace")
    if not text.strip():
        report.warn(f"{path}: empty file")
        return None
    return [h.strip().lstrip("\ufeff") for h in _parse_lines([text], [1], report, path.name)[0]]


def _blocks(f, path: Path, report: MemoryReport) -> Iterator[tuple[Text, bool]]:
    """The rest of the file as (text of whole lines, last), each block cut after its last line end and read
    straight into its buffer; the last holds what follows the last line end (a line ending with a lone CR,
    or the unfinished row of a file cut mid-write)."""
    carry = b""  # the text since the last line end
    buf = np.zeros(0, dtype=np.uint8)
    while True:
        want = max(CHUNK_BYTES, len(carry))  # a line longer than a block: blocks double, no quadratic copying
        if len(buf) < len(carry) + want + 2 * PAD + 8:
            buf = blank_buffer(len(carry) + want)
        # else the buffer of the block before: its rows were read into arrays of their own (nothing keeps a view)
        buf[PAD:PAD + len(carry)] = np.frombuffer(carry, dtype=np.uint8)
        try:
            got = f.readinto(memoryview(buf)[PAD + len(carry):PAD + len(carry) + want])
        except OSError as exc:
            report.warn(f"{path}: read stopped ({exc})")
            return
        if not got:
            break
        size = len(carry) + got
        text = buf[PAD:PAD + size]
        lf = np.flatnonzero(text[-LINE_END_SEARCH:] == _LF)
        cut = (size - min(size, LINE_END_SEARCH) + int(lf[-1]) + 1) if len(lf) else text.tobytes().rfind(b"\n") + 1
        carry = text[cut:].tobytes()
        if cut:
            buf[PAD + cut:] = 0
            yield Text(buf, size=cut), False
    if carry:
        yield Text(carry), True


class _Tokenizer:
    """Lines of bytes -> the wanted fields of every usual row, numpy only; the unusual rows (a quote, a
    byte that is not ASCII, a NUL, too few fields, a line too long for ``csv``) are read by ``csv`` one
    by one, so they are read as before and what is wrong with them is said as before."""

    def __init__(self, path: Path, index: dict[str, int], width: int, table: _Table,
                 kernels: Kernels | None = None) -> None:
        self.path, self.index, self.width, self.table = path, index, width, table
        self.report = table.report
        self.line_limit = csv.field_size_limit()
        self.kernels = kernels
        self.slot_of = np.full(width, -1, dtype=np.int64)
        self.slot_of[list(index.values())] = np.arange(len(index))

    def chunk(self, padded: Text, first_line: int, last: bool) -> tuple[_Chunk | None, int]:
        """(the rows of the text ``padded``, its first line being ``first_line``; the number of lines it
        holds). ``last``: the text after the file's last line end."""
        if self.kernels is not None and not last:
            padded.kernels = self.kernels
            return self._compiled(padded, first_line)
        buf, body, end_byte = padded.buf, padded.body, padded.last_byte()
        ends = np.flatnonzero(body == _LF) + PAD
        if end_byte != _LF:
            ends = np.append(ends, PAD + padded.size)  # the last line, without its line end
        crs = np.count_nonzero(body == _CR)
        if crs != np.count_nonzero(buf[ends - 1] == _CR):  # a lone CR splits a line for ``readlines``
            return self._by_csv(padded, first_line, last)
        starts = np.r_[PAD, ends[:-1] + 1]
        stops = ends - (buf[np.maximum(ends - 1, 0)] == _CR)
        lines = first_line + np.arange(len(ends), dtype=np.int64)
        if end_byte not in (_LF, _CR):
            self.report.drop(UNFINISHED_ROW, f"{self.path.name}:{int(lines[-1])}")
            starts, stops, lines = starts[:-1], stops[:-1], lines[:-1]
        odd = np.zeros(len(starts), dtype=bool)
        if body.max(initial=0) >= _NOT_ASCII or body.min(initial=1) == 0 or np.count_nonzero(body == _QUOTE):
            special = np.flatnonzero(_SPECIAL[body]) + PAD
            odd[np.searchsorted(ends, special)] = True
        odd |= (stops - starts) >= self.line_limit
        commas = np.flatnonzero(body == _COMMA) + PAD
        first_comma = np.searchsorted(commas, starts)
        n_commas = np.searchsorted(commas, stops) - first_comma
        odd |= n_commas < self.width - 1
        usual = np.flatnonzero(~odd)
        parts = [self._fields(padded, starts[usual], stops[usual], commas, first_comma[usual], n_commas[usual],
                              lines[usual])]
        unusual = np.flatnonzero(odd)
        if len(unusual):
            texts = Fields(padded, starts[unusual], stops[unusual]).texts()
            parts.append(self._rows(texts, lines[unusual].tolist()))
        parts = [p for p in parts if p is not None and len(p)]
        return (_merge(parts) if parts else None), len(ends)

    def _compiled(self, padded: Text, first_line: int) -> tuple[_Chunk | None, int]:
        """``chunk`` by the compiled loop (the text ends with a line feed)."""
        lines = int(np.count_nonzero(padded.body == _LF))
        line_start, line_stop = np.empty(lines, np.int64), np.empty(lines, np.int64)
        odd = np.empty(lines, dtype=np.bool_)
        # a column's fields side by side; set for every line with the wanted fields (the others go to csv)
        starts = np.empty((len(self.index), lines + 1), dtype=np.int64)
        stops = np.empty((len(self.index), lines + 1), dtype=np.int64)
        n = self.kernels.split_lines(padded.buf, PAD, PAD + padded.size, self.slot_of, self.width, self.line_limit,
                                     line_start, line_stop, odd, starts, stops)
        if n < 0:
            return self._by_csv(padded, first_line, False)
        numbers_ = first_line + np.arange(lines, dtype=np.int64)
        if not odd.any():  # the usual chunk: the fields as they are
            return _Chunk({c: Fields(padded, starts[k, :lines], stops[k, :lines]) for k, c in enumerate(self.index)},
                          numbers_), lines
        usual = np.flatnonzero(~odd)
        parts = [_Chunk({c: Fields(padded, starts[k, usual], stops[k, usual]) for k, c in enumerate(self.index)},
                        numbers_[usual])]
        unusual = np.flatnonzero(odd)
        if len(unusual):
            texts = Fields(padded, line_start[unusual], line_stop[unusual]).texts()
            parts.append(self._rows(texts, numbers_[unusual].tolist()))
        parts = [p for p in parts if p is not None and len(p)]
        return (_merge(parts) if parts else None), lines

    def _fields(self, text: Text, starts, stops, commas, first_comma, n_commas, lines) -> _Chunk:
        columns = {}
        for name, k in self.index.items():
            start = starts if k == 0 else commas[first_comma + k - 1] + 1
            stop = np.where(n_commas > k, commas[np.minimum(first_comma + k, len(commas) - 1)], stops) if len(
                commas) else stops
            columns[name] = Fields(text, start, stop)
        return _Chunk(columns, lines)

    def _rows(self, texts: list[str], lines: list[int]) -> _Chunk | None:
        """Rows read by ``csv``: blank lines skipped, rows with too few fields dropped."""
        with _no_cyclic_gc():
            rows = _parse_lines(texts, lines, self.report, self.path.name)
            kept = [k for k, r in enumerate(rows) if r and (len(r) > 1 or r[0].strip())]  # blank: no row
            short = [k for k in kept if len(rows[k]) < self.width]
            if short:
                self.table.drop_lines(np.array([lines[k] for k in short], dtype=np.int64), SHORT_ROW)
            kept = [k for k in kept if len(rows[k]) >= self.width]
            if not kept:
                return None
            columns = {c: Fields.of_texts([rows[k][i] for k in kept]) for c, i in self.index.items()}
        return _Chunk(columns, np.array([lines[k] for k in kept], dtype=np.int64))

    def _by_csv(self, text: Text, first_line: int, unfinished: bool) -> tuple[_Chunk | None, int]:
        """A block with a lone CR: its lines as ``readlines`` splits them, read by ``csv``."""
        lines = io.StringIO(text.body.tobytes().decode("utf-8", "replace"), newline="").readlines()
        count = len(lines)
        if unfinished and lines and not lines[-1].endswith(("\n", "\r")):
            self.report.drop(UNFINISHED_ROW, f"{self.path.name}:{first_line + count - 1}")
            lines.pop()
        return self._rows(lines, list(range(first_line, first_line + len(lines)))), count


def _merge(parts: list[_Chunk]) -> _Chunk:
    """One chunk of the rows of several, in line order."""
    if len(parts) == 1:
        return parts[0]
    lines = np.concatenate([p.lines for p in parts])
    order = np.argsort(lines, kind="stable")
    columns = {c: concat_fields([p.columns[c] for p in parts]).take(order) for c in parts[0].columns}
    return _Chunk(columns, lines[order])


SNIFF_BYTES = 1 << 16  # what is looked at to tell a file's line ends


def _carriage_returns_only(f) -> bool:
    """Whether the file ends its lines with a lone CR (old Mac line ends): CRs and no LF in its first bytes."""
    start = f.peek(SNIFF_BYTES)[:SNIFF_BYTES]
    return b"\r" in start and b"\n" not in start


class _CarriageReturnLines(io.RawIOBase):
    """A file whose lines end with a lone CR, read as if they ended with LF."""

    def __init__(self, raw) -> None:
        super().__init__()
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        got = self.raw.readinto(b)
        if got:
            view = np.frombuffer(b, dtype=np.uint8, count=got)
            view[view == _CR] = _LF
        return got


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _chunks(path: Path, wanted: tuple[str, ...], needed: tuple[str, ...], report: MemoryReport
            ) -> Iterator[_Chunk]:
    """The rows of ``path`` as chunks of the ``wanted`` columns (those the header has); nothing when a
    ``needed`` column is missing or the file cannot be read (a warning says which)."""
    try:
        f = open_regular(path)  # a FIFO named like a memory file is named, never waited on
    except OSError as exc:
        report.warn(f"{path}: cannot be read ({exc.strerror or exc})")
        return
    with f:
        if _carriage_returns_only(f):
            f = io.BufferedReader(_CarriageReturnLines(f))
        names = _header(f, path, report)
        if names is None:
            return
        missing = [c for c in needed if c not in names]
        if missing:
            report.warn(f"{path}: no column {', '.join(missing)}; file not read")
            return
        index = {c: names.index(c) for c in wanted if c in names}
        kernels = csv_kernels.compiled() if _size(path) >= COMPILED_MIN_BYTES else None
        tokenizer = _Tokenizer(path, index, max(index.values()) + 1, _Table(path, report), kernels)
        line = 2
        for text, last in _blocks(f, path, report):
            chunk, count = tokenizer.chunk(text, line, last)
            line += count
            if chunk is not None:
                yield chunk


def _keep(chunk: _Chunk, table: _Table, checks: list[tuple[np.ndarray, str]]) -> np.ndarray:
    """Rows that pass every check; each failing row is counted once, under its first failed check."""
    return passing(checks, len(chunk), lambda bad, reason: table.drop(chunk, bad, reason))


def _optional_mb(chunk: _Chunk, column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bytes with MISSING where blank, bad, beyond a 64-bit count of bytes) of an optional MB column."""
    if column not in chunk.columns:
        none = np.zeros(len(chunk), dtype=bool)
        return np.full(len(chunk), MISSING, dtype=np.int64), none, none
    values, ok, empty = fields.floats(chunk.columns[column])
    return numbers.scaled_bytes(values, ok, BYTES_PER_MB), ~ok & ~empty, numbers.beyond_bytes(values, ok,
                                                                                             BYTES_PER_MB)


def _names(chunk: _Chunk, column: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(the distinct names, each row's number among them, no name) of a name column."""
    texts, inverse = fields.distinct_texts(chunk.columns[column])
    return texts, inverse, np.array([not t for t in texts], dtype=bool)[inverse]


def read_memory_record(path: Path, names: Names, report: MemoryReport) -> MemoryCurves:
    """``memory_record.csv``: each component's allocated / reserved / active totals over time."""
    table = _Table(path, report)
    parts = []
    for chunk in _chunks(path, (COMPONENT, TIME, ALLOCATED, RESERVED, ACTIVE), (COMPONENT, TIME), report):
        texts, component, no_name = _names(chunk, COMPONENT)
        t, t_ok, _ = fields.micros_to_ns(chunk.columns[TIME])
        allocated, bad_a, huge_a = _optional_mb(chunk, ALLOCATED)
        reserved, bad_r, huge_r = _optional_mb(chunk, RESERVED)
        active, bad_c, huge_c = _optional_mb(chunk, ACTIVE)
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~t_ok, BAD_TIME), (bad_a | bad_r | bad_c, BAD_NUMBER),
                                    (huge_a | huge_r | huge_c, SIZE_BEYOND_INT64)])
        report.rows_read += int(keep.sum())
        parts.append(MemoryCurves(fields.intern(texts, component[keep], names), t[keep], allocated[keep],
                                  reserved[keep], active[keep]))
    return concat(parts, MemoryCurves)


def _components(texts: list[str], name: np.ndarray, stream_blank: np.ndarray | None, names: Names) -> np.ndarray:
    """GE for CANN's graph-engine blocks (named ``cann::…``, no stream of the caching allocator), else PTA."""
    ge = np.array([t.startswith(GE_NAME_PREFIX) for t in texts], dtype=bool)[name] if texts else np.zeros(
        len(name), dtype=bool)
    if stream_blank is not None:
        ge |= stream_blank
    return np.where(ge, names.id(GE), names.id(PTA)).astype(np.int32)


def read_operator_memory(path: Path, names: Names, report: MemoryReport) -> Allocations:
    """``operator_memory.csv``: one row per allocated block; an empty release time: still held."""
    table = _Table(path, report)
    parts = []
    wanted = (NAME, SIZE, ALLOC_TIME, RELEASE_TIME, STREAM)
    for chunk in _chunks(path, wanted, (NAME, SIZE, ALLOC_TIME), report):
        texts, name, no_name = _names(chunk, NAME)
        size_kb, size_ok, _ = fields.floats(chunk.columns[SIZE])
        t0, t0_ok, _ = fields.micros_to_ns(chunk.columns[ALLOC_TIME])
        if RELEASE_TIME in chunk.columns:
            t1, t1_ok, t1_empty = fields.micros_to_ns(chunk.columns[RELEASE_TIME])
        else:
            t1, t1_ok, t1_empty = np.zeros(len(chunk), np.int64), np.zeros(len(chunk), bool), np.ones(len(chunk), bool)
        t1 = np.where(t1_empty, NEVER, t1)
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~size_ok, BAD_NUMBER),
                                    (numbers.beyond_bytes(size_kb, size_ok, BYTES_PER_KB), SIZE_BEYOND_INT64),
                                    (~t0_ok, BAD_TIME), (~t1_ok & ~t1_empty, BAD_TIME),
                                    (t1 < t0, RELEASE_BEFORE_ALLOCATION)])
        report.rows_read += int(keep.sum())
        stream_blank = fields.blank(chunk.columns[STREAM])[keep] if STREAM in chunk.columns else None
        size = numbers.scaled_bytes(size_kb, size_ok, BYTES_PER_KB)
        kept = name[keep]
        parts.append(Allocations(fields.intern(texts, kept, names), _components(texts, kept, stream_blank, names),
                                 size[keep], t0[keep], t1[keep]))
    return concat(parts, Allocations)


def read_module_memory(path: Path, names: Names, report: MemoryReport) -> ModuleMemory:
    """``npu_module_mem.csv``: each driver module's reserved memory over time."""
    table = _Table(path, report)
    parts = []
    for chunk in _chunks(path, (COMPONENT, TIME, RESERVED), (COMPONENT, TIME, RESERVED), report):
        texts, module, no_name = _names(chunk, COMPONENT)
        t, t_ok, _ = fields.micros_to_ns(chunk.columns[TIME])
        values, ok, _ = fields.floats(chunk.columns[RESERVED])
        keep = _keep(chunk, table, [(no_name, NO_NAME), (~t_ok, BAD_TIME), (~ok, BAD_NUMBER),
                                    (numbers.beyond_bytes(values, ok, BYTES_PER_MB), SIZE_BEYOND_INT64)])
        report.rows_read += int(keep.sum())
        reserved = numbers.scaled_bytes(values, ok, BYTES_PER_MB)
        parts.append(ModuleMemory(fields.intern(texts, module[keep], names), t[keep], reserved[keep]))
    return concat(parts, ModuleMemory)
