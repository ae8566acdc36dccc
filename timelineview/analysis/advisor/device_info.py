"""The chip a capture ran on, as the capture describes it: its AI Core and vector core counts and its nominal AI
Core frequency.

The producer writes a device description beside the data (``info.json.<device>`` in a ``PROF_*/device_*``
folder: ``ai_core_num``, ``aiv_num``, ``aic_frequency``); a database names its chip (``NPU_INFO``). The counts
come from the description when the capture has one, else from :data:`CHIP_CORES` by the chip's name; the
frequency only from the description (the counters' own highest value is the reference otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from timelineview.model.store.regular_file import read_regular
from timelineview.producers import cann_tasks, msprof

INFO_PATTERNS = msprof.DEVICE_INFO_PATTERNS
# ASCEND_PROFILER_OUTPUT/trace_view.json → rank0_ascend_pt (its PROF_* folder), timeline/ → device_0: no higher,
# where another card's description lies
LEVELS_UP = 1
MAX_INFO_BYTES = 1 << 20  # a device description is a few kilobytes


@dataclass(frozen=True)
class ChipCores:
    """A chip's AI Core (cube) and vector core counts, and where the figures come from."""

    names: tuple[str, ...]
    ai_cores: int
    vector_cores: int
    source: str


CHIP_CORES: tuple[ChipCores, ...] = (
    ChipCores(("Ascend910B1", "Ascend910B2", "Ascend910B2C"), 24, 48,
              "torch_npu get_device_properties on these parts: cube_core_num 24, vector_core_num 48"),
    ChipCores(("Ascend910B3", "Ascend910B4"), 20, 40,
              "torch_npu get_device_properties on these parts: cube_core_num 20, vector_core_num 40"),
    ChipCores(("Ascend910A", "Ascend910ProA", "Ascend910ProB"), 32, 0,
              "Huawei, DaVinci architecture, Hot Chips 31 (2019): Ascend 910, 32 AI Cores"),
)


@dataclass(frozen=True)
class DeviceInfo:
    """What is known of a card's chip: core counts (0: unknown), nominal AI Core MHz (0: unknown), and why."""

    ai_cores: int = 0
    vector_cores: int = 0
    nominal_mhz: float = 0.0
    source: str = ""

    def cores_for(self, core_type: str) -> int:
        """The cores a task of ``core_type`` can spread over (0: unknown): the vector cores for a vector task
        (the AI Cores on a chip without separate vector cores), the AI Cores otherwise."""
        vector = core_type.upper() in cann_tasks.VECTOR_CORE_TASK_TYPES
        if vector:
            return self.vector_cores or self.ai_cores
        return self.ai_cores


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _described(path: Path) -> DeviceInfo | None:
    try:
        doc = orjson.loads(read_regular(path, MAX_INFO_BYTES))
    except (OSError, ValueError):
        return None
    devices = doc.get(msprof.DEVICE_INFO_LIST) if isinstance(doc, dict) else None
    if not isinstance(devices, list) or not devices or not isinstance(devices[0], dict):
        return None
    d = devices[0]
    return DeviceInfo(int(_number(d.get(msprof.DEVICE_INFO_AI_CORES))),
                      int(_number(d.get(msprof.DEVICE_INFO_VECTOR_CORES))),
                      _number(d.get(msprof.DEVICE_INFO_AI_CORE_MHZ)), f"the capture's device description ({path.name})")


def info_files(paths: list[Path]) -> list[Path]:
    """The device descriptions near the card's files (their folder and up to ``LEVELS_UP`` folders above)."""
    seen: list[Path] = []
    for p in paths:
        folder = Path(p).parent
        for _ in range(LEVELS_UP + 1):
            for pattern in INFO_PATTERNS:
                for found in sorted(folder.glob(pattern)):
                    if found not in seen and found.is_file():
                        seen.append(found)
            if seen or folder.parent == folder:
                break
            folder = folder.parent
        if seen:
            break
    return seen


def _by_name(device: str) -> ChipCores | None:
    key = "".join(device.split()).lower()
    for chip in CHIP_CORES:
        if any("".join(n.split()).lower() == key for n in chip.names):
            return chip
    return None


def device_info(paths: list[Path], device: str = "") -> DeviceInfo:
    """The chip of a card whose files are ``paths`` and whose capture names ``device`` (``NPU_INFO``)."""
    for path in info_files(paths):
        found = _described(path)
        if found is not None and (found.ai_cores or found.nominal_mhz):
            return found
    chip = _by_name(device) if device else None
    if chip is not None:
        return DeviceInfo(chip.ai_cores, chip.vector_cores, 0.0, f"{device}: {chip.source}")
    return DeviceInfo()
