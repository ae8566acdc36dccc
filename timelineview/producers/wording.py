"""How a producer's device and its work are named in what the user reads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceWording:
    """The words for one producer's device: ``device`` ("NPU", "GPU") and its compute units' work
    (``kernels``: "AI Core tasks", "GPU kernels")."""

    device: str
    kernels: str


ASCEND_WORDING = DeviceWording(device="NPU", kernels="AI Core tasks")
