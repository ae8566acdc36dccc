"""The producers of the traces read, one module each: how their files are found, what their lanes and
slices are, how their device is worded. The rest of the package asks these modules, through the tables
here: a new producer is its module and a line in them.

Two families: the Ascend and MindSpore generations, whose processes and lanes say what their slices are
(``ascend``, ``ascend_lanes``, ``cann_tasks``, ``hccl``, ``mindspore``, ``mindspore_gpu``, ``msprof``,
``torch_npu``), and producers whose slices say it themselves (``kineto``): those are in
:data:`SLICE_KIND_PRODUCERS` and give a card's compute, communication and copies whole.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from timelineview.producers import cann_tasks, kineto, mindspore, msprof, torch_npu
from timelineview.producers.wording import ASCEND_WORDING, DeviceWording

if TYPE_CHECKING:
    from timelineview.model.store.trace_store import TraceStore

# The JSON trace files of each producer, most preferred first when a card's folder holds several kinds
# (one kind of file per card); the profiler databases come before them all (the database reader's kind).
TRACE_FILE_KINDS: tuple[tuple[str, Callable[[str], object]], ...] = (
    (torch_npu.KIND, torch_npu.FILE_NAME.match),
    (mindspore.KIND, mindspore.FILE_NAME.match),
    (msprof.KIND, msprof.FILE_NAME.match),
    (kineto.KIND, kineto.FILE_NAME.match),
)
DATABASE_FILES = (torch_npu.DATABASE, msprof.DATABASE)
# Kinds of file whose rank is written in the file itself (else it is in the file's name or folders)
RANK_IN_FILE: dict[str, Callable[[Path], int | None]] = {kineto.KIND: lambda path: kineto.read_header(path).rank}

# Producers whose slices say what they are: each module has KIND, WORDING, recognises(store,
# ascend_processes), slice_kinds(store), device_name(store), card_note(store), readable_kernel_name(name)
# and OP_TYPE_FROM_LAUNCHING_OPERATOR.
SLICE_KIND_PRODUCERS = (kineto,)

# The classification's mode of a card -> its producer's words (the Ascend generations' otherwise)
_WORDING_BY_MODE = {p.KIND: p.WORDING for p in SLICE_KIND_PRODUCERS}


def wording_of(mode: str) -> DeviceWording:
    """The device wording of a card classified as ``mode``."""
    return _WORDING_BY_MODE.get(mode, ASCEND_WORDING)


def is_database_file(name: str) -> bool:
    """Whether a file name is one of the producers' profiler databases'."""
    return any(p.match(name) for p in DATABASE_FILES)


# The args key of a hardware task's type: the one args member the decode reads while loading
TASK_TYPE_ARG = cann_tasks.TASK_TYPE_ARG

# Framework operators (``cpu_op``: PyTorch's, on the GPU and on the NPU)
FRAMEWORK_OPERATOR = kineto.FRAMEWORK_OPERATOR


def kernel_op_type_rule(mode: str) -> Callable[[str], str] | None:
    """How a producer whose slices say what they are reads a kernel's op type off its name (None: the
    Ascend generations' rule applies)."""
    return next((p.readable_kernel_name for p in SLICE_KIND_PRODUCERS if p.KIND == mode), None)


def op_type_from_launching_operator(mode: str) -> bool:
    """Whether a card classified as ``mode`` takes each kernel's op type from the host operator that launched
    it (a GPU kernel's name is its code's, not an operator type's)."""
    return any(p.OP_TYPE_FROM_LAUNCHING_OPERATOR for p in SLICE_KIND_PRODUCERS if p.KIND == mode)


def device_name(store: TraceStore, mode: str) -> str:
    """The name of the device of a card classified as ``mode``, as its producer writes it outside the
    trace's slices ("" when it writes none there: the Ascend generations name theirs in their tables)."""
    return next((p.device_name(store) for p in SLICE_KIND_PRODUCERS if p.KIND == mode), "")
