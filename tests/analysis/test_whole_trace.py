"""A trace without step markers is one window named "whole trace", without phases (issue 11 item 4).

Every consumer of the step objects takes the null phases as "not measured": the comparison rows
and bars, the slow-card rule, the text tables and the CSV, never as zero or as invented values.
"""

from __future__ import annotations

import csv
import io

import pytest

from timelineview.analysis.comparison import BAR_PARTS, COLUMNS, FREE_AFTER_INTERVAL, to_csv
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summary import format_text

from .cluster_factory import make_cluster
from .factory import Sl, build_store


def unmarked_cluster(n_cards: int = 3, compute_us=None):
    """``make_cluster`` with its ProfilerStep markers removed: nothing says where steps are."""
    stores = make_cluster(n_cards, steps=2, compute_us=compute_us)
    out = []
    for c, s in enumerate(stores):
        sl = s.slices
        keep = [Sl(f"{s.processes.name[s.lanes.process[sl.lane[i]]]}/{s.lanes.name[sl.lane[i]]}",
                   s.strings[sl.name[i]], int(sl.start[i]), int(sl.dur[i]),
                   s.strings[sl.task_type[i]] if sl.task_type[i] >= 0 else None)
                for i in range(len(sl)) if not s.strings[sl.name[i]].startswith("ProfilerStep")]
        out.append(build_store(keep, card=f"rank {c}", rank=c, paths=(f"rank{c}.json",)))
    return out


@pytest.fixture(scope="module")
def session():
    return AnalysisSession(unmarked_cluster(compute_us=[1000.0, 1000.0, 1000.0]))


def test_stats_steps_are_one_whole_trace_window_with_null_phases(session):
    doc = session.stats_document()
    for card in doc["cards"]:
        (step,) = card["steps"]
        assert step["window"] == "whole trace"
        assert step["step_interval_us"] is None and step["fp_bp_us"] is None and step["tail_us"] is None
        # the window is the card's span: its metrics are the card's own
        for key in ("span_us", "compute_us", "communication_us", "free_us", "idle_gap_count"):
            assert step[key] == pytest.approx(card[key]), key


def test_comparison_rows_show_no_phases_and_a_bar_without_step_interval(session):
    cmp = session.comparison
    assert cmp.whole_trace_only and cmp.step_numbers() == [1]
    doc = session.stats_document()
    for row, card in zip(cmp.rows(), doc["cards"], strict=True):
        assert row["window"] == "whole trace"
        assert row["step_interval_us"] is None and row["fp_bp_us"] is None and row["tail_us"] is None
        assert row["free_us"] == pytest.approx(card["free_us"])
        bar = row["bar"]
        assert [k for k, _ in BAR_PARTS] == list(bar)
        assert bar["step_interval_us"] == 0.0
        # no step interval: the bar's "free after the step interval" is the window's free time
        assert bar[FREE_AFTER_INTERVAL] == pytest.approx(card["free_us"])
        assert sum(bar.values()) == pytest.approx(card["span_us"])
    table = list(csv.DictReader(io.StringIO(to_csv(cmp.rows(), COLUMNS))))
    assert [(t["step_interval_us"], t["fp_bp_us"], t["tail_us"]) for t in table] == [("", "", "")] * 3


def test_slow_card_rule_never_flags_an_unmeasured_step_interval():
    stores = unmarked_cluster(compute_us=[1000.0, 1000.0, 1600.0])
    flagged = AnalysisSession(stores).stats_document()["slow_cards"]
    metrics = {f["metric"] for f in flagged}
    assert "step_interval_us" not in metrics and ("rank 2", "compute_us") in {(f["card"], f["metric"]) for f in flagged}


def test_text_tables_name_the_window_and_leave_phases_empty(session):
    text = format_text(session.stats_document())
    steps = text.split("Steps of rank 0 (µs)\n")[1].split("\n\n")[0].splitlines()
    header, row = steps[0].split(), steps[2]
    assert header[-3:] == ["interval", "fp-bp", "tail"]
    assert row.startswith("whole trace") and row.split()[-3:] == ["-", "-", "-"]
