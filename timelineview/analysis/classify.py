"""Which slices are compute and which are communication operators (metrics.md §1).

Two producer families are told apart by their processes:

* msprof / torch_npu / MindSpore ≥ 2.2: an ``Ascend Hardware`` process exists. Compute =
  its slices whose ``Task Type`` is a compute type (``task_types.TASK_TYPE_KIND``) and whose name
  is not a runtime or collective task name (``task_types.is_runtime_task_name``);
  communication = the operator-level thread of the ``HCCL`` / ``Communication`` process.
* MindSpore ≤ 2.1 (no ``Ascend Hardware``): compute = the device process's stream lanes
  (pid = device id, minus the Steps/Scope Name threads) and the AI CPU process (pid 9000),
  minus operators named like collectives; communication = pid 10000. MindSpore's GPU timeline
  (same family) writes each operator on an ``Ops`` lane (``GpuOps`` from MindSpore 2.x) and its CUDA
  kernels again on stream lanes: there only the operator lane is compute, one level of operator per
  execution, whether or not the producer's thread names reach the lanes (the lane is told by its tid).

Processes are recognised by display name, then label, then (MindSpore ≤ 2.1 only) pid,
case-insensitively and ignoring a `` Rank<N>`` / ``_<N>`` suffix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from timelineview.analysis.task_types import (
    TASK_TYPE_KIND,
    is_compute_task_type,
    is_known_task_type,
    is_runtime_task_name,
)
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import SLICE_KIND_PRODUCERS, msprof
from timelineview.producers.ascend import (
    COMMUNICATION,
    HARDWARE,
    LEGACY_AICPU,
    LEGACY_COMMUNICATION,
    LEGACY_DEVICE,
    OVERLAP,
    STEP_TRACE,
    UNKNOWN,
    base_name,
    legacy_role_of_pid,
    pids_may_tell_legacy,
    role_of_process,
)
from timelineview.producers.ascend_lanes import (
    COMM_OP_LANE,
    COMM_OP_NAME,
    COMM_OP_TID,
    LEGACY_EXCLUDED_LANE_NAMES,
    LEGACY_EXCLUDED_TIDS,
    LEGACY_STEPS_LANE_NAMES,
    LEGACY_STEPS_TIDS,
    OVERLAP_LANE_KIND,
    OVERLAP_TID_KIND,
)
from timelineview.producers.mindspore_gpu import GPU_OPERATOR_TIDS
from timelineview.producers.slice_kinds import strings_used

__all__ = ["Classification", "classify", "base_name", "TASK_TYPE_KIND"]


@dataclass
class Classification:
    """Per-slice masks and per-lane roles of one card."""

    mode: str  # "msprof", "mindspore_legacy", "kineto" or "none"
    compute: np.ndarray  # bool per slice
    communication: np.ndarray  # bool per slice: communication *operators*
    process_roles: list[str]  # role per process ("" when not an input)
    hardware_lanes: np.ndarray  # int64 lanes holding device streams (compute candidates)
    comm_lanes: np.ndarray  # int64 lanes holding communication operators
    overlap_lanes: dict[str, np.ndarray] = field(default_factory=dict)  # kind -> lanes
    step_trace_lanes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    steps_lanes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    unknown_task_types: list[str] = field(default_factory=list)
    copies: np.ndarray | None = None  # bool per slice: device copies / memsets (neither compute nor communication)


def _process_roles(store: TraceStore) -> list[str]:
    procs = store.processes
    return [role_of_process(name, label) for name, label in zip(procs.name, procs.label, strict=True)]


def _legacy_roles(store: TraceStore, roles: list[str]) -> list[str]:
    """Fill in MindSpore ≤ 2.1 roles from pids where names and labels said nothing."""
    return [role or legacy_role_of_pid(pid) for role, pid in zip(roles, store.processes.pid, strict=True)]


def _lanes_where(lane_ok: np.ndarray) -> np.ndarray:
    return np.flatnonzero(lane_ok).astype(np.int64)


def _string_flags(store: TraceStore, ids: np.ndarray, test) -> np.ndarray:
    """Evaluate ``test(str)`` once per distinct string id in ``ids``; returns a lookup table."""
    n = len(store.strings)
    flags = np.zeros(n + 1, dtype=bool)  # last slot = id -1 (absent)
    if len(ids):
        used = np.flatnonzero(np.bincount(ids[ids >= 0], minlength=n))
        for i in used:
            flags[i] = bool(test(store.strings[i]))
    return flags


def classify(store: TraceStore) -> Classification:
    """Classify every slice and lane of ``store`` by metrics.md §1."""
    roles = _process_roles(store)
    producer = next((p for p in SLICE_KIND_PRODUCERS if p.recognises(store, ascend_processes=any(roles))), None)
    if producer is not None:
        return _by_slice_kinds(store, roles, producer)
    mode = msprof.KIND if HARDWARE in roles else "mindspore_legacy"
    if mode == "mindspore_legacy":
        if any(roles) or pids_may_tell_legacy(strings_used(store, store.slices.cat)):
            roles = _legacy_roles(store, roles)  # another tool's trace keeps no role: read as nothing
        if not any(r.startswith("legacy_") for r in roles):
            mode = "none"
    else:  # MindSpore ≤ 2.1 labels cannot be inputs next to an Ascend Hardware process
        roles = [UNKNOWN if r.startswith("legacy_") else r for r in roles]
    lanes = store.lanes
    n_lanes = len(lanes)
    lane_role = np.array([roles[p] for p in lanes.process], dtype=object) if n_lanes else np.zeros(0, object)
    lane_names = [n.strip().lower() for n in lanes.name]
    tids = [t.strip() for t in lanes.tid]

    sl = store.slices
    tids_low = [t.lower() for t in tids]
    holds_slices = np.bincount(sl.lane, minlength=n_lanes)[:n_lanes] > 0 if len(sl) else np.zeros(n_lanes, bool)
    gpu_operator = np.array([tids_low[ln] in GPU_OPERATOR_TIDS for ln in range(n_lanes)], dtype=bool) & holds_slices
    gpu_processes = {int(lanes.process[ln]) for ln in range(n_lanes)
                     if lane_role[ln] == LEGACY_DEVICE and gpu_operator[ln]}
    is_hw = np.zeros(n_lanes, dtype=bool)
    is_comm = np.zeros(n_lanes, dtype=bool)
    step_trace = np.zeros(n_lanes, dtype=bool)
    steps = np.zeros(n_lanes, dtype=bool)
    for ln in range(n_lanes):
        role = lane_role[ln]
        if role == HARDWARE:
            if lane_names[ln].startswith(msprof.STEP_TRACE_LANE_PREFIX):
                step_trace[ln] = True
            else:
                is_hw[ln] = True
        elif role == STEP_TRACE:
            step_trace[ln] = True
        elif role == COMMUNICATION:
            is_comm[ln] = bool(COMM_OP_LANE.match(lane_names[ln])) or tids[ln] == COMM_OP_TID
        elif role == LEGACY_DEVICE:
            if tids_low[ln] in LEGACY_STEPS_TIDS or lane_names[ln] in LEGACY_STEPS_LANE_NAMES:
                steps[ln] = True
            elif tids_low[ln] in LEGACY_EXCLUDED_TIDS or lane_names[ln] in LEGACY_EXCLUDED_LANE_NAMES:
                continue
            elif int(lanes.process[ln]) not in gpu_processes or gpu_operator[ln]:
                is_hw[ln] = True  # on GPU only the operator lane: its kernels are the same executions
        elif role == LEGACY_AICPU:
            is_hw[ln] = True
        elif role == LEGACY_COMMUNICATION:
            is_comm[ln] = True

    unknown: list[str] = []
    on_hw = is_hw[sl.lane] if len(sl) else np.zeros(0, bool)
    if mode == msprof.KIND:
        tt = sl.task_type
        compute_type = _string_flags(store, tt[on_hw], is_compute_task_type)
        runtime_named = _string_flags(store, sl.name[on_hw], is_runtime_task_name)
        compute = on_hw & compute_type[tt] & ~runtime_named[sl.name]
        seen = np.flatnonzero(np.bincount(tt[on_hw & (tt >= 0)], minlength=len(store.strings)))
        unknown = sorted(store.strings[i] for i in seen if not is_known_task_type(store.strings[i]))
    else:
        comm_named = _string_flags(store, sl.name[on_hw], COMM_OP_NAME.search)
        compute = on_hw & ~comm_named[sl.name]
    communication = is_comm[sl.lane] if len(sl) else np.zeros(0, bool)

    overlap: dict[str, list[int]] = {}
    for ln in range(n_lanes):
        if lane_role[ln] != OVERLAP:
            continue
        kind = OVERLAP_LANE_KIND.get(lane_names[ln]) or OVERLAP_TID_KIND.get(tids[ln])
        if kind:
            overlap.setdefault(kind, []).append(ln)

    return Classification(
        mode=mode,
        compute=compute,
        communication=communication,
        process_roles=roles,
        hardware_lanes=_lanes_where(is_hw),
        comm_lanes=_lanes_where(is_comm),
        overlap_lanes={k: np.array(v, dtype=np.int64) for k, v in overlap.items()},
        step_trace_lanes=_lanes_where(step_trace),
        steps_lanes=_lanes_where(steps),
        unknown_task_types=unknown,
    )


def _by_slice_kinds(store: TraceStore, roles: list[str], producer: ModuleType) -> Classification:
    """A card of a producer whose slices say what they are (a PyTorch profiler (Kineto) card): the producer
    says which slices are what; steps come from its ``ProfilerStep#N`` markers (no steps lane)."""
    kinds = producer.slice_kinds(store)
    return Classification(
        mode=producer.KIND,
        compute=kinds.compute,
        communication=kinds.communication,
        process_roles=roles,
        hardware_lanes=kinds.device_lanes,
        comm_lanes=kinds.comm_lanes,
        copies=kinds.copies,
    )
