"""The Ascend and MindSpore producers' process names: which process of a card plays which role
(metrics.md §1), recognised by display name, then label, then (MindSpore ≤ 2.1 only) pid,
case-insensitively and ignoring a `` Rank<N>`` / ``_<N>`` suffix."""

from __future__ import annotations

import re

from timelineview.producers.wording import ASCEND_WORDING

WORDING = ASCEND_WORDING

# Process roles
HARDWARE = "hardware"
COMMUNICATION = "communication"
OVERLAP = "overlap"
STEP_TRACE = "step_trace"
LEGACY_DEVICE = "legacy_device"
LEGACY_AICPU = "legacy_aicpu"
LEGACY_COMMUNICATION = "legacy_communication"
HOST = "host"
UNKNOWN = ""

# The processes' display names as the producers write them (PROCESS_ROLE_BY_NAME's keys are these folded)
HARDWARE_PROCESS = "Ascend Hardware"
COMMUNICATION_PROCESS = "HCCL"
OVERLAP_PROCESS = "Overlap Analysis"
STEP_TRACE_PROCESS = "Step Trace"  # python msprof's step_trace_* files re-home the step-trace lane to it
CANN_PROCESS = "CANN"  # CANN's host API calls
# The device's counter processes (msprof, torch_npu): AI Core frequency, HBM bandwidth, device memory
FREQUENCY_PROCESS, HBM_PROCESS, MEMORY_PROCESS = "AI Core Freq", "HBM", "NPU MEM"
# and the device's other counter processes torch_npu writes: last-level cache, the SoC's and the accelerator's PMU
LLC_PROCESS, SOC_PROCESS, ACC_PMU_PROCESS = "LLC", "Stars Soc Info", "Acc PMU"
# Their counter series as written: the AI Core frequency (MHz) is named as its process; the device memory's
# series are ``<owner>/<kind>`` (each owner's HBM, DDR and their sum, in KB), HBM bandwidth's ``HBM <n>/<way>``
FREQUENCY_COUNTER = FREQUENCY_PROCESS
MEMORY_OWNER_APP, MEMORY_OWNER_DEVICE = "APP", "Device"  # the application's memory, the whole device's
MEMORY_TOTAL, MEMORY_HBM, MEMORY_DDR = "Memory", "HBM", "DDR"
MEMORY_COUNTER = "{}/{}"  # owner, kind
HBM_READ_COUNTER, HBM_WRITE_COUNTER = "HBM {}/Read", "HBM {}/Write"  # by HBM number
HBM_READ_UNIT, HBM_WRITE_UNIT = "Read(MB/s)", "Write(MB/s)"

PROCESS_ROLE_BY_NAME: dict[str, str] = {
    "ascend hardware": HARDWARE,
    "hccl": COMMUNICATION,
    "communication": COMMUNICATION,
    "overlap analysis": OVERLAP,
    "op overlap analyse": OVERLAP,
    "step trace": STEP_TRACE,
    # MindSpore ≤ 2.1 writes only process_labels
    "aicore op": LEGACY_DEVICE,
    "ascend op": LEGACY_DEVICE,
    "gpu op": LEGACY_DEVICE,
    "aicpu op": LEGACY_AICPU,
    "communication op": LEGACY_COMMUNICATION,
    "host cpu op": HOST,
    # host-side layers of newer producers: never device lanes, whatever their pid
    "mindspore": HOST,
    "cpu op": HOST,
    "scope layer": HOST,
    "python": HOST,
    "cann": HOST,
}
LEGACY_ROLE_BY_PID: dict[str, str] = {
    "9000": LEGACY_AICPU,
    "10000": LEGACY_COMMUNICATION,
    "11000": HOST,
    "12000": OVERLAP,
    "13000": HOST,  # GPU activity streams
}
LEGACY_MAX_DEVICE_PID = 9000  # MindSpore ≤ 2.1 uses the device id (0..7) as the pid

_SUFFIX = re.compile(r"(\s+rank\s*\d+|_\d+)$")


def base_name(name: str) -> str:
    """Lower-case process name without a `` Rank<N>`` or ``_<N>`` rank suffix."""
    return _SUFFIX.sub("", name.strip().lower()).strip()


def role_of_process(name: str, label: str) -> str:
    """The role a process's display name, else its label, gives it ("" when neither is an Ascend one)."""
    return PROCESS_ROLE_BY_NAME.get(base_name(name), UNKNOWN) or PROCESS_ROLE_BY_NAME.get(base_name(label), UNKNOWN)


def legacy_role_of_pid(pid: str) -> str:
    """The MindSpore ≤ 2.1 role of a process that only its pid describes ("" when none)."""
    pid = pid.strip()
    if pid in LEGACY_ROLE_BY_PID:
        return LEGACY_ROLE_BY_PID[pid]
    return LEGACY_DEVICE if pid.isdigit() and int(pid) < LEGACY_MAX_DEVICE_PID else UNKNOWN


# MindSpore ≤ 2.1 timelines written without metadata are told by their pids alone; their slices carry no
# ``cat`` (only the metadata's "__metadata"). A trace whose slices carry categories and whose processes
# bear no Ascend name is another tool's, however small its pids: it is not read as MindSpore's.
METADATA_CATEGORY = "__metadata"


def pids_may_tell_legacy(categories: set[str]) -> bool:
    """Whether a card with these slice categories and no Ascend process name may be read as MindSpore
    ≤ 2.1 by its pids."""
    return not (categories - {METADATA_CATEGORY, ""})

