"""Operator descriptions of a profiler database's compute tasks: ``COMPUTE_TASK_INFO`` (+ ``TASK_PMU_INFO``).

The card keeps, per slice, the rowid of its ``COMPUTE_TASK_INFO`` row (for its lazy args); this reads that
table's description columns once, as integer string ids, and turns only the distinct ids into text.

Memory: a card's compute tasks number in the millions, so nothing here holds more than a chunk of tasks in a
temporary. The tasks' info rows are located and joined to the table a chunk at a time into one int32 array of
table positions; each column is read narrow (int32 when its values fit) and gathered into its result array a
chunk at a time; string ids are turned into texts through a lookup table over the ids' range, filled in place.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.analysis.kernels.dense_ids import distinct_inverse, turn_distinct_in_place
from timelineview.analysis.kernels.source_result import SourceResult, shape_text
from timelineview.analysis.kernels.table import NO_VALUE, SOURCE_DATABASE, Interner
from timelineview.model.database import slices as S
from timelineview.model.database.args import PMU_TABLE, DatabaseArgs
from timelineview.model.database.sqlite.connection import connect
from timelineview.model.database.sqlite.tables import read_columns
from timelineview.model.store.trace_store import TraceStore

INFO_TABLE = "COMPUTE_TASK_INFO"
DEVICE_TABLE = "NPU_INFO"
TEXT_COLUMNS = ("opType", "inputShapes", "inputDataTypes", "inputFormats", "outputShapes")
SHAPE_COLUMNS = ("inputShapes", "outputShapes")
LOCATE_CHUNK = 1 << 18  # tasks located, joined to the table or gathered at once: each step's temporaries are a few MB
INT32_MAX = np.iinfo(np.int32).max


def database_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner) -> SourceResult | None:
    """The descriptions of the ``compute`` slices of a database card; None for a card of another kind or
    a database without ``COMPUTE_TASK_INFO``."""
    reader = store.args_reader  # a database card's reader locates each slice's info row
    if not isinstance(reader, DatabaseArgs):
        return None
    table = INFO_TABLE if INFO_TABLE in reader.schema.columns else S.renamed_copy(reader.schema, INFO_TABLE)
    if table is None or not reader.schema.has(table, "opType"):
        return None
    try:
        conn = connect(reader.path)
    except (sqlite3.Error, OSError):
        return None
    try:
        result = _described(conn, store, reader, table, compute, interner)
        result.device = _device(conn, reader)
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
    return result


def _table_rows(conn: sqlite3.Connection, store: TraceStore, reader: DatabaseArgs, table: str,
                compute: np.ndarray) -> np.ndarray:
    """Each task's position among ``table``'s rows in scan order (-1: none), int32 when the table's rows allow.

    The locator gives each task's info rowid (-1: none, or a slice that is not a hardware task); the join to
    the table's rowids is a binary search, both done a chunk of tasks at a time (locating builds several
    int64 arrays per task)."""
    rowids = read_columns(conn, table, {}, with_rowid=True, narrow=("rowid",))["rowid"]
    n = len(rowids)
    row = np.full(len(compute), -1, np.int32 if n < INT32_MAX else np.int64)
    if not n:
        return row
    ascending = n < 2 or bool((rowids[1:] > rowids[:-1]).all())  # as a table scan gives them
    order = None if ascending else np.argsort(rowids, kind="stable")
    keys = rowids if order is None else rowids[order]
    for a in range(0, len(compute), LOCATE_CHUNK):
        places = reader.locator.locate(store.slices.ordinals(compute[a:a + LOCATE_CHUNK]))
        info = np.where(places.kind == S.KIND_HARDWARE, places.info, S.NO_ROW)
        del places
        pos = np.minimum(np.searchsorted(keys, info), n - 1)
        hit = (info >= 0) & (keys[pos] == info)
        row[a:a + LOCATE_CHUNK] = np.where(hit, pos if order is None else order[pos], -1)
    return row


def _gather(values: np.ndarray, row: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` filled with ``values`` at the positions ``row`` (NO_VALUE where -1), a chunk at a time; the
    values are cast to ``out``'s type as ``astype`` would."""
    for a in range(0, len(row), LOCATE_CHUNK):
        at = row[a:a + LOCATE_CHUNK]
        if len(values):
            out[a:a + LOCATE_CHUNK] = np.where(at >= 0, values[np.maximum(at, 0)], NO_VALUE).astype(out.dtype)
        else:
            out[a:a + LOCATE_CHUNK] = NO_VALUE
    return out


def _described(conn: sqlite3.Connection, store: TraceStore, reader: DatabaseArgs, table: str,
               compute: np.ndarray, interner: Interner) -> SourceResult:
    """The descriptions of the ``compute`` tasks. The table is read one column at a time (each scan is fast)
    and each gathered into the tasks' result before the next: a ten-million-row table is never held whole.
    A scan's buffers are its peak, so each result array is made only once its column is read (those of the
    columns the table lacks last)."""
    row = _table_rows(conn, store, reader, table, compute)
    n = len(row)

    def column(name: str) -> np.ndarray:
        return read_columns(conn, table, {name: "int"}, narrow=(name,))[name]

    got: dict[str, np.ndarray] = {}
    for name, target in zip(TEXT_COLUMNS, ("op_type", "shapes", "dtypes", "formats", "out_shapes"), strict=True):
        if reader.schema.has(table, name):
            values = column(name)
            if values.dtype == np.int32:  # the ids fit the result: gathered into it and turned there
                out = got[target] = _gather(values, row, np.empty(n, np.int32))
                del values
                _texts_in_place(reader, out, interner, name in SHAPE_COLUMNS)
            else:
                wide = _gather(values, row, np.empty(n, values.dtype))
                del values
                got[target] = _texts(reader, wide, interner, name in SHAPE_COLUMNS)
                del wide
    block_dim = _gather(column("blockDim"), row, np.empty(n, np.int32)) if reader.schema.has(table, "blockDim") \
        else None
    task_ids = None
    if reader.schema.has(table, "globalTaskId") and reader.schema.has(PMU_TABLE, "globalTaskId", "name", "value"):
        values = column("globalTaskId")
        task_ids = _gather(values, row, np.empty(n, values.dtype))
        del values
    result = SourceResult.empty(SOURCE_DATABASE, interner, 0)
    for target in ("op_type", "core_type", "shapes", "dtypes", "formats", "out_shapes"):
        setattr(result.found, target, got.pop(target) if target in got else np.full(n, NO_VALUE, np.int32))
    result.block_dim = block_dim if block_dim is not None else np.full(n, NO_VALUE, np.int32)
    result.described = (row >= 0) & ((result.found.op_type != NO_VALUE) | (result.found.shapes != NO_VALUE))
    del row
    if task_ids is not None:
        result.pmu = _pmu(conn, reader, task_ids, result.described)
    return result


def _text_id(reader: DatabaseArgs, db_id: int, interner: Interner, shapes: bool) -> int:
    """The ``interner`` id of one database string id (NO_VALUE for none, "" or "N/A")."""
    text = reader.strings.value(db_id) if db_id != NO_VALUE else None
    if isinstance(text, str) and shapes:
        text = shape_text(text)
    return interner.id(text if isinstance(text, str) and text != "N/A" else None)


def _texts(reader: DatabaseArgs, db_ids: np.ndarray, interner: Interner, shapes: bool) -> np.ndarray:
    """Database string ids → ids of ``interner`` (NO_VALUE for none), turning each distinct id once."""
    uniq, inverse = distinct_inverse(db_ids)
    mapped = [_text_id(reader, u, interner, shapes) for u in uniq.tolist()]
    return np.array(mapped, np.int32)[inverse] if len(uniq) else np.zeros(0, np.int32)


def _texts_in_place(reader: DatabaseArgs, ids: np.ndarray, interner: Interner, shapes: bool) -> None:
    """``ids`` (int32 database string ids, NO_VALUE for none) turned in place into ids of ``interner``, the
    distinct ids interned in ascending order as ``_texts`` does (so the interner's ids are the same)."""
    turn_distinct_in_place(ids, lambda db_id: _text_id(reader, db_id, interner, shapes))


def _device(conn: sqlite3.Connection, reader: DatabaseArgs) -> str:
    """The chip the database names (``NPU_INFO.name``: ``Ascend910B``…), "" when none."""
    if not reader.schema.has(DEVICE_TABLE, "name"):
        return ""
    for (name,) in conn.execute(f"select name from {DEVICE_TABLE}"):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return ""


def _pmu(conn: sqlite3.Connection, reader: DatabaseArgs, task_ids: np.ndarray, described: np.ndarray
         ) -> dict[str, np.ndarray]:
    """``TASK_PMU_INFO`` pivoted: per figure name a float32 column over the tasks (NaN where absent)."""
    got = read_columns(conn, PMU_TABLE, {"globalTaskId": "int", "name": "int", "value": "real"},
                       narrow=("globalTaskId", "name"))
    if not len(got["globalTaskId"]):
        return {}
    mine = np.flatnonzero(described & (task_ids != NO_VALUE))
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
    for k, name_id in enumerate(names.tolist()):
        name = reader.strings.value(name_id)
        if not isinstance(name, str):
            continue
        column = np.full(len(task_ids), np.nan, np.float32)
        here = inverse.reshape(-1) == k
        column[tasks[here]] = values[here]
        out[name] = column
    return out
