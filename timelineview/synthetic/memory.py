"""torch_npu's memory files beside a generated card's ``trace_view.json``, with known peaks.

Per card: the model's weights (blocks allocated before the first step, never released) and, in each
step, activation blocks allocated during the forward pass and released during the backward pass.
``operator_memory.csv`` lists every block; ``memory_record.csv`` has PTA's totals after each
allocation and release (reserved: the caching allocator's high-water mark, rounded up to its 2 MB
segments with some headroom), GE's constant pool and their sum PTA+GE, written as torch_npu writes
them (a tab after each time, CRLF line ends, an empty release time for a block still held).
``imbalance_card`` makes one card hold ``imbalance_factor`` × more of everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from timelineview.producers.torch_npu import MEMORY_RECORD_CSV, OPERATOR_MEMORY_CSV
from timelineview.synthetic.truth import GroundTruth

MB = 1 << 20
SEGMENT = 2 * MB  # the caching allocator reserves whole segments
HEADROOM = 1.08  # reserved over allocated at the high-water mark
BLOCK = 512  # block sizes are multiples of 512 bytes, as the allocator rounds them
GE_ALLOCATED, GE_RESERVED = 16 * MB, 18 * MB
RECORD_HEADER = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
OPERATORS = ("aten::empty_strided", "aten::mm", "aten::_convolution", "aten::add", "npu::_npu_dropout",
             "aten::native_layer_norm", "aten::gelu", "aten::clone")
STREAM = "897357296"


@dataclass(frozen=True)
class MemorySpec:
    """What to write: sizes in MB, blocks per step, and the planted imbalance."""

    weights_mb: float = 800.0
    weight_blocks: int = 200
    activations_mb: float = 600.0  # alive at once at the end of each forward pass
    blocks_per_step: int = 200
    jitter: float = 0.003  # relative spread of a healthy card's sizes
    imbalance_card: int | None = None  # the rank that holds more
    imbalance_factor: float = 1.3
    seed: int = 0


@dataclass(frozen=True)
class MemoryTruth:
    """What one card's memory files say."""

    rank: int
    folder: Path
    blocks: int
    peak_allocated: int  # PTA, bytes
    peak_reserved: int  # PTA, bytes
    largest: int  # bytes


def _us(ns: np.ndarray) -> list[str]:
    return [f"{v // 1000}.{v % 1000:03d}\t" for v in ns.tolist()]


def _mb(b: np.ndarray) -> list[str]:
    return [repr(v) for v in (b / MB).tolist()]


def _blocks(rng: np.random.Generator, total: float, n: int, scale: float) -> np.ndarray:
    """``n`` block sizes (bytes, multiples of 512) adding up to about ``total`` MB × ``scale``."""
    w = rng.uniform(0.5, 1.5, n)
    sizes = w / w.sum() * total * MB * scale
    return np.maximum(np.rint(sizes / BLOCK), 1).astype(np.int64) * BLOCK


def card_blocks(truth: GroundTruth, spec: MemorySpec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(size, allocated_ns, released_ns with -1 = never, operator index) of one card's blocks, in file time."""
    rng = np.random.default_rng([spec.seed, truth.rank, 7])
    scale = (spec.imbalance_factor if truth.rank == spec.imbalance_card else 1.0) * (1 + rng.normal(0, spec.jitter))
    starts, ends = truth.step_start_ns, truth.step_end_ns  # the card's file times
    fps = np.where(truth.step_fp_ns > starts, truth.step_fp_ns, starts)
    bps = np.where(truth.step_bp_ns > fps, truth.step_bp_ns, ends)
    sizes = [_blocks(rng, spec.weights_mb, spec.weight_blocks, scale)]
    first = int(starts[0]) if len(starts) else truth.time_base_ns
    alloc = [first + np.arange(spec.weight_blocks, dtype=np.int64)]  # the weights, at the first step's start
    release = [np.full(spec.weight_blocks, -1, dtype=np.int64)]
    for fp, bp, e in zip(fps.tolist(), bps.tolist(), ends.tolist(), strict=True):
        n = spec.blocks_per_step
        sizes.append(_blocks(rng, spec.activations_mb, n, scale))
        fwd_end = max(bp, fp + 2)
        alloc.append(np.sort(rng.integers(fp, (fp + fwd_end) // 2 + 1, n)))  # during the forward pass
        release.append(np.sort(rng.integers((fp + fwd_end) // 2 + 1, max(e, fwd_end), n)))  # during the backward
    ops = rng.integers(0, len(OPERATORS), sum(len(x) for x in sizes))
    return np.concatenate(sizes), np.concatenate(alloc), np.concatenate(release), ops


def _curve(size: np.ndarray, alloc: np.ndarray, release: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PTA's (time, allocated, reserved) after each allocation and release."""
    held = release >= 0
    t = np.concatenate([alloc, release[held]])
    delta = np.concatenate([size, -size[held]])
    order = np.lexsort((delta, t))  # a release before an allocation at the same instant
    t, allocated = t[order], np.cumsum(delta[order])
    segments = np.ceil(allocated * HEADROOM / SEGMENT).astype(np.int64) * SEGMENT
    return t, allocated, np.maximum.accumulate(segments)


def write_card_memory(truth: GroundTruth, spec: MemorySpec) -> MemoryTruth:
    """Write ``memory_record.csv`` and ``operator_memory.csv`` beside the card's trace file."""
    folder = Path(truth.paths[0]).parent
    size, alloc, release, ops = card_blocks(truth, spec)
    t, allocated, reserved = _curve(size, alloc, release)
    at = np.searchsorted(t, alloc, side="right") - 1  # the totals right after each allocation
    eol = "\r\n"
    with open(folder / OPERATOR_MEMORY_CSV, "w", encoding="utf-8", newline="") as f:
        f.write(OPERATOR_HEADER + eol)
        rel = [s if r >= 0 else "" for s, r in zip(_us(np.maximum(release, 0)), release.tolist(), strict=True)]
        kb = [f"{v / 1024:.1f}" for v in size.tolist()]
        a_mb, r_mb = _mb(allocated[at]), _mb(reserved[at])
        for k in range(len(size)):
            f.write(f"{OPERATORS[ops[k]]},{kb[k]},{_us(alloc[k:k + 1])[0]},{rel[k]},,,,{a_mb[k]},{r_mb[k]},"
                    f"{a_mb[k]},,,,{STREAM},NPU:0{eol}")
    ge_t = int(t[0]) if len(t) else 0
    with open(folder / MEMORY_RECORD_CSV, "w", encoding="utf-8", newline="") as f:
        f.write(RECORD_HEADER + eol)
        f.write(f"GE,{_us(np.array([ge_t]))[0]},{GE_ALLOCATED / MB!r},{GE_RESERVED / MB!r},,,NPU:0{eol}")
        ts, am, rm = _us(t), _mb(allocated), _mb(reserved)
        sa, sr = _mb(allocated + GE_ALLOCATED), _mb(reserved + GE_RESERVED)
        for k in range(len(t)):
            f.write(f"PTA,{ts[k]},{am[k]},{rm[k]},{am[k]},{STREAM},NPU:0{eol}"
                    f"PTA+GE,{ts[k]},{sa[k]},{sr[k]},{am[k]},{STREAM},NPU:0{eol}")
    return MemoryTruth(truth.rank, folder, len(size), int(allocated.max()), int(reserved.max()), int(size.max()))


def write_cluster_memory(truths: list[GroundTruth], spec: MemorySpec = MemorySpec()) -> list[MemoryTruth]:
    """Memory files beside every card of a generated torch_npu-layout cluster (``generate_cluster``'s truths)."""
    return [write_card_memory(t, spec) for t in truths]
