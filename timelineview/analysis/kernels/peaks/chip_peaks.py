"""The peak dense FP16 throughput of the chips a capture can name, the denominator of MFU (metrics.md §7.1).

Figures are the vendor's published peak per chip where it published one; where it did not, the figure
most often published for that part, and the table says so. ``--peak-tflops`` replaces the table for a run.
"""

from __future__ import annotations

from dataclasses import dataclass

from timelineview.analysis.kernels.peaks.gpu_peaks import gpu_part


@dataclass(frozen=True)
class ChipPeak:
    """One chip's peak FP16 (dense) TFLOPS and where the figure comes from."""

    names: tuple[str, ...]  # the device names a capture writes for it (``NPU_INFO.name``), compared without spaces
    tflops: float
    source: str


CHIP_PEAKS: tuple[ChipPeak, ...] = (
    ChipPeak(("Ascend910B1",), 414.0, "published figure most often quoted for the 910B1 part (no vendor datasheet)"),
    ChipPeak(("Ascend910B2", "Ascend910B2C"), 376.0,
             "published figure most often quoted for the 910B2 part (no vendor datasheet)"),
    ChipPeak(("Ascend910B3",), 313.0, "Atlas 800T A2: 8 chips, about 2.5 PFLOPS FP16 per server (vendor brochure)"),
    ChipPeak(("Ascend910B4",), 280.0, "published figure most often quoted for the 910B4 part (no vendor datasheet)"),
    ChipPeak(("Ascend910B",), 320.0, "Ascend 910B: 320 TFLOPS FP16 as widely published for the family"),
    ChipPeak(("Ascend910", "Ascend910A", "Ascend910ProA", "Ascend910ProB"), 256.0,
             "Huawei, DaVinci architecture, Hot Chips 31 (2019): Ascend 910, 32 cores, 256 TFLOPS FP16"),
)
UNKNOWN_PEAK_NOTE = "no known peak for this chip: MFU needs --peak-tflops"
OVERRIDE_SOURCE = "--peak-tflops"


@dataclass(frozen=True)
class Peak:
    """The peak used for MFU: TFLOPS and why."""

    tflops: float
    source: str


def _key(name: str) -> str:
    return "".join(name.split()).lower()


def chip_peak(device: str) -> Peak | None:
    """The peak of the chip named ``device`` (an exact name, else the longest known name it starts with),
    else of the GPU part it names (``gpu_peaks``)."""
    key = _key(device)
    if not key:
        return None
    best: tuple[int, ChipPeak] | None = None
    for chip in CHIP_PEAKS:
        for name in chip.names:
            n = _key(name)
            if key == n:
                return Peak(chip.tflops, f"{device}: {chip.source}")
            if key.startswith(n) and (best is None or len(n) > best[0]):
                best = (len(n), chip)
    if best:
        return Peak(best[1].tflops, f"{device}: {best[1].source}")
    gpu = gpu_part(device)  # a GPU baseline's card names its GPU
    return Peak(gpu.tflops, f"{device}: {gpu.source}") if gpu else None
