"""Integer columns of a rowid table read straight from the database file's pages, by compiled code.

SQLite's own interfaces hand Python one object per value (``fetchmany``) or one decimal text per
value (``group_concat``); either costs far more than SQLite's scan. This reader walks the table's
B-tree in the file itself (sqlite.org/fileformat.html: §1.6 B-tree pages, §2.1 records) through a
read-only memory map and writes the wanted columns straight into int64 arrays (int32 ones for the
columns asked narrowed, widened if a value does not fit), the values cast as ``cast(x as integer)``
casts them (NULL is ``INT_NONE``). It reads only what it fully knows:
a table with a row spilling onto overflow pages, a value that is a blob, text other than
a plain decimal, a page that does not parse, a file shorter than its header says or with a
journal or write-ahead log beside it makes it give up on that table (``None``), and SQLite reads
it as before. Rows come in rowid order, as a plain ``select`` of a rowid table gives them.

The pages are read into this process's memory a part at a time (``pread``), never mapped: a file rewritten
in place while it is read (``cp``, ``rsync --inplace``) then reads short or changes size under the reader and
the table goes to SQLite, where a mapping ended the process with SIGBUS.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from timelineview.model.database.sqlite.table_names import ROWID, quote_identifier, rowid_span
from timelineview.model.load.jit import scanner_available
from timelineview.model.store.regular_file import regular_fd

HEADER_BYTES = 100
LEAF_TABLE, INTERIOR_TABLE = 13, 5  # B-tree page types of a rowid table
ROWID_COLUMN = -1  # a wanted "column" that is the row's rowid
MAX_DEPTH = 64  # B-tree depth bound (a real table of 2^63 rows is < 30 deep): a damaged loop stops
# a table of fewer rows goes to SQLite: it reads it in well under a second, where this reader's
# first use in a process costs ~0.5 s (numba's import and cache), its first use after an install a
# ~3 s compile
MIN_ROWS = 1 << 17
PART_BYTES = 16 << 20  # leaf pages read and decoded per call (their bytes): rows reported as progress
READ_THREADS = min(2, os.cpu_count() or 1)  # parts of a table decoded at once
UTF8 = 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
MAX_DIGITS = 19
MAX_SERIAL = (1 << 32) * 2 + 13  # a serial type past any value a page can hold (keeps offsets from overflowing)
WARM_ROWS = 3  # rows of the table ``warm`` reads: its kernels see every argument type of a real read
# give-up codes of the kernels (negative: the reason the table is left to SQLite)
BAD_PAGE, DEEP, OVERFLOW, NOT_INT, BAD_RECORD = -1, -2, -3, -4, -5
Progress = Callable[[int], None]  # rows read so far

_kernels = None
_compile_lock = threading.Lock()


def _compile():
    global _kernels
    with _compile_lock:  # two threads may ask at once (a load, a table read for a query beside it)
        return _compile_once()


def _compile_once():
    global _kernels
    if _kernels is None:
        from timelineview.model.decode.scan.scan_jit import numba  # numba's one import, colours off

        jit = numba.njit(cache=True, nogil=True, boundscheck=False)
        for helper in ("_varint", "_u16", "_u32", "_value_size", "_int_value"):  # the kernels call the compiled forms
            globals()[helper] = jit(globals()[helper])
        _kernels = jit(_decode)
    return _kernels


def warm() -> None:
    """Compile (or load from numba's cache) the kernels by reading a small database written here, through the
    same calls as a real read, so that they are compiled for the argument types a real read passes."""
    if not scanner_available():
        return
    with tempfile.TemporaryDirectory(prefix="timelineview-warm-") as folder:
        path = os.path.join(folder, "warm.db")
        conn = sqlite3.connect(path)
        try:
            conn.execute("create table T (id INTEGER PRIMARY KEY, v INTEGER)")
            conn.executemany("insert into T (v) values (?)", [(k,) for k in range(WARM_ROWS)])
            conn.commit()
            plan = _plan(conn, "T", [ROWID, "v"])
        finally:
            conn.close()
        if plan is None:  # pragma: no cover - the table above is always readable
            return
        root, columns, alias = plan
        with DatabaseFile(path) as db:
            _read(db, root, columns, alias, None, [False, True])


def _varint(buf, at, end):
    """(value, next position) of the SQLite varint at ``at``; next = -1 when it runs past ``end``."""
    value = np.int64(0)
    for k in range(9):
        if at + k >= end:
            return np.int64(0), -1
        b = np.int64(buf[at + k])
        if k == 8:
            return (value << 8) | b, at + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, at + k + 1
    return value, -1


def _u16(buf, at):
    return (np.int64(buf[at]) << 8) | np.int64(buf[at + 1])


def _u32(buf, at):
    return (np.int64(buf[at]) << 24) | (np.int64(buf[at + 1]) << 16) | (np.int64(buf[at + 2]) << 8) \
        | np.int64(buf[at + 3])


def _value_size(serial):
    """Bytes of a record value of serial type ``serial`` (a valid one: 0-9 or 12 and above)."""
    if serial >= 12:
        return (serial - 12) // 2
    if serial <= 4:
        return serial
    if serial == 5:
        return 6
    if serial <= 7:
        return 8
    return 0


def _int_value(buf, serial, at, end, text_ok):
    """(value, ok) of one record value of serial type ``serial`` at ``at``, cast to an integer."""
    if serial == 0:
        return np.int64(0), 2  # NULL
    if 1 <= serial <= 6:
        size = serial if serial <= 4 else (serial - 4) * 2 + 4
        if at + size > end:
            return np.int64(0), 0
        v = np.int64(buf[at])
        if v >= 128:
            v -= 256
        for i in range(1, size):
            v = (v << 8) | np.int64(buf[at + i])
        return v, 1
    if serial == 8:
        return np.int64(0), 1
    if serial == 9:
        return np.int64(1), 1
    if serial == 7:
        if at + 8 > end:
            return np.int64(0), 0
        bits = np.uint64(0)
        for i in range(8):
            bits = (bits << np.uint64(8)) | np.uint64(buf[at + i])
        x = np.array([bits], np.uint64).view(np.float64)[0]
        if not (-9.2e18 < x < 9.2e18):
            return np.int64(0), 0
        return np.int64(x), 1  # truncated toward zero, as SQLite casts a real
    if serial >= 13 and serial % 2 == 1 and text_ok:
        size = (serial - 13) // 2
        if at + size > end:
            return np.int64(0), 0
        i, stop = at, at + size
        while i < stop and buf[i] == 32:
            i += 1
        neg = False
        if i < stop and (buf[i] == 45 or buf[i] == 43):
            neg = buf[i] == 45
            i += 1
        digits = stop - i
        if digits < 1 or digits > MAX_DIGITS:
            return np.int64(0), 0
        v = np.uint64(0)
        while i < stop:
            d = buf[i]
            if d < 48 or d > 57:
                return np.int64(0), 0
            v = v * np.uint64(10) + np.uint64(d - 48)
            i += 1
        if v > np.uint64(9223372036854775807):
            return np.int64(0), 0
        return (-np.int64(v) if neg else np.int64(v)), 1
    return np.int64(0), 0


def _decode(buf, page_size, usable, leaves, columns, alias, text_ok, none, out, row0):
    """Decode the rows of ``leaves`` into ``out[c, row0 + i]`` (``columns``: record column numbers,
    ROWID_COLUMN for the rowid; ``alias``: the rowid alias column or -2). Returns rows or a code < 0."""
    n_pages = len(buf) // page_size
    max_local = usable - 35
    row = row0
    n_cols = len(columns)
    last = -1
    for c in range(n_cols):
        last = max(last, columns[c])
    slot = np.full(last + 2, -1, np.int64)  # record column -> its place in ``out`` (-1: not wanted)
    for c in range(n_cols):
        if columns[c] >= 0:
            slot[columns[c]] = c
    for li in range(len(leaves)):
        page = leaves[li]
        if page < 1 or page > n_pages:
            return BAD_PAGE
        base = (page - 1) * page_size
        head = base + (HEADER_BYTES if page == 1 else 0)
        page_end = base + usable
        cells = _u16(buf, head + 3)
        if buf[head] != LEAF_TABLE or cells == 0:  # only an empty table's root leaf is empty (read apart)
            return BAD_PAGE
        for k in range(cells):
            ptr_at = head + 8 + 2 * k
            if ptr_at + 2 > page_end:
                return BAD_PAGE
            at = base + _u16(buf, ptr_at)
            if at < head or at >= page_end:
                return BAD_PAGE
            payload, at = _varint(buf, at, page_end)
            if at < 0:
                return BAD_PAGE
            rowid, at = _varint(buf, at, page_end)
            if at < 0:
                return BAD_PAGE
            if payload > max_local:
                return OVERFLOW
            end = at + payload
            if end > page_end:
                return BAD_PAGE
            if row >= out.shape[1]:
                return BAD_PAGE
            header_size, h = _varint(buf, at, end)
            if h < 0 or header_size < 1 or at + header_size > end:
                return BAD_RECORD
            body = at + header_size
            header_end = at + header_size
            col = 0
            # walk the serial types once, noting each wanted column's (serial, offset)
            for c in range(n_cols):
                out[c, row] = none
            offset = body
            # every serial type is walked (not only up to the last wanted column): the values must end
            # where the payload ends, as SQLite requires of a well-formed record
            while h < header_end:
                serial = np.int64(buf[h])
                if serial < 0x80:  # nearly every serial type is one byte: no call
                    h += 1
                else:
                    serial, h = _varint(buf, h, header_end)
                    if h < 0 or serial < 0 or serial > MAX_SERIAL:  # a 9-byte varint can be negative
                        return BAD_RECORD
                if col > last:
                    offset += _value_size(serial)
                    if serial == 10 or serial == 11 or offset > end:
                        return BAD_RECORD
                    col += 1
                    continue
                c = slot[col]
                if c >= 0:
                    if 1 <= serial <= 6:  # a stored integer, big-endian, read here (the common case)
                        size = serial if serial <= 4 else (serial - 4) * 2 + 4
                        if offset + size > end:
                            return BAD_RECORD
                        v = np.int64(buf[offset])
                        if v >= 128:
                            v -= 256
                        for i in range(1, size):
                            v = (v << 8) | np.int64(buf[offset + i])
                        out[c, row] = v
                    elif col == alias and serial == 0:
                        out[c, row] = rowid
                    else:
                        v, ok = _int_value(buf, serial, offset, end, text_ok)
                        if ok == 0:
                            return NOT_INT
                        out[c, row] = v if ok == 1 else none
                if serial == 10 or serial == 11:
                    return BAD_RECORD
                offset += _value_size(serial)
                if offset > end:  # a value past the payload: the next one would be read out of it
                    return BAD_RECORD
                col += 1
            if offset != end:  # a body longer or shorter than its header says
                return BAD_RECORD
            for c in range(n_cols):
                if columns[c] == ROWID_COLUMN or (columns[c] == alias and col <= alias):
                    out[c, row] = rowid
            row += 1
    return row - row0



class DatabaseFile:
    """The database file open for reading, with the header's page geometry; pages come as copies."""

    def __init__(self, path: str) -> None:
        self.fd = regular_fd(path)  # a FIFO is refused (OSError), never waited on
        try:
            stat = os.fstat(self.fd)
            head = os.pread(self.fd, HEADER_BYTES, 0)
        except OSError:
            os.close(self.fd)
            raise
        self.identity = _identity(stat)
        self.size = stat.st_size
        whole = len(head) == HEADER_BYTES
        raw = int.from_bytes(head[16:18], "big") if whole else 0
        self.page_size = 65536 if raw == 1 else raw
        self.usable = self.page_size - (head[20] if whole else 0)
        self.encoding = int.from_bytes(head[56:60], "big") if whole else 0
        self.n_pages = int.from_bytes(head[28:32], "big") if whole else 0
        valid = whole and head[24:28] == head[92:96]
        self.whole = bool(self.page_size >= 512 and valid and self.n_pages
                          and self.size >= self.n_pages * self.page_size)

    def __enter__(self) -> DatabaseFile:
        return self

    def __exit__(self, *_exc) -> None:
        os.close(self.fd)

    def pages(self, numbers: np.ndarray, blank: int = 0) -> np.ndarray | None:
        """The pages ``numbers`` (1-based) one after the other in a new buffer, after ``blank`` pages of zeros;
        None when one is past the end of the file (it was cut since its header was read)."""
        size = self.page_size
        whole = np.empty((len(numbers) + blank) * size, np.uint8)
        whole[:blank * size] = 0
        out = whole[blank * size:]
        view = memoryview(out)
        runs = np.flatnonzero(np.diff(numbers) != 1) + 1  # consecutive pages: one read
        for a, b in zip(np.r_[0, runs], np.r_[runs, len(numbers)], strict=True):
            first = int(numbers[a])
            if first < 1 or first + (b - a) - 1 > self.n_pages:
                return None
            want = (b - a) * size
            got = os.preadv(self.fd, [view[a * size:b * size]], (first - 1) * size)
            if got != want:
                return None
        return whole

    def unchanged(self) -> bool:
        """Whether the file is still the one whose header was read (same size, time and inode)."""
        try:
            return _identity(os.fstat(self.fd)) == self.identity and os.fstat(self.fd).st_size == self.size
        except OSError:
            return False


def _identity(stat: os.stat_result) -> tuple[int, int, int, int]:
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


def leaf_pages(db: DatabaseFile, root: int) -> np.ndarray | None:
    """The table's leaf pages in key order, level by level from ``root`` (a B-tree's leaves are all at
    one depth: a level's first page says whether the level is of leaves; each leaf is checked again when
    it is decoded); None when the tree does not parse or loops."""
    level = np.array([root], np.int64)
    visited = 0
    for _depth in range(MAX_DEPTH):
        first = db.pages(level[:1])
        if first is None:
            return None
        head = HEADER_BYTES if level[0] == 1 else 0
        if first[head] == LEAF_TABLE:
            return level
        children = []
        for number in level:
            visited += 1
            if visited > db.n_pages:
                return None
            page = db.pages(np.array([number], np.int64))
            kids = None if page is None else _children(page, HEADER_BYTES if number == 1 else 0, db.usable)
            if kids is None:
                return None
            children.append(kids)
        level = np.concatenate(children)
    return None


def _children(page: np.ndarray, head: int, usable: int) -> np.ndarray | None:
    """The child page numbers of one interior table page, in key order (its cells', then the right-most);
    None when it is not an interior table page, has no cell, or points outside itself."""
    if page[head] != INTERIOR_TABLE:
        return None
    cells = int(page[head + 3]) << 8 | int(page[head + 4])
    if cells == 0 or head + 12 + 2 * cells > usable:  # an interior page has one key at least
        return None
    at = page[head + 12:head + 12 + 2 * cells].astype(np.int64)
    pointers = at[0::2] << 8 | at[1::2]
    if pointers.min() < head + 12 + 2 * cells or pointers.max() + 4 > usable:
        return None
    kids = np.zeros(cells + 1, np.int64)
    for shift, offset in ((24, 0), (16, 1), (8, 2), (0, 3)):
        kids[:cells] |= page[pointers + offset].astype(np.int64) << shift
    kids[cells] = int.from_bytes(page[head + 8:head + 12].tobytes(), "big")
    return kids


def _sidecars(path: str) -> bool:
    return any(Path(path + suffix).exists() for suffix in ("-journal", "-wal"))


def read_int_columns(conn: sqlite3.Connection, path: str, table: str, names: list[str],
                     progress: Progress | None = None, narrow: Collection[str] = (),
                     part_bytes: int | None = None) -> list[np.ndarray] | None:
    """The integer columns ``names`` (``rowid`` for the rowid) of ``table`` in rowid order, or None
    when this reader gives the table to SQLite (see the module's docstring). The columns named in
    ``narrow`` come as int32 when every value fits (``narrowed``), as int64 otherwise. ``part_bytes``
    (default ``PART_BYTES``) bounds the pages read at once: the pages in flight are a few parts, so a
    reader of one narrow column, whose result is a few bytes a row, asks for small parts."""
    if not path or not scanner_available() or _sidecars(path):
        return None
    plan = _plan(conn, table, names)
    if plan is None or rowid_span(conn, table) < MIN_ROWS:
        return None
    root, columns, alias = plan
    try:
        with DatabaseFile(path) as db:
            got = _read(db, root, columns, alias, progress, [name in narrow for name in names],
                        PART_BYTES if part_bytes is None else part_bytes)
            return got if got is not None and db.unchanged() else None
    except OSError:
        return None


def _plan(conn: sqlite3.Connection, table: str, names: list[str]) -> tuple[int, np.ndarray, int] | None:
    """(root page, record column of each name, the rowid alias column or -2), or None."""
    try:
        row = conn.execute("select rootpage, sql from sqlite_master where type = 'table' and name = ?",
                           (table,)).fetchone()
        info = conn.execute(f"pragma table_info({quote_identifier(table)})").fetchall()
    except sqlite3.DatabaseError:
        return None
    if row is None or not isinstance(row[0], int) or "WITHOUT ROWID" in str(row[1] or "").upper():
        return None
    position = {str(r[1]): int(r[0]) for r in info}
    pks = [r for r in info if r[5]]
    alias = int(pks[0][0]) if len(pks) == 1 and str(pks[0][2]).upper() == "INTEGER" else -2
    columns = []
    for name in names:
        if name == ROWID:
            columns.append(ROWID_COLUMN)
        elif name in position and info[position[name]][4] is None:  # a column added with a default: SQLite's
            columns.append(position[name])
        else:
            return None
    return row[0], np.array(columns, np.int64), alias


def _read(db: DatabaseFile, root: int, columns: np.ndarray, alias: int, progress: Progress | None,
          narrow: list[bool], part_bytes: int = PART_BYTES) -> list[np.ndarray] | None:
    if not db.whole:
        return None
    leaves = leaf_pages(db, root)
    if leaves is None:
        return None
    if len(leaves) == 1 and leaves[0] != 1:  # a table of one page: it may be empty, and is small
        page = db.pages(leaves)
        if page is None or int(page[3]) << 8 | int(page[4]) == 0:
            return None if page is None else [np.empty(0, np.int32 if small else np.int64) for small in narrow]
    if (leaves == 1).any():
        return None
    decode = _compile()
    per_part = max(1, part_bytes // db.page_size)
    parts = [leaves[a:a + per_part] for a in range(0, len(leaves), per_part)]
    rows = 0
    for part in parts:  # the rows to expect (a first pass over the pages: their cell counts)
        buf = db.pages(part)
        if buf is None:
            return None
        rows += _cells(buf, db.page_size)
    out = [np.empty(rows, np.int32 if small else np.int64) for small in narrow]
    # a part's pages as numbered in its own buffer: from 2, after a blank page 1 (page 1 is the one page
    # whose B-tree header comes after the file's header)
    local = np.arange(2, per_part + 2, dtype=np.int64)

    def part_rows(part: np.ndarray) -> tuple[int, np.ndarray]:  # run without Python's lock (nogil)
        buf = db.pages(part, blank=1)
        if buf is None:
            return BAD_PAGE, np.empty((len(columns), 0), np.int64)
        chunk = np.empty((len(columns), _cells(buf, db.page_size)), np.int64)
        got = decode(buf, db.page_size, db.usable, local[:len(part)], columns, alias, db.encoding == UTF8,
                     np.int64(-1), chunk, 0)
        return got, chunk

    done = 0
    pool = ThreadPoolExecutor(READ_THREADS)
    try:
        # parts in order, READ_THREADS decoding at once, a few ahead (what is decoded waits in memory)
        ahead = deque(pool.submit(part_rows, part) for part in parts[:2 * READ_THREADS])
        for k in range(len(parts)):
            got, chunk = ahead.popleft().result()
            if k + len(ahead) + 1 < len(parts):
                ahead.append(pool.submit(part_rows, parts[k + len(ahead) + 1]))
            if got < 0 or done + got > rows:
                return None
            for c, col in enumerate(out):
                part = chunk[c, :got]
                if col.dtype != part.dtype and not fits_int32(part):  # a value past 32 bits: int64 after all
                    col = out[c] = _widened(col, done)
                col[done:done + got] = part
            done += got
            del chunk
            if progress is not None:
                progress(done)  # may raise (a cancelled load): the parts not begun are dropped
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if done != rows:
        return None
    return out


def fits_int32(values: np.ndarray) -> bool:
    """Whether every value fits int32 (an empty column does)."""
    return not len(values) or (int(values.min()) >= INT32_MIN and int(values.max()) <= INT32_MAX)


def narrowed(values: np.ndarray) -> np.ndarray:
    """``values`` as int32 when every one fits, else as they are."""
    return values.astype(np.int32) if values.dtype != np.int32 and fits_int32(values) else values


def _widened(col: np.ndarray, done: int) -> np.ndarray:
    """An int64 copy of the int32 column ``col`` whose first ``done`` values are read."""
    wide = np.empty(len(col), np.int64)
    wide[:done] = col[:done]
    return wide


def _cells(buf: np.ndarray, page_size: int) -> int:
    """Cells on the pages of ``buf`` (each page's header: its cell count), vectorised."""
    head = np.arange(0, len(buf), page_size)
    return int((buf[head + 3].astype(np.int64) * 256 + buf[head + 4]).sum())
