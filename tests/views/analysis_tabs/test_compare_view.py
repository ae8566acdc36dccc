"""The Compare tab: a second run opened as the comparison of the one on screen shows
exactly the planted change, both runs share the timeline aligned at a chosen step (W/A/S/D move both),
an operator's slices are highlighted in both runs, and runs of another shape are reported in words."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from tests.analysis.test_run_diff import run as factory_run
from timelineview.analysis.diff.run_diff import COMM_KEYS, diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.vocabulary import label
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.app import parse_args
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.views.analysis_tabs.compare.compare_view import CompareView
from timelineview.views.analysis_tabs.compare.delta_tables import link_records
from timelineview.views.analysis_tabs.compare.open_menu import compare_view, open_comparison
from timelineview.views.analysis_tabs.compare.phase_bars import FASTER_COLOUR, SLOWER_COLOUR
from timelineview.views.keys import STEP_PAN
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.lane_layout import LANE

SLOW = 1  # the rank that carries the planted change
SPEC = dict(seed=4, steps=3, tasks_per_step=60)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Folders of generated runs and their ground truths: the base and runs that differ in one way."""
    root = tmp_path_factory.mktemp("compare")
    variants = {
        "base": cluster_specs(2, **SPEC),
        "slow_data": cluster_specs(2, **SPEC, slow_data_card=SLOW, slow_data_us=7000.0),
        "slow_card": cluster_specs(2, **SPEC, slow_card=SLOW, slow_factor=1.5),
        "more_cards": cluster_specs(3, **SPEC),
        "more_steps": cluster_specs(2, **{**SPEC, "steps": 4}),
        "slow_link": cluster_specs(2, **SPEC, slow_link=(0, 1), slow_link_factor=3.0),
    }
    return {k: (root / k, generate_cluster(root / k, specs, "msprof")) for k, specs in variants.items()}


def open_compared(qtbot, window, runs, new: str):
    """The base run opened, then ``new`` compared with it, as ``timelineview BASE --compare NEW`` does
    (the comparison is asked for before the base run has loaded)."""
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([runs["base"][0]], remember=False)
        assert open_comparison(window, [runs[new][0]])
    assert ready.args == [True]
    return view


def mean_interval_us(truth) -> float:
    return float(np.mean(truth.step_fp_ns - truth.step_start_ns)) / 1000.0


def compute_totals(cards) -> dict[str, int]:
    """{name: total ns} of the compute tasks of ``cards``, by a plain loop over their slices."""
    out: dict[str, int] = defaultdict(int)
    for card in cards:
        store, compute = card.store, card.analysis.classification.compute
        for i in np.flatnonzero(compute):
            out[store.strings[store.slices.name[i]]] += int(store.slices.dur[i])
    return out


def test_parse_args_takes_the_comparison_run():
    args = parse_args(["base_dir", "--compare", "new_dir"])
    assert args.paths == [Path("base_dir")] and args.compare == [Path("new_dir")]


def test_a_longer_step_interval_is_the_only_change_shown(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_data")
    base_truth, new_truth = runs["base"][1], runs["slow_data"][1]
    rows = {r["card"]: r for r in view.cards_model.rows}
    assert sorted(rows) == ["rank 0", "rank 1"]
    for rank, (tb, tn) in enumerate(zip(base_truth, new_truth, strict=True)):
        row = rows[f"rank {rank}"]
        assert row["delta_step_interval_us"] == pytest.approx(mean_interval_us(tn) - mean_interval_us(tb), abs=1e-3)
        assert row["delta_fp_bp_us"] == pytest.approx(0.0, abs=1e-3)
    assert rows[f"rank {SLOW}"]["delta_step_interval_us"] > 4000  # the planted 7 ms data wait, less the base's 2 ms
    # the paired bars carry each run's own mean, from the ground truth
    bars = {(b.card, b.phase): b for b in view.bars.bars}
    bar = bars[(f"rank {SLOW}", "step_interval_us")]
    assert bar.base_us == pytest.approx(mean_interval_us(base_truth[SLOW]), abs=1e-3)
    assert bar.new_us == pytest.approx(mean_interval_us(new_truth[SLOW]), abs=1e-3)
    assert bar.new.w / bar.base.w == pytest.approx(bar.new_us / bar.base_us, rel=1e-6)
    assert bar.new.y > bar.base.y  # new under base
    # no operator changed, and nothing differs in shape
    assert view.operators_model.rows and all(abs(r["delta_us"]) < 1e-6 for r in view.operators_model.rows)
    assert not view.notes.isVisibleTo(view)
    assert view.step.count() == 3


def test_a_slower_card_shows_its_operators_slower_in_red(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_card")
    base = compute_totals(p.base for p in view.pairs)
    new = compute_totals(p.new for p in view.pairs)
    got = {r["name"]: r for r in view.operators_model.rows}
    assert set(got) == set(base) | set(new)
    for name, row in got.items():
        assert row["base_total_us"] * 1000 == pytest.approx(base.get(name, 0), abs=1)
        assert row["new_total_us"] * 1000 == pytest.approx(new.get(name, 0), abs=1)
    rows = view.operators_model.rows
    assert [abs(r["delta_us"]) for r in rows] == sorted((abs(r["delta_us"]) for r in rows), reverse=True)
    top = view.operators_model.index(0, 1)  # the "Change" column of the largest change
    assert rows[0]["delta_us"] > 0
    brush = view.operators_model.data(top, QtCore.Qt.ItemDataRole.ForegroundRole)
    assert brush.color() == QtGui.QColor(SLOWER_COLOUR)
    # the change is on the slow card only
    cards = {r["card"]: r for r in view.cards_model.rows}
    assert cards[f"rank {SLOW}"]["delta_compute_us"] > 0
    assert cards["rank 0"]["delta_compute_us"] == pytest.approx(0.0, abs=1e-3)
    # sortable as numbers: ascending puts the largest slow-down last
    view.operators_table.sortByColumn(1, QtCore.Qt.SortOrder.AscendingOrder)
    assert view.operators_model.rows[-1]["delta_us"] == max(r["delta_us"] for r in rows)
    faster = [i for i, r in enumerate(view.operators_model.rows) if r["delta_us"] < 0]
    if faster:  # an operator with less time is green
        idx = view.operators_model.index(faster[0], 1)
        assert view.operators_model.data(idx, QtCore.Qt.ItemDataRole.ForegroundRole).color() == QtGui.QColor(
            FASTER_COLOUR)


def step_xs(timeline, pairs, position):
    """Scene x of the ``position``-th step start of each base card and of its new-run card."""
    ctx = timeline.ctx
    return [(ctx.scene_x_abs(b, int(b.steps.start[position])), ctx.scene_x_abs(n, int(n.steps.start[position])))
            for b, n in pairs]


def test_both_runs_share_the_timeline_aligned_at_the_chosen_step(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_data")
    position = 2
    pairs = view.pairs
    slow = next(p for p in pairs if p.base.store.rank == SLOW)
    # without the alignment the slow card's step 2 would start later in the new run (its steps are longer)
    raw_b = int(slow.base.steps.start[position]) - int(slow.base.steps.start[0])
    raw_n = int(slow.new.steps.start[position]) - int(slow.new.steps.start[0])
    assert raw_n - raw_b > 4_000_000
    assert view.show_on_timeline(position)
    timeline = window.timeline
    # in the diff's order: the card whose own data wait grew first (every card's step time grew alike)
    assert [c.title for c in timeline.cards] == ["rank 1", "new · rank 1", "rank 0", "new · rank 0"]
    assert window.cluster.tabs.currentIndex() == 0
    ctx = timeline.ctx
    for b, n in pairs:
        assert ctx.rel(b, int(b.steps.start[position])) == ctx.rel(n, int(n.steps.start[position]))
    xs = step_xs(timeline, pairs, position)
    for xb, xn in xs:
        assert xb == pytest.approx(xn, abs=1e-6)
        assert ctx.area.left <= xb <= ctx.area.right  # the step is on screen
    # one viewport: A pans both runs by a tenth of the window (the last step ends the trace: A, not D),
    # W zooms both, D pans back
    span = timeline.viewport.span
    timeline.setFocus()
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_A)
    moved = step_xs(timeline, pairs, position)
    dx = round(span * STEP_PAN) * ctx.area.width / span
    for (xb, _), (mb, mn) in zip(xs, moved, strict=True):
        assert mb == pytest.approx(xb + dx, abs=0.01) and mn == pytest.approx(mb, abs=1e-6)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_W)
    assert timeline.viewport.span < span
    for xb, xn in step_xs(timeline, pairs, position):
        assert xb == pytest.approx(xn, abs=1e-6)
    qtbot.keyClick(timeline, QtCore.Qt.Key.Key_D)
    for xb, xn in step_xs(timeline, pairs, position):
        assert xb == pytest.approx(xn, abs=1e-6)


def test_double_clicking_an_operator_highlights_it_in_both_runs(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_card")
    view.step.setCurrentIndex(1)
    row = 0
    name = view.operators_model.rows[row]["name"]
    count = view.open_operator(row)
    timeline = window.timeline
    expected = {}
    for card in timeline.cards:
        s = card.store.slices
        t0, t1 = int(card.steps.start[1]), int(card.steps.end[1])
        names = np.array([card.store.strings[i] if i >= 0 else "" for i in s.name])
        expected[card.number] = int(np.sum((names == name) & (s.start < t1) & (s.start + s.dur > t0)))
    got = {number: len(m.slices) for number, m in timeline.ctx.matches.items()}
    assert got == {k: v for k, v in expected.items() if v}
    assert count == sum(expected.values())
    assert {n for n in got if n >= 100_000} and {n for n in got if n < 100_000}  # both runs
    assert timeline.ctx.selection is not None and timeline.ctx.selection.card == timeline.cards[0].number
    for number, m in timeline.ctx.matches.items():  # each card's first one is on a lane that is open
        card = timeline.ctx.card_by_number(number)
        assert timeline.ctx.layout.find(LANE, number, int(card.store.slices.lane[m.slices[0]])) is not None


def test_a_card_only_in_the_new_run_is_reported_and_still_shown(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "more_cards")
    assert view.notes.isVisibleTo(view)
    assert "only in the new run: rank 2" in view.notes.text()
    assert [r["card"] for r in view.cards_model.rows] == ["rank 0", "rank 1"]
    assert view.show_on_timeline(0)
    titles = [c.title for c in window.timeline.cards]
    assert titles == ["rank 0", "new · rank 0", "rank 1", "new · rank 1", "new · rank 2"]
    # the unmatched card moves like the others of its run: its own clock offset to new rank 0 is kept
    cards = {c.title: c for c in window.timeline.cards}
    new0, new2 = cards["new · rank 0"], cards["new · rank 2"]
    assert new2.offset_ns - new2.run_clock_ns == new0.offset_ns - new0.run_clock_ns
    ctx = window.timeline.ctx
    for b, n in view.pairs:
        assert ctx.rel(b, int(b.steps.start[0])) == ctx.rel(n, int(n.steps.start[0]))


def test_other_step_counts_are_reported(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "more_steps")
    text = view.notes.text()
    assert "rank 0: 3 step(s) in the base run, 4 in the new" in text
    assert "rank 1: 3 step(s) in the base run, 4 in the new" in text
    assert view.step.count() == 3  # the steps both runs have
    assert view.show_on_timeline(2)


def test_a_run_with_nothing_readable_says_so(qtbot, window, runs, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("]")
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([runs["base"][0]], remember=False)
        open_comparison(window, [empty])
    assert ready.args == [False]
    assert view.header.text() == "Could not compare with empty.json: nothing readable in the new run (empty.json: " \
                                  "no slices)."
    assert not view.show_button.isEnabled() and view.show_on_timeline() is False


def test_file_menu_offers_compare_with_a_file_or_a_folder(window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    compare = next(a.menu() for a in menu.actions() if a.text() == "&Compare with")
    assert [a.text() for a in compare.actions()] == ["&File…", "F&older…"]


def test_lane_by_lane_puts_each_new_lane_under_the_same_base_lane(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_data")
    assert view.lane_by_lane.isChecked()
    assert view.show_on_timeline(1)
    timeline = window.timeline
    timeline.collapsed.clear()  # every process open
    timeline.rebuild_layout()
    rows = timeline.ctx.layout.rows
    assert [r.y for r in rows] == sorted(r.y for r in rows)
    for b, n in view.pairs:
        base_lanes = [i for i, r in enumerate(rows) if r.card == b.number and not r.is_group]
        new_lanes = [i for i, r in enumerate(rows) if r.card == n.number]
        assert len(base_lanes) == len(new_lanes) > 10  # same-seed runs: the same lanes
        for i in base_lanes:  # the next row is the new run's same lane
            assert rows[i + 1].card == n.number and rows[i + 1].kind == rows[i].kind
            assert rows[i + 1].title == f"new · {rows[i].title}"
        # the trace lanes of each card are all there, each once
        lanes = sorted(r.lane for r in rows if r.card == n.number and r.lane >= 0)
        assert lanes == sorted(set(lanes)) and len(lanes) == int(np.count_nonzero(n.lanes_with_slices()))
    timeline.grab()  # paints with rows of two cards interleaved
    # off: each base card followed by its whole new card
    view.lane_by_lane.setChecked(False)
    assert view.show_on_timeline(1)
    cards_in_order = [r.card for r in timeline.ctx.layout.rows]
    first_new = cards_in_order.index(view.pairs[0].new.number)
    assert set(cards_in_order[:first_new]) == {view.pairs[0].base.number}


def shown_diff(qtbot, diff) -> CompareView:
    """A Compare tab showing ``diff`` (no timeline: the tables and bars only)."""
    view = CompareView()
    qtbot.addWidget(view)
    view.show_comparison(diff, [])
    return view


def headers(model) -> list[str]:
    return [model.headerData(i, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.DisplayRole)
            for i in range(model.columnCount())]


def test_card_headers_say_mean_per_step_or_whole_run(qtbot):
    view = shown_diff(qtbot, diff_runs(factory_run({"MatMul": 300}), factory_run({"MatMul": 320})))
    titles = headers(view.cards_model)
    assert titles[0] == "Card"
    for title in titles[1:]:  # every number says whether it is a mean over steps or a total of the run
        assert title.endswith(("(mean per step)", "(whole run)")), title
    by_key = dict(zip((c.key for c in view.cards_model.columns), titles, strict=True))
    assert by_key["base_step_time_us"].endswith("(mean per step)")
    assert by_key["delta_step_interval_us"].endswith("(mean per step)")
    for key in ("compute_us", "communication_us", "free_us", "idle_gap_total_us", *COMM_KEYS):
        assert by_key[f"delta_{key}"].endswith("(whole run)"), key
    # the compute column is the whole-run total: 3 steps of 20 µs more
    row = view.cards_model.rows[0]
    assert row["delta_compute_us"] == pytest.approx(60.0) and row["delta_step_time_us"] == pytest.approx(20.0)


def test_idle_gap_column_is_a_time_and_says_so(qtbot):
    base = factory_run({"MatMul": 300, "Add": 100}, interval_us=50)
    new = factory_run({"MatMul": 300, "Add": 100}, interval_us=80)  # 30 µs more idle before each step's compute
    view = shown_diff(qtbot, diff_runs(base, new))
    titles = headers(view.cards_model)
    assert "Δ idle gaps" not in titles
    column = [c.key for c in view.cards_model.columns].index("delta_idle_gap_total_us")
    assert titles[column] == f"Δ {label('idle_gap_total_us')} (whole run)" == "Δ Idle gap time (whole run)"
    tip = view.cards_model.headerData(column, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert "a time, not a count" in tip
    # two gaps of compute (all-reduce, then the next step's interval) between 3 steps, each 30 µs longer: a time
    assert view.cards_model.rows[0]["delta_idle_gap_total_us"] == pytest.approx(2 * 30.0)
    shown = view.cards_model.data(view.cards_model.index(0, column), QtCore.Qt.ItemDataRole.DisplayRole)
    assert shown == "+" + format_duration(2 * 30.0 * 1000)  # a longer time, signed like a shorter one


def test_the_card_that_changed_most_comes_first_in_bars_and_table(qtbot):
    slower = {1: 5, 3: 70}  # µs per step more on cards 1 and 3
    diff = diff_runs(factory_run({"MatMul": 300, "Add": 100}, cards=4),
                     factory_run({"MatMul": 300, "Add": 100}, cards=4, slower=slower))
    view = shown_diff(qtbot, diff)
    assert [r["card"] for r in view.cards_model.rows] == ["rank 3", "rank 1", "rank 0", "rank 2"]
    assert [r["delta_step_time_us"] for r in view.cards_model.rows] == pytest.approx([70.0, 5.0, 0.0, 0.0])
    cards_in_bars = list(dict.fromkeys(b.card for b in view.bars.bars))
    assert cards_in_bars == ["rank 3", "rank 1", "rank 0", "rank 2"]
    top = [b for b in view.bars.bars if b.card == "rank 3" and b.phase == "step_time_us"][0]
    assert top.delta_us == pytest.approx(70.0) and top is view.bars.bars[0]
    # the user may order them by rank instead
    view.base_session = factory_run({"MatMul": 300, "Add": 100}, cards=4)
    view.card_order.setCurrentIndex(view.card_order.findData("rank"))
    assert [r["card"] for r in view.cards_model.rows] == ["rank 0", "rank 1", "rank 2", "rank 3"]
    assert list(dict.fromkeys(b.card for b in view.bars.bars)) == ["rank 0", "rank 1", "rank 2", "rank 3"]


def test_runs_of_other_ranks_are_paired_in_rank_order_and_say_so(qtbot):
    view = shown_diff(qtbot, diff_runs(factory_run({"MatMul": 300}), factory_run({"MatMul": 300}, first_rank=4)))
    assert sorted(r["card"] for r in view.cards_model.rows) == ["rank 0 vs rank 4", "rank 1 vs rank 5"]
    assert view.notes.isVisibleTo(view)
    assert "the runs share no rank: cards matched in rank order" in view.notes.text()


def test_the_links_tab_shows_the_diffs_links_slow_link_first_in_red(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_link")
    assert view.links_model.rows == link_records(view.diff.links)  # the RunDiff's, not computed again
    rows = view.links_model.rows
    assert [r["key"] for r in rows] == ["0-1", "1-0"]
    slow = rows[0]
    assert slow["new_bandwidth_gbps"] / slow["base_bandwidth_gbps"] == pytest.approx(1 / 3, rel=0.03)
    keys = [c.key for c in view.links_model.columns]
    for key in ("delta_cost_us", "delta_bandwidth_gbps"):  # slower: more cost, less bandwidth, both red
        brush = view.links_model.data(view.links_model.index(0, keys.index(key)), QtCore.Qt.ItemDataRole.ForegroundRole)
        assert brush.color() == QtGui.QColor(SLOWER_COLOUR), key
    shown = view.links_model.data(view.links_model.index(0, keys.index("base_bandwidth_gbps")))
    assert shown == f"{format_number(slow['base_bandwidth_gbps'])} GB/s"  # the window's one number format
    assert view.parts.tabText(3).startswith("Links (")
    # the cards' communication totals, from the same diff
    for row, card in zip(view.cards_model.rows, view.diff.cards, strict=True):
        for key in COMM_KEYS:
            assert row[f"delta_{key}"] == card.delta[key] and card.delta[key] is not None


SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples" / "torch_npu"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")
def test_rank0_of_one_capture_compared_with_rank1_of_another(qtbot, window):
    view = compare_view(window)
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([SAMPLES / "rank0_ascend_pt"], remember=False)
        assert open_comparison(window, [SAMPLES / "rank1_ascend_pt"])
    assert ready.args == [True]
    assert [r["card"] for r in view.cards_model.rows] == ["rank 0 vs rank 1"]
    assert "the runs share no rank: cards matched in rank order (rank 0 with rank 1)" in view.notes.text()
    assert len(view.pairs) == 1 and not view.unmatched
    assert view.links_model.rows == link_records(view.diff.links) and len(view.links_model.rows) == 7
    assert view.show_on_timeline(0)
    assert [c.title for c in window.timeline.cards] == ["rank 0", "new · rank 1"]
    base, new = view.pairs[0]
    ctx = window.timeline.ctx
    assert ctx.rel(base, int(base.steps.start[0])) == ctx.rel(new, int(new.steps.start[0]))


def test_float_noise_of_an_unchanged_link_is_neither_coloured_nor_signed(qtbot):
    from timelineview.views.analysis_tabs.compare.delta_tables import LINK_COLUMNS, DeltaTableModel

    model = DeltaTableModel(LINK_COLUMNS)
    model.set_rows([{"key": "0-1", "delta_cost_us": 1e-10, "base_transit_us": 2000.0, "delta_bandwidth_gbps": -1e-12,
                     "base_bandwidth_gbps": 18.0},
                    {"key": "0-2", "delta_cost_us": 40.0, "base_transit_us": 2000.0, "delta_bandwidth_gbps": -0.5,
                     "base_bandwidth_gbps": 18.0}])
    keys = [c.key for c in model.columns]
    fg = QtCore.Qt.ItemDataRole.ForegroundRole
    for key in ("delta_cost_us", "delta_bandwidth_gbps"):
        assert model.data(model.index(0, keys.index(key)), fg) is None
        assert model.data(model.index(1, keys.index(key)), fg).color() == QtGui.QColor(SLOWER_COLOUR)  # 2 %, 2.8 %
    assert model.data(model.index(0, keys.index("delta_bandwidth_gbps"))) == "0.000 GB/s"
    assert model.data(model.index(1, keys.index("delta_bandwidth_gbps"))) == "-0.500 GB/s"


def test_a_new_data_set_drops_the_comparisons_counts_from_the_page_titles(qtbot, window, runs):
    """Once another run is opened the comparison no longer applies: no page keeps its 'N changed'."""
    view = open_compared(qtbot, window, runs, "slow_card")
    titles = [view.parts.tabText(k) for k in range(view.parts.count())]
    assert sum("changed" in t for t in titles) == 3  # the comparison said its counts
    with qtbot.waitSignal(window.loadFinished, timeout=120_000):
        window.open_paths([runs["more_cards"][0]], remember=False)
    assert view.diff is None and not view.operators_model.rows
    assert [view.parts.tabText(k) for k in range(view.parts.count())] == [
        "Step phases and cards", "Operators", "Communication", "Links"]


def test_a_phase_change_within_one_percent_is_plain_in_the_table_as_in_the_bars(qtbot):
    """The card table colours a change as the paired bars do: within 1 % of the base it is plain."""
    from timelineview.analysis.diff.run_diff import CardDelta
    from timelineview.views.analysis_tabs.compare.delta_tables import CARD_COLUMNS, DeltaTableModel, card_records
    from timelineview.views.analysis_tabs.compare.phase_bars import change_colour

    base = {"step_time_us": 150_000.0, "step_interval_us": 17_900.0, "fp_bp_us": 100_000.0}
    new = {"step_time_us": 151_000.0, "step_interval_us": 18_053.2, "fp_bp_us": 109_000.0}  # +0.86 %, +9 %
    model = DeltaTableModel(CARD_COLUMNS)
    model.set_rows(card_records([CardDelta("rank 0", 0, 0, base, new)]))
    keys = [c.key for c in model.columns]
    fg = QtCore.Qt.ItemDataRole.ForegroundRole
    for key in ("step_interval_us", "fp_bp_us", "step_time_us"):
        shown = model.data(model.index(0, keys.index(f"delta_{key}")), fg)
        bar = change_colour(base[key], new[key])
        assert (shown.color() if shown is not None else None) == (QtGui.QColor(bar) if bar else None), key
    assert model.data(model.index(0, keys.index("delta_step_interval_us")), fg) is None
    assert model.data(model.index(0, keys.index("delta_fp_bp_us")), fg).color() == QtGui.QColor(SLOWER_COLOUR)


def test_a_longer_time_is_signed_like_a_shorter_one(qtbot):
    from timelineview.analysis.diff.run_diff import CardDelta
    from timelineview.views.analysis_tabs.compare.delta_tables import CARD_COLUMNS, DeltaTableModel, card_records

    base = {"step_time_us": 150_000.0, "step_interval_us": 17_900.0, "fp_bp_us": 100_000.0}
    new = {"step_time_us": 150_000.0, "step_interval_us": 18_053.2, "fp_bp_us": 97_080.0}
    model = DeltaTableModel(CARD_COLUMNS)
    model.set_rows(card_records([CardDelta("rank 0", 0, 0, base, new)]))
    keys = [c.key for c in model.columns]
    shown = {k: model.data(model.index(0, keys.index(f"delta_{k}"))) for k in base}
    assert shown["step_interval_us"] == "+" + format_duration(153.2 * 1000)
    assert shown["fp_bp_us"] == format_duration(-2920.0 * 1000) and shown["fp_bp_us"].startswith("-")
    assert not shown["step_time_us"].startswith(("+", "-"))  # no change, no sign


def test_the_status_column_has_a_title_and_explains_every_value(qtbot, window, runs):
    view = open_compared(qtbot, window, runs, "slow_card")
    model = view.operators_model
    column = [c.key for c in model.columns].index("status")
    title = model.headerData(column, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.DisplayRole)
    tip = model.headerData(column, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert title
    values = {r["status"] for r in model.rows}
    assert values and all(f"{v}:" in tip for v in values | {"added", "removed"})


def test_a_run_compared_with_itself_counts_nothing_changed(qtbot, tmp_path):
    generate_cluster(tmp_path, cluster_specs(2, **SPEC), "msprof")
    diff = diff_runs(AnalysisSession(load(tmp_path)), AnalysisSession(load(tmp_path)))
    view = shown_diff(qtbot, diff)
    assert [view.parts.tabText(k) for k in range(1, 4)] == [
        "Operators (0 changed)", "Communication (0 changed)", "Links (0 changed)"]
    assert {r["status"] for r in view.operators_model.rows} == {"unchanged"}


def test_one_slowed_operator_counts_one_changed(qtbot):
    view = shown_diff(qtbot, diff_runs(factory_run({"MatMul": 300, "Add": 100}),
                                       factory_run({"MatMul": 300, "Add": 130})))
    assert view.parts.tabText(1) == "Operators (1 changed)" and view.parts.tabText(2) == "Communication (0 changed)"


def test_before_a_comparison_only_the_hint_shows(qtbot, window, runs):
    """No comparison yet: the pages (empty tables whose headers a narrow window cuts) are hidden; they show
    with the comparison, and hide again when it cannot be made."""
    view = compare_view(window)
    window.resize(1000, 700)
    window.show()
    window.cluster.tabs.setCurrentWidget(view)
    assert view.header.isVisible() and not view.parts.isVisible()
    qtbot.waitUntil(lambda: view.height() > 400)
    # the hint and the controls at the top of the page, not spread down an empty page
    assert view.header.geometry().bottom() < 80 and view.show_button.geometry().bottom() < 120
    with qtbot.waitSignal(view.comparisonReady, timeout=120_000) as ready:
        window.open_paths([runs["base"][0]], remember=False)
        assert open_comparison(window, [runs["slow_card"][0]])
    assert ready.args == [True] and view.parts.isVisible()
