"""Metrics of metrics.md §2 over any window, in O(log n + gaps in the window).

Covered times come from prefix sums of the derived sets (``Intervals.measure``), so a
window that cuts a task counts only the part inside it.

Idle gaps: a gap counts only when it lies inside the window, ends included (metrics.md §2
takes the gaps of U(compute) clipped to W). A gap cut by a window edge is therefore not an
idle gap of that window; its time still shows in ``free_us`` or ``pure_communication_us``.
Gaps that lie inside the window count whole, and a gap that fills the window exactly (a click
on it) is a gap of that window.

Time that no file of the card covers (``uncaptured_us``, per-iteration exports) is never free and
never part of an idle gap.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.derived import DerivedIntervals

METRIC_KEYS = (
    "span_us", "compute_us", "communication_us", "overlapped_us", "pure_communication_us",
    "free_us", "uncaptured_us", "overlap_ratio", "idle_gap_count", "idle_gap_total_us", "idle_gap_max_us",
    "idle_gap_communication_us", "idle_gap_free_us",
)


def _us(ns: int | float) -> float:
    return float(ns) / 1000.0


def window_metrics(derived: DerivedIntervals, t0: int, t1: int, min_gap_ns: int | None = None) -> dict:
    """The §2 metrics over [t0, t1) (ns); ``min_gap_ns`` defaults to the derive() threshold."""
    t0, t1 = int(t0), int(t1)
    if min_gap_ns is None:
        min_gap_ns = derived.min_gap_ns
    width = max(t1 - t0, 0)
    compute = derived.compute.measure(t0, t1)
    comm = derived.communication.measure(t0, t1)
    both = derived.overlapped.measure(t0, t1)
    uncaptured = derived.uncaptured.measure(t0, t1) if len(derived.uncaptured) else 0
    count, total, longest, covered = _idle_gaps(derived, t0, t1, min_gap_ns)
    return {
        "span_us": _us(width),
        "compute_us": _us(compute),
        "communication_us": _us(comm),
        "overlapped_us": _us(both),
        "pure_communication_us": _us(comm - both),
        "free_us": _us(width - (compute + comm - both) - uncaptured),
        "uncaptured_us": _us(uncaptured),
        "overlap_ratio": (both / comm) if comm > 0 else None,
        "idle_gap_count": count,
        "idle_gap_total_us": _us(total),
        "idle_gap_max_us": _us(longest),
        "idle_gap_communication_us": _us(covered),
        "idle_gap_free_us": _us(total - covered),
    }


def _idle_gaps(derived: DerivedIntervals, t0: int, t1: int, min_gap_ns: int) -> tuple[int, int, int, int]:
    """(count, total, max, communication-covered) of the idle gaps inside [t0, t1)."""
    c = derived.compute
    if t1 <= t0 or len(c) < 2:
        return 0, 0, 0, 0
    # gap k = [end of segment k, start of segment k+1] must lie inside the closed window [t0, t1]
    k_lo = int(np.searchsorted(c.ends, t0, side="left"))
    k_hi = int(np.searchsorted(c.starts, t1, side="right")) - 1
    if k_hi <= k_lo:
        return 0, 0, 0, 0
    lengths = derived.gap_lengths[k_lo:k_hi]
    keep = lengths >= max(min_gap_ns, 1)
    kept = lengths[keep]
    if not len(kept):
        return 0, 0, 0, 0
    covered = int(derived.gap_communication[k_lo:k_hi][keep].sum())
    return len(kept), int(kept.sum()), int(kept.max()), covered


STAGE_KEYS = ("stage_us", "free_us")


def stage_metrics(derived: DerivedIntervals, t0: int, t1: int) -> dict:
    """The producer's framing of a window (metrics.md §3, ``step_trace_time.csv``): its Stage is
    [first task start, last task end] of compute ∪ communication inside [t0, t1), its Free
    (``free_us``) the part of the Stage where neither runs (uncaptured time excluded). Both 0 without
    a task in the window."""
    busy = derived.busy
    first = int(np.searchsorted(busy.ends, int(t0), side="right"))
    last = int(np.searchsorted(busy.starts, int(t1), side="left")) - 1
    if first > last:  # no task in the window (last < len(busy) always)
        return dict.fromkeys(STAGE_KEYS, 0.0)
    a, b = max(int(busy.starts[first]), int(t0)), min(int(busy.ends[last]), int(t1))
    uncaptured = derived.uncaptured.measure(a, b) if len(derived.uncaptured) else 0
    return {"stage_us": _us(b - a), "free_us": _us(b - a - busy.measure(a, b) - uncaptured)}


def framed_metrics(derived: DerivedIntervals, t0: int, t1: int, min_gap_ns: int | None = None) -> dict:
    """The §2 metrics of a step-like window [t0, t1) in the producer's words (metrics.md §3): its
    ``free_us`` is the producer's Free (inside the Stage) and the free time over the whole window is
    ``window_free_us``."""
    out = {"window_free_us" if k == "free_us" else k: v for k, v in window_metrics(derived, t0, t1, min_gap_ns).items()}
    out.update(stage_metrics(derived, t0, t1))
    return out


def area_metrics(derived: DerivedIntervals, t0: int, t1: int) -> dict:
    """What a panel shows for any window [t0, t1): :func:`framed_metrics` and
    ``free_outside_idle_gaps_us``: the window's free time that lies in no whole idle gap (before its
    first or after its last compute, in a gap its edges cut, in a gap shorter than ``min_gap``), so
    that ``window_free_us`` = that + ``idle_gap_free_us``."""
    out = framed_metrics(derived, t0, t1)
    out["free_outside_idle_gaps_us"] = out["window_free_us"] - out["idle_gap_free_us"]
    return out


def card_metrics(derived: DerivedIntervals, min_gap_ns: int | None = None) -> dict:
    """The §2 metrics of the whole card (W = ``derived.span``)."""
    return window_metrics(derived, *derived.span, min_gap_ns=min_gap_ns)
