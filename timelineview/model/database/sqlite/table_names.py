"""How a table is named in SQL and how many rows its rowids span: shared by the SQL reader, the page reader
and the progress count."""

from __future__ import annotations

import sqlite3

ROWID = "rowid"


def quote_identifier(name: str) -> str:
    """``name`` as an SQL identifier (double quotes, inner quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def rowid_span(conn: sqlite3.Connection, table: str) -> int:
    """Largest minus smallest rowid + 1 (at least the rows; 0 when unreadable or empty). Each asked alone:
    SQLite answers a lone min() or max() of the rowid from the B-tree's edge."""
    try:
        hi = conn.execute(f"select max(rowid) from {quote_identifier(table)}").fetchone()[0]
        lo = conn.execute(f"select min(rowid) from {quote_identifier(table)}").fetchone()[0]
    except sqlite3.DatabaseError:
        return 0
    return hi - lo + 1 if isinstance(hi, int) and isinstance(lo, int) and hi >= lo else 0
