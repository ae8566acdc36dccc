"""A source table's int columns read for slices: the columns a card needs, only this device's rows
in a database of several, or msprof's renamed copy of a table it replaced."""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.model.database.devices import DEVICE_COLUMN, DeviceScope
from timelineview.model.database.slices.slice_parts import SliceParts
from timelineview.model.database.sqlite.table_names import ROWID
from timelineview.model.database.sqlite.tables import Schema, read_or_salvage

OLD_TABLE = "_{}_old_"  # msprof renames a table it replaced to _<NAME>_old_<date>
# the columns read as they are (times, and ids that pack two numbers); every other one is narrowed
WIDE_COLUMNS = frozenset(("startNs", "endNs", "globalTid", "globalPid"))


def _columns(schema: Schema, table: str, wanted: tuple[str, ...], optional: tuple[str, ...],
             scoped: bool) -> dict[str, str]:
    """The int columns ``read_table`` reads of ``table`` (it has every one of ``wanted``)."""
    cols = {c: "int" for c in wanted + tuple(c for c in optional if schema.has(table, c))}
    if scoped:  # what tells this device's rows apart
        cols.update({c: "int" for c in (DEVICE_COLUMN, *_SCOPE_COLUMNS.get(table, ())) if schema.has(table, c)})
    return cols


def read_table(conn: sqlite3.Connection, schema: Schema, parts: SliceParts, table: str, wanted: tuple[str, ...],
          optional: tuple[str, ...] = ()) -> dict[str, np.ndarray] | None:
    """The int columns ``wanted`` (+ ``optional`` when present) of ``table`` with rowid, or None
    with a note saying what is missing."""
    if table not in schema.columns:
        return None
    missing = schema.missing(table, wanted)
    if missing:
        parts.notes.append(f"table {table} lacks column(s) {', '.join(missing)}: not read")
        return None
    cols = _columns(schema, table, wanted, optional, parts.scope is not None)
    got = read_or_salvage(conn, table, cols, parts.notes, with_rowid=True, progress=parts.meter.step(table),
                          narrow=_narrow(cols))
    if got is not None and parts.scope is not None:
        got = _in_scope(parts.scope, table, got)
    if got is not None:
        parts.read[table] = len(got[ROWID])
    parts.meter.table_done(table)
    return got


def _narrow(cols: dict[str, str]) -> set[str]:
    """The columns read as int32 when they fit (``read_columns``): the tables a load holds at once take
    a third less room."""
    return {c for c in cols if c not in WIDE_COLUMNS} | {ROWID}


_SCOPE_COLUMNS = {"TASK": ("globalPid",), "COMMUNICATION_TASK_INFO": ("opId",), "COMMUNICATION_OP": ("opId",)}


def _in_scope(scope: DeviceScope, table: str, got: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows of ``table`` that are the scope's device's (see ``devices``)."""
    n = len(got[ROWID])
    if DEVICE_COLUMN in got:
        keep = scope.device_rows(got[DEVICE_COLUMN])
        if table == "TASK":
            scope.note_tasks(got, keep)
    elif table in ("CANN_API", "PYTORCH_API"):
        keep = scope.host_rows(got["globalTid"])
    elif table == "COMMUNICATION_TASK_INFO":
        keep = np.isin(got["globalTaskId"], scope.task_ids) if scope.task_ids is not None else np.ones(n, bool)
        if "opId" in got:
            scope.ops = np.unique(got["opId"][keep])
            scope.other_ops = np.setdiff1d(np.unique(got["opId"][~keep]), scope.ops)
    elif table == "COMMUNICATION_OP":
        keep = scope.op_rows(got.get("opId"))
        if keep is None:
            keep = np.full(n, scope.first)
    else:
        return got
    return {name: col[keep] for name, col in got.items()}


def table_or_copy(schema: Schema, parts: SliceParts, table: str) -> str:
    """``table``, or the renamed copy msprof left of it when only that exists (with a note)."""
    if table in schema.columns:
        return table
    old = renamed_copy(schema, table)
    if old is not None:
        parts.notes.append(f"table {table} missing: its renamed copy {old} is read")
        return old
    return table


def renamed_copy(schema: Schema, table: str) -> str | None:
    """The newest copy msprof left of ``table`` under another name (``_<NAME>_old_<date>``), or None."""
    return max((t for t in schema.columns if t.startswith(OLD_TABLE.format(table))), default=None)
