"""The task-type table of metrics.md §1, as data: what each hardware task type is.

Only ``compute`` counts as AI Core / AI Vector / AI CPU work. The other kinds document
what the rest of a hardware stream holds; they are never counted as compute. Add new
producer task types here and nowhere else. Lookups are case-insensitive.
"""

from __future__ import annotations

COMPUTE = "compute"
SYNC = "sync"  # notify / event / barrier tasks
MEMORY = "memory"  # copies and DMA
REDUCE = "reduce"  # on-chip reduction done by the copy engines for collectives
OTHER = "other"

TASK_TYPE_KIND: dict[str, str] = {
    # compute units
    "AI_CORE": COMPUTE,
    "AI_VECTOR_CORE": COMPUTE,
    "AIV": COMPUTE,
    "MIX_AIC": COMPUTE,
    "MIX_AIV": COMPUTE,
    "AI_CPU": COMPUTE,
    "FFTS_PLUS": COMPUTE,
    "DSA_SQE": COMPUTE,
    "OTHER": COMPUTE,  # older CANN writes operator kernels as "Other"
    # synchronisation
    "NOTIFY_WAIT": SYNC,
    "NOTIFY_RECORD": SYNC,
    "NOTIFY WAIT": SYNC,
    "NOTIFY RECORD": SYNC,
    "EVENT_RECORD": SYNC,
    "EVENT_WAIT": SYNC,
    "EVENT_RESET": SYNC,
    "EVENT_RECORD_SQE": SYNC,
    "EVENT_WAIT_SQE": SYNC,
    "WRITE VALUE": SYNC,
    "WRITE_VALUE": SYNC,
    "PLACE_HOLDER_SQE": SYNC,
    # data movement
    "SDMA": MEMORY,
    "SDMA_SQE": MEMORY,
    "MEMCPY_ASYNC": MEMORY,
    "MEMCPY_ASYNC_V2": MEMORY,
    "PCIE_DMA_SQE": MEMORY,
    # collective helpers on the copy engines
    "REDUCE_ASYNC": REDUCE,
    "REDUCE_ASYNC_V2": REDUCE,
    "REDUCE_INLINE": REDUCE,
}


# Names of runtime and collective tasks on the hardware streams (metrics.md §1). Some CANN 7 /
# torch_npu 2024 traces type *every* hardware task ``Other``, so for them the name is the only
# witness; such a name is never compute, whatever its Task Type. ``Other`` alone is the placeholder
# those traces give tasks without an operator name. Compared after ``_name_key`` folding.
RUNTIME_TASK_NAMES: frozenset[str] = frozenset({
    "OTHER",
    "MEMCOPYASYNC",  # torch_npu's spelling, typed "other"
    "MEMCPY",
    "MEMCPYASYNC",
    "RDMASEND",
    "STREAMWAITEVENT",
})


def _name_key(text: str) -> str:
    """Upper case without spaces and underscores: ``Notify Wait`` = ``NOTIFY_WAIT`` = ``Notify_Wait``."""
    return text.strip().upper().replace(" ", "").replace("_", "")


_NON_COMPUTE_TYPE_KEYS = frozenset(_name_key(t) for t, kind in TASK_TYPE_KIND.items() if kind != COMPUTE)


def is_runtime_task_name(name: str) -> bool:
    """Is a hardware task of this *name* a runtime or communication task (never compute)?"""
    key = _name_key(name)
    return key in RUNTIME_TASK_NAMES or key in _NON_COMPUTE_TYPE_KEYS


def task_kind(task_type: str) -> str:
    """Kind of a task type; unknown types are ``other`` (never compute)."""
    return TASK_TYPE_KIND.get(task_type.strip().upper(), OTHER)


def is_compute_task_type(task_type: str) -> bool:
    return task_kind(task_type) == COMPUTE


def is_known_task_type(task_type: str) -> bool:
    return task_type.strip().upper() in TASK_TYPE_KIND
