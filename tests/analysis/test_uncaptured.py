"""A card made of per-iteration files is captured only inside each file's span (metrics.md §3)."""

import json

import pytest

from timelineview.analysis.summary import card_document
from timelineview.model import load

FILE_GAP_US = 10_000.0  # from one iteration file's start to the next one's
TASKS = (("MatMul", 0.0, 100.0), ("Add", 300.0, 200.0))  # (name, start after the file's start, dur) µs


def write_iterations(folder, n: int) -> None:
    """``n`` CANN per-iteration files of device 0: each holds the two tasks, ``FILE_GAP_US`` apart."""
    timeline = folder / "PROF_000001_20230818142704322_AAAAAAAAAAAAAAAA" / "device_0" / "timeline"
    timeline.mkdir(parents=True)
    for i in range(1, n + 1):
        t0 = 1_000.0 + (i - 1) * FILE_GAP_US
        events = [{"ph": "M", "name": "process_name", "pid": 3, "tid": 0, "args": {"name": "Ascend Hardware"}},
                  {"ph": "M", "name": "thread_name", "pid": 3, "tid": 2, "args": {"name": "Stream 2"}}]
        events += [{"ph": "X", "name": name, "pid": 3, "tid": 2, "ts": t0 + at, "dur": dur,
                    "args": {"Task Type": "AI_CORE"}} for name, at, dur in TASKS]
        (timeline / f"msprof_0_1_{i}.json").write_text(json.dumps(events))


def test_time_between_iteration_files_is_not_captured_and_not_free(tmp_path):
    n = 3
    write_iterations(tmp_path, n)
    [store] = load(tmp_path)
    assert len(store.paths) == n
    doc = card_document(store)
    file_span = TASKS[-1][1] + TASKS[-1][2] - TASKS[0][1]  # 500 µs
    busy = sum(dur for _, _, dur in TASKS)  # 300 µs
    span = (n - 1) * FILE_GAP_US + file_span
    assert doc["span_us"] == pytest.approx(span)
    assert doc["uncaptured_us"] == pytest.approx(span - n * file_span)
    assert doc["free_us"] == pytest.approx(n * (file_span - busy))
    # the hole between two files is no idle gap: only the one inside each file (200 µs) is
    assert doc["idle_gap_count"] == n
    assert doc["idle_gap_total_us"] == pytest.approx(n * 200.0)
    assert doc["idle_gap_max_us"] == pytest.approx(200.0)


def test_one_file_has_nothing_uncaptured(tmp_path):
    write_iterations(tmp_path, 1)
    [store] = load(tmp_path)
    doc = card_document(store)
    assert doc["uncaptured_us"] == 0.0
    assert doc["free_us"] == pytest.approx(200.0)
