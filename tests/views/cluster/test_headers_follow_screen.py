"""The strip over the timeline and the status line describe what is on screen now: after a jump from an
analysis tab the strip names the step the jump shows (not the drill-down's step), and a new load takes
the counts of the data before off the status line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.cluster.test_cluster import open_cluster
from tests.views.generated import generated_cluster
from timelineview.views.analysis_tabs.jump import jump_to
from timelineview.viewstate.jump_target import JumpTarget, step_holding

SLOW_CARD = 3


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "cluster", 8, seed=1, steps=3, tasks_per_step=60, slow_card=SLOW_CARD)


def test_step_holding_is_the_one_step_around_the_span():
    steps = [{"step": 1, "start_ns": 100, "end_ns": 200}, {"step": 2, "start_ns": 200, "end_ns": 300}]
    assert step_holding(steps, 120, 180) == 1
    assert step_holding(steps, 200, 300) == 2
    assert step_holding(steps, 150, 250) is None  # across two steps
    assert step_holding(steps, 0, 50) is None
    assert step_holding([{"step": 1, "start_ns": None, "end_ns": None}], 0, 1) is None


def test_after_a_jump_the_strip_names_the_step_on_screen(qtbot, window, cluster_dir):
    open_cluster(qtbot, window, cluster_dir)
    tab = window.cluster
    card = 5
    rows = {r["number"]: r for r in tab.view.current_rows()}
    steps = tab.steps_of(card)
    assert [s["step"] for s in steps] == [1, 2, 3]
    other = next(s for s in steps if s["step"] != rows[card]["drill_step"])  # not the step a drill-down shows
    mid = (other["start_ns"] + other["end_ns"]) // 2
    tab.drill([SLOW_CARD])  # the strip names the slow card's worst step
    assert tab.bar.label.text().endswith(f"· step {rows[SLOW_CARD]['drill_step']}")
    assert jump_to(tab, JumpTarget(card, mid, mid + 1000))  # card 5 is not on screen alone: it is drilled to
    assert [c.number for c in window.timeline.cards] == [card]
    assert tab.bar.label.text().endswith(f"· step {other['step']}")
    # a span over the whole trace: no one step on screen, none named
    assert jump_to(tab, JumpTarget(card, steps[0]["start_ns"], steps[-1]["end_ns"]))
    assert "step" not in tab.bar.label.text()
    # the card already on screen: the strip still follows the jump
    first = steps[0]
    assert jump_to(tab, JumpTarget(card, first["start_ns"], first["end_ns"]))
    assert tab.bar.label.text().endswith("· step 1")


def test_a_new_load_takes_the_findings_count_off_the_status_line(qtbot, window, cluster_dir):
    open_cluster(qtbot, window, cluster_dir)
    button = window.cluster.analysis.status["diagnosis"]
    assert button.isVisible() and button.text().endswith("findings")  # the slow card makes findings
    assert window.counts_label.text().startswith("8 card(s), ")  # "8 card(s), … slices", kept on the line
    window.open_paths([cluster_dir], remember=False)  # loading: the counts were of the data before
    assert not button.isVisible() and window.statusBar().currentMessage() == ""
    assert window.counts_label.text() == ""
    qtbot.waitUntil(lambda: window.worker is None, timeout=60_000)
    assert button.isVisible() and button.text().endswith("findings")  # the new data's count
    assert window.counts_label.text().startswith("8 card(s), ")
