"""How the producer's JSON generation names what the database holds (trace-format.md §4.7, §8).

Data, not code: process names and sort indexes as torch_npu 2025 writes them, the prefixes of
host API names by ``ENUM_API_TYPE`` name, the categories of framework ranges, the Overlap
Analysis lanes by ``OVERLAP_ANALYSIS.type``, the args keys of each kind of slice, the columns
that hold string ids or enumerations, and the counters.
"""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.producers import ascend, ascend_lanes, cann_tasks, hccl, torch_npu

# processes: (name, label, sort index) as torch_npu 2025's trace_view.json has them
PYTHON = (torch_npu.PYTHON_PROCESS, "CPU", 0)
CANN = (ascend.CANN_PROCESS, "CPU", 7)
HARDWARE = (ascend.HARDWARE_PROCESS, "NPU", 13)
AICORE_FREQ = (ascend.FREQUENCY_PROCESS, "NPU", 14)
HCCL = (ascend.COMMUNICATION_PROCESS, "NPU", 15)
HBM = (ascend.HBM_PROCESS, "NPU", 17)
LLC = (ascend.LLC_PROCESS, "NPU", 18)
NPU_MEM = (ascend.MEMORY_PROCESS, "NPU", 19)
SOC = (ascend.SOC_PROCESS, "NPU", 20)
ACC_PMU = (ascend.ACC_PMU_PROCESS, "NPU", 21)
OVERLAP = (ascend.OVERLAP_PROCESS, "NPU", 23)

STREAM_LANE = ascend_lanes.STREAM_LANE
THREAD_LANE = ascend_lanes.THREAD_LANE
GROUP_LANE = ascend_lanes.GROUP_LANE
PLANE_LANE = hccl.PLANE_LANE_NAME
STEPS_LANE = "Steps"  # framework steps from STEP_TIME when no host range names them
PROFILER_STEP = torch_npu.STEP_MARKER_NAME

# OVERLAP_ANALYSIS.type -> the lane (and slice) name of the JSON's Overlap Analysis process
OVERLAP_LANES = dict(enumerate(ascend_lanes.OVERLAP_LANES))

# CANN_API.type, by its ENUM_API_TYPE name -> the prefix the JSON's CANN names carry
API_PREFIX = cann_tasks.API_PREFIX
# PYTORCH_API.type, by its ENUM_API_TYPE name -> the JSON's category of the range
FRAMEWORK_CAT = {"op": torch_npu.FRAMEWORK_OPERATOR, "queue": "queue", "trace": torch_npu.PYTHON_FUNCTION_CATEGORY,
                 "mstx": "mstx"}
QUEUE_CATS = {cat: cat for cat in torch_npu.QUEUE_CATEGORIES}  # queue ranges are named Enqueue@… / Dequeue@…

# a kernel's Task Type, from COMPUTE_TASK_INFO.taskType; when that says nothing (level0 captures
# write "N/A"), from TASK.taskType, spelt as the JSON spells the kernel's unit
NO_TASK_TYPE = ("N/A", "INVALID_TYPE", "")
KERNEL_TASK_TYPE = {"KERNEL_AICORE": "AI_CORE", "KERNEL_AIVEC": "AI_VECTOR_CORE", "KERNEL_AICPU": "AI_CPU",
                    "KERNEL_MIX_AIC": "MIX_AIC", "KERNEL_MIX_AIV": "MIX_AIV", "STARS_COMMON": "DSA_SQE"}

# TASK.taskType of a kernel on a compute unit, as TASK spells it or as the JSON does: such a task is
# an operator's only through its COMPUTE_TASK_INFO row (its name, its type); without one it is drawn
# untyped, named by its unit, and is no operator's compute (the producer's Computing leaves it out)
COMPUTE_UNIT_TYPES = ("AI_CORE", "AI_VECTOR_CORE", "AI_CPU", "MIX_AIC", "MIX_AIV", "FFTS_PLUS", "DSA_SQE",
                      *KERNEL_TASK_TYPE)

NONE_U32 = 4294967295  # "none" for stream ids, model ids, ranks (as in the JSON)

# columns whose integers are ids into STRING_IDS, per table
STRING_COLUMNS = {
    "TASK": ("taskType",),
    "COMPUTE_TASK_INFO": ("name", "taskType", "opType", "inputFormats", "inputDataTypes", "inputShapes",
                          "outputFormats", "outputDataTypes", "outputShapes", "attrInfo"),
    "COMMUNICATION_TASK_INFO": ("name", "taskType", "groupName"),
    "COMMUNICATION_OP": ("opName", "groupName", "algType", "opType"),
    "CANN_API": ("name",),
    "PYTORCH_API": ("name", "inputDtypes", "inputShapes"),
}
# columns whose integers are ids into an ENUM_* table
ENUM_COLUMNS = {
    "COMMUNICATION_TASK_INFO": {"transportType": "ENUM_HCCL_TRANSPORT_TYPE", "linkType": "ENUM_HCCL_LINK_TYPE",
                                "dataType": "ENUM_HCCL_DATA_TYPE", "rdmaType": "ENUM_HCCL_RDMA_TYPE"},
    "COMMUNICATION_OP": {"dataType": "ENUM_HCCL_DATA_TYPE"},
    "CANN_API": {"type": "ENUM_API_TYPE"},
    "PYTORCH_API": {"type": "ENUM_API_TYPE"},
}

# args keys per kind of slice: (database column, key the JSON writes); the keys are the producers'
HARDWARE_ARGS = (("modelId", cann_tasks.MODEL_ID_ARG), ("streamId", cann_tasks.STREAM_ID_ARG),
                 ("taskId", cann_tasks.TASK_ID_ARG), ("contextId", cann_tasks.SUBTASK_ID_ARG),
                 ("connectionId", cann_tasks.CONNECTION_ID_ARG))
COMPUTE_ARGS = (("opType", "Op Type"), ("blockDim", "Block Dim"), ("mixBlockDim", "Mix Block Dim"),
                ("inputFormats", "Input Formats"), ("inputDataTypes", "Input Data Types"),
                ("inputShapes", "Input Shapes"), ("outputFormats", "Output Formats"),
                ("outputDataTypes", "Output Data Types"), ("outputShapes", "Output Shapes"),
                ("attrInfo", "Attr Info"))
PLANE_ARGS = (("notifyId", hccl.ARG_NOTIFY_ID), ("streamId", hccl.ARG_STREAM_ID), ("taskId", hccl.ARG_TASK_ID),
              ("contextId", hccl.ARG_CONTEXT_ID), ("taskType", hccl.ARG_TASK_TYPE), ("srcRank", hccl.ARG_SRC_RANK),
              ("dstRank", hccl.ARG_DST_RANK), ("transportType", hccl.ARG_TRANSPORT), ("size", hccl.ARG_SIZE),
              ("dataType", hccl.ARG_DATA_TYPE), ("linkType", hccl.ARG_LINK_TYPE), ("rdmaType", hccl.ARG_RDMA_TYPE),
              ("modelId", hccl.ARG_MODEL_ID), ("groupName", hccl.ARG_GROUP_NAME), ("name", hccl.ARG_OPERATOR))
OPERATOR_ARGS = (("connectionId", cann_tasks.CONNECTION_ID_ARG), ("dataType", hccl.OP_ARG_DATA_TYPE),
                 ("algType", hccl.OP_ARG_ALG_TYPE), ("count", hccl.OP_ARG_COUNT), ("opType", hccl.OP_ARG_OP_TYPE),
                 ("relay", hccl.OP_ARG_RELAY), ("retry", hccl.OP_ARG_RETRY), ("groupName", hccl.OP_ARG_GROUP_NAME),
                 ("opId", hccl.OP_ARG_OP_ID), ("waitNs", hccl.OP_ARG_WAIT_NS))
CANN_ARGS = (("globalTid", cann_tasks.THREAD_ID_ARG), ("type", cann_tasks.LEVEL_ARG), ("name", cann_tasks.CALL_ID_ARG),
             ("connectionId", cann_tasks.CONNECTION_ID_ARG))
PYTORCH_ARGS = (("sequenceNumber", torch_npu.SEQUENCE_NUMBER_ARG), ("fwdThreadId", torch_npu.FWD_THREAD_ID_ARG),
                ("inputShapes", torch_npu.INPUT_DIMS_ARG), ("inputDtypes", torch_npu.INPUT_TYPE_ARG))
CALL_STACK_KEY = torch_npu.CALL_STACK_ARG
CALL_STACK_SEP = ";\r\n"  # as torch_npu's JSON joins the frames
BANDWIDTH_KEY = hccl.ARG_BANDWIDTH  # bytes / ns: what the JSON's plane tasks carry


@dataclass(frozen=True)
class CounterSpec:
    """One counter table: series per distinct ``group`` values, named by ``name``.

    ``name`` and ``key`` are formats over the group columns (string/enum ids shown as text,
    capitalised) and ``value_of``'s column; ``scale`` divides the stored value.
    """

    table: str
    process: tuple[str, str, int]
    time: str
    group: tuple[str, ...]
    values: tuple[tuple[str, str, str, float], ...]  # (column, counter name format, args key, divisor)
    text_group: tuple[str, ...] = ()  # group columns holding string ids


TEXT_SPELLING = {"app": "APP"}  # counter name parts the JSON spells otherwise than capitalised
MB = float(1 << 20)
KB = 1024.0
COUNTERS = (
    CounterSpec("AICORE_FREQ", AICORE_FREQ, "timestampNs", (), (("freq", "AI Core Freq", "MHz", 1.0),)),
    CounterSpec("HBM", HBM, "timestampNs", ("hbmId", "type"),
                (("bandwidth", "HBM {hbmId}/{type}", "{type}(MB/s)", MB),), ("type",)),
    CounterSpec("LLC", LLC, "timestampNs", ("llcId", "mode"),
                (("throughput", "LLC {llcId} {mode}/Throughput", "Throughput(MB/s)", MB),
                 ("hitRate", "LLC {llcId} {mode}/Hit Rate", "Hit Rate(%)", 1.0)), ("mode",)),
    CounterSpec("NPU_MEM", NPU_MEM, "timestampNs", ("type",),
                (("ddr", "{type}/DDR", "KB", KB), ("hbm", "{type}/HBM", "KB", KB)), ("type",)),
    CounterSpec("ACC_PMU", ACC_PMU, "timestampNs", ("accId",),
                (("readBwLevel", "Acc {accId}/read_bandwidth", "value", 1.0),
                 ("writeBwLevel", "Acc {accId}/write_band_width", "value", 1.0),
                 ("readOstLevel", "Acc {accId}/read_ost", "value", 1.0),
                 ("writeOstLevel", "Acc {accId}/write_ost", "value", 1.0))),
    CounterSpec("SOC_BANDWIDTH_LEVEL", SOC, "timestampNs", (),
                (("l2BufferBwLevel", "L2 Buffer Bw Level", "L2 Buffer Bw Level", 1.0),
                 ("mataBwLevel", "Mata Bw Level", "Mata Bw Level", 1.0))),
)
