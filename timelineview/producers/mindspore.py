"""MindSpore's timelines: their file names (every generation), and what MindSpore ≤ 2.1 — which writes
processes without names, or only labels — says by fixed pids and tids (metrics.md §1)."""

from __future__ import annotations

import re

KIND = "timeline_display"  # discovery's kind of a card read from these files
# ascend_ / gpu_ / cpu_timeline_display_<rank>.json
FILE_NAME = re.compile(r"^(ascend_|gpu_|cpu_)?timeline_display_(\d+)\.json(\.gz)?$")
FILE_RANK_GROUP = 2
ASCEND_FILE_NAME = "ascend_timeline_display_{}.json"  # as written, by rank

# MindSpore ≤ 2.1's process labels: the device's (its pid the device id), and those of fixed pids
DEVICE_LABEL = "AICORE OP"
AICPU_LABEL = "AICPU OP"
COMMUNICATION_LABEL = "Communication Op"
HOST_LABEL = "Host CPU OP"
OVERLAP_LABEL = "Op Overlap Analyse"
ACTIVITY_LABEL = "Activity Op"
# MindSpore ≤ 2.1's processes by pid (files with no process_name at all)
FIXED_PIDS = {
    "9000": AICPU_LABEL,
    "10000": COMMUNICATION_LABEL,
    "11000": HOST_LABEL,
    "12000": OVERLAP_LABEL,
    "13000": ACTIVITY_LABEL,
}
# The overlap process's threads (by tids 7999..8002) and its slices' names, in the same order
OVERLAP_THREADS = ("Merged Computation Op", "Pure Communication Op", "Merged Communication Op", "Free Time")
OVERLAP_SLICES = ("computation_op", "communication_not_overlapped", "communication", "free_time")
STEPS_LANE, SCOPE_LANE = "Steps", "Scope Name"
HOST_LANE = "Host CPU Op"  # the host process's thread (tid 100003)
# A step's number in the name of a Steps lane's slice: ``1``, ``2`` … or, from msprof's step trace,
# ``Model ID: <m> Iteration ID: <i>``
STEP_NAME_ITERATION = re.compile(r"iteration id:\s*(\d+)", re.IGNORECASE)
FIXED_TIDS = {"100000": STEPS_LANE, "100001": SCOPE_LANE}
DEVICE_PID_MAX = 64  # MindSpore ≤ 2.1 uses the device id (0–7, sometimes the rank) as the pid
STREAM_PIDS = {"9000", "10000"}  # AI CPU and communication: their tids are streams
# The process labels MindSpore 1.3 … 2.1 writes
LEGACY_LABELS = frozenset({DEVICE_LABEL, "Ascend Op", AICPU_LABEL, COMMUNICATION_LABEL, OVERLAP_LABEL})
# A pipeline stage's receive operator as MindSpore names it
RECEIVE_OPERATOR = r"receive-op"
