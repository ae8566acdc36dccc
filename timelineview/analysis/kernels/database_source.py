"""Operator descriptions of a profiler database's compute tasks: ``COMPUTE_TASK_INFO`` (+ ``TASK_PMU_INFO``).

The card keeps, per slice, the rowid of its ``COMPUTE_TASK_INFO`` row (for its lazy args); this reads that
table's description columns once, as integer string ids, and turns only the distinct ids into text.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from timelineview.analysis.kernels.dense_ids import distinct_inverse
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
LOCATE_CHUNK = 1 << 20  # tasks located at once


def database_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner) -> SourceResult | None:
    """The descriptions of the ``compute`` slices of a database card; None for a card of another kind or
    a database without ``COMPUTE_TASK_INFO``."""
    reader = store.args_reader  # a database card's reader locates each slice's info row
    if not isinstance(reader, DatabaseArgs):
        return None
    table = INFO_TABLE if INFO_TABLE in reader.schema.columns else S.renamed_copy(reader.schema, INFO_TABLE)
    if table is None or not reader.schema.has(table, "opType"):
        return None
    info = _info_rows(store, reader, compute)
    try:
        conn = connect(reader.path)
    except (sqlite3.Error, OSError):
        return None
    try:
        result = _described(conn, reader, table, info, interner)
        result.device = _device(conn, reader)
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
    return result


def _info_rows(store: TraceStore, reader: DatabaseArgs, compute: np.ndarray) -> np.ndarray:
    """Each task's ``COMPUTE_TASK_INFO`` rowid (-1: none), located a chunk of tasks at a time (locating
    builds several arrays per task: the stage's peak)."""
    info = np.full(len(compute), S.NO_ROW, np.int64)
    for a in range(0, len(compute), LOCATE_CHUNK):
        places = reader.locator.locate(store.slices.ordinals(compute[a:a + LOCATE_CHUNK]))
        info[a:a + LOCATE_CHUNK] = np.where(places.kind == S.KIND_HARDWARE, places.info, S.NO_ROW)
    return info


def _column_at(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values`` at the rows ``at`` (NO_VALUE where -1)."""
    return np.where(at >= 0, values[np.maximum(at, 0)], NO_VALUE) if len(values) else np.full(len(at), NO_VALUE)


def _described(conn: sqlite3.Connection, reader: DatabaseArgs, table: str, info: np.ndarray,
               interner: Interner) -> SourceResult:
    """The descriptions of the tasks whose info rows are ``info`` (-1: none). The table is read one column at
    a time (each scan is fast) and each turned into the tasks' ids before the next: a ten-million-row table
    is never held whole."""
    rowids = read_columns(conn, table, {}, with_rowid=True, narrow=("rowid",))["rowid"]
    ascending = len(rowids) < 2 or bool((rowids[1:] > rowids[:-1]).all())  # as a table scan gives them
    order = np.arange(len(rowids)) if ascending else np.argsort(rowids, kind="stable")
    pos = np.minimum(np.searchsorted(rowids[order], info), max(len(rowids) - 1, 0))
    if len(rowids):
        hit = (info >= 0) & (rowids[order][pos] == info)
        row = np.where(hit, order[pos], -1).astype(np.int32 if len(rowids) < 2**31 else np.int64)
    else:
        hit, row = np.zeros(len(info), bool), np.full(len(info), -1, np.int64)
    del rowids, order, pos

    def column(name: str) -> np.ndarray:
        values = read_columns(conn, table, {name: "int"}, narrow=(name,))[name]
        return _column_at(values, row)

    result = SourceResult.empty(SOURCE_DATABASE, interner, len(info))
    for name, target in zip(TEXT_COLUMNS, ("op_type", "shapes", "dtypes", "formats", "out_shapes"), strict=True):
        if reader.schema.has(table, name):
            setattr(result.found, target, _texts(reader, column(name), interner, name in SHAPE_COLUMNS))
    result.described = hit & ((result.found.op_type != NO_VALUE) | (result.found.shapes != NO_VALUE))
    if reader.schema.has(table, "blockDim"):
        result.block_dim = column("blockDim").astype(np.int32)
    if reader.schema.has(table, "globalTaskId") and reader.schema.has(PMU_TABLE, "globalTaskId", "name", "value"):
        result.pmu = _pmu(conn, reader, column("globalTaskId"), result.described)
    return result


def _texts(reader: DatabaseArgs, db_ids: np.ndarray, interner: Interner, shapes: bool) -> np.ndarray:
    """Database string ids → ids of ``interner`` (NO_VALUE for none), turning each distinct id once."""
    uniq, inverse = distinct_inverse(db_ids)
    mapped = []
    for u in uniq.tolist():
        text = reader.strings.value(u) if u != NO_VALUE else None
        if isinstance(text, str) and shapes:
            text = shape_text(text)
        mapped.append(interner.id(text if isinstance(text, str) and text != "N/A" else None))
    return np.array(mapped, np.int32)[inverse] if len(uniq) else np.zeros(0, np.int32)


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
    got = read_columns(conn, PMU_TABLE, {"globalTaskId": "int", "name": "int", "value": "real"})
    if not len(got["globalTaskId"]):
        return {}
    mine = np.flatnonzero(described & (task_ids != NO_VALUE))
    order = mine[np.argsort(task_ids[mine], kind="stable")]
    sorted_ids = task_ids[order]
    pos = np.minimum(np.searchsorted(sorted_ids, got["globalTaskId"]), max(len(order) - 1, 0))
    hit = (sorted_ids[pos] == got["globalTaskId"]) if len(order) else np.zeros(len(pos), bool)
    out: dict[str, np.ndarray] = {}
    names, inverse = np.unique(got["name"][hit], return_inverse=True)
    tasks, values = order[pos[hit]], got["value"][hit]
    for k, name_id in enumerate(names.tolist()):
        name = reader.strings.value(name_id)
        if not isinstance(name, str):
            continue
        column = np.full(len(task_ids), np.nan, np.float32)
        here = inverse.reshape(-1) == k
        column[tasks[here]] = values[here]
        out[name] = column
    return out
