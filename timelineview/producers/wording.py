"""How a producer's device and its work are named in what the user reads."""

from __future__ import annotations

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


def reword(text: str, wording: DeviceWording) -> str:
    """``text``, written in the Ascend producers' words, in ``wording``'s."""
    if wording == ASCEND_WORDING:
        return text
    return text.replace(ASCEND_WORDING.units, wording.units).replace(ASCEND_WORDING.unit, wording.unit)
