"""The Ascend and MindSpore producers' lanes: which thread of a process holds what (metrics.md §1), by
thread name or tid, and the operator names that say an operator is a collective."""

from __future__ import annotations

import re

# Steps, Scope Name, Host CPU Op: numeric tids on Ascend, named tids ("Steps", "Scope Name") on GPU
LEGACY_EXCLUDED_TIDS = {"100000", "100001", "100003", "steps", "scope name"}
LEGACY_STEPS_TIDS = {"100000", "steps"}
LEGACY_EXCLUDED_LANE_NAMES = {"scope name", "thread scope name", "host cpu op"}
LEGACY_STEPS_LANE_NAMES = {"steps", "thread steps"}

# Thread names as written: a hardware stream's, a host thread's (by id), an HCCL group's operator thread
STREAM_LANE = "Stream {}"
THREAD_LANE = "Thread {}"
GROUP_LANE = "Group {} Communication"

# Operator-level thread of the msprof communication process: "Group <g> Communication",
# "Communication Kernel" (python msprof, tid 70000) or a copied plain "Communication".
COMM_OP_LANE = re.compile(r"^(group\b.*\bcommunication|communication kernel|communication)$")
COMM_OP_TID = "70000"
COMM_KERNEL_LANE = "Communication Kernel"  # python msprof's operator thread, as written
# A MindSpore ≤ 2.1 operator whose name says it is a collective (``BroadcastTo`` is not).
COMM_OP_NAME = re.compile(
    r"(?:^|[/_])(?:hcom_|(?:allreduce|allgather|reducescatter|alltoallv?|broadcast|send|receive)"
    r"(?:-op|_|\d|$))",
    re.IGNORECASE,
)

# The Overlap Analysis process's threads (and their slices' names) as msprof and torch_npu write them, in
# the order of the database's ``OVERLAP_ANALYSIS.type``
OVERLAP_LANES = ("Computing", "Communication", "Communication(Not Overlapped)", "Free")
OVERLAP_LANE_KIND: dict[str, str] = {
    "computing": "compute",
    "merged computation op": "compute",
    "computation_op": "compute",
    "communication": "communication",
    "merged communication op": "communication",
    "communication(not overlapped)": "pure_communication",
    "pure communication op": "pure_communication",
    "communication_not_overlapped": "pure_communication",
    "free": "free",
    "free time": "free",
    "free_time": "free",
}
# When the producer wrote no thread names: msprof tids 0..3, MindSpore ≤ 2.1 tids 7999..8002.
OVERLAP_TID_KIND: dict[str, str] = {
    "0": "compute", "1": "communication", "2": "pure_communication", "3": "free",
    "7999": "compute", "8000": "pure_communication", "8001": "communication", "8002": "free",
}
