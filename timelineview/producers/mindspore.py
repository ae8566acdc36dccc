"""MindSpore's timelines: their file names (every generation), and what MindSpore ≤ 2.1 — which writes
processes without names, or only labels — says by fixed pids and tids (metrics.md §1)."""

from __future__ import annotations

import re

KIND = "timeline_display"  # discovery's kind of a card read from these files
# ascend_ / gpu_ / cpu_timeline_display_<rank>.json
FILE_NAME = re.compile(r"^(ascend_|gpu_|cpu_)?timeline_display_(\d+)\.json(\.gz)?$")
FILE_RANK_GROUP = 2

# MindSpore ≤ 2.1's processes by pid (files with no process_name at all)
FIXED_PIDS = {
    "9000": "AICPU OP",
    "10000": "Communication Op",
    "11000": "Host CPU OP",
    "12000": "Op Overlap Analyse",
    "13000": "Activity Op",
}
FIXED_TIDS = {"100000": "Steps", "100001": "Scope Name"}
DEVICE_PID_MAX = 64  # MindSpore ≤ 2.1 uses the device id (0–7, sometimes the rank) as the pid
STREAM_PIDS = {"9000", "10000"}  # AI CPU and communication: their tids are streams
# The process labels MindSpore 1.3 … 2.1 writes
LEGACY_LABELS = frozenset({"AICORE OP", "Ascend Op", "AICPU OP", "Communication Op", "Op Overlap Analyse"})
# A pipeline stage's receive operator as MindSpore names it
RECEIVE_OPERATOR = r"receive-op"
