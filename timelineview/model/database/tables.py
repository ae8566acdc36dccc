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
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from timelineview.model.database.connection import connect

INT_NONE = -1  # a NULL in an integer column
ROWID = "rowid"
_REAL_NULL_SQL = "-9e999"  # SQLite has no NaN literal: NULL reals come back as -inf, then NaN
_REAL_NULL = -np.inf
FETCH_ROWS = 1 << 16  # rows moved to numpy at a time: bounds the Python tuples alive at once
TEXT_ROWS = 1 << 20  # rows per group_concat (about 20 bytes of text a value)
_INT_TYPES = ("INT",)
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
            info = conn.execute(f"pragma table_info({_quote(name)})").fetchall()
        except sqlite3.DatabaseError as exc:
            schema.unreadable[name] = str(exc)
            continue
        schema.columns[name] = {str(r[1]): str(r[2] or "").upper() for r in info}
    return schema


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def kind_of(declared: str) -> str:
    """"int", "real" or "text" for a declared column type (SQLite's affinity rules, simplified)."""
    if any(t in declared for t in _INT_TYPES):
        return "int"
    if any(t in declared for t in _REAL_TYPES):
        return "real"
    return "text"


def read_columns(conn: sqlite3.Connection, table: str, columns: dict[str, str], where: str = "",
                 with_rowid: bool = False) -> dict[str, np.ndarray]:
    """``{column: array}`` for ``columns`` = ``{name: "int" | "real" | "text"}`` of ``table``.

    ints come as int64 (NULL → ``INT_NONE``, TEXT digits cast exactly), reals as float64 (NULL →
    NaN), text as object arrays (NULL → ""). With ``with_rowid`` also ``"rowid"``. One scan of the
    table per kind of column.
    """
    by_kind: dict[str, list[str]] = {}
    for name, kind in columns.items():
        by_kind.setdefault(kind, []).append(name)
    if with_rowid:
        by_kind.setdefault("int", []).append(ROWID)
    out: dict[str, np.ndarray] = {}
    for kind, names in by_kind.items():
        block = _scan(conn, table, kind, names, where)
        for i, name in enumerate(names):
            out[name] = np.ascontiguousarray(block[:, i])
    return out


def salvage_columns(conn: sqlite3.Connection, table: str, columns: dict[str, str],
                    with_rowid: bool = False) -> dict[str, np.ndarray]:
    """``read_columns`` of a damaged table: the rows before the damage, read one at a time until
    SQLite stops (a full read raises there and would give none)."""
    by_kind: dict[str, list[str]] = {}
    for name, kind in columns.items():
        by_kind.setdefault(kind, []).append(name)
    if with_rowid:
        by_kind.setdefault("int", []).append(ROWID)
    blocks = {kind: _scan(conn, table, kind, names, "", one_by_one=True) for kind, names in by_kind.items()}
    n = min((len(b) for b in blocks.values()), default=0)
    return {name: np.ascontiguousarray(blocks[kind][:n, i]) for kind, names in by_kind.items()
            for i, name in enumerate(names)}


def _int_text_scan(conn: sqlite3.Connection, table: str, names: list[str], where: str) -> np.ndarray | None:
    """Integer columns as SQLite's own decimal text (``group_concat``, built in C), parsed by numpy in
    C: no Python object per value (1.5-2x the tuples' speed). By rowid ranges, so the text stays
    small; None for a table without rowids."""
    try:
        lo, hi = conn.execute(f"select min(rowid), max(rowid) from {_quote(table)}").fetchone()
    except sqlite3.OperationalError:
        return None
    if lo is None:
        return np.zeros((0, len(names)), np.int64)
    cols: list[list[np.ndarray]] = [[] for _ in names]
    extra = f" and ({where})" if where else ""
    for a in range(lo, hi + 1, TEXT_ROWS):
        span = f"rowid >= {a} and rowid < {a + TEXT_ROWS}{extra}"
        exprs = ", ".join(f"group_concat({_expr(c, 'int')}, ',')" for c in names)
        row = conn.execute(f"select count(*), {exprs} from {_quote(table)} where {span}").fetchone()
        if not row[0]:
            continue
        for i, text in enumerate(row[1:]):
            values = np.fromstring(text, dtype=np.int64, sep=",")
            if len(values) != row[0]:  # not one integer per row: let the exact path read it
                return None
            cols[i].append(values)
    return np.stack([np.concatenate(c) if c else np.zeros(0, np.int64) for c in cols], axis=1)


def _scan(conn: sqlite3.Connection, table: str, kind: str, names: list[str], where: str,
          one_by_one: bool = False) -> np.ndarray:
    if kind == "int" and not one_by_one:
        block = _int_text_scan(conn, table, names, where)
        if block is not None:
            return block
    exprs = ", ".join(_expr(c, kind) for c in names)
    sql = f"select {exprs} from {_quote(table)}" + (f" where {where}" if where else "")
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
    return block


def _expr(column: str, kind: str) -> str:
    q = "rowid" if column == ROWID else _quote(column)
    if kind == "int":
        return f"ifnull(cast({q} as integer), {INT_NONE})"
    if kind == "real":
        return f"ifnull(cast({q} as real), {_REAL_NULL_SQL})"
    return f"ifnull(cast({q} as text), '')"


def table_columns(path: str | os.PathLike, table: str,
                  columns: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """A table of the database at ``path`` as ``{column: numpy array}``, by column name.

    ``columns`` (default: all) are read with the type their declaration gives (integers as
    int64 with NULL as -1, reals as float64 with NULL as NaN, text as object arrays); names the
    table lacks are left out of the result. Opened read-only and immutable. Raises
    ``sqlite3.Error`` / ``OSError`` / ``KeyError`` (no such table) for the caller to report.
    """
    conn = connect(path)
    try:
        schema = read_schema(conn)
        declared = schema.columns[table]
        wanted = list(declared) if columns is None else [c for c in columns if c in declared]
        return read_columns(conn, table, {c: kind_of(declared[c]) for c in wanted})
    finally:
        conn.close()


def read_or_salvage(conn: sqlite3.Connection, table: str, columns: dict[str, str], notes: list[str],
                    with_rowid: bool = False) -> dict[str, np.ndarray] | None:
    """``read_columns``; on damage the rows before it, with a note saying how many (None, with a
    note, when not one row can be read)."""
    try:
        return read_columns(conn, table, columns, with_rowid=with_rowid)
    except sqlite3.DatabaseError as exc:
        try:
            got = salvage_columns(conn, table, columns, with_rowid=with_rowid)
        except sqlite3.DatabaseError:
            got = None
        n = len(next(iter(got.values()))) if got else 0
        if not n:
            notes.append(f"table {table} unreadable ({exc}): not read")
            return None
        notes.append(f"table {table} damaged ({exc}): its first {n:,} rows are read, the rest is lost")
        return got
