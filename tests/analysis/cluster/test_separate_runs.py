"""Cards opened together that are not one job (metrics.md §4): spans far apart on one clock, nothing tying
them, are aligned each run at its own start; the cards of one run keep their clock between them."""

from __future__ import annotations

import json

import numpy as np

from timelineview.analysis.cluster.clock_offsets import SEPARATE_RUN_GAP_NS, separate_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

S = 10**9  # ns
YEAR = 365 * 24 * 3600 * S
T0_US = 1_700_000_000_000_000  # epoch µs, as Kineto writes them


def test_a_run_a_year_later_starts_with_the_first_and_keeps_its_cards_together():
    # the first card's run [0, 10 s]; a second job a year later on two cards 2 s apart; a card 30 min after
    # the first (one job with it, a clock that drifted is no reason to move it)
    spans = [(0, 10 * S), (YEAR, YEAR + 5 * S), (YEAR + 2 * S, YEAR + 8 * S), (1800 * S, 1805 * S)]
    got = separate_runs(np.zeros(4, dtype=np.int64), spans)
    assert got.offsets_ns.tolist() == [0, YEAR, YEAR, 0]
    assert got.own_start == [1, 2]
    aligned = [(a - o, b - o) for (a, b), o in zip(spans, got.offsets_ns.tolist(), strict=True)]
    assert aligned[1] == (0, 5 * S) and aligned[2] == (2 * S, 8 * S)  # 2 s apart still


def test_collective_offsets_come_first_and_the_gap_is_measured_after_them():
    # card 1's clock runs a day ahead, its collectives say so: aligned by them it overlaps card 0, one job
    day = 24 * 3600 * S
    got = separate_runs(np.array([0, day]), [(0, 10 * S), (day + S, day + 9 * S)])
    assert got.offsets_ns.tolist() == [0, day] and got.own_start == []
    # just within the gap: one run; just past it: two
    assert separate_runs(np.zeros(2, np.int64), [(0, S), (S + SEPARATE_RUN_GAP_NS, 2 * S + SEPARATE_RUN_GAP_NS)]
                         ).own_start == []
    assert separate_runs(np.zeros(2, np.int64), [(0, S), (2 * S + SEPARATE_RUN_GAP_NS, 3 * S + SEPARATE_RUN_GAP_NS)]
                         ).own_start == [1]


def kineto_trace(rank: int, start_us: int, kernels_us: list[tuple[int, int]]) -> dict:
    """A Kineto trace of rank ``rank`` whose kernels (start from ``start_us``, duration) run on GPU 0."""
    events = [{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}]
    events += [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": start_us + a, "dur": d,
                "args": {"stream": 7}} for i, (a, d) in enumerate(kernels_us)]
    return {"distributedInfo": {"rank": rank}, "traceEvents": events}


def write_year_apart(folder) -> list[int]:
    """Two Kineto runs a year apart in ``folder``; their own lengths (µs)."""
    first, second = [(0, 100), (300, 700)], [(0, 50), (2_000, 500)]
    (folder / "a.pt.trace.json").write_text(json.dumps(kineto_trace(0, T0_US, first)))
    (folder / "b.pt.trace.json").write_text(json.dumps(kineto_trace(1, T0_US + YEAR // 1000, second)))
    return [1_000, 2_500]


def test_stats_of_two_runs_a_year_apart(tmp_path):
    lengths = write_year_apart(tmp_path)
    session = AnalysisSession(load(tmp_path))
    doc = session.stats_document()
    assert [c["clock_offset_us"] for c in doc["cards"]] == [0.0, YEAR / 1000]
    starts = [c["start_ns"] - c["clock_offset_us"] * 1000 for c in doc["cards"]]
    assert starts[0] == starts[1]  # each run from its own start
    assert [c["span_us"] for c in doc["cards"]] == lengths
    assert doc["notes"] == [session.clock_note] and session.clock_note.startswith("rank 1: ")
    assert session.separate_run_cards == ["rank 1"]
