"""The real producer files in ../shared/samples load with the right lanes and counts.

Reference values come from Python's json module and the naming rules of
docs/trace-format.md §9, computed here independently of the loader. Skipped when the
samples folder is absent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
pytestmark = [pytest.mark.samples,
              pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is not present")]


def reference(files: list[Path]) -> tuple[Counter, dict]:
    """Distinct X events per (pid, tid) over the files, and process/thread names from M events."""
    seen = set()
    per_lane: Counter = Counter()
    names: dict = {}
    for f in files:
        for e in json.loads(f.read_text()):
            if e["ph"] == "M" and e["name"] in ("process_name", "thread_name"):
                names[(e["name"], str(e["pid"]), str(e.get("tid", 0)))] = e["args"]["name"]
            if e["ph"] != "X":
                continue
            key = (str(e["pid"]), str(e["tid"]), Decimal(str(e["ts"])), Decimal(str(e["dur"])), e["name"])
            if key not in seen:
                seen.add(key)
                per_lane[(str(e["pid"]), str(e["tid"]))] += 1
    return per_lane, names


def loaded(store) -> tuple[Counter, dict]:
    per_lane: Counter = Counter()
    for ln in store.slices.lane.tolist():
        per_lane[(store.processes.pid[int(store.lanes.process[ln])], store.lanes.tid[ln])] += 1
    shown = {}
    for ln in range(len(store.lanes)):
        p = int(store.lanes.process[ln])
        shown[(store.processes.pid[p], store.lanes.tid[ln])] = (store.processes.name[p], store.lanes.name[ln])
    return per_lane, shown


@pytest.mark.parametrize("rank", [0, 1])
def test_torch_npu_trace_view(rank):
    path = SAMPLES / "torch_npu" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    [store] = load(path)
    want, names = reference([path])
    got, shown = loaded(store)
    assert got == want
    for (pid, tid), (pname, tname) in shown.items():
        assert pname == names[("process_name", pid, "0")]
        assert tname == names.get(("thread_name", pid, tid), f"Thread {tid}")
    assert store.rank == rank and store.generation == "torch_npu"
    assert store.report.dropped_events == 0 and not store.report.truncated
    raw = json.loads(path.read_text())
    assert len(store.counters.ts) == sum(len(e["args"]) for e in raw if e["ph"] == "C")
    assert sum(store.report.counts_by_ph.values()) == len(raw)
    # bit-packed pids above 2^32 are kept exactly
    assert any(int(p) > 2**32 for p in store.processes.pid) or any(int(p) > 2**31 for p in store.processes.pid)


def test_cann_per_iteration_folder_merges_ten_iterations():
    folder = SAMPLES / "cann_per_iteration"
    [store] = load(folder)
    files = sorted(folder.rglob("msprof_0_2_*.json"), key=lambda f: int(f.stem.rsplit("_", 1)[1]))
    assert [p.name for p in store.paths] == [f.name for f in files]
    want, names = reference(files)
    got, shown = loaded(store)
    assert got == want
    for (pid, tid), (pname, tname) in shown.items():
        assert pname == names[("process_name", pid, "0")]
        assert tname == names.get(("thread_name", pid, tid), f"Thread {tid}")
    steps = [store.strings[int(n)] for n in store.slices.name
             if re.fullmatch(r"Iteration \d+", store.strings[int(n)])]
    assert sorted(steps, key=lambda s: int(s.split()[1])) == [f"Iteration {i}" for i in range(1, 11)]
    assert store.rank == 0


def test_mindspore_1x_display_file():
    path = SAMPLES / "mindspore_1x" / "ascend_timeline_display_1.json"
    [store] = load(path)
    want, _ = reference([path])
    got, shown = loaded(store)
    assert got == want == Counter({("1", "519"): 107, ("9000", "0"): 5})
    # no metadata: the fixed tables of docs/trace-format.md §4.2/§9
    assert shown == {("1", "519"): ("Device 1", "Stream 519"), ("9000", "0"): ("AICPU OP", "Stream 0")}
    summary = json.loads((SAMPLES / "mindspore_1x" / "ascend_timeline_summary_1.json").read_text())
    assert len(store.slices) == summary["op_exe_times"]


def test_small_misc_files():
    [meta_only] = load(SAMPLES / "misc" / "metadata_only_trace_view.json")
    assert len(meta_only.slices) == 0 and meta_only.report.counts_by_ph["M"] == 23
    [hand] = load(SAMPLES / "misc" / "handmade_trace_view.json")
    assert len(hand.slices) == 4
    assert set(hand.processes.name) == {"CANN", "Ascend Hardware"}  # process_name comes after the events
    [gpu] = load(SAMPLES / "misc" / "gpu_timeline_display_0.json")
    assert sorted(gpu.lanes.tid) == ["17", "Ops"]
