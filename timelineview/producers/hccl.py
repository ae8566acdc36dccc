"""HCCL's spellings (metrics.md §6): the ``Plane N`` threads of the ``HCCL`` / ``Communication`` process,
the ``args`` of their per-link tasks, the wait and copy task names, transports and link types, as CANN
writes them for msprof, torch_npu and MindSpore ≥ 2.2. Add producer spellings here and nowhere else."""

from __future__ import annotations

import re

# A rank field holding this value names no rank (an on-chip reduce, a local notify).
INVALID_RANK = 4294967295

# Keys of a plane task's ``args`` (docs/trace-format.md §3.2).
ARG_TASK_TYPE = "task type"
ARG_SRC_RANK = "src rank"
ARG_DST_RANK = "dst rank"
ARG_TRANSPORT = "transport type"
ARG_LINK_TYPE = "link type"
ARG_SIZE = "size(Byte)"
ARG_BANDWIDTH = "bandwidth(GB/s)"
ARG_NOTIFY_ID = "notify_id"
ARG_DURATION_ESTIMATED = "duration estimated(us)"
ARG_STREAM_ID = "stream id"
ARG_TASK_ID = "task id"
ARG_CONTEXT_ID = "context id"
ARG_DATA_TYPE = "data type"
ARG_RDMA_TYPE = "rdma type"
ARG_MODEL_ID = "model id"  # also a key of an operator's args
ARG_GROUP_NAME = "group name"
ARG_OPERATOR = "operator"

# Keys of a collective operator's ``args`` (its connection id's key is cann_tasks.CONNECTION_ID_ARG)
OP_ARG_DATA_TYPE = "data_type"
OP_ARG_ALG_TYPE = "alg_type"
OP_ARG_COUNT = "count"
OP_ARG_OP_TYPE = "op_type"
OP_ARG_RELAY = "relay"
OP_ARG_RETRY = "retry"
OP_ARG_GROUP_NAME = "group_name"
OP_ARG_OP_ID = "op_id"
OP_ARG_WAIT_NS = "wait_ns"

# Plane tasks' names as written (WAIT_TASKS and COPY_TASKS below hold them normalised)
NOTIFY_RECORD_TASK = "Notify_Record"
NOTIFY_WAIT_TASK = "Notify_Wait"
REDUCE_INLINE_TASK = "Reduce_Inline"
MEMCPY_TASK = "Memcpy"
# HCCL's collective operators are named hcom_<collective>_… (torch_npu, msprof)
OPERATOR_PREFIX = "hcom_"
# ENUM_API_TYPE's name of HCCL's host calls in the profiler databases
DATABASE_API_TYPE = "hccl"

# Wait tasks: a plane task whose name or task type is one of these (normalised by ``task_key``).
WAIT_TASKS = frozenset({"notify wait"})
# Copy tasks: the SDMA tasks that move a collective's data (the producer's transit tasks).
COPY_TASKS = frozenset({"memcpy", "reduce inline"})

# Transport types (``transport type``) and what they carry.
TRANSPORT_SDMA = "SDMA"  # copy engine, within a node (HCCS, PCIe, SIO)
TRANSPORT_RDMA = "RDMA"  # network, across nodes (RoCE)
TRANSPORT_LOCAL = "LOCAL"  # on the card itself (notifies)
UNKNOWN = ""  # a missing or non-text transport / link type
NOT_APPLICABLE, INVALID_TYPE = "N/A", "INVALID_TYPE"  # as written where a task has no transport / link type
# What names no transport: a task moving bytes over none of them is in no link (its bandwidth would be
# a link's that does not exist; the producer's matrix leaves it out).
NO_TRANSPORT = frozenset({UNKNOWN, NOT_APPLICABLE, INVALID_TYPE})
LINK_ON_CHIP = "ON_CHIP"  # link type of a copy that stays on the chip (a local reduce or copy)

# Plane threads: "Plane 0" .. "Plane 7" (any number).
PLANE_LANE = re.compile(r"^plane\s*\d+$", re.IGNORECASE)
PLANE_LANE_NAME = "Plane {}"  # as written, by plane number

# Link types (``link type``) of the usual transports
LINK_HCCS = "HCCS"  # the chips' own interconnect
LINK_PCIE = "PCIE"
LINK_SIO = "SIO"
LINK_ROCE = "ROCE"  # RDMA over converged Ethernet, across nodes
