"""File ▸ Load report on a summary folder: it never claims 'no remarks' for cards it has no report of. It names
the cards that could not be summarised, says where summarised cards' reports are printed until the summary keeps
them (``load_report`` in a card's manifest), and lists the kept ones counts first."""

from __future__ import annotations

import shutil

import orjson
import pytest

from timelineview.views.panels.load_report import NO_REMARKS, SUMMARY_REPORTS

from .conftest import FAILED_RANK, resign
from .test_summary_tabs import _open


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))


def test_a_damaged_card_is_named_and_no_remarks_are_not_claimed(qtbot, window, summaries):
    assert _open(qtbot, window, summaries.one_failed)
    session = window.cluster.summary
    failed = next(e for e in session.failed if e["card"] == f"rank {FAILED_RANK}")
    assert not window.timeline.cards
    window.show_load_report()
    text = window.last_message
    assert NO_REMARKS not in text
    assert f"1 card could not be summarised:\n  rank {FAILED_RANK}: {failed['error']}" in text
    assert SUMMARY_REPORTS not in text  # the cards' manifests keep their load reports
    # the whole summary: every card kept a clean report
    assert _open(qtbot, window, summaries.whole)
    window.show_load_report()
    assert window.last_message == f"Load report: {NO_REMARKS}"


def test_a_summary_made_before_reports_were_kept_claims_no_remarks(qtbot, window, summaries, tmp_path):
    folder = tmp_path / "older"
    shutil.copytree(summaries.whole, folder)
    for manifest in folder.glob("*/card.json"):
        doc = orjson.loads(manifest.read_bytes())
        del doc["load_report"]
        manifest.write_bytes(orjson.dumps(doc))
    resign(folder)
    assert _open(qtbot, window, folder)
    window.show_load_report()
    assert window.last_message == f"Load report: {SUMMARY_REPORTS}"


def test_reports_kept_in_the_manifests_are_listed_counts_first(qtbot, window, summaries, tmp_path):
    folder = tmp_path / "kept"
    shutil.copytree(summaries.whole, folder)
    clean = {"dropped_events": 0, "truncated": False, "warnings": [], "truncated_offset": None,
             "dropped_by_reason": {}, "duplicates_dropped": 0, "overlapping_slices": 0, "open_slices": 0,
             "counts_by_ph": {"X": 10}, "examples": []}
    warnings = ["t.json: truncated, readable data ends at byte 4096", "t.json @ byte 77: unreadable bytes 77..90"]
    damaged = dict(clean, dropped_events=3, dropped_by_reason={"unreadable bytes (damaged event)": 3},
                   truncated=True, truncated_offset=4096, warnings=warnings,
                   examples=["t.json @ byte 77, event #2: unreadable bytes (damaged event)"])
    for manifest in folder.glob("*/card.json"):
        doc = orjson.loads(manifest.read_bytes())
        doc["load_report"] = damaged if doc["card"] == "rank 7" else clean
        manifest.write_bytes(orjson.dumps(doc))
    resign(folder)
    assert _open(qtbot, window, folder)
    cards = len(window.cluster.summary.cards)
    window.show_load_report()
    lines = window.last_message.splitlines()
    assert lines[:2] == [f"Load report: {cards} cards: 1 lost data.",
                         "rank 7: 3 events dropped, truncated at byte 4096, 1 warning"]
    assert SUMMARY_REPORTS not in window.last_message and NO_REMARKS not in window.last_message
    body = "\n".join(lines[2:])
    assert body.startswith("rank 7:\n") and "  3 × unreadable bytes (damaged event)" in body
    assert "t.json @ byte 77: unreadable bytes 77..90" in body and "event #2" in body
