"""``diff`` of the real torch_npu sample (../shared/samples, skipped when absent) against a GPU run of the
same layers: convolutions and matrix products pair up with device time on both sides; the NPU side's
time is checked against an answer key read from the file with plain json."""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from tests.analysis.test_framework_operators import gpu_run
from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
NPU = SAMPLES / "torch_npu" / "rank0_ascend_pt"
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not NPU.is_dir(), reason="../shared/samples is absent")]
ADDMM = ("aten::addmm", "[4096], [32, 9216], [9216, 4096]")
CONV = ("aten::conv2d", "[32, 3, 224, 224], [64, 3, 11, 11], [64]")


def _ns(value) -> int:
    return int((Decimal(str(value)) * 1000).to_integral_value())


def _shapes(dims: str) -> str:
    parts = [[p for p in part.strip().split(",") if p.strip()] for part in dims.split(";")]
    while parts and not parts[-1]:
        parts.pop()
    return ", ".join("[" + ", ".join(p) + "]" for p in parts)


def npu_answer_key() -> dict[tuple[str, str], int]:
    """{(name, shapes): device ns} of the torch_npu capture: each async_npu flow's start inside a cpu_op
    (same thread) adds the duration of the device slice enclosing the flow's end."""
    events = json.loads((NPU / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_text())
    xs = defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            xs[(str(e["pid"]), str(e["tid"]))].append((_ns(e["ts"]), _ns(e["ts"]) + _ns(e.get("dur", 0)), e))
    starts = {e["id"]: e for e in events if e.get("ph") == "s" and e.get("cat") == "async_npu"}
    edges = []  # (pid, tid, launch ns, device ns)
    for f in (e for e in events if e.get("ph") == "f" and e.get("cat") == "async_npu"):
        s = starts.get(f["id"])
        t = _ns(f["ts"])
        enclosing = [b - a for a, b, _ in xs[(str(f["pid"]), str(f["tid"]))] if a <= t < b or a == t]
        if s is not None and enclosing:
            edges.append((str(s["pid"]), str(s["tid"]), _ns(s["ts"]), min(enclosing)))
    out: dict[tuple[str, str], int] = defaultdict(int)
    for (pid, tid), rows in xs.items():
        for a, b, e in rows:
            if e.get("cat") != "cpu_op":
                continue
            key = (e["name"], _shapes(e.get("args", {}).get("Input Dims", "")))
            out[key] += sum(d for p, q, ts, d in edges if (p, q) == (pid, tid) and a <= ts < b)
    return out


def test_npu_against_gpu_pairs_convolutions_and_matrix_products(tmp_path):
    key = npu_answer_key()
    assert key[ADDMM] > 0 and key[CONV] > 0
    gpu = tmp_path / "gpu.pt.trace.json"
    gpu.write_text(json.dumps(gpu_run(300, (40, 20))))
    rows = diff_runs(AnalysisSession(load(NPU)), AnalysisSession(load(gpu))).document()["framework_operators"]
    by = {(r["name"], r["input_shapes"]): r for r in rows}
    for name, gpu_us in ((ADDMM, 300), (CONV, 60)):
        row = by[name]
        assert row["base_device_us"] == pytest.approx(key[name] / 1000, abs=0.001)
        assert row["new_device_us"] == gpu_us
        assert row["ratio"] == pytest.approx(gpu_us / row["base_device_us"])
