"""Tables of a profiler database as numpy columns, found by name (``pragma table_info``).

``table_columns`` is the one way the reader (and the memory analysis) reads a table: it asks
SQLite for the wanted columns only, cast to the type wanted (torch_npu stores
``PYTORCH_API.startNs`` as TEXT; ``CAST`` turns it into an exact 64-bit integer), with NULL
replaced by a named default. Integers come through SQLite's ``group_concat`` text, parsed by
numpy (no Python object per value); reals and text through ``fetchmany`` and ``np.fromiter`` over
the flattened rows (SQLite writes reals as text with 15 digits: not exact). Measured against the
other stdlib ways in ``benchmarks/bench_database.py``.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.damage import TableDamage, table_damage, table_roots
from timelineview.model.database.sqlite.leaf_cells import has_cell_off_page
from timelineview.model.database.sqlite.pages import narrowed, read_int_columns
from timelineview.model.database.sqlite.table_names import ROWID, quote_identifier

INT_NONE = -1  # a NULL in an integer column
_REAL_NULL_SQL = "-9e999"  # SQLite has no NaN literal: NULL reals come back as -inf, then NaN
_REAL_NULL = -np.inf
STRING_TABLE = "STRING_IDS"
FETCH_ROWS = 1 << 16  # rows moved to numpy at a time: bounds the Python tuples alive at once
TEXT_ROWS = 1 << 17  # rows per group_concat: about 20 bytes of text a value, 2.6 MB a column
READ_THREADS = min(4, os.cpu_count() or 1)  # connections reading one table's integer columns at once
PARALLEL_ROWS = 1 << 18  # below this a table is read by one connection
SPARSE_CHECK_SPAN = 1 << 24  # rowid ranges past this are checked for how full they are (a count of the rows)
SPARSE_FACTOR = 4  # rows filling under a quarter of their rowid range are read by rows, not by rowid ranges
SALVAGE_ROWS = 1 << 12  # rows per query of a damaged table's salvage
_MIN_ROWID = -(1 << 63)
_INT_TYPES = ("INT",)
# what ``read_or_salvage`` notes of a damaged table (``damage`` counts the rows lost from them)
DAMAGED_NOTE = "table {table} damaged ({why}): {rows:,} rows could be read (what is lost is counted apart)"
CELL_OFF_PAGE = "a leaf cell runs off its page"  # why a table is not trusted to a full SQLite read
UNREADABLE_NOTE = "table {table} unreadable ({why}): not read"
_REAL_TYPES = ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")


@dataclass
class Schema:
    """Tables and their columns, as the database declares them."""

    columns: dict[str, dict[str, str]] = field(default_factory=dict)  # table -> {column: declared type}
    unreadable: dict[str, str] = field(default_factory=dict)  # table -> why its columns could not be read

    def has(self, table: str, *columns: str) -> bool:
        cols = self.columns.get(table)
        return cols is not None and all(c in cols for c in columns)

    def missing(self, table: str, columns: Sequence[str]) -> list[str]:
        cols = self.columns.get(table, {})
        return [c for c in columns if c not in cols]


def read_schema(conn: sqlite3.Connection) -> Schema:
    """Every table and its columns (raises ``sqlite3.DatabaseError`` when even the catalogue is unreadable)."""
    schema = Schema()
    names = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")]
    for name in names:
        try:
            info = conn.execute(f"pragma table_info({quote_identifier(name)})").fetchall()
        except sqlite3.DatabaseError as exc:
            schema.unreadable[name] = str(exc)
            continue
        schema.columns[name] = {str(r[1]): str(r[2] or "").upper() for r in info}
    return schema


def kind_of(declared: str) -> str:
    """"int", "real" or "text" for a declared column type (SQLite's affinity rules, simplified)."""
    if any(t in declared for t in _INT_TYPES):
        return "int"
    if any(t in declared for t in _REAL_TYPES):
        return "real"
    return "text"


def _by_kind(columns: dict[str, str], with_rowid: bool) -> dict[str, list[str]]:
    """The column names grouped by kind (one scan of the table per kind), ``rowid`` last of the ints."""
    by_kind: dict[str, list[str]] = {}
    for name, kind in columns.items():
        by_kind.setdefault(kind, []).append(name)
    if with_rowid:
        by_kind.setdefault("int", []).append(ROWID)
    return by_kind


def read_columns(conn: sqlite3.Connection, table: str, columns: dict[str, str], where: str = "",
                 with_rowid: bool = False, progress: Callable[[int], None] | None = None,
                 narrow: Collection[str] = (), part_bytes: int | None = None) -> dict[str, np.ndarray]:
    """``{column: array}`` for ``columns`` = ``{name: "int" | "real" | "text"}`` of ``table``.

    ints come as int64 (NULL → ``INT_NONE``, TEXT digits cast exactly), reals as float64 (NULL →
    NaN), text as object arrays (NULL → ""). With ``with_rowid`` also ``"rowid"``. The int columns
    named in ``narrow`` (ids, counts: ``rowid`` too) come as int32 when every value fits: half the
    memory of the tables a load holds at once. One scan of the table per kind of column;
    ``progress(rows)`` is told the rows read so far of the integer scan. ``part_bytes`` bounds the
    file pages the page reader holds at once (``pages.read_int_columns``).
    """
    by_kind = _by_kind(columns, with_rowid)
    out: dict[str, np.ndarray] = {}
    checked = False
    for kind, names in by_kind.items():
        cols = None
        if kind == "int" and not where:
            cols = read_int_columns(conn, _database_file(conn), table, names, progress, narrow, part_bytes)
        if cols is None:
            if not checked:  # the page reader checks every cell it reads; SQLite does not, once per table
                _refuse_cells_off_page(conn, table)
                checked = True
            cols = _scan(conn, table, kind, names, where, progress=progress)
        out.update(zip(names, (narrowed(c) if name in narrow else c for name, c in zip(names, cols, strict=True)),
                       strict=True))
    if progress is not None and out:
        progress(len(next(iter(out.values()))))
    return out


def salvage_columns(conn: sqlite3.Connection, table: str, columns: dict[str, str],
                    with_rowid: bool = False, resume: Sequence[int] = (),
                    avoid: Sequence[tuple[int, int | None]] = ()) -> dict[str, np.ndarray]:
    """``read_columns`` of a damaged table: every row SQLite can still reach (a full read raises at
    the damage and would give none). Read in rowid order, a batch at a time, the batch halved down to
    one row where it fails (the cursor reads a row ahead: a row just before the damage is read
    alone); past a damaged stretch the read goes on at the next of ``resume`` (rowids where the
    table's intact pages start again), and SQLite's own row order when the table has no rowid. The rowid
    spans of ``avoid`` (lowest, highest or None: leaves whose cells SQLite reads from past their page,
    differently at each read) are never entered: each read stops before the next one."""
    names = list(columns)
    exprs = ", ".join(_expr(c, columns[c]) for c in names)
    sql = f"select rowid, {exprs} from {quote_identifier(table)} where rowid >= ? order by rowid limit ?"
    bounded = (f"select rowid, {exprs} from {quote_identifier(table)} where rowid >= ? and rowid < ? "
               f"order by rowid limit ?")
    rows: list[tuple] = []
    at, limit, ahead, spans = _MIN_ROWID, SALVAGE_ROWS, sorted(resume), sorted(avoid, key=lambda span: span[0])
    while True:
        inside = next((hi for lo, hi in spans if lo <= at and (hi is None or at <= hi)), False)
        if inside is not False:  # a leaf not to read: on past it
            if inside is None:
                break
            at = inside + 1
            continue
        bound = min((lo for lo, _hi in spans if lo > at), default=None)
        try:
            if bound is None:
                batch = conn.execute(sql, (at, limit)).fetchall()
            else:
                batch = [r for r in conn.execute(bounded, (at, bound, limit)).fetchall() if r[0] < bound]
        except sqlite3.OperationalError as exc:
            if "no such column" in str(exc):  # a table without rowids: its rows in SQLite's order
                return _salvage_in_order(conn, table, columns, with_rowid)
            batch = None
        except sqlite3.DatabaseError:
            batch = None
        if batch and batch[-1][0] < at:  # a damaged tree led the seek astray: no progress, as a failure
            batch = None
        if batch is None:
            if limit > 1:
                limit //= 2
                continue
            bad = _rowid_from(conn, table, at)  # one record is bad: its cell's rowid may still be read
            if bad is not None:
                at, limit = (bad + 1 if bound is None else min(bad + 1, bound)), SALVAGE_ROWS
                continue
            at = next((k for k in ahead if k > at), None)
            if at is None:
                break
            limit = SALVAGE_ROWS
            continue
        if not batch:
            if bound is None:
                break
            at, limit = bound, SALVAGE_ROWS  # nothing more before the leaf not to read: on past it
            continue
        rows.extend(r for r in batch if r[0] >= at)  # in order: a damaged page's stray rowids left out
        at, limit = batch[-1][0] + 1, SALVAGE_ROWS
    out: dict[str, np.ndarray] = {}
    for i, name in enumerate(names, start=1):
        out[name] = _column_of([r[i] for r in rows], columns[name])
    if with_rowid:
        out[ROWID] = np.array([r[0] for r in rows], dtype=np.int64)
    return out


def _rowid_from(conn: sqlite3.Connection, table: str, at: int) -> int | None:
    """The first rowid at or past ``at`` (read from the B-tree cell, not the record), or None when SQLite
    cannot reach it either."""
    try:
        row = conn.execute(f"select rowid from {quote_identifier(table)} where rowid >= ? order by rowid limit 1",
                           (at,)).fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row is not None and row[0] >= at else None


def _column_of(values: list, kind: str) -> np.ndarray:
    if kind == "int":
        return np.array(values, dtype=np.int64)
    if kind == "real":
        col = np.array(values, dtype=np.float64)
        col[col == _REAL_NULL] = np.nan
        return col
    col = np.empty(len(values), dtype=object)
    col[:] = values
    return col


def _salvage_in_order(conn: sqlite3.Connection, table: str, columns: dict[str, str],
                      with_rowid: bool) -> dict[str, np.ndarray]:
    """The rows before the damage, one at a time until SQLite stops."""
    by_kind = _by_kind(columns, with_rowid)
    got = {kind: _scan(conn, table, kind, names, "", one_by_one=True) for kind, names in by_kind.items()}
    n = min((len(c) for cols in got.values() for c in cols), default=0)
    return {name: cols[i][:n] for kind, cols in got.items() for i, name in enumerate(by_kind[kind])}


def _database_file(conn: sqlite3.Connection) -> str:
    """The file ``conn`` reads ("" for one in memory)."""
    for _, name, file in conn.execute("pragma database_list"):
        if name == "main":
            return file or ""
    return ""


def _int_text_scan(conn: sqlite3.Connection, table: str, names: list[str], where: str) -> list[np.ndarray] | None:
    """Integer columns as SQLite's own decimal text (``group_concat``, built in C), parsed by numpy in
    C: no Python object per value (1.5x the tuples' speed). One query per rowid range (all columns
    at once: one scan), so the text stays small, the ranges run on ``READ_THREADS`` connections at
    once (SQLite runs a query without Python's lock). None for a table without rowids, or a value
    that is not one integer."""
    try:
        lo, hi = conn.execute(f"select min(rowid), max(rowid) from {quote_identifier(table)}").fetchone()
    except sqlite3.OperationalError:
        return None
    if lo is None:
        return [np.zeros(0, np.int64) for _ in names]
    if hi - lo >= SPARSE_CHECK_SPAN and _sparse(conn, table, hi - lo + 1):
        return _int_text_pages(conn, table, names, where)
    path = _database_file(conn)
    threads = READ_THREADS if path and hi - lo >= PARALLEL_ROWS else 1
    step = min(TEXT_ROWS, -(-(hi - lo + 1) // threads))
    extra = f" and ({where})" if where else ""
    exprs = ", ".join(f"group_concat({_expr(c, 'int')}, ',')" for c in names)
    sqls = [f"select count(*), {exprs} from {quote_identifier(table)} where rowid >= {a} and rowid < {a + step}{extra}"
            for a in range(lo, hi + 1, step)]

    def run(sql: str, own: sqlite3.Connection) -> list[np.ndarray] | None:
        n, *texts = own.execute(sql).fetchone()
        if not n:
            return [np.zeros(0, np.int64) for _ in names]
        cols = [np.fromstring(text, dtype=np.int64, sep=",") for text in texts]
        return cols if all(len(c) == n for c in cols) else None

    if threads > 1 and len(sqls) > 1:
        local = threading.local()

        def in_thread(sql: str) -> list[np.ndarray] | None:
            if not hasattr(local, "conn"):
                local.conn = connect(path)
            return run(sql, local.conn)

        with ThreadPoolExecutor(min(threads, len(sqls))) as pool:
            parts = list(pool.map(in_thread, sqls))
    else:
        parts = [run(sql, conn) for sql in sqls]
    if any(p is None for p in parts):  # not one integer per row: the exact path reads it
        return None
    return [np.concatenate([p[i] for p in parts]) for i in range(len(names))]


def _sparse(conn: sqlite3.Connection, table: str, span: int) -> bool:
    """Whether ``table``'s rows fill under ``1 / SPARSE_FACTOR`` of its rowid range (one row at 10**12: a
    query per range of rowids would be millions of queries)."""
    (count,) = conn.execute(f"select count(*) from {quote_identifier(table)}").fetchone()
    return count * SPARSE_FACTOR < span


def _int_text_pages(conn: sqlite3.Connection, table: str, names: list[str], where: str) -> list[np.ndarray] | None:
    """``_int_text_scan`` of a table whose rowids are sparse: ``TEXT_ROWS`` rows a query, each starting
    after the last rowid of the one before (as many queries as the rows need, whatever their rowids)."""
    extra = f" and ({where})" if where else ""
    exprs = ", ".join(f"group_concat({_expr(c, 'int')}, ',')" for c in names)
    inner = ", ".join(["rowid"] + [f"{quote_identifier(c)}" for c in names if c != ROWID])
    sql = (f"select count(*), max(rowid), {exprs} from (select {inner} from {quote_identifier(table)} "
           f"where rowid > ?{extra} order by rowid limit {TEXT_ROWS})")
    parts, after = [], _MIN_ROWID - 1
    while True:
        n, last, *texts = conn.execute(sql, (max(after, _MIN_ROWID),)).fetchone()
        if not n:
            break
        cols = [np.fromstring(text, dtype=np.int64, sep=",") for text in texts]
        if not all(len(c) == n for c in cols):
            return None
        parts.append(cols)
        if n < TEXT_ROWS:
            break
        after = last
    if not parts:
        return [np.zeros(0, np.int64) for _ in names]
    return [np.concatenate([p[i] for p in parts]) for i in range(len(names))]


def _refuse_cells_off_page(conn: sqlite3.Connection, table: str) -> None:
    """Raise ``sqlite3.DatabaseError`` when a leaf of ``table`` has a cell that runs off its page: SQLite
    would read that cell's rowid from whatever bytes follow the page, raising at some reads and returning
    rows at others (``read_or_salvage`` then reads the table around that leaf, the same at every read)."""
    path = _database_file(conn)
    root = table_roots(conn).get(table) if path else None
    if root is not None and has_cell_off_page(path, root):
        raise sqlite3.DatabaseError(CELL_OFF_PAGE)


def _scan(conn: sqlite3.Connection, table: str, kind: str, names: list[str], where: str,
          one_by_one: bool = False, progress: Callable[[int], None] | None = None) -> list[np.ndarray]:
    """The columns ``names`` (all of one kind) of ``table`` read by SQLite (integers as its decimal
    text when it can, ``_int_text_scan``)."""
    if kind == "int" and not one_by_one:
        cols = _int_text_scan(conn, table, names, where)
        if cols is not None:
            return cols
    exprs = ", ".join(_expr(c, kind) for c in names)
    sql = f"select {exprs} from {quote_identifier(table)}" + (f" where {where}" if where else "")
    cur = conn.execute(sql)
    k = len(names)
    dtype = {"int": np.int64, "real": np.float64}.get(kind)
    parts: list[np.ndarray] = []
    while True:
        if one_by_one:
            try:
                rows = cur.fetchmany(1)
            except sqlite3.DatabaseError:
                break
        else:
            rows = cur.fetchmany(FETCH_ROWS)
        if not rows:
            break
        if dtype is None:
            parts.append(np.array(rows, dtype=object).reshape(len(rows), k))
        else:
            flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=dtype, count=len(rows) * k)
            parts.append(flat.reshape(len(rows), k))
    block = np.concatenate(parts) if parts else np.zeros((0, k), dtype=dtype or object)
    if kind == "real":
        block[block == _REAL_NULL] = np.nan
    return [np.ascontiguousarray(block[:, i]) for i in range(k)]


def _expr(column: str, kind: str) -> str:
    q = "rowid" if column == ROWID else quote_identifier(column)
    if kind == "int":
        return f"ifnull(cast({q} as integer), {INT_NONE})"
    if kind == "real":
        return f"ifnull(cast({q} as real), {_REAL_NULL_SQL})"
    return f"ifnull(cast({q} as text), '')"


def find_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The position of each of ``keys`` in ``sorted_keys`` (ascending), -1 where it is absent."""
    if not len(sorted_keys):
        return np.full(len(keys), -1, np.int64)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[pos] == keys, pos, -1)


def table_columns(path: str | os.PathLike, table: str, columns: Sequence[str] | None = None,
                  text_ids: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """A table of the database at ``path`` as ``{column: numpy array}``, by column name.

    ``columns`` (default: all) are read with the type their declaration gives (integers as
    int64 with NULL as -1, reals as float64 with NULL as NaN, text as object arrays); names the
    table lacks are left out of the result. The integer columns named in ``text_ids`` are ids into
    ``STRING_IDS`` (``MEMORY_RECORD.component``, ``OP_MEMORY.name``, …) and come back as their text
    (an id the table lacks as ""). Opened read-only and immutable. Raises ``sqlite3.Error`` /
    ``OSError`` / ``KeyError`` (no such table) for the caller to report.
    """
    conn = connect(path)
    try:
        schema = read_schema(conn)
        declared = schema.columns[table]
        wanted = list(declared) if columns is None else [c for c in columns if c in declared]
        kinds = {c: "int" if c in text_ids else kind_of(declared[c]) for c in wanted}
        out = read_columns(conn, table, kinds)
        decode = [c for c in text_ids if c in out]
        if decode and schema.has(STRING_TABLE, "id", "value"):
            ids = read_columns(conn, STRING_TABLE, {"id": "int", "value": "text"})
            order = np.argsort(ids["id"], kind="stable")
            keys, values = ids["id"][order], np.append(ids["value"][order], "")
            for c in decode:
                pos = find_sorted(keys, out[c])
                out[c] = values[np.where(pos >= 0, pos, len(keys))]
        elif decode:
            for c in decode:
                out[c] = np.full(len(out[c]), "", dtype=object)
        return out
    finally:
        conn.close()


def read_or_salvage(conn: sqlite3.Connection, table: str, columns: dict[str, str], notes: list[str],
                    with_rowid: bool = False, progress: Callable[[int], None] | None = None,
                    narrow: Collection[str] = ()) -> dict[str, np.ndarray] | None:
    """``read_columns``; on damage the rows before it, with a note saying how many (None, with a
    note, when not one row can be read)."""
    try:
        return read_columns(conn, table, columns, with_rowid=with_rowid, progress=progress, narrow=narrow)
    except sqlite3.DatabaseError as exc:
        try:
            found = _pages_of(conn, table)
            got = salvage_columns(conn, table, columns, with_rowid=with_rowid,
                                  resume=found.resume if found else (), avoid=found.bad_leaves if found else ())
        except sqlite3.DatabaseError:
            got = None
        if got:
            got = {name: narrowed(c) if name in narrow else c for name, c in got.items()}
        n = len(next(iter(got.values()))) if got else 0
        if not n:
            notes.append(UNREADABLE_NOTE.format(table=table, why=exc))
            return None
        notes.append(DAMAGED_NOTE.format(table=table, why=exc, rows=n))
        return got


def _pages_of(conn: sqlite3.Connection, table: str) -> TableDamage | None:
    """``table``'s pages as the file holds them (``damage``): where its intact pages start again past each
    damaged stretch, and the leaves a read must not enter."""
    root = table_roots(conn).get(table)
    path = _database_file(conn)
    if root is None or not path:
        return None
    return table_damage(path, {table: root}).get(table)
