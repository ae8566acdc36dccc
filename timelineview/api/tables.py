"""Every table of the API and of ``timelineview query``, registered in one place, in the order
``--tables`` lists them. A new analysis registers its table here (or calls ``schema.register``); the table of
a declared per-card result (``analysis/card_results``) is derived from its declaration, after these."""

from __future__ import annotations

from timelineview.analysis.card_results.declaration import CardResult
from timelineview.analysis.card_results.registry import when_declared
from timelineview.api import document_tables as doc
from timelineview.api import kernel_tables as kernels
from timelineview.api import store_tables as store
from timelineview.api.result_tables import result_table
from timelineview.api.schema import TABLES, TableSpec, register

for _spec in (store.SLICES, store.COUNTERS, store.FLOWS, store.INSTANTS,
              doc.CARDS, doc.STEPS, doc.OPERATORS, doc.TASK_TYPES, doc.COMM_OPS, doc.COMM_BANDWIDTH, doc.COMM_PACKETS,
              doc.LINKS, doc.LOCAL_LINKS, doc.FINDINGS,
              doc.MEMORY, doc.ALLOCATIONS, kernels.KERNELS):
    register(_spec)


def _declared(result: CardResult) -> None:
    if result.table is not None:
        register(result_table(result))


def _withdrawn(result: CardResult) -> None:
    if result.table is not None:
        TABLES.pop(result.table, None)


when_declared(_declared, _withdrawn)

__all__ = ["TABLES", "TableSpec", "register"]
