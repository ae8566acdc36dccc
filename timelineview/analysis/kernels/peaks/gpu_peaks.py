"""The peak dense FP16 Tensor Core throughput of the GPUs a PyTorch profiler (Kineto) trace can name in
its ``deviceProperties``: the denominator of MFU for a GPU card (metrics.md §7.1, §13).

Figures are NVIDIA's datasheets' FP16 Tensor Core TFLOPS without sparsity (the datasheets of Ampere and
later parts print the sparse figure beside it, twice the dense one). ``--peak-tflops`` replaces the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuPeak:
    """One GPU part: how its name reads (over the name in lower case without spaces, ``-`` or ``_``), its
    peak dense FP16 TFLOPS and where the figure comes from."""

    part: str
    pattern: re.Pattern
    tflops: float
    source: str


def _part(part: str, pattern: str, tflops: float, source: str) -> GpuPeak:
    return GpuPeak(part, re.compile(pattern), tflops, source)


# First match wins: the variants of a part before the part.
GPU_PEAKS: tuple[GpuPeak, ...] = (
    _part("H100 PCIe", r"h100.*pcie", 756.5, "NVIDIA H100 datasheet: 1,513 TFLOPS FP16 Tensor Core with sparsity"),
    _part("H100 NVL", r"h100.*nvl", 835.5, "NVIDIA H100 datasheet: 1,671 TFLOPS FP16 Tensor Core with sparsity"),
    _part("H100 SXM", r"h100", 989.5, "NVIDIA H100 datasheet: 1,979 TFLOPS FP16 Tensor Core with sparsity"),
    _part("H200", r"h200", 989.5, "NVIDIA H200 datasheet: 1,979 TFLOPS FP16 Tensor Core with sparsity"),
    _part("A100", r"a100", 312.0, "NVIDIA A100 datasheet: 312 TFLOPS FP16 Tensor Core (624 with sparsity)"),
    _part("A10", r"(?:^|nvidia)a10$", 125.0, "NVIDIA A10 datasheet: 125 TFLOPS FP16 Tensor Core (250 with sparsity)"),
    _part("V100S PCIe", r"v100s(?:pcie|$)", 130.0, "NVIDIA V100 datasheet: 130 TFLOPS deep learning (V100S PCIe)"),
    _part("V100 PCIe", r"v100.*pcie", 112.0, "NVIDIA V100 datasheet: 112 TFLOPS deep learning (PCIe)"),
    _part("V100 SXM2", r"v100", 125.0, "NVIDIA V100 datasheet: 125 TFLOPS deep learning (SXM2)"),
    _part("L40S", r"l40s$", 362.05, "NVIDIA L40S datasheet: 362.05 TFLOPS FP16 Tensor Core (733 with sparsity)"),
    _part("L40", r"l40$", 181.05, "NVIDIA L40 datasheet: 181.05 TFLOPS FP16 Tensor Core (362.1 with sparsity)"),
    _part("L4", r"(?:^|nvidia)l4$", 121.0, "NVIDIA L4 datasheet: 242 TFLOPS FP16 Tensor Core with sparsity"),
    _part("T4", r"(?:^|tesla|nvidia)t4$", 65.0, "NVIDIA T4 datasheet: 65 TFLOPS mixed precision (FP16/FP32)"),
)


def _key(name: str) -> str:
    return re.sub(r"[\s\-_]", "", name).lower()


def gpu_part(device: str) -> GpuPeak | None:
    """The part of the GPU named ``device`` (``"NVIDIA H100 80GB HBM3"``), None for one not in the table."""
    key = _key(device)
    return next((gpu for gpu in GPU_PEAKS if gpu.pattern.search(key)), None) if key else None
