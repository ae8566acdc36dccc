"""The tables of metrics.md §7.1: ``kernels`` (one row per compute task with its description), and ``op_types``
/ ``op_shapes`` (the card documents' ``kernels.by_op_type`` and ``kernels.by_shape``)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.vocabulary import quantity
from timelineview.api.document_tables import CARD as DOCUMENT_CARD
from timelineview.api.document_tables import declared, document_spec, per_card
from timelineview.api.extras import require
from timelineview.api.schema import DICT, INT32, INT64, STRING, Column, TableSource, TableSpec
from timelineview.api.store_tables import card_columns, dictionary

# the group figures of metrics.md §7.1 (those of §7 per op type), defined by the vocabulary
_ROW_STATS = (Column("op_type", STRING, "the producer's operator type (op_statistic.csv's OP Type)"),
              Column("core_type", STRING, "the unit its tasks run on (by shape: the units seen, joined by /)"),
              declared("count", INT64), *(declared(k) for k in ("total_us", "min_us", "mean_us", "max_us", "share")),
              declared("flops"), declared("tflops"), declared("mfu"))

OP_TYPES = document_spec("op_types", "one row per (op type, core type) of each card (metrics.md §7.1)",
                         (*DOCUMENT_CARD, *_ROW_STATS), per_card(lambda c: (c.get("kernels") or {}).get("by_op_type")))
OP_SHAPES = document_spec("op_shapes", "one row per (op type, input shapes) of each card, the top 50 (metrics.md §7.1)",
                          (*DOCUMENT_CARD, *_ROW_STATS[:2],
                           Column("input_shapes", STRING, "the shapes of its inputs, ';' between inputs"),
                           Column("input_data_types", STRING, "the data types of its first task's inputs"),
                           *_ROW_STATS[2:], declared("p50_us"), declared("p90_us")),
                          per_card(lambda c: (c.get("kernels") or {}).get("by_shape")))

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
