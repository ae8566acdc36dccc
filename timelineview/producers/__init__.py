"""The producers of the traces read, one module each: how their files are found, what their lanes and
slices are, how their device is worded. The rest of the package asks these modules."""

from __future__ import annotations

from timelineview.producers import kineto
from timelineview.producers.wording import ASCEND_WORDING, DeviceWording

# The classification's mode of a card -> its producer's words (the Ascend generations' otherwise)
_WORDING_BY_MODE = {"kineto": kineto.WORDING}


def wording_of(mode: str) -> DeviceWording:
    """The device wording of a card classified as ``mode``."""
    return _WORDING_BY_MODE.get(mode, ASCEND_WORDING)


# Framework operators (``cpu_op``: PyTorch's, on the GPU and on the NPU)
FRAMEWORK_OPERATOR = kineto.FRAMEWORK_OPERATOR
