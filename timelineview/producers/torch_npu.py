"""torch_npu's profiler output (``trace_view.json``, ``ascend_pytorch_profiler[_<rank>].db``): its file
names, its rank file, and the flow from a framework operator's launch to the device task it queued."""

from __future__ import annotations

import re

KIND = "trace_view"  # discovery's kind of a card read from trace_view.json
FILE_NAME = re.compile(r"^trace_view\.json(\.gz)?$")
DATABASE = re.compile(r"^ascend_pytorch_profiler(_\d+)?\.db$")
DATABASE_WITH_RANK = re.compile(r"^ascend_pytorch_profiler_(\d+)\.db$")
PROFILER_INFO = re.compile(r"^profiler_info_(\d+)\.json$")  # profiler_info_<rank>.json beside the trace

LAUNCH_FLOW = "async_npu"  # the flow category from a framework launch to its kernel
FRAMEWORK_OPERATOR = "cpu_op"  # the framework's operators, which carry the input shapes


def is_database(name: str) -> bool:
    """Whether a file name is torch_npu's profiler database's."""
    return bool(DATABASE.match(name))
