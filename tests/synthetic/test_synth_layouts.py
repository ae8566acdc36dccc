"""Every layout: the files parse, and they contain exactly what the ground truth says."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np

from timelineview.synthetic import CATEGORIES, GroundTruth

from .conftest import Card
from .tracecheck import display_lanes, ns, truth_rows, x_rows


def test_x_events_match_truth(card: Card) -> None:
    rows = x_rows(card.events)
    assert rows == truth_rows(card.truth)
    assert sum(rows.values()) == card.truth.x_events
    assert len(rows) == card.truth.distinct_x
    assert card.truth.expected_slices == card.truth.distinct_x + card.truth.be_pairs


def test_duplicates_are_exact_copies(card: Card) -> None:
    text = Counter(json.dumps(e, sort_keys=True, default=str) for e in card.events if e["ph"] == "X")
    extra = sum(n - 1 for n in text.values())
    assert extra == card.truth.duplicate_x > 0
    assert int((card.truth.copies == 2).sum()) == card.truth.duplicate_x


def test_other_phases_counted(card: Card) -> None:
    gt = card.truth
    assert card.count("C") == gt.counter_events
    assert card.count("i") == gt.instant_events == 2 * len(gt.step_start_ns)
    assert card.count("B") == gt.be_pairs + gt.open_b_events
    assert card.count("E") == gt.be_pairs
    assert gt.open_b_events == 1
    assert card.count("s") == gt.flow_edges
    assert card.count("f") + card.count("t") == gt.flow_edges
    series = {(str(e["pid"]), e["name"], k) for e in card.events if e["ph"] == "C" for k in e["args"]}
    assert len(series) == gt.counter_series


def test_lanes_named_and_ordered_as_a_viewer_would(card: Card) -> None:
    gt = card.truth
    got = list(zip(gt.lane_pid, gt.lane_tid, gt.lane_process, gt.lane_thread))
    assert got == display_lanes(card.events)


def test_tasks_on_one_stream_never_overlap(card: Card) -> None:
    gt = card.truth
    cats = [CATEGORIES.index(c) for c in ("compute", "other_hw", "comm_op", "comm_task")]
    checked = 0
    for lane in np.unique(gt.lane[np.isin(gt.category, cats)]):
        m = gt.lane == lane
        order = np.argsort(gt.start_ns[m], kind="stable")
        s, e = gt.start_ns[m][order], gt.end_ns[m][order]
        assert (s[1:] >= e[:-1]).all(), (gt.lane_process[lane], gt.lane_thread[lane])
        checked += 1
    assert checked >= 3


def test_link_tasks_lie_inside_their_operator(card: Card) -> None:
    gt = card.truth
    ops = gt.mask("comm_op")
    tasks = gt.mask("comm_task")
    if not tasks.any():
        return
    order = np.argsort(gt.start_ns[ops])
    os_, oe = gt.start_ns[ops][order], gt.end_ns[ops][order]
    i = np.searchsorted(os_, gt.start_ns[tasks], side="right") - 1
    assert (i >= 0).all()
    assert (gt.end_ns[tasks] <= oe[i]).all()


def test_step_windows_and_phases(card: Card) -> None:
    gt = card.truth
    marker = {"profiler_step": "ProfilerStep#{}", "step_trace": "Iteration {}", "steps_lane": "{}"}
    compute = gt.mask("compute")
    for k in range(len(gt.step_start_ns)):
        s, e = int(gt.step_start_ns[k]), int(gt.step_end_ns[k])
        if gt.step_source:
            name = marker[gt.step_source].format(k + 1)
            rows = [i for i in np.flatnonzero(gt.mask("step_marker")) if gt.names[gt.name[i]] == name]
            assert [(int(gt.start_ns[i]), int(gt.end_ns[i])) for i in rows] == [(s, e)]
        inside = compute & (gt.start_ns >= s) & (gt.start_ns < e)
        assert int(gt.start_ns[inside].min()) == gt.step_fp_ns[k]
        assert int(gt.end_ns[inside].max()) == gt.step_bp_ns[k]
        assert s < gt.step_fp_ns[k] < gt.step_bp_ns[k] < e
    assert (gt.step_start_ns[1:] == gt.step_end_ns[:-1]).all()


def test_step_trace_args_carry_fp_and_bp(cards) -> None:
    for layout in ("msprof", "msprof_per_iteration"):
        c = cards[layout]
        it = [e for e in c.events if e["ph"] == "X" and e.get("cat") == "Iteration Time"]
        assert [ns(e["args"]["FP Start"]) for e in it] == c.truth.step_fp_ns.tolist()
        assert [ns(e["args"]["BP End"]) for e in it] == c.truth.step_bp_ns.tolist()


def test_truth_json_round_trip(card: Card) -> None:
    gt = card.truth
    back = GroundTruth.from_json(gt.to_json())
    assert back.layout == gt.layout and back.lane_thread == gt.lane_thread
    assert back.start_ns.dtype == np.int64 and (back.start_ns == gt.start_ns).all()
    assert (back.category == gt.category).all() and back.names == gt.names
    assert back.expected_slices == gt.expected_slices and back.aux_x_events == gt.aux_x_events


def test_overlapping_lane_is_not_nested(card: Card) -> None:
    gt = card.truth
    first = gt.names.index("AscendCL@aclrtSynchronizeStream")
    lane = int(gt.lane[gt.name == first][0])
    m = gt.lane == lane
    order = np.argsort(gt.start_ns[m])
    s, e = gt.start_ns[m][order], gt.end_ns[m][order]
    partial = (s[1:] < e[:-1]) & (e[:-1] < e[1:])
    assert partial.sum() >= 3 * len(gt.step_start_ns)
