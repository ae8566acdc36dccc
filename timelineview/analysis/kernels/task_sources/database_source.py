"""Operator descriptions of a profiler database's compute tasks, from the columns the database reader gives
(``model.database.compute_info``: the info table's string ids per task, the PMU figures, the chip).

Memory: a card's compute tasks number in the millions; the reader's string-id columns are turned into ids of
the card's interner in place (a lookup table over the ids' range), so the result holds no second copy.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.kernels.dense_ids import distinct_inverse, turn_distinct_in_place
from timelineview.analysis.kernels.table import NO_VALUE, SOURCE_DATABASE, Interner
from timelineview.analysis.kernels.task_sources.source_result import SourceResult, no_values, shape_text
from timelineview.model.database.compute_info import ComputeTaskColumns, compute_task_columns, compute_task_pmu
from timelineview.model.store.trace_store import TraceStore

SHAPE_TARGETS = ("shapes", "out_shapes")  # texts written with quotes around them
TEXT_TARGETS = ("op_type", "shapes", "dtypes", "formats", "out_shapes")  # turned in this order: the interner's ids
NOT_GIVEN = "N/A"  # what a level0 database writes for a text it does not give


def database_descriptions(store: TraceStore, compute: np.ndarray, interner: Interner) -> SourceResult | None:
    """The descriptions of the ``compute`` slices of a database card; None for a card of another kind or
    a database without ``COMPUTE_TASK_INFO``."""
    columns = compute_task_columns(store, compute)
    if columns is None:
        return None
    n = len(compute)
    for target in TEXT_TARGETS:
        ids = getattr(columns, target)
        if ids is None:
            continue
        shapes = target in SHAPE_TARGETS
        if ids.dtype == np.int32:  # the ids fit the result: turned where they are
            turn_distinct_in_place(ids, lambda db_id, shapes=shapes: _text_id(columns, db_id, interner, shapes))
        else:
            setattr(columns, target, _texts(columns, ids, interner, shapes))
        del ids
    result = SourceResult.empty(SOURCE_DATABASE, interner, 0)
    for target in ("op_type", "core_type", "shapes", "dtypes", "formats", "out_shapes"):
        got = getattr(columns, target, None)
        # a column the table lacks is NO_VALUE throughout: a read-only view of one value, no bytes per task
        setattr(result.found, target, got if got is not None else no_values(n))
        if got is not None:
            setattr(columns, target, None)  # the result owns it now
    result.block_dim = columns.block_dim if columns.block_dim is not None else np.full(n, NO_VALUE, np.int32)
    result.described = columns.has_row & ((result.found.op_type != NO_VALUE) | (result.found.shapes != NO_VALUE))
    result.pmu = compute_task_pmu(columns, result.described)
    result.device = columns.device
    return result


def _text_id(columns: ComputeTaskColumns, db_id: int, interner: Interner, shapes: bool) -> int:
    """The ``interner`` id of one database string id (NO_VALUE for none, "" or "N/A")."""
    text = columns.text(db_id)
    if isinstance(text, str) and shapes:
        text = shape_text(text)
    return interner.id(text if isinstance(text, str) and text != NOT_GIVEN else None)


def _texts(columns: ComputeTaskColumns, db_ids: np.ndarray, interner: Interner, shapes: bool) -> np.ndarray:
    """Database string ids → ids of ``interner`` (NO_VALUE for none), turning each distinct id once."""
    uniq, inverse = distinct_inverse(db_ids)
    mapped = [_text_id(columns, u, interner, shapes) for u in uniq.tolist()]
    return np.array(mapped, np.int32)[inverse] if len(uniq) else np.zeros(0, np.int32)
