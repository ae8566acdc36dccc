"""The ``kernels`` table of metrics.md §7.1: one row per compute task with its description. (``op_types`` and
``op_shapes``, the card documents' ``kernels.by_op_type`` and ``kernels.by_shape``, are the tables of declared
results: ``analysis/kernels/declared_results``.)"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.vocabulary import quantity
from timelineview.api.document_tables import declared
from timelineview.api.extras import require
from timelineview.api.schema import DICT, INT32, INT64, Column, TableSource, TableSpec
from timelineview.api.store_tables import card_columns, dictionary

KERNEL_COLUMNS = (
    Column("card", DICT, "the card's name"), Column("rank", INT32, quantity("rank").tooltip),
    Column("id", INT64, "the task's slice: (card, id) joins the slices table"),
    Column("op_type", DICT, "its operator type"), Column("core_type", DICT, "the unit it ran on"),
    Column("input_shapes", DICT, "the shapes of its inputs; null when the source gives none"),
    Column("input_data_types", DICT, "the data types of its inputs"),
    Column("input_formats", DICT, "the formats of its inputs"),
    Column("block_dim", INT32, "the blocks it was launched with; null when unknown"),
    declared("flops"),
    Column("source", DICT, "where its card's descriptions came from (metrics.md §7.1)"))


def _kernels(spec: TableSpec, source: TableSource):
    from timelineview.analysis.classify import classify
    from timelineview.analysis.kernels import card_kernels

    pa = require("pyarrow")
    schema = spec.arrow_schema()
    parts = []
    for i in source.order:
        store = source.stores[i]
        table = card_kernels(store, classify(store))
        g, n = table.groups, len(table)
        flops = g.flops[table.group] if n else np.zeros(0)
        parts.append(pa.Table.from_arrays([
            *card_columns(store, n), pa.array(table.slices),
            *(_per_task_text(table, ids) for ids in (g.op_type, g.core_type, g.shapes, g.dtypes, g.formats)),
            pa.array(table.block_dim, mask=table.block_dim < 0),
            pa.array(flops, mask=np.isnan(flops)), dictionary(np.zeros(n, np.int32), [table.source])],
            schema=schema))
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _per_task_text(table, group_ids: np.ndarray):
    """A dictionary column of the tasks' texts from their groups' string ids (null where none)."""
    per_task = group_ids[table.group] if len(table) else np.zeros(0, np.int32)
    return dictionary(per_task, table.groups.strings or [""], absent=per_task < 0)


KERNELS = TableSpec("kernels", "one row per compute task of each card, described as metrics.md §7.1 says",
                    KERNEL_COLUMNS, lambda source: _kernels(KERNELS, source))
