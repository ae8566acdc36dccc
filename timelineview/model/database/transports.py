"""Plane tasks that move bytes between two ranks over no named transport: said when the card is read.

The communication analysis puts such a task in no link (a link without a transport does not exist: its
bandwidth would be nobody's); the load report says how many there are, so that the bytes left out show.
"""

from __future__ import annotations

import sqlite3

from timelineview.model.database import layout as L
from timelineview.model.database.sqlite.tables import Schema

TABLE = "COMMUNICATION_TASK_INFO"
ENUM = "ENUM_HCCL_TRANSPORT_TYPE"
COLUMNS = ("srcRank", "dstRank", "size", "transportType")
NOT_A_TRANSPORT = ("N/A", "INVALID_TYPE", "")  # enumeration names that name none
NOTE = ("{rows:,} {table} rows move {size:,} bytes between two ranks over no named transport: in no link")


def note_untransported(conn: sqlite3.Connection, schema: Schema, notes: list[str]) -> None:
    """Count the plane tasks that move bytes between two real ranks with a transport that is NULL, not in
    the enumeration or named as none, and note them (nothing when there are none)."""
    if not schema.has(TABLE, *COLUMNS):
        return
    named = (f"select id from {ENUM} where name not in ({', '.join('?' * len(NOT_A_TRANSPORT))})"
             if schema.has(ENUM, "id", "name") else None)
    untransported = "transportType is null" + (f" or transportType not in ({named})" if named else " or 1")
    sql = (f"select count(*), ifnull(sum(size), 0) from {TABLE} where size > 0 and srcRank != dstRank "
           f"and srcRank >= 0 and srcRank < {L.NONE_U32} and dstRank >= 0 and dstRank < {L.NONE_U32} "
           f"and ({untransported})")
    try:
        rows, size = conn.execute(sql, NOT_A_TRANSPORT if named else ()).fetchone()
    except sqlite3.DatabaseError:
        return  # a damaged table: its reader says so
    if rows:
        notes.append(NOTE.format(rows=int(rows), table=TABLE, size=int(size)))
