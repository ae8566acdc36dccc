"""The load report a summary keeps gives back the report of the load (its one-line overview and its JSON),
for a damaged file, a truncated one and a clean one."""

from __future__ import annotations

import pytest

from tests.model.tracefile import dump_events, x_event
from timelineview.analysis.summaries.kept_report import remark, report_from_json, report_json
from timelineview.model import load
from timelineview.model.store.report import LoadReport

N = 400


@pytest.fixture
def trace(tmp_path):
    events = [x_event(f"op{i % 7}", 1, i % 3, 1000.0 + i * 2.0, 1.0) for i in range(N)]
    return dump_events(events, tmp_path / "t.json")


def _damaged(path):
    data = path.read_bytes()
    k = data.index(b"}", len(data) // 3)
    data = data[:k] + data[k + 1:]
    k = data.index(b"{", 2 * len(data) // 3)
    path.write_bytes(data[:k] + b'"' + data[k:])


def _truncated(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize("spoil", [_damaged, _truncated, None])
def test_the_kept_report_says_what_the_load_said(trace, spoil):
    if spoil is not None:
        spoil(trace)
    [store] = load(trace)
    report = store.report
    assert bool(report.overview(store.card)) == (spoil is not None)
    back = report_from_json(report_json(report))
    assert back.overview(store.card) == report.overview(store.card)
    assert back.to_json() == report.to_json()
    assert back.summary() == report.summary()  # the Load report dialog's text of a loaded card
    if spoil is _truncated:
        assert report.truncated and back.truncated_path == report.truncated_path == str(trace)


def test_remark_counts_in_words():
    r = LoadReport()
    assert remark(r) == ""
    r.warn("t.json @ byte 5: stray bytes")
    assert remark(r) == "1 load warning"
    r.drop("unreadable bytes (damaged event)", "t.json", 10)
    assert remark(r) == "1 event dropped"
    r.drop("unreadable bytes (damaged event)", "t.json", 20, n=1200)
    r.truncated, r.truncated_offset = True, 900
    assert remark(r) == "1,201 events dropped, truncated at byte 900"
