"""The Diagnosis tab: a cluster opens on its findings, the status bar counts them, and clicking a
finding's evidence shows that card and span in the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.generated import generated_cluster
from tests.views.main_window_fixture import open_and_wait
from timelineview.viewstate.jump_target import JumpTarget

SLOW_CARD = 2


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    return generated_cluster(tmp_path_factory, "diag", 4, seed=6, steps=3, tasks_per_step=60, slow_card=SLOW_CARD)


@pytest.fixture
def opened(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    window.interactive = True  # a cluster opens on a tab of its own choosing only for a user
    open_and_wait(qtbot, window, cluster_dir)
    qtbot.waitUntil(lambda: bool(window.cluster.analysis.widgets["diagnosis"].findings), timeout=10_000)
    return window


def test_cluster_opens_on_its_findings_and_counts_them(opened):
    host = opened.cluster.analysis
    view = host.widgets["diagnosis"]
    assert opened.cluster.tabs.currentWidget() is view
    rules = [(f.rule, f.cards) for f in view.findings]
    assert ("slow_compute", [f"rank {SLOW_CARD}"]) in rules
    assert view.list.topLevelItemCount() == len(view.findings)
    n = len(view.findings)
    assert host.status["diagnosis"].text() == f"{n} finding{'s' if n != 1 else ''}"
    assert host.status["diagnosis"].isVisibleTo(opened)


def test_clicking_evidence_moves_the_timeline_to_it(opened, qtbot):
    view = opened.cluster.analysis.widgets["diagnosis"]
    k = next(i for i, f in enumerate(view.findings) if f.rule == "slow_compute")
    finding = view.findings[k]
    j = next(i for i, e in enumerate(finding.evidence) if e.name)  # one of the top operator's slices
    e = finding.evidence[j]
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view.open_evidence(k, j)
    target: JumpTarget = sent.args[0]
    timeline = opened.timeline
    assert opened.cluster.tabs.currentIndex() == 0
    card = timeline.ctx.card_by_number(target.card)
    assert card is not None and card.store.card == f"rank {SLOW_CARD}"
    # the window covers the evidence span on the card's clock (µs from its first slice)
    t0 = e.start_ns
    t1 = e.end_ns
    v0, v1 = timeline.ctx.abs_window(card)
    assert v0 <= t0 and t1 <= v1 and (v1 - v0) < 3 * (t1 - t0) + 10_000
    # the operator is selected: the selected slice is that operator, inside the span
    sel = timeline.ctx.selection
    assert sel is not None and sel.card == target.card
    s = card.store.slices
    assert card.store.strings[s.name[sel.index]] == e.name
    assert t0 <= s.start[sel.index] < t1


def test_clear_empties_the_tab(opened):
    host = opened.cluster.analysis
    host.clear()
    assert host.widgets["diagnosis"].findings == [] and not host.status["diagnosis"].isVisibleTo(opened)


def test_a_job_step_finding_reads_all_cards_in_the_card_column(qtbot):
    # A step slow on every card is a finding about the job (no card list, metrics.md §4): its row says
    # so instead of leaving the card cell empty; a card-local one names its cards.
    from tests.analysis.findings.planted import StepShape, card
    from timelineview.analysis.findings.evaluate import evaluate_findings
    from timelineview.analysis.session import AnalysisSession
    from timelineview.views.analysis_tabs.diagnosis_view import COLUMNS, DiagnosisView

    shapes = [StepShape()] * 4
    shapes[1] = StepShape(ops=30)
    local = [StepShape()] * 4
    local[3] = StepShape(ops=30)
    stores = [card(local if r == 2 else shapes, f"rank {r}", r) for r in range(4)]
    steps = [f for f in evaluate_findings(AnalysisSession(stores)) if f.rule == "slow_step"]
    assert sorted((f.step, tuple(f.cards)) for f in steps) == [(2, ()), (4, ("rank 2",))]
    view = DiagnosisView()
    qtbot.addWidget(view)
    view.set_findings(steps)
    where = COLUMNS.index("Where")
    cells = {view.list.topLevelItem(k).text(where) for k in range(view.list.topLevelItemCount())}
    assert cells == {"all cards, step 2", "rank 2, step 4"}
