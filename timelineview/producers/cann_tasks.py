"""CANN's hardware task types (the ``Task Type`` of the Ascend Hardware process's tasks, metrics.md §1)
and the names of its runtime and collective tasks: what msprof, torch_npu and MindSpore ≥ 2.2 write
through CANN. Add new task types here and nowhere else; lookups (``analysis.task_types``) ignore case.
"""

from __future__ import annotations

from timelineview.producers.hccl import DATABASE_API_TYPE as HCCL_API_TYPE

COMPUTE = "compute"
SYNC = "sync"  # notify / event / barrier tasks
MEMORY = "memory"  # copies and DMA
REDUCE = "reduce"  # on-chip reduction done by the copy engines for collectives
OTHER = "other"

# The args key under which a hardware task carries its task type (msprof, torch_npu, MindSpore traces)
TASK_TYPE_ARG = "Task Type"
# The other args keys of a hardware task, as CANN 8 writes them (torch_npu, msprof)
MODEL_ID_ARG = "Model Id"
STREAM_ID_ARG = "Physic Stream Id"
TASK_ID_ARG = "Task Id"
BATCH_ID_ARG = "Batch Id"
SUBTASK_ID_ARG = "Subtask Id"
CONNECTION_ID_ARG = "connection_id"  # the id that pairs a task with the CANN call (or HCCL operator) behind it
DATA_SIZE_ARG = "data size(Byte)"  # a copy task's bytes
COPY_DIRECTION_ARG = "memcpy direction"
# and as older msprof's per-iteration task_time files write them
LEGACY_STREAM_ID_ARG = "Stream Id"
AICORE_TIME_ARG = "Aicore Time(ms)"
TOTAL_CYCLE_ARG = "Total Cycle"
# The args keys of CANN's host calls (the CANN process's slices)
THREAD_ID_ARG = "Thread Id"
MODE_ARG = "Mode"
LEVEL_ARG = "level"
CALL_ID_ARG = "id"  # the call's name without its prefix
ITEM_ID_ARG = "item_id"
MODEL_NAME_ARG = "Model Name"  # of a graph's run (GE@…), beside MODEL_ID_ARG

# Task types as CANN spells them (the keys below; a lookup folds case)
AI_CORE = "AI_CORE"
MIX_AIV = "MIX_AIV"
AI_CPU = "AI_CPU"
NOTIFY_WAIT = "NOTIFY_WAIT"
NOTIFY_RECORD = "NOTIFY_RECORD"
EVENT_RECORD = "EVENT_RECORD"
EVENT_WAIT = "EVENT_WAIT"
EVENT_RESET = "EVENT_RESET"
EVENT_RECORD_SQE = "EVENT_RECORD_SQE"
EVENT_WAIT_SQE = "EVENT_WAIT_SQE"
PLACE_HOLDER_SQE = "PLACE_HOLDER_SQE"
SDMA = "SDMA"
SDMA_SQE = "SDMA_SQE"
MEMCPY_ASYNC = "MEMCPY_ASYNC"
PCIE_DMA_SQE = "PCIE_DMA_SQE"
REDUCE_ASYNC_V2 = "REDUCE_ASYNC_V2"

TASK_TYPE_KIND: dict[str, str] = {
    # compute units
    AI_CORE: COMPUTE,
    "AI_VECTOR_CORE": COMPUTE,
    "AIV": COMPUTE,
    "MIX_AIC": COMPUTE,
    MIX_AIV: COMPUTE,
    AI_CPU: COMPUTE,
    "FFTS_PLUS": COMPUTE,
    "DSA_SQE": COMPUTE,
    "OTHER": COMPUTE,  # older CANN writes operator kernels as "Other"
    # synchronisation
    NOTIFY_WAIT: SYNC,
    NOTIFY_RECORD: SYNC,
    "NOTIFY WAIT": SYNC,
    "NOTIFY RECORD": SYNC,
    EVENT_RECORD: SYNC,
    EVENT_WAIT: SYNC,
    EVENT_RESET: SYNC,
    EVENT_RECORD_SQE: SYNC,
    EVENT_WAIT_SQE: SYNC,
    "WRITE VALUE": SYNC,
    "WRITE_VALUE": SYNC,
    PLACE_HOLDER_SQE: SYNC,
    # data movement
    SDMA: MEMORY,
    SDMA_SQE: MEMORY,
    MEMCPY_ASYNC: MEMORY,
    "MEMCPY_ASYNC_V2": MEMORY,
    PCIE_DMA_SQE: MEMORY,
    # collective helpers on the copy engines
    "REDUCE_ASYNC": REDUCE,
    REDUCE_ASYNC_V2: REDUCE,
    "REDUCE_INLINE": REDUCE,
}

# Task types whose operator spreads over the chip's cores (its block dim against their count)
CORE_SPREAD_TASK_TYPES = (AI_CORE, "AI_VECTOR_CORE", "AIV", "AIC", "MIX_AIC", MIX_AIV)
# Task types that run on the vector cores alone, and those that count the vector cores as theirs
VECTOR_TASK_TYPES = ("AI_VECTOR_CORE", "AIV")
VECTOR_CORE_TASK_TYPES = (*VECTOR_TASK_TYPES, MIX_AIV)


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

# How the producers write some of these when writing (the lookups above fold case and spaces; the
# synthetic traces write them as the producers do)
NOTIFY_WAIT_TASK = "Notify Wait"  # CANN 8 msprof's name and task type of a notify wait
WRITE_VALUE_TASK = "Write Value"  # CANN 8 msprof's name and task type of a notify record
OTHER_TASK = "Other"  # the task type, and placeholder name, of CANN 7 / torch_npu 2024 traces that type all "Other"
COPY_OTHER_TYPE = "other"  # the task type those traces give torch_npu's copies (MEMCOPY_ASYNC_TASK)
MEMCOPY_ASYNC_TASK = "MemcopyAsync"  # torch_npu's spelling of a copy task's name

# CANN's host API calls (the CANN process's slices) are named <prefix><call>, the prefix by the kind of call
# (keyed by the profiler database's ENUM_API_TYPE names)
API_PREFIX = {"acl": "AscendCL@", "runtime": "Runtime@", "node": "Node@", "model": "Model@",
              HCCL_API_TYPE: "Communication@", "mstx": "MsTx@"}
ACL_PREFIX = API_PREFIX["acl"]  # AscendCL's calls: aclnn operators, copies, synchronisations
# The flow from a CANN call to the device task it queued: its category, and its name by connection id
HOST_TO_DEVICE_FLOW = "HostToDevice"
HOST_TO_DEVICE_FLOW_NAME = HOST_TO_DEVICE_FLOW + "{}"
