"""``timelineview stats``: the JSON document of metrics.md §5 for files and folders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.model.tracefile import dump_events, x_event

ROOT = Path(__file__).resolve().parents[2]


def run_stats(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "timelineview", "stats", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def hw_trace(path: Path, compute: list[tuple[float, float]], comm: list[tuple[float, float]]) -> Path:
    events = [
        {"name": "process_name", "ph": "M", "pid": 10, "args": {"name": "Ascend Hardware"}},
        {"name": "process_name", "ph": "M", "pid": 20, "args": {"name": "HCCL"}},
        {"name": "thread_name", "ph": "M", "pid": 20, "tid": 0, "args": {"name": "Group 0 Communication"}},
    ]
    events += [x_event(f"op{i}", 10, 2, f"{s:.3f}", d, args={"Task Type": "AI_CORE"}) for i, (s, d) in
               enumerate(compute)]
    events += [x_event(f"hcom_allReduce_{i}", 20, 0, f"{s:.3f}", d) for i, (s, d) in enumerate(comm)]
    return dump_events(events, path)


def test_stats_json_for_a_folder(tmp_path):
    # compute [0,10) [20,30); communication [5,25): overlapped 5+5, pure 10, free 0, one idle gap of 10
    for rank in (1, 0):
        hw_trace(tmp_path / f"ascend_timeline_display_{rank}.json", [(0, 10), (20, 10)], [(5, 20)])
    out = run_stats(str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [c["card"] for c in doc["cards"]] == ["rank 0", "rank 1"]
    card = doc["cards"][0]
    assert card["rank"] == 0 and card["events"] == 3 and card["lanes"] == 2
    assert card["span_us"] == 30.0 and card["compute_us"] == 20.0 and card["communication_us"] == 20.0
    assert card["overlapped_us"] == 10.0 and card["pure_communication_us"] == 10.0 and card["free_us"] == 0.0
    assert card["idle_gap_count"] == 1 and card["idle_gap_communication_us"] == 10.0
    assert card["load"] == {**card["load"], "dropped_events": 0, "truncated": False}
    assert doc["slow_cards"] == []


def test_stats_text_and_a_truncated_file(tmp_path):
    path = hw_trace(tmp_path / "trace_view.json", [(0, 10), (20, 10)], [(5, 20)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 30])  # cut inside the last event
    out = run_stats(str(path), "--json", "--min-gap-us", "20")
    assert out.returncode == 0, out.stderr
    card = json.loads(out.stdout)["cards"][0]
    assert card["load"]["truncated"] is True
    assert card["events"] == 2 and card["idle_gap_count"] == 0
    text = run_stats(str(path))
    assert text.returncode == 0 and "Compute (µs)" in text.stdout and "truncated" in text.stderr


def test_stats_json_is_the_document_of_the_analysis_functions(tmp_path):
    """``stats --json`` writes the §5 document assembled from the analysis functions (compared as
    values: the order of the load report's event counts may differ between decode paths)."""
    from tests.analysis.test_session import dumps, reference_document
    from timelineview.model import load
    from timelineview.synthetic import cluster_specs, generate_cluster

    out = tmp_path / "cluster"
    generate_cluster(out, cluster_specs(3, seed=7, steps=2, tasks_per_step=60, slow_card=1))
    run = run_stats(str(out), "--json", "--min-gap-us", "2")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == json.loads(dumps(reference_document(load(out), min_gap_ns=2000)))
