"""Every table of the API and of ``timelineview query``, registered in one place, in the order
``--tables`` lists them. A new analysis registers its table here (or calls ``schema.register``)."""

from __future__ import annotations

from timelineview.api import document_tables as doc
from timelineview.api import kernel_tables as kernels
from timelineview.api import store_tables as store
from timelineview.api.schema import TABLES, TableSpec, register

for _spec in (store.SLICES, store.COUNTERS, store.FLOWS, store.INSTANTS,
              doc.CARDS, doc.STEPS, doc.OPERATORS, doc.TASK_TYPES, doc.COMM_OPS, doc.COMM_BANDWIDTH, doc.COMM_PACKETS,
              doc.LINKS, doc.LOCAL_LINKS, doc.FINDINGS,
              doc.MEMORY, doc.ALLOCATIONS, kernels.KERNELS, kernels.OP_TYPES, kernels.OP_SHAPES):
    register(_spec)

__all__ = ["TABLES", "TableSpec", "register"]
