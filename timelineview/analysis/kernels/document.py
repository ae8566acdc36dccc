"""``kernels`` of a card in ``stats --json`` (metrics.md §7.1): where the descriptions came from, the tables by
op type and by shape with FLOPs, achieved TFLOPS and MFU, and FLOPs and MFU per step."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from timelineview.analysis.kernels.grouping import FLOPS_PER_TFLOP_NS, NS_PER_US, KernelRows
from timelineview.analysis.kernels.peaks.chip_peaks import OVERRIDE_SOURCE, UNKNOWN_PEAK_NOTE, Peak, chip_peak
from timelineview.analysis.kernels.table import KernelTable
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore

TOP_SHAPES = 50  # rows of ``by_shape`` in the document (``by_op_type`` gives every type)
TASK_CHUNK = 1 << 18  # tasks summed into the steps at once


def _number(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _mfu(tflops: float | None, peak: Peak | None) -> float | None:
    return None if tflops is None or peak is None or peak.tflops <= 0 else tflops / peak.tflops


def kernel_records(rows: KernelRows, peak: Peak | None, by_shape: bool, limit: int | None) -> list[dict]:
    """The JSON records of ``rows`` (the first ``limit``; None: all), MFU against ``peak``."""
    n = len(rows) if limit is None else min(limit, len(rows))
    share, tflops = rows.share, rows.tflops
    out = []
    for k in range(n):
        count = int(rows.count[k])
        row = {"op_type": rows.op_type[k], "core_type": rows.core_type[k]}
        if by_shape:
            row["input_shapes"] = rows.shapes[k]
            row["input_data_types"] = rows.dtypes[k]
        row.update({"count": count, "total_us": int(rows.total_ns[k]) / NS_PER_US,
                    "min_us": int(rows.min_ns[k]) / NS_PER_US,
                    "mean_us": int(rows.total_ns[k]) / max(count, 1) / NS_PER_US,
                    "max_us": int(rows.max_ns[k]) / NS_PER_US})
        if by_shape:
            row["p50_us"] = float(rows.p50_ns[k]) / NS_PER_US
            row["p90_us"] = float(rows.p90_ns[k]) / NS_PER_US
        t = _number(tflops[k])
        row.update({"share": float(share[k]), "flops": _number(rows.flops[k]), "tflops": t, "mfu": _mfu(t, peak)})
        out.append(row)
    return out


def step_flops(table: KernelTable, slice_start: np.ndarray, steps: Sequence[StepWindow]) -> np.ndarray:
    """Σ FLOPs of the tasks starting in each step window (``slice_start``: the card's slices' starts). The
    tasks are taken a chunk at a time, summed in task order as one ``bincount`` would (the same figures):
    the per-task temporaries of ten million tasks would pass the kept table itself."""
    if not steps:
        return np.zeros(0)
    order = sorted(range(len(steps)), key=lambda k: steps[k].start)
    step_start = np.array([steps[k].start for k in order], np.int64)
    step_end = np.array([steps[k].end for k in order], np.int64)
    per_group = np.nan_to_num(table.groups.flops, nan=0.0)  # as ``task_flops``
    sums = np.zeros(len(steps))
    for a in range(0, len(table.slices), TASK_CHUNK):
        starts = slice_start[table.slices[a:a + TASK_CHUNK]]
        at = np.searchsorted(step_start, starts, side="right") - 1
        inside = (at >= 0) & (starts < step_end[np.maximum(at, 0)])
        np.add.at(sums, at[inside], per_group[table.group[a:a + TASK_CHUNK][inside]])
    out = np.zeros(len(steps))
    out[order] = sums
    return out


def card_peak(table: KernelTable, peak_tflops: float | None = None) -> Peak | None:
    """The peak MFU is measured against: ``peak_tflops`` (``--peak-tflops``) when given, else the chip's."""
    return Peak(peak_tflops, OVERRIDE_SOURCE) if peak_tflops else chip_peak(table.device)


def step_kernel_rows(store: TraceStore, table: KernelTable, steps: Sequence[StepWindow],
                     peak: Peak | None) -> list[dict]:
    """Per step window: ``step``, ``flops`` (Σ over the tasks starting in it), achieved ``tflops`` over the
    window and ``mfu`` against ``peak``."""
    per_step = step_flops(table, store.slices.start, steps)
    rows = []
    for w, flops in zip(steps, per_step.tolist(), strict=True):
        dur = w.end - w.start
        t = flops / dur / FLOPS_PER_TFLOP_NS if dur > 0 else None
        rows.append({"step": w.step, "flops": flops, "tflops": t, "mfu": _mfu(t, peak)})
    return rows


def kernels_header(store: TraceStore, table: KernelTable, steps: Sequence[StepWindow], by_op_type: list[dict],
                   step_rows: list[dict], peak_tflops: float | None = None) -> dict:
    """The ``kernels`` object of a card but its rows (``by_op_type``, ``by_shape``, ``steps``: declared results,
    put after these keys); its totals read the rows by op type and by step."""
    peak = card_peak(table, peak_tflops)
    per_step = np.array([r["flops"] for r in step_rows], np.float64)
    total_flops = float(np.nansum(table.task_flops))
    step_time = sum(w.end - w.start for w in steps)
    card_tflops = float(per_step.sum()) / step_time / FLOPS_PER_TFLOP_NS if step_time > 0 else None
    not_counted = [r["op_type"] for r in by_op_type if r["flops"] is None]  # None: no finite FLOPs
    return {"source": table.source, "tasks": len(table), "described": table.described, "device": table.device or None,
            "peak_tflops": peak.tflops if peak else None, "peak_source": peak.source if peak else None,
            "note": None if peak else UNKNOWN_PEAK_NOTE,
            "flops": total_flops, "tflops": card_tflops, "mfu": _mfu(card_tflops, peak),
            "not_counted": list(dict.fromkeys(not_counted))}


def with_peak(kernels: dict | None, peak_tflops: float) -> dict | None:
    """``kernels`` with its MFU figures recomputed against ``peak_tflops`` (``--peak-tflops`` on a document
    already written)."""
    if kernels is None:
        return None
    peak = Peak(peak_tflops, OVERRIDE_SOURCE)
    out = dict(kernels, peak_tflops=peak.tflops, peak_source=peak.source, note=None,
               mfu=_mfu(kernels.get("tflops"), peak))
    for key in ("by_op_type", "by_shape", "steps"):
        out[key] = [dict(r, mfu=_mfu(r.get("tflops"), peak)) for r in kernels.get(key) or []]
    return out
