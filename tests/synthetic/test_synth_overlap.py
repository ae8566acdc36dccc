"""Producer overlap lanes written = an independent plain-Python computation over the truth."""

from __future__ import annotations

import numpy as np

from timelineview.synthetic.intervals import combine, one, union

from .tracecheck import py_gaps, py_intersect, py_minus, py_union


def _intervals(gt, *categories: str) -> list[tuple[int, int]]:
    m = np.zeros(len(gt.start_ns), bool)
    for c in categories:
        m |= gt.mask(c)
    return list(zip(gt.start_ns[m].tolist(), gt.end_ns[m].tolist()))


def _lane(gt, thread: str) -> list[tuple[int, int]]:
    m = gt.mask("overlap_lane") & np.isin(gt.lane, [i for i, t in enumerate(gt.lane_thread) if t == thread])
    return sorted(zip(gt.start_ns[m].tolist(), gt.end_ns[m].tolist()))


def test_cann_overlap_analysis_lanes(cards) -> None:
    for layout in ("msprof", "object", "msprof_per_iteration"):
        gt = cards[layout].truth
        comp = py_union(_intervals(gt, "compute"))
        comm = py_union(_intervals(gt, "comm_op"))
        every = _intervals(gt, "compute", "other_hw", "comm_op", "comm_task")
        span = [(min(s for s, _ in every), max(e for _, e in every))]
        assert _lane(gt, "Computing") == comp
        assert _lane(gt, "Communication") == comm
        assert _lane(gt, "Communication(Not Overlapped)") == py_minus(comm, comp)
        assert _lane(gt, "Free") == py_minus(span, py_union(comp + comm))
        assert _lane(gt, "Free") and _lane(gt, "Communication(Not Overlapped)")


def test_mindspore_overlap_lanes(cards) -> None:
    gt = cards["mindspore_gen_c"].truth
    comp = py_union(_intervals(gt, "compute"))
    comm = py_union(_intervals(gt, "comm_op"))
    assert _lane(gt, "Merged Computation Op") == comp
    assert _lane(gt, "Merged Communication Op") == comm
    assert _lane(gt, "Pure Communication Op") == py_intersect(py_gaps(comp), comm)
    assert _lane(gt, "Free Time") == py_gaps(py_union(comp + comm))


def test_interval_helpers() -> None:
    s, e = union(np.array([5, 1, 2, 10, 12]), np.array([6, 3, 5, 12, 13]))
    assert list(zip(s.tolist(), e.tolist())) == [(1, 6), (10, 13)]  # touching segments merge
    a = union(np.array([0, 10]), np.array([5, 20]))
    b = union(np.array([3, 12]), np.array([11, 14]))
    s, e = combine([a, b], lambda x, y: x & ~y)
    assert list(zip(s.tolist(), e.tolist())) == [(0, 3), (11, 12), (14, 20)]
    s, e = combine([one(0, 30), a], lambda r, x: r & ~x)
    assert list(zip(s.tolist(), e.tolist())) == [(5, 10), (20, 30)]
