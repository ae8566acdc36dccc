"""Reading a summary folder for the desktop: the worker's progress and stages, cancelling it, the tables read
in one pass per card, a card whose manifest is gone, and ``--screenshot`` of a summary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import orjson
import pytest
from PySide6 import QtGui

from tests.distributed.conftest import CARDS
from timelineview.analysis.summaries.summary_session import UNREADABLE, SummarySession
from timelineview.model.summary.guarded_files import SummaryFileError
from timelineview.views.summary_worker import SummaryWorker


def _record(worker: SummaryWorker) -> list[tuple]:
    """Every signal of ``worker`` in order (it runs in this thread: the connections are direct)."""
    got: list[tuple] = []
    worker.progress.connect(lambda done, total: got.append(("progress", done, total)))
    worker.stage.connect(lambda text: got.append(("stage", text)))
    worker.opened.connect(lambda s: got.append(("opened", s)))
    worker.analysed.connect(lambda s, error: got.append(("analysed", s, error)))
    worker.failed.connect(lambda text, details: got.append(("failed", text, details)))
    worker.cancelled.connect(lambda: got.append(("cancelled",)))
    worker.done.connect(lambda: got.append(("done",)))
    return got


def test_the_worker_counts_the_cards_then_opens_then_analyses(summaries):
    worker = SummaryWorker(summaries.whole)
    got = _record(worker)
    computed_when_opened = []

    def comparison_on_screen(session):  # what the window does once it showed the comparison
        computed_when_opened.extend(vars(session))
        worker.comparison_shown.set()

    worker.opened.connect(comparison_on_screen)
    worker.run()
    # the comparison came first, alone: the tabs' analysis waited for the window to show it
    assert "comparison" in computed_when_opened and "communication" not in computed_when_opened
    kinds = [g[0] for g in got]
    assert kinds.count("opened") == kinds.count("analysed") == kinds.count("done") == 1
    assert kinds.index("opened") < kinds.index("analysed") < kinds.index("done") == len(kinds) - 1
    stages = [g[1] for g in got if g[0] == "stage"]
    assert f"Reading summary: {CARDS} / {CARDS} cards" in stages
    assert f"Reading operator and link tables: {CARDS} / {CARDS} cards" in stages
    # the manifests are all read before the comparison opens, the tables after it
    opened = kinds.index("opened")
    assert stages.index(f"Reading summary: {CARDS} / {CARDS} cards") < stages.index("Comparing cards")
    assert ("progress", CARDS, CARDS) in got[:opened] and ("progress", CARDS, CARDS) in got[opened:]
    session, error = got[kinds.index("analysed")][1:]
    assert session is got[opened][1] and error == ""
    # what the tabs show was computed in the worker (cached on the session)
    assert {"comparison", "communication", "operators_across_all_cards", "findings"} <= set(vars(session))


def test_a_cancelled_worker_stops_before_opening(summaries):
    worker = SummaryWorker(summaries.whole)
    got = _record(worker)
    worker.cancel()  # what a newer open does
    worker.run()
    assert [g[0] for g in got if g[0] not in ("progress", "stage")] == ["cancelled", "done"]


def test_tables_read_in_one_pass_are_the_tables(summaries):
    once = SummarySession(summaries.whole)
    once.read_tables()
    table_by_table = SummarySession(summaries.whole)
    assert once.stats_document() == table_by_table.stats_document()
    for a, b in zip(once.cards, table_by_table.cards, strict=True):
        assert np.array_equal(a.communication.links.bytes, b.communication.links.bytes)
        assert np.array_equal(a.operators.by_name.total_ns, b.operators.by_name.total_ns)
        assert a.columns.__class__ is b.columns.__class__  # the one-pass reader is not kept


def test_a_card_whose_manifest_is_gone(summaries, tmp_path):
    folder = tmp_path / "s"
    shutil.copytree(summaries.whole, folder)
    index = orjson.loads((folder / "index.json").read_bytes())
    gone = index["cards"][2]
    (folder / gone["dir"] / "card.json").unlink()
    with pytest.raises(SummaryFileError, match="card.json: No such file"):  # not tolerant: no silent gap
        SummarySession(folder)
    seen = []
    session = SummarySession(folder, progress=lambda done, total: seen.append((done, total)), tolerant=True)
    assert [(e["card"], e["status"]) for e in session.failed] == [(gone["card"], UNREADABLE)]
    assert "card.json" in session.failed[0]["error"]
    assert len(session.cards) == CARDS - 1 and seen == [(k, CARDS) for k in range(1, CARDS + 1)]


def test_screenshot_of_a_summary_folder(summaries, tmp_path):
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TIMELINEVIEW_CACHE=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "timelineview", "--screenshot", str(out), "--size", "1400x800",
                          str(summaries.whole)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (1400, 800)
    # the comparison's table and bars, not an empty window: many colours
    pixels = np.frombuffer(image.convertToFormat(QtGui.QImage.Format.Format_RGB32).constBits(), np.uint32)
    assert len(np.unique(pixels)) > 100
