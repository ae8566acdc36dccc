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
from timelineview.views.jobs.job import JobCancelled, JobContext
from timelineview.views.jobs.summary_job import OPENED, read_summary


def _here(on_opened=None) -> tuple[JobContext, list[tuple]]:
    """A context that runs the job in this thread and records what it reports, in order."""
    got: list[tuple] = []

    def deliver(kind, payload):
        got.append((kind, payload))
        if kind == OPENED and on_opened is not None:
            on_opened(payload)
            context.handed.set()  # what the runner does once the window took it

    context = JobContext(deliver)
    return context, got


def test_the_job_counts_the_cards_then_opens_then_analyses(summaries):
    computed_when_opened = []
    context, got = _here(lambda session: computed_when_opened.extend(vars(session)))
    result = read_summary(context, summaries.whole)
    # the comparison came first, alone: the tabs' analysis waited for the window to show it
    assert "comparison" in computed_when_opened and "communication" not in computed_when_opened
    kinds = [g[0] for g in got]
    assert kinds.count(OPENED) == 1
    texts = [g[1].text for g in got if g[0] == "progress"]
    assert f"Reading summary: {CARDS} / {CARDS} cards" in texts
    assert f"Reading operator and link tables: {CARDS} / {CARDS} cards" in texts
    # the manifests are all read before the comparison opens, the tables after it
    opened = kinds.index(OPENED)
    assert texts.index(f"Reading summary: {CARDS} / {CARDS} cards") < texts.index("Comparing cards")
    counts = [(g[1].done, g[1].total) for g in got if g[0] == "progress"]
    before = sum(1 for g in got[:opened] if g[0] == "progress")
    assert (CARDS, CARDS) in counts[:before] and (CARDS, CARDS) in counts[before:]
    assert result.session is got[opened][1] and result.error == ""
    # what the tabs show was computed in the job (cached on the session)
    assert {"comparison", "communication", "operators_across_all_cards", "findings"} <= set(vars(result.session))


def test_a_cancelled_job_stops_before_opening(summaries):
    context, got = _here()
    context.cancel_event.set()  # what a newer open does
    with pytest.raises(JobCancelled):
        read_summary(context, summaries.whole)
    assert OPENED not in [g[0] for g in got]


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
