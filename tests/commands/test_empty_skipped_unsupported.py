"""What ``stats`` says of inputs that are not a normal capture: a valid capture with no events (exit 0 with a
note), a trace file left aside beside the card's own (named, with why), a CANN 20.x timeline (named as such)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.model.tracefile import dump_events, x_event

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT.parent / "shared" / "samples" / "misc" / "metadata_only_trace_view.json"
METADATA = [{"name": "process_name", "ph": "M", "pid": 300, "tid": 0, "args": {"name": "Ascend Hardware"}},
            {"name": "thread_name", "ph": "M", "pid": 300, "tid": 22, "args": {"name": "Stream 22"}}]
NOTE = "no events in this capture"


def run_stats(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", "stats", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_an_empty_capture_is_exit_0_with_a_note(tmp_path):
    path = dump_events(METADATA, tmp_path / "trace_view.json")
    text = run_stats(str(path))
    assert text.returncode == 0, text.stderr
    assert f"trace_view.json: {NOTE}" in text.stdout and f"trace_view.json: {NOTE}" in text.stderr
    out = run_stats("--json", str(path))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["notes"] == [f"trace_view.json: {NOTE}"]
    assert doc["cards"][0]["events"] == 0


@pytest.mark.skipif(not SAMPLE.is_file(), reason="../shared/samples is absent")
def test_the_metadata_only_sample_is_an_empty_capture():
    out = run_stats("--json", str(SAMPLE))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["notes"] == [f"{SAMPLE.name}: {NOTE}"]


def test_an_unreadable_file_is_still_nothing_readable(tmp_path):
    (tmp_path / "trace_view.json").write_text("not json at all")
    out = run_stats(str(tmp_path / "trace_view.json"))
    assert out.returncode == 1 and "nothing readable" in out.stderr and NOTE not in out.stderr


def test_a_trace_file_left_aside_is_named_with_why(tmp_path):
    dump_events([x_event("ascend_op", 1, 1, 1.0, 2.0)], tmp_path / "ascend_timeline_display_0.json")
    dump_events([x_event("gpu_op", 1, 1, 1.0, 2.0)], tmp_path / "gpu_timeline_display_0.json")
    out = run_stats("--json", str(tmp_path))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    [note] = doc["notes"]
    gpu, ascend = tmp_path / "gpu_timeline_display_0.json", tmp_path / "ascend_timeline_display_0.json"
    assert note == f"rank 0: {gpu}: skipped: rank 0 is read from {ascend} (one capture per card: the first by path)"
    assert note.partition("rank 0: ")[2] in doc["cards"][0]["load"]["warnings"]
    assert [op["name"] for op in doc["cards"][0]["operators"]["by_name"]] == ["ascend_op"]
    text = run_stats(str(tmp_path))
    assert f"{gpu}: skipped" in text.stderr


def test_a_trace_of_another_kind_left_aside_says_which_kind_wins(tmp_path):
    (tmp_path / "rank_0").mkdir()
    dump_events([x_event("a", 1, 1, 1.0, 2.0)], tmp_path / "rank_0" / "trace_view.json")
    dump_events([x_event("b", 1, 1, 1.0, 2.0)], tmp_path / "rank_0" / "msprof_20240101000000.json")
    out = run_stats("--json", str(tmp_path))
    [note] = json.loads(out.stdout)["notes"]
    assert "msprof_20240101000000.json: skipped: rank 0 is read from trace_view.json (one kind of trace file" in note


TEXT_TIMELINE = "op_name, stream_id, start_time(ms), duration(ms)\nDefault/Conv2D-op1 519 6042920.12 0.5\n"


def test_a_cann_20_text_timeline_is_named_not_supported(tmp_path):
    (tmp_path / "profiler").mkdir()
    text = tmp_path / "profiler" / "output_timeline_data_0.txt"
    text.write_text(TEXT_TIMELINE)
    for given in (tmp_path, text):
        out = run_stats(str(given))
        assert out.returncode == 1
        assert "no trace files found" not in out.stderr and "not a JSON trace" not in out.stderr
        assert f"{text}: a CANN 20.x text timeline" in out.stderr and "not supported" in out.stderr, out.stderr


def test_raw_cann_20_data_is_named_not_supported(tmp_path):
    data = tmp_path / "JOB123" / "data"
    data.mkdir(parents=True)
    (data / "hwts.log.data.45.dev.profiler_default_tag").write_bytes(b"\x01\x02\x03")
    out = run_stats(str(tmp_path))
    assert out.returncode == 1
    assert "raw CANN 20.x profiling data" in out.stderr and "not supported" in out.stderr, out.stderr
