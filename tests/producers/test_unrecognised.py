"""A trace that is neither an Ascend generation nor Kineto is named for what it looks like and read as
neither: no slice of it counts as device compute or communication (metrics.md §13)."""

from __future__ import annotations

import json

import numpy as np

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.summary import stats_document
from timelineview.model import load
from timelineview.producers import recognition

NOT_READ = "is not read as one of them"


def _write(tmp_path, name, events):
    path = tmp_path / name
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def _slices(pid, cat, names):
    return [{"ph": "X", "pid": pid, "tid": 1, "ts": 1000 + 100 * k, "dur": 50, "name": n, "cat": cat}
            for k, n in enumerate(names)]


def _notes(store):
    return [w for w in store.report.warnings if "not an Ascend timeline" in w]


def test_a_browser_trace_with_small_pids_is_named_not_read_as_mindspore(tmp_path):
    # pid 7 would make a MindSpore <= 2.1 device of it (pids below 9000 are device ids there)
    events = [{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Renderer"}}]
    events += _slices(7, "devtools.timeline", ["RunTask", "FunctionCall", "Paint"])
    (store,) = load(_write(tmp_path, "chrome_trace.json", events))
    (note,) = _notes(store)
    assert "a Chrome / browser trace" in note and NOT_READ in note
    cls = analyse_card(store, ["classification"]).classification
    assert cls.mode == "none"
    assert not np.any(cls.compute) and not np.any(cls.communication)
    doc = stats_document([store])["cards"][0]
    assert doc["compute_us"] == 0 and doc["communication_us"] == 0
    assert note in doc["load"]["warnings"]


def test_an_unknown_tool_is_described_by_its_processes_and_categories(tmp_path):
    events = [{"ph": "M", "name": "process_name", "pid": 70001, "tid": 0, "args": {"name": "my_engine"}}]
    events += _slices(70001, "engine_op", ["a", "b", "c", "d"]) + _slices(70001, "io", ["r"])
    (store,) = load(_write(tmp_path, "engine.json", events))
    (note,) = _notes(store)
    assert "a Chrome trace of 5 slices (processes 'my_engine'; categories 'engine_op', 'io')" in note
    assert recognition.producer_of(store) == recognition.UNRECOGNISED


def test_ascend_and_mindspore_traces_carry_no_such_line(tmp_path):
    hw = [{"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "Ascend Hardware"}}]
    hw += [dict(e, args={"Task Type": "AI_CORE"}) for e in _slices(2, "", ["MatMul", "Add"])]
    legacy = [{"ph": "X", "pid": 1, "tid": "519", "ts": 10 + k, "dur": 1, "name": f"Conv2D-op{k}"} for k in range(3)]
    for name, events in (("trace_view.json", hw), ("ascend_timeline_display_0.json", legacy)):
        folder = tmp_path / name.split(".")[0]
        folder.mkdir()
        (store,) = load(_write(folder, name, events))
        assert _notes(store) == []
        assert recognition.producer_of(store) in (recognition.ASCEND, recognition.MINDSPORE_LEGACY)
        assert np.count_nonzero(analyse_card(store, ["classification"]).classification.compute) > 0
