"""The Diagnosis tab lists the advisor's findings: an op type slowed on one card (``slow_operator``) and
operators compiled for dynamic shapes (``dynamic_shapes``, from a kernel table beside a card), and clicking the
slow operator's evidence shows that card's tasks in the timeline."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from tests.views.main_window_fixture import open_and_wait
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.viewstate.jump_target import JumpTarget

SLOW = 1
SLOWED = "MatMulV2"


def _kernel_table(folder: Path, card: str) -> None:
    """Every compute task of ``card`` described as dynamic in a ``kernel_details.csv`` beside its trace."""
    session = AnalysisSession(load(folder, cache=False))
    number = next(k for k, s in enumerate(session.stores) if s.card == card)
    store = session.stores[number]
    compute = np.flatnonzero(session.analyse(number, ("classification",)).classification.compute)
    sl = store.slices
    with open(Path(store.paths[0]).parent / "kernel_details.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Stream ID", "Start Time(us)", "Type", "OP State", "Accelerator Core"])
        for i in compute.tolist():
            start = int(sl.start[i])
            w.writerow([store.lanes.tid[sl.lane[i]], f"{start // 1000}.{start % 1000:03d}", "Add", "dynamic",
                        "AI_CORE"])


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("advisor_diag") / "ranks"
    specs = [s.with_(slow_op_types=(SLOWED,), slow_op_factor=2.0) if s.rank == SLOW else s
             for s in cluster_specs(4, seed=8, steps=3, tasks_per_step=200)]
    generate_cluster(out, specs)
    _kernel_table(out, "rank 3")
    return out


@pytest.fixture
def opened(qtbot, window, cluster_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))
    window.interactive = True
    open_and_wait(qtbot, window, cluster_dir)
    qtbot.waitUntil(lambda: bool(window.cluster.analysis.widgets["diagnosis"].findings), timeout=20_000)
    return window


def test_the_advisor_findings_are_listed_and_their_evidence_opens(opened, qtbot):
    view = opened.cluster.analysis.widgets["diagnosis"]
    rules = {f.rule: f for f in view.findings}
    assert rules["slow_operator"].cards == [f"rank {SLOW}"]
    assert rules["slow_operator"].advice.startswith(f"{SLOWED} runs slower on rank {SLOW}")
    assert rules["dynamic_shapes"].cards == ["rank 3"]
    shown = [view.list.topLevelItem(k).text(1) for k in range(view.list.topLevelItemCount())]
    assert "slow operator" in shown and "dynamic shapes" in shown
    assert shown.index("slow operator") < shown.index("dynamic shapes")  # an anomaly before where the time goes
    k = [f.rule for f in view.findings].index("slow_operator")
    e = view.findings[k].evidence[0]
    with qtbot.waitSignal(view.jumpRequested) as sent:
        view.open_evidence(k, 0)
    target: JumpTarget = sent.args[0]
    card = opened.timeline.ctx.card_by_number(target.card)
    assert card is not None and card.store.card == f"rank {SLOW}" and SLOWED in e.name
    t0, t1 = e.start_ns, e.end_ns  # ns on the card's clock
    v0, v1 = opened.timeline.ctx.abs_window(card)
    assert v0 <= t0 and t1 <= v1
