"""torch_npu's profiler output (``trace_view.json``, ``ascend_pytorch_profiler[_<rank>].db``): its file
names, its rank file, and the flow from a framework operator's launch to the device task it queued."""

from __future__ import annotations

import re

KIND = "trace_view"  # discovery's kind of a card read from trace_view.json
FILE_NAME = re.compile(r"^trace_view\.json(\.gz)?$")
TRACE_FILE = "trace_view.json"  # as written
# Where torch_npu writes a run: <worker>_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
RUN_FOLDER_SUFFIX = "_ascend_pt"
OUTPUT_FOLDER = "ASCEND_PROFILER_OUTPUT"
DATABASE = re.compile(r"^ascend_pytorch_profiler(_\d+)?\.db$")
DATABASE_WITH_RANK = re.compile(r"^ascend_pytorch_profiler_(\d+)\.db$")
PROFILER_INFO = re.compile(r"^profiler_info_(\d+)\.json$")  # profiler_info_<rank>.json beside the trace
PROFILER_INFO_NAME = "profiler_info_{}.json"  # as written, by rank

# The tables torch_npu writes beside trace_view.json (ASCEND_PROFILER_OUTPUT)
KERNEL_DETAILS = "kernel_details.csv"
KERNEL_DETAILS_FILES = "kernel_details*.csv"  # kernel_details.csv, or one per slice of a long capture
KERNEL_DETAILS_COLUMNS = {"stream": "Stream ID", "start": "Start Time(us)", "op_type": "Type",
                          "core": "Accelerator Core", "block_dim": "Block Dim", "shapes": "Input Shapes",
                          "dtypes": "Input Data Types", "formats": "Input Formats", "out_shapes": "Output Shapes",
                          "op_state": "OP State"}
KERNEL_DETAILS_DYNAMIC_STATE = "dynamic"  # the OP State of a task compiled for dynamic shapes
KERNEL_DETAILS_PMU_COLUMN = re.compile(r"^(aic_|aiv_|aicore_|cube_)")  # the PMU figures it carries per task
MEMORY_RECORD_CSV = "memory_record.csv"
OPERATOR_MEMORY_CSV = "operator_memory.csv"
MODULE_MEMORY_CSV = "npu_module_mem.csv"

LAUNCH_FLOW = "async_npu"  # the flow category from a framework launch to its kernel
LAUNCH_FLOW_NAME = "torch_to_npu"  # and those flows' name
PYTHON_FUNCTION_CATEGORY = "python_function"  # the framework's Python call ranges
QUEUE_CATEGORIES = ("enqueue", "dequeue")  # its task queue's ranges, named Enqueue@… / Dequeue@…
FRAMEWORK_OPERATOR = "cpu_op"  # the framework's operators, which carry the input shapes
PYTHON_PROCESS = "Python"  # the framework's process (its operators, steps and launches)
STEP_MARKER_NAME = "ProfilerStep#{}"  # the framework's step range, by step number
# The args keys of the framework's operators (FRAMEWORK_OPERATOR)
SEQUENCE_NUMBER_ARG = "Sequence number"
FWD_THREAD_ID_ARG = "Fwd thread id"
INPUT_DIMS_ARG = "Input Dims"
INPUT_TYPE_ARG = "Input type"
CALL_STACK_ARG = "Call stack"


def is_database(name: str) -> bool:
    """Whether a file name is torch_npu's profiler database's."""
    return bool(DATABASE.match(name))
