"""The per-card results of metrics.md §7.1, declared once: the table by op type, the table by shape (its top
rows) and the FLOPs and MFU of each step. Their stages, kept encodings, places in the card's ``kernels`` object,
JSON-schema fragments and SQL tables (``op_types``, ``op_shapes``) are derived from these declarations."""

from __future__ import annotations

from typing import Any

from timelineview.analysis.card_results.declaration import INTEGER, TEXT, CardResult, ResultColumn, SharedInput
from timelineview.analysis.kernels.card_tables import CardKernelTables, card_kernel_tables
from timelineview.analysis.kernels.document import TOP_SHAPES, card_peak, kernel_records, step_kernel_rows
from timelineview.model.store.trace_store import TraceStore

OP_TYPE = ResultColumn("op_type", TEXT, doc="the producer's operator type (op_statistic.csv's OP Type)")
CORE_TYPE = ResultColumn("core_type", TEXT, doc="the unit its tasks run on (by shape: the units seen, joined by /)")
INPUT_SHAPES = ResultColumn("input_shapes", TEXT, doc="the shapes of its inputs, ';' between inputs")
INPUT_DATA_TYPES = ResultColumn("input_data_types", TEXT, doc="the data types of its first task's inputs")
COUNT = ResultColumn("count", INTEGER)
TIMES = tuple(ResultColumn(k) for k in ("total_us", "min_us", "mean_us", "max_us"))
PERCENTILES = (ResultColumn("p50_us"), ResultColumn("p90_us"))
FIGURES = (ResultColumn("share"), ResultColumn("flops", nullable=True), ResultColumn("tflops", nullable=True),
           ResultColumn("mfu", nullable=True))


# both tables from one pass over the tasks, made once per card analysis by whichever result comes first
KERNEL_TABLES = SharedInput("kernel_tables", lambda store, a: card_kernel_tables(store, a.kernels), ("kernels",))


def _records(store: TraceStore, a: Any, by_shape: bool) -> list[dict]:
    tables: CardKernelTables = a.inputs[KERNEL_TABLES.name]
    return kernel_records(tables.by_shape if by_shape else tables.by_op_type, card_peak(a.kernels), by_shape,
                          TOP_SHAPES if by_shape else None)


BY_OP_TYPE = CardResult(
    "kernels_by_op_type", lambda store, a: _records(store, a, by_shape=False), ("kernels",),
    (OP_TYPE, CORE_TYPE, COUNT, *TIMES, *FIGURES), section=("kernels", "by_op_type"),
    table="op_types", table_doc="one row per (op type, core type) of each card (metrics.md §7.1)",
    inputs=(KERNEL_TABLES,))

BY_SHAPE = CardResult(
    "kernels_by_shape", lambda store, a: _records(store, a, by_shape=True), ("kernels",),
    (OP_TYPE, CORE_TYPE, INPUT_SHAPES, INPUT_DATA_TYPES, COUNT, *TIMES, *PERCENTILES, *FIGURES),
    section=("kernels", "by_shape"), table="op_shapes",
    table_doc=f"one row per (op type, input shapes) of each card, the top {TOP_SHAPES} (metrics.md §7.1)",
    table_order=("op_type", "core_type", "input_shapes", "input_data_types", "count", "total_us", "min_us",
                 "mean_us", "max_us", "share", "flops", "tflops", "mfu", "p50_us", "p90_us"),
    inputs=(KERNEL_TABLES,))

STEP_FLOPS = CardResult(
    "kernels_steps", lambda store, a: step_kernel_rows(store, a.kernels, a.steps, card_peak(a.kernels)),
    ("kernels", "steps"),
    (ResultColumn("step", INTEGER), ResultColumn("flops"), ResultColumn("tflops", nullable=True),
     ResultColumn("mfu", nullable=True)),
    section=("kernels", "steps"))

KERNEL_RESULTS = (BY_OP_TYPE, BY_SHAPE, STEP_FLOPS)
