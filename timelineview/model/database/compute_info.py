"""What the database says of each compute task: ``COMPUTE_TASK_INFO``'s description columns, ``TASK_PMU_INFO``'s
figures and ``NPU_INFO``'s chip, as columns over the tasks asked (their slices in the caller's order).

The card keeps, per slice, the rowid of its ``COMPUTE_TASK_INFO`` row (for its lazy args); this reads that
table's columns, a few per scan, and gathers them into the tasks' order. Text columns stay database string ids (the
caller turns only the distinct ones into text, through ``ComputeTaskColumns.text``).

Memory: a card's compute tasks number in the millions, so nothing here holds more than a chunk of tasks in a
temporary. The tasks' info rows are located and joined to the table a chunk at a time into one int32 array of
table positions; the columns are read narrow (int32 when their values fit), a few per scan, through the page
reader in small parts (a table is a few bytes a row: the load's larger read-ahead would hold more pages than
the columns), and gathered into their result arrays a chunk at a time before the next scan.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import numpy as np

from timelineview.model.database.args import PMU_TABLE, DatabaseArgs
from timelineview.model.database.slices.rowids import NO_ROW
from timelineview.model.database.slices.slice_parts import KIND_HARDWARE
from timelineview.model.database.slices.table_reads import renamed_copy
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import find_sorted, read_columns
from timelineview.model.store.trace_store import TraceStore

INFO_TABLE = "COMPUTE_TASK_INFO"
DEVICE_TABLE = "NPU_INFO"
# the description columns, by the name the caller knows them under
TEXT_COLUMNS = {"op_type": "opType", "shapes": "inputShapes", "dtypes": "inputDataTypes", "formats": "inputFormats",
                "out_shapes": "outputShapes"}
LOCATE_CHUNK = 1 << 18  # tasks located, joined to the table or gathered at once: each step's temporaries are a few MB
INT32_MAX = np.iinfo(np.int32).max
# file pages the page reader decodes at once for one column: with its few parts in flight and their int64
# decodings, a few MB (the load's default, sized for a table of many columns, held more than a 2 M-row
# column's whole result)
COLUMN_PART_BYTES = 2 << 20
# columns read by one scan of the table: a scan costs the same for one column or several, and the columns it
# holds at once (int32 each) are a few bytes a task
COLUMNS_PER_SCAN = 3
NO_ID = -1  # no row, or NULL in the row: as the page reader writes NULL


@dataclass
class ComputeTaskColumns:
    """Per task asked (the caller's order): the ``COMPUTE_TASK_INFO`` columns, ``NO_ID`` where the task has no
    row or the row holds NULL; None for a column the table lacks. Text columns are database string ids (int32,
    or int64 when one does not fit): ``text`` gives their text."""

    has_row: np.ndarray  # bool
    op_type: np.ndarray | None
    shapes: np.ndarray | None
    dtypes: np.ndarray | None
    formats: np.ndarray | None
    out_shapes: np.ndarray | None
    block_dim: np.ndarray | None  # int32
    global_task_id: np.ndarray | None  # read only when the database has PMU figures to join on it
    device: str  # the chip the database names (``Ascend910B``…), "" when none
    reader: DatabaseArgs = field(repr=False)

    def text(self, db_id: int) -> str | None:
        """The text of a database string id (None for ``NO_ID`` or an id the database lacks)."""
        return self.reader.strings.value(db_id) if db_id != NO_ID else None


def compute_task_columns(store: TraceStore, compute: np.ndarray) -> ComputeTaskColumns | None:
    """The ``COMPUTE_TASK_INFO`` columns of the slices ``compute`` of a database card; None for a card of another
    kind, a database without that table (or without ``opType``), or one that cannot be read."""
    reader = store.args_reader  # a database card's reader locates each slice's info row
    if not isinstance(reader, DatabaseArgs):
        return None
    table = INFO_TABLE if INFO_TABLE in reader.schema.columns else renamed_copy(reader.schema, INFO_TABLE)
    if table is None or not reader.schema.has(table, "opType"):
        return None
    try:
        conn = connect(reader.path)
    except (sqlite3.Error, OSError):
        return None
    try:
        return _columns(conn, store, reader, table, compute)
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()


def _columns(conn: sqlite3.Connection, store: TraceStore, reader: DatabaseArgs, table: str,
             compute: np.ndarray) -> ComputeTaskColumns:
    """The table read ``COLUMNS_PER_SCAN`` columns at a time (the rowids with the first), each gathered into the
    tasks' order before the next scan: a ten-million-row table is never held whole, and a scan, which decodes
    every record whatever it keeps, serves several columns."""
    schema = reader.schema
    wanted = [name for name in (*TEXT_COLUMNS.values(), "blockDim") if schema.has(table, name)]
    if schema.has(table, "globalTaskId") and schema.has(PMU_TABLE, "globalTaskId", "name", "value"):
        wanted.append("globalTaskId")
    got: dict[str, np.ndarray | None] = dict.fromkeys(wanted)
    row = np.zeros(0, np.int32)
    for a in range(0, max(len(wanted), 1), COLUMNS_PER_SCAN):
        names = wanted[a:a + COLUMNS_PER_SCAN]
        values = read_columns(conn, table, dict.fromkeys(names, "int"), with_rowid=a == 0, narrow=(*names, "rowid"),
                              part_bytes=COLUMN_PART_BYTES)
        if a == 0:
            row = _table_rows(store, reader, values.pop("rowid"), compute)
        for name in names:
            column = values.pop(name)
            got[name] = _gather(column, row, np.empty(len(row), column.dtype))
            del column
    block_dim = got.get("blockDim")
    if block_dim is not None and block_dim.dtype != np.int32:
        block_dim = block_dim.astype(np.int32)  # a block dim past 32 bits is no block dim: as ``astype`` casts it
    texts = {target: got.get(name) for target, name in TEXT_COLUMNS.items()}
    return ComputeTaskColumns(has_row=row >= 0, **texts, block_dim=block_dim, global_task_id=got.get("globalTaskId"),
                              device=_device(conn, reader), reader=reader)


def _table_rows(store: TraceStore, reader: DatabaseArgs, rowids: np.ndarray, compute: np.ndarray) -> np.ndarray:
    """Each task's position among the table's rows (``rowids``, in scan order; -1: none), int32 when the table's
    rows allow.

    The locator gives each task's info rowid (-1: none, or a slice that is not a hardware task); the join to
    the table's rowids is a binary search, both done a chunk of tasks at a time (locating builds several
    int64 arrays per task)."""
    n = len(rowids)
    row = np.full(len(compute), -1, np.int32 if n < INT32_MAX else np.int64)
    if not n:
        return row
    ascending = n < 2 or bool((rowids[1:] > rowids[:-1]).all())  # as a table scan gives them
    # rowids that run on without a gap (as a table only ever appended to has them): a row's position is its
    # rowid's distance from the first, no search of ten million keys
    first = int(rowids[0]) if ascending and int(rowids[-1]) - int(rowids[0]) == n - 1 else None
    order = None if ascending else np.argsort(rowids, kind="stable")
    keys = rowids if order is None else rowids[order]
    for a in range(0, len(compute), LOCATE_CHUNK):
        places = reader.locator.locate(store.slices.ordinals(compute[a:a + LOCATE_CHUNK]), rows=False)
        info = np.where(places.kind == KIND_HARDWARE, places.info, NO_ROW)
        del places
        if first is not None:
            pos = info - first
            hit = (info >= 0) & (pos >= 0) & (pos < n)
        else:
            pos = find_sorted(keys, info)
            hit = (info >= 0) & (pos >= 0)
        row[a:a + LOCATE_CHUNK] = np.where(hit, pos if order is None else order[pos], -1)
    return row


def _gather(values: np.ndarray, row: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` filled with ``values`` at the positions ``row`` (``NO_ID`` where -1), a chunk at a time."""
    for a in range(0, len(row), LOCATE_CHUNK):
        at = row[a:a + LOCATE_CHUNK]
        if len(values):
            out[a:a + LOCATE_CHUNK] = np.where(at >= 0, values[np.maximum(at, 0)], NO_ID).astype(out.dtype)
        else:
            out[a:a + LOCATE_CHUNK] = NO_ID
    return out


def _device(conn: sqlite3.Connection, reader: DatabaseArgs) -> str:
    """The chip the database names (``NPU_INFO.name``: ``Ascend910B``…), "" when none."""
    if not reader.schema.has(DEVICE_TABLE, "name"):
        return ""
    for (name,) in conn.execute(f"select name from {DEVICE_TABLE}"):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return ""


def compute_task_pmu(columns: ComputeTaskColumns, wanted: np.ndarray) -> dict[str, np.ndarray]:
    """``TASK_PMU_INFO`` pivoted over the tasks of ``columns``: per figure name a float32 column (NaN where
    absent), joined on ``globalTaskId`` for the ``wanted`` tasks only (bool per task); {} without figures, or
    when the table cannot be read."""
    task_ids = columns.global_task_id
    if task_ids is None:
        return {}
    try:
        conn = connect(columns.reader.path)
    except (sqlite3.Error, OSError):
        return {}
    try:
        got = read_columns(conn, PMU_TABLE, {"globalTaskId": "int", "name": "int", "value": "real"},
                           narrow=("globalTaskId", "name"), part_bytes=COLUMN_PART_BYTES)
    except sqlite3.DatabaseError:
        return {}
    finally:
        conn.close()
    return _pivot(columns, got, task_ids, wanted)


def _pivot(columns: ComputeTaskColumns, got: dict[str, np.ndarray], task_ids: np.ndarray, wanted: np.ndarray
           ) -> dict[str, np.ndarray]:
    """The PMU rows ``got`` joined to the ``wanted`` tasks by task id, one float32 column per figure name."""
    if not len(got["globalTaskId"]):
        return {}
    mine = np.flatnonzero(wanted & (task_ids != NO_ID))
    order = mine[np.argsort(task_ids[mine], kind="stable")]
    del mine
    sorted_ids = task_ids[order]
    pos = np.minimum(np.searchsorted(sorted_ids, got["globalTaskId"]), max(len(order) - 1, 0))
    hit = (sorted_ids[pos] == got["globalTaskId"]) if len(order) else np.zeros(len(pos), bool)
    del sorted_ids
    out: dict[str, np.ndarray] = {}
    names, inverse = np.unique(got["name"][hit], return_inverse=True)
    tasks, values = order[pos[hit]], got["value"][hit]
    del got, pos, hit, order
    # the rows grouped by name once (a stable sort: a task's later row of a name still wins), not a pass over
    # every row per name
    by_name = np.argsort(inverse.reshape(-1), kind="stable")
    bounds = np.searchsorted(inverse.reshape(-1)[by_name], np.arange(len(names) + 1))
    for k, name_id in enumerate(names.tolist()):
        name = columns.text(name_id)
        if not isinstance(name, str):
            continue
        column = np.full(len(task_ids), np.nan, np.float32)
        here = by_name[bounds[k]:bounds[k + 1]]
        column[tasks[here]] = values[here]
        out[name] = column
    return out
