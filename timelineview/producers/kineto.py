"""PyTorch profiler (Kineto) traces: the GPU baseline (metrics.md §13).

Kineto writes Chrome-trace JSON (``*.pt.trace.json``, often gzipped) with a header before its
events: ``distributedInfo`` (the rank), ``deviceProperties`` (the GPUs). Each event's ``cat`` says
what it is: ``kernel`` (GPU kernels: compute, except NCCL's, which are the communication),
``gpu_memcpy`` / ``gpu_memset`` (copies, neither compute nor communication), ``cpu_op`` (framework
operators), ``cuda_runtime`` / ``cuda_driver`` (launches, tied to their kernels by ``ac2g`` flows),
``user_annotation`` ``ProfilerStep#N`` (the steps). Its processes carry no Ascend name: the CPU
process is the Python program's, each GPU is a process labelled ``GPU <n>`` whose pid is the device.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from timelineview.producers.slice_kinds import lanes_holding, string_flags, strings_used
from timelineview.producers.wording import DeviceWording

if TYPE_CHECKING:
    from timelineview.model.store.trace_store import TraceStore

NAME = "PyTorch profiler (Kineto)"
KIND = "kineto"  # discovery's kind of a card read from these files, and the classification's mode
FILE_NAME = re.compile(r"^.+\.pt\.trace\.json(\.gz)?$")
WORDING = DeviceWording(device="GPU", unit="GPU", units="GPUs", kernels="GPU kernels",
                        compute_work="GPU kernels other than NCCL's")

KERNEL = "kernel"
COPY_CATEGORIES = frozenset({"gpu_memcpy", "gpu_memset"})
LAUNCH_CATEGORIES = frozenset({"cuda_runtime", "cuda_driver"})
FRAMEWORK_OPERATOR = "cpu_op"
STEP_ANNOTATION = "user_annotation"
LAUNCH_FLOW = "ac2g"
# The GPU waiting (stream, event or context synchronisation): an ac2g flow leads to it from the host's
# synchronise call, but it is no work that call queued
SYNC_CATEGORY = "cuda_sync"
# A framework operator's args: its inputs' shapes and data types, when shapes were recorded (torch_npu too)
INPUT_DIMS, INPUT_TYPES = "Input Dims", "Input type"
# The values of its non-tensor inputs (strides, paddings, flags) as text, in the same order (PyTorch ≥ 2.1)
CONCRETE_INPUTS = "Concrete Inputs"
CORRELATION = "correlation"  # the arg a launch shares with the kernel it queued
# Categories only a CUDA-side Kineto trace writes: one of them, on a card no Ascend process names, is Kineto.
GPU_CATEGORIES = frozenset({KERNEL, *COPY_CATEGORIES, *LAUNCH_CATEGORIES, "gpu_user_annotation", SYNC_CATEGORY,
                            "cuda_profiler_range", LAUNCH_FLOW})
# A CPU-only Kineto trace (no GPU activity recorded) still writes its framework categories.
FRAMEWORK_CATEGORIES = frozenset({FRAMEWORK_OPERATOR, STEP_ANNOTATION, "python_function"})
# NCCL's collective and point-to-point kernels: ``ncclKernel_*`` (NCCL ≤ 2.18), ``ncclDevKernel_*`` after
NCCL_KERNEL = re.compile(r"^(?:void\s+)?nccl(?:Dev)?Kernel", re.IGNORECASE)
STEP_MARKER = re.compile(r"^ProfilerStep#(\d+)$")
GPU_PROCESS_LABEL = re.compile(r"^GPU (\d+)$")
# A kernel's op type is the framework operator that launched it (its name is the code's, not an op's)
OP_TYPE_FROM_LAUNCHING_OPERATOR = True
_RETURN_TYPE = "void "
_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)
_DISTRIBUTED_INFO = re.compile(rb'"distributedInfo"\s*:\s*(\{[^{}]*\})')
_DEVICE_PROPERTIES = re.compile(rb'"deviceProperties"\s*:\s*(\[[^\[\]]*\])')


@dataclass(frozen=True)
class KinetoHeader:
    """What a Kineto file's header says: its rank, the job's size and backend, its GPUs' names by id."""

    rank: int | None = None
    world_size: int | None = None
    backend: str = ""
    devices: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class KinetoSlices:
    """Per-slice masks of one Kineto card, and the lanes that hold them."""

    compute: np.ndarray  # bool: GPU kernels other than NCCL's
    communication: np.ndarray  # bool: NCCL kernels
    copies: np.ndarray  # bool: memcpy / memset on the GPU
    device_lanes: np.ndarray  # int64: lanes holding kernels or copies (the GPU streams)
    comm_lanes: np.ndarray  # int64: lanes holding NCCL kernels


def is_trace_file(name: str) -> bool:
    """Whether a file name is a Kineto trace's (``*.pt.trace.json[.gz]``)."""
    return bool(FILE_NAME.match(name))


def _head(path: Path, limit: int) -> bytes:
    """The first ``limit`` bytes of the file's text (gunzipped when it is gzip)."""
    # imported here: the model's package asks this module how Kineto files are named when it loads
    from timelineview.model.load.file_access import file_problem

    if file_problem(path):
        return b""
    try:
        with open(path, "rb") as raw:
            magic = raw.read(2)
            raw.seek(0)
            if magic == b"\x1f\x8b":
                with gzip.GzipFile(fileobj=raw) as text:
                    return text.read(limit)
            return raw.read(limit)
    except (OSError, EOFError, zlib.error):
        return b""


def read_header(path: Path, limit: int | None = None) -> KinetoHeader:
    """The header of a Kineto file (read from its first ``limit`` bytes, by default as much as a side
    file's); the rank falls back to a ``rank<N>`` / ``rank-<N>`` in the file name when the header gives none."""
    if limit is None:
        from timelineview.model.load.file_access import SIDE_FILE_BYTES
        limit = SIDE_FILE_BYTES
    head = _head(path, limit)
    rank = world = None
    backend = ""
    m = _DISTRIBUTED_INFO.search(head)
    if m:
        try:
            info = json.loads(m.group(1))
        except ValueError:
            info = {}
        rank = info.get("rank") if isinstance(info.get("rank"), int) else None
        world = info.get("world_size") if isinstance(info.get("world_size"), int) else None
        backend = str(info.get("backend", ""))
    if rank is None:
        named = _RANK_IN_NAME.search(path.name)
        rank = int(named.group(1)) if named else None
    devices: dict[int, str] = {}
    m = _DEVICE_PROPERTIES.search(head.replace(b"\n", b" "))
    if m:
        try:
            props = json.loads(m.group(1))
        except ValueError:
            props = []
        devices = {p["id"]: str(p.get("name", "")) for p in props
                   if isinstance(p, dict) and isinstance(p.get("id"), int)}
    return KinetoHeader(rank, world, backend, devices)


def _categories(store: TraceStore) -> set[str]:
    cats = strings_used(store, store.slices.cat)
    if store.flows is not None and len(store.flows):
        cats |= strings_used(store, np.asarray(store.flows.cat))
    return cats


def recognises(store: TraceStore, ascend_processes: bool) -> bool:
    """Whether the card is a Kineto trace: Kineto's GPU categories, or its framework categories on a
    card where no process is named as an Ascend or MindSpore one (``ascend_processes``)."""
    if ascend_processes:
        return False
    cats = _categories(store)
    return bool(cats & GPU_CATEGORIES or cats & FRAMEWORK_CATEGORIES)


def slice_kinds(store: TraceStore) -> KinetoSlices:
    """Compute, communication and copies of a Kineto card (by ``cat`` and, for NCCL, the kernel name)."""
    sl = store.slices
    cat = sl.cat
    is_kernel = string_flags(store, cat, lambda c: c == KERNEL)[cat]
    is_copy = string_flags(store, cat, lambda c: c in COPY_CATEGORIES)[cat]
    nccl = string_flags(store, sl.name[is_kernel], NCCL_KERNEL.match)[sl.name]
    communication = is_kernel & nccl
    return KinetoSlices(compute=is_kernel & ~nccl, communication=communication, copies=is_copy,
                        device_lanes=lanes_holding(store, is_kernel | is_copy),
                        comm_lanes=lanes_holding(store, communication))


def gpu_of_lanes(store: TraceStore, lanes: np.ndarray) -> list[int]:
    """The GPU ids of the processes holding ``lanes`` (a ``GPU <n>`` label, else a numeric pid)."""
    procs = store.processes
    out = set()
    for p in {int(store.lanes.process[ln]) for ln in lanes.tolist()}:
        m = GPU_PROCESS_LABEL.match(procs.label[p].strip())
        pid = procs.pid[p].strip()
        if m:
            out.add(int(m.group(1)))
        elif pid.isdigit():
            out.add(int(pid))
    return sorted(out)


def device_name(store: TraceStore) -> str:
    """The name the header's ``deviceProperties`` gives the GPU holding the card's kernels and copies
    ("" when it names none, or several different ones)."""
    if not store.paths:
        return ""
    gpus = gpu_of_lanes(store, slice_kinds(store).device_lanes)
    devices = read_header(store.paths[0]).devices
    names = {devices.get(g, "") for g in gpus} - {""}
    return names.pop() if len(names) == 1 else ""


def load_note(store: TraceStore, header: KinetoHeader | None = None) -> str:
    """The load report's line saying how the card was read."""
    kinds = slice_kinds(store)
    kernels = int(np.count_nonzero(kinds.compute | kinds.communication))
    nccl = int(np.count_nonzero(kinds.communication))
    copies = int(np.count_nonzero(kinds.copies))
    gpus = gpu_of_lanes(store, kinds.device_lanes)
    named = ""
    if header is not None and gpus:
        names = sorted({header.devices.get(g, "") for g in gpus} - {""})
        named = f" ({', '.join(names)})" if names else ""
    where = f" on GPU {', '.join(map(str, gpus))}{named}" if gpus else ""
    if not kernels and not copies:
        return (f"read as a {NAME} trace without GPU activity: no {WORDING.kernels} or copies recorded "
                f"(compute and communication are 0)")
    return (f"read as a {NAME} trace{where}: {kernels:,} {WORDING.kernels} ({nccl:,} NCCL kernels counted "
            f"as communication, the others as compute), {copies:,} copies / memsets (neither)")


def card_note(store: TraceStore) -> str:
    """The load report's line for a card of this producer (its header read from its first file)."""
    return load_note(store, read_header(store.paths[0]) if store.paths else None)


def correlated_launches(store: TraceStore) -> tuple[np.ndarray, np.ndarray] | None:
    """(launch slices, device slices) paired by their ``correlation`` arg: the runtime call that queued
    each kernel, copy or memset. None on a card without Kineto launches."""
    sl = store.slices
    cat = sl.cat
    launch = np.flatnonzero(string_flags(store, cat, lambda c: c in LAUNCH_CATEGORIES)[cat])
    device = np.flatnonzero(string_flags(store, cat, lambda c: c == KERNEL or c in COPY_CATEGORIES)[cat])
    if not len(launch) or not len(device):
        return None

    def correlation(slices: np.ndarray) -> np.ndarray:
        ids = [(a or {}).get(CORRELATION) for a in store.args_many(slices)]
        return np.array([i if isinstance(i, int) else -1 for i in ids], dtype=np.int64)

    launch_ids, device_ids = correlation(launch), correlation(device)
    keep = launch_ids >= 0
    launch, launch_ids = launch[keep], launch_ids[keep]
    order = np.argsort(launch_ids, kind="stable")
    launch, launch_ids = launch[order], launch_ids[order]
    at = np.searchsorted(launch_ids, device_ids)
    found = (at < len(launch_ids)) & (device_ids >= 0)
    found[found] = launch_ids[at[found]] == device_ids[found]
    return launch[at[found]], device[found]


def _without_bracketed(text: str, opening: str, closing: str) -> str:
    """``text`` without its top-level ``opening``…``closing`` groups (nested ones go with them)."""
    out, depth = [], 0
    for ch in text:
        if ch == opening:
            depth += 1
        elif ch == closing and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def readable_kernel_name(name: str) -> str:
    """A GPU kernel's name as a reader names the code: ``void cutlass::Kernel<…>(…::Params)`` → ``cutlass::Kernel``.

    CUDA kernel names are demangled C++ signatures: a return type, template arguments that spell tile sizes
    and functors, a parameter list. The Ascend rule (the name's last ``_`` component) cuts inside them
    (``align1::Params)``), so the kernel's op type, when no launching operator is found, is its function's
    qualified name: the return type, the template arguments and the trailing parameter list dropped (a
    ``(anonymous namespace)`` inside the qualified name stays)."""
    text = name.strip()
    if text.startswith(_RETURN_TYPE):
        text = text[len(_RETURN_TYPE):]
    text = _without_bracketed(text, "<", ">").strip()
    if text.endswith(")"):  # the parameter list: from the "(" matching the last ")"
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if not depth:
                text = text[:i].strip()
                break
    return text or name
