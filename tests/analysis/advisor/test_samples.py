"""The advisor's checks on the real samples (skipped when absent), against the producer's own files: the
``AI Core Freq`` samples of the trace or the database, the ``OP State`` and durations of ``kernel_details.csv``,
and repeated runs of small vector operators found by a plain reference over that table."""

from __future__ import annotations

import csv
import sqlite3
from collections import Counter
from pathlib import Path

import orjson
import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / ".." / "shared" / "samples"
TORCH = SAMPLES / "torch_npu"
DATABASES = sorted((SAMPLES / "torch_npu_db").glob("level*/rank*_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_*.db"))
pytestmark = pytest.mark.skipif(not TORCH.is_dir(), reason="samples absent")


@pytest.fixture(scope="module")
def torch_session() -> AnalysisSession:
    return AnalysisSession(load(TORCH, cache=False))


def _advisor(session: AnalysisSession, number: int) -> dict:
    return session.analyse(number, ("finding_facts",)).finding_facts["advisor"]


def _kernel_rows(rank: int) -> list[dict]:
    path = TORCH / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _reference_runs(rows: list[dict]) -> Counter:
    """Sequences of ≥ 2 consecutive small (≤ 20 µs) AI_VECTOR_CORE tasks per stream, cut every 8 tasks."""
    tasks = sorted((r for r in rows if r["Accelerator Core"] != "HCCL"),
                   key=lambda r: (int(r["Stream ID"]), float(r["Start Time(us)"].strip())))
    found: Counter = Counter()
    run: list[str] = []
    stream = None

    def close():
        for k in range(0, len(run), 8):
            piece = tuple(run[k:k + 8])
            if len(piece) >= 2:
                found[piece] += 1

    for r in tasks:
        small = r["Accelerator Core"] == "AI_VECTOR_CORE" and float(r["Duration(us)"]) <= 20.0
        if not small or r["Stream ID"] != stream:
            close()
            run = []
        stream = r["Stream ID"]
        if small:
            run.append(r["Type"])
    close()
    return found


def test_torch_npu_frequency_dynamic_shapes_and_vector_runs(torch_session):
    for number, store in enumerate(torch_session.stores):
        rank = store.rank
        advisor = _advisor(torch_session, number)
        trace_file = TORCH / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
        trace = orjson.loads(trace_file.read_bytes())
        events = trace if isinstance(trace, list) else trace["traceEvents"]
        freq = [float(e["args"]["MHz"]) for e in events if e.get("ph") == "C" and e.get("name") == "AI Core Freq"]
        assert advisor["frequency"]["samples"] == len(freq)
        assert advisor["frequency"]["nominal_mhz"] == max(freq)
        assert min(freq) == max(freq) and advisor["frequency"]["share"] == 0.0  # these captures ran at one frequency
        rows = _kernel_rows(rank)
        dynamic = [r for r in rows if r["OP State"] == "dynamic"]
        assert advisor["dynamic"]["dynamic_tasks"] == len(dynamic)
        dynamic_us = sum(float(r["Duration(us)"]) for r in dynamic)
        assert advisor["dynamic"]["dynamic_us"] == pytest.approx(dynamic_us, rel=5e-3)
        assert advisor["block_dim"] is None  # no device description, no chip name: the cores are not known
        repeated = {k: n for k, n in _reference_runs(rows).items() if n >= 3}
        got = {tuple(s["op_types"]): s["count"] for s in advisor["vector_runs"]["sequences"]}
        assert got == dict(sorted(repeated.items(), key=lambda kv: -kv[1])[:3]) if len(repeated) <= 3 else \
            set(got) <= set(repeated)
    rules = {f.rule for f in torch_session.findings}
    assert "dynamic_shapes" in rules and "ai_core_frequency_low" not in rules
    assert "slow_operator" not in rules  # two cards: fewer than a verdict needs


@pytest.mark.skipif(not DATABASES, reason="database samples absent")
@pytest.mark.parametrize("path", DATABASES, ids=lambda p: "/".join(p.parts[-4:-2]))
def test_database_frequency_table(path):
    session = AnalysisSession(load(path, cache=False))
    advisor = _advisor(session, 0)
    with sqlite3.connect(path) as conn:
        freq = [row[0] for row in conn.execute("select freq from AICORE_FREQ")]
    assert advisor["frequency"]["samples"] == len(freq)
    assert advisor["frequency"]["lowest_mhz"] == min(freq) and advisor["frequency"]["nominal_mhz"] == max(freq)
    assert advisor["dynamic"] is None  # the database writes no OP State
    assert advisor["block_dim"] is None  # "Ascend910B" names no one part: its core count is not known


CANN = SAMPLES / "cann_per_iteration"


@pytest.mark.skipif(not CANN.is_dir(), reason="CANN sample absent")
def test_cann_device_description():
    info = next(CANN.glob("PROF_*/device_0/info.json.0"))
    device = orjson.loads(info.read_bytes())["DeviceInfo"][0]
    session = AnalysisSession(load(CANN, cache=False))
    advisor = _advisor(session, 0)
    assert advisor["device"]["ai_cores"] == int(device["ai_core_num"])
    assert advisor["device"]["vector_cores"] == int(device["aiv_num"])
    assert advisor["device"]["nominal_mhz"] == float(device["aic_frequency"])
    assert advisor["frequency"] is None  # this export has no AI Core Freq counter
    assert advisor["block_dim"] is None  # nor block dims: the cores are known, the launches are not
