"""The producers of the traces read, one module each: how their files are found, what their lanes and
slices are, how their device is worded. The rest of the package asks these modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from timelineview.producers import kineto
from timelineview.producers.wording import ASCEND_WORDING, DeviceWording

if TYPE_CHECKING:
    from timelineview.model.store.trace_store import TraceStore

# The classification's mode of a card -> its producer's words (the Ascend generations' otherwise)
_WORDING_BY_MODE = {kineto.KIND: kineto.WORDING}


def wording_of(mode: str) -> DeviceWording:
    """The device wording of a card classified as ``mode``."""
    return _WORDING_BY_MODE.get(mode, ASCEND_WORDING)


# Framework operators (``cpu_op``: PyTorch's, on the GPU and on the NPU)
FRAMEWORK_OPERATOR = kineto.FRAMEWORK_OPERATOR


def device_name(store: TraceStore, mode: str) -> str:
    """The name of the device of a card classified as ``mode``, as its producer writes it outside the
    trace's slices ("" when it writes none there: the Ascend generations name theirs in their tables)."""
    return kineto.device_name(store) if mode == kineto.KIND else ""
