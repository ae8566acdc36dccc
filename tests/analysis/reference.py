"""Reference answers by a plain-Python sweep over elementary segments.

Deliberately naive and independent of ``timelineview.analysis``: cut time at every interval
boundary and at the window edges, then ask of each elementary segment whether some compute /
communication interval covers it.
"""

from __future__ import annotations

Interval = tuple[int, int]


def _covered(a: int, b: int, intervals: list[Interval]) -> bool:
    return any(s <= a and b <= e for s, e in intervals)


def segments(t0: int, t1: int, *sets: list[Interval]) -> list[Interval]:
    """Elementary segments of [t0, t1) cut at every boundary of the given sets."""
    points = {t0, t1}
    for intervals in sets:
        for s, e in intervals:
            points.update(p for p in (s, e) if t0 <= p <= t1)
    pts = sorted(points)
    return [(a, b) for a, b in zip(pts, pts[1:], strict=False) if b > a]


def measure(intervals: list[Interval], t0: int, t1: int) -> int:
    return sum(b - a for a, b in segments(t0, t1, intervals) if _covered(a, b, intervals))


def union(intervals: list[Interval]) -> list[Interval]:
    """Maximal covered runs (touching runs join)."""
    if not intervals:
        return []
    t0 = min(s for s, _ in intervals)
    t1 = max(e for _, e in intervals)
    runs: list[list[int]] = []
    for a, b in segments(t0, t1, intervals):
        if _covered(a, b, intervals):
            if runs and runs[-1][1] == a:
                runs[-1][1] = b
            else:
                runs.append([a, b])
    return [(a, b) for a, b in runs]


def metrics(compute: list[Interval], comm: list[Interval], t0: int, t1: int, min_gap: int = 1000) -> dict:
    """All metrics of metrics.md §2 over [t0, t1), by sweep."""
    segs = segments(t0, t1, compute, comm)
    c_ns = m_ns = both_ns = busy_ns = 0
    labels = []
    for a, b in segs:
        c, m = _covered(a, b, compute), _covered(a, b, comm)
        labels.append((a, b, c, m))
        c_ns += (b - a) * c
        m_ns += (b - a) * m
        both_ns += (b - a) * (c and m)
        busy_ns += (b - a) * (c or m)
    # idle gaps: runs of non-compute segments with compute on both sides, inside the window or
    # touching its edges (a gap that fills the window is a gap of that window)
    gaps = []  # (length, comm-covered)
    run = None
    seen_compute = any(a < b == t0 for a, b in compute)
    for a, b, c, m in labels:
        if c:
            if run is not None and seen_compute:
                gaps.append(run)
            run = None
            seen_compute = True
        else:
            if run is None:
                run = [0, 0]
            run[0] += b - a
            run[1] += (b - a) * m
    if run is not None and seen_compute and any(t1 == a < b for a, b in compute):
        gaps.append(run)
    gaps = [g for g in gaps if g[0] >= max(min_gap, 1)]
    total = sum(g[0] for g in gaps)
    covered = sum(g[1] for g in gaps)
    return {
        "span_us": (t1 - t0) / 1000,
        "compute_us": c_ns / 1000,
        "communication_us": m_ns / 1000,
        "overlapped_us": both_ns / 1000,
        "pure_communication_us": (m_ns - both_ns) / 1000,
        "free_us": (t1 - t0 - busy_ns) / 1000,
        "uncaptured_us": 0.0,  # one file: every moment of it was captured
        "overlap_ratio": both_ns / m_ns if m_ns else None,
        "idle_gap_count": len(gaps),
        "idle_gap_total_us": total / 1000,
        "idle_gap_max_us": max((g[0] for g in gaps), default=0) / 1000,
        "idle_gap_communication_us": covered / 1000,
        "idle_gap_free_us": (total - covered) / 1000,
    }


def card_span(*sets: list[Interval]) -> Interval:
    """[first start, last end] over all intervals (zero-length ones included)."""
    all_iv = [iv for s in sets for iv in s]
    if not all_iv:
        return (0, 0)
    return min(s for s, _ in all_iv), max(e for _, e in all_iv)
