"""How a producer's device and its work are named in what the user reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceWording:
    """The words for one producer's device: ``device`` ("NPU", "GPU"), one compute unit (``unit``:
    "AI Core", "GPU") and several (``units``), its compute units' work (``kernels``), and what its
    compute is made of (``compute_work``)."""

    device: str
    unit: str
    units: str
    kernels: str
    compute_work: str


ASCEND_WORDING = DeviceWording(device="NPU", unit="AI Core", units="AI Cores", kernels="AI Core tasks",
                               compute_work="AI Core / Vector / CPU tasks")


# Text about no one card (a comparison of an NPU run with a GPU run, a metric's definition, a command's help): the
# device's compute in words that hold for every producer
NEUTRAL_WORDING = DeviceWording(device="device", unit="device compute", units="device compute units",
                                kernels="device compute tasks", compute_work="device compute tasks")


def shared_wording(wordings: Iterable[DeviceWording]) -> DeviceWording:
    """The wording of a set of cards: theirs when they all share one (the Ascend one when there are none), the
    device-neutral one when they differ."""
    distinct = set(wordings)
    if len(distinct) == 1:
        return distinct.pop()
    return NEUTRAL_WORDING if distinct else ASCEND_WORDING


def reword(text: str, wording: DeviceWording) -> str:
    """``text``, written in the Ascend producers' words, in ``wording``'s."""
    if wording == ASCEND_WORDING:
        return text
    return text.replace(ASCEND_WORDING.units, wording.units).replace(ASCEND_WORDING.unit, wording.unit)
