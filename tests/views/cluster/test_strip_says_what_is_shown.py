"""The strip over the timeline says what is on screen: the step a search landed in (not the drill-down's),
never more cards than the run holds with both runs of a comparison on the timeline, and a summarised
card's drill-down has the strip too (which card of how many, its step, the way back)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.views.analysis_tabs.test_compare_view import open_compared, runs  # noqa: F401 (a fixture)
from tests.views.cluster.test_cluster import open_cluster
from tests.views.generated import generated_cluster
from timelineview.views.analysis_tabs.jump import jump_to
from timelineview.viewstate.jump_target import JumpTarget

CARD = 2


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "strip", 4, seed=2, steps=3, tasks_per_step=60)


def _counts(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"(\d+) of (\d+) cards", text)]


def test_after_a_search_the_strip_names_the_step_it_landed_in(qtbot, window, cluster_dir):
    open_cluster(qtbot, window, cluster_dir)
    tab, timeline = window.cluster, window.timeline
    tab.drill([CARD], 1)
    assert tab.bar.label.text().endswith("· step 1")
    card = timeline.cards[0]
    steps = {s["step"]: s for s in tab.steps_of(CARD)}
    store = card.store
    # an operator of the card's compute, searched for and stepped through until a match lies in step 2
    name = store.strings[store.slices.name[int(np.flatnonzero(card.analysis.classification.compute)[0])]]
    assert timeline.run_search(name) > 0
    for _ in range(timeline.match_count):
        ref = timeline.step_search(+1)
        start = int(store.slices.start[ref.index])
        if steps[2]["start_ns"] <= start < steps[2]["end_ns"]:
            break
    else:
        raise AssertionError("no match in step 2")
    w0, w1 = timeline.ctx.abs_window(card)
    assert steps[2]["start_ns"] <= w0 and w1 <= steps[2]["end_ns"]  # the search zoomed into step 2
    assert tab.bar.label.text().endswith("· step 2")  # not the drill-down's step 1


def test_both_runs_on_the_timeline_never_count_more_cards_than_the_run(qtbot, window, runs):  # noqa: F811
    view = open_compared(qtbot, window, runs, "slow_data")
    tab = window.cluster
    assert view.show_on_timeline()
    assert len(window.timeline.cards) == 2 * len(tab.all_cards)  # each base card with its new-run card
    text = tab.bar.label.text()
    assert text.startswith("Base and new run") and not _counts(text)
    # a jump (a finding's evidence, say) while both runs are on screen keeps the strip's words
    first = tab.steps_of(0)[0]
    assert jump_to(tab, JumpTarget(0, first["start_ns"], first["end_ns"]))
    text = tab.bar.label.text()
    assert text.startswith("Base and new run") and all(shown <= total for shown, total in _counts(text))


pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def summary(tmp_path_factory) -> Path:
    from tests.views.cluster.test_summary_card_timeline import _summarise

    base = tmp_path_factory.mktemp("strip_summary")
    return _summarise(base / "job", base / "s")


def test_a_summary_drill_down_has_the_strip(qtbot, window, summary):
    from tests.views.cluster.test_summary_card_timeline import CARDS, _open

    tab = _open(qtbot, window, summary)
    number = next(i for i, c in enumerate(tab.summary.cards) if c.card == "rank 2")
    tab.drill([number], 2)
    assert tab.tabs.currentIndex() == 0 and tab.overview.showing_pyramid
    assert tab.bar.isVisibleTo(window)
    assert tab.bar.label.text() == f"rank 2 of {CARDS} cards, from its summary · step 2"
    assert not tab.bar.all.isEnabled()  # a summary's cards have no slices to show side by side
    tab.bar.back.click()
    assert tab.tabs.currentWidget() is tab.view  # the way back to the comparison
