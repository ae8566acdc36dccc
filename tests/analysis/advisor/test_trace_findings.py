"""The advisor's findings end to end: AI Core frequency below nominal on a crafted card, and dynamic shapes and
low block dims from a ``kernel_details.csv`` and a device description written beside a generated trace (expected
values computed here from the rows written)."""

from __future__ import annotations

import csv

import numpy as np
import orjson
import pytest

from timelineview.analysis.advisor.frequency import frequency_drops
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.model.store.trace_store import CounterTable
from timelineview.synthetic import cluster_specs, generate_cluster

from ..findings.planted import T0, US, StepShape, card

STEP_US = 50 + 10 * 100 + 100 + 20  # StepShape's defaults: interval, ten operators, all-reduce, tail


def with_frequency(store, samples: list[tuple[int, float]]):
    """``store`` with an AI Core Freq counter of ``samples`` (µs after T0, MHz)."""
    ts = np.array([T0 + t * US for t, _ in samples], np.int64)
    store.counters = CounterTable(np.zeros(1, np.int32), ["AI Core Freq"], ["AI Core Freq"], ["MHz"], ts,
                                  np.array([v for _, v in samples], np.float64), np.array([0, len(ts)], np.int64))
    return store


def test_time_below_the_nominal_frequency_inside_the_steps():
    store = with_frequency(card([StepShape()] * 4), [(0, 1800), (1000, 1200), (1500, 1800), (3000, 1500), (3100, 1800)])
    steps = AnalysisSession([store]).analyse(0, ("steps",)).steps
    drops = frequency_drops(store, steps)
    assert drops.nominal_mhz == 1800 and drops.lowest_mhz == 1200 and drops.samples == 5
    # below 1800 MHz over [1000, 1500) and [3000, 3100) µs: 600 µs of the four steps' 4 × 1170 µs
    assert drops.below_ns == 600 * US and drops.steps_ns == 4 * STEP_US * US
    assert frequency_drops(store, steps, nominal_mhz=1000).below_ns == 0  # never below a nominal of 1000 MHz


def test_the_frequency_finding_and_its_evidence():
    store = with_frequency(card([StepShape()] * 4), [(0, 1800), (1000, 1200), (1500, 1800), (3000, 1500), (3100, 1800)])
    [f] = [f for f in AnalysisSession([store]).findings if f.rule == "ai_core_frequency_low"]
    assert f.value == pytest.approx(600 / (4 * STEP_US)) and f.reference == 0.05
    # evidence instants: ns on the card's clock (metrics.md §5)
    assert [(e.start_ns - store.t_origin, e.end_ns - store.t_origin) for e in f.evidence] == [
        (1000 * US, 1500 * US), (3000 * US, 3100 * US)]
    assert "1.2e+03" not in f.advice and "1200 MHz" in f.advice
    # a drop for under 5 % of the steps' time is no finding
    short = with_frequency(card([StepShape()] * 4), [(0, 1800), (1000, 1200), (1100, 1800)])
    assert not [f for f in AnalysisSession([short]).findings if f.rule == "ai_core_frequency_low"]


@pytest.fixture(scope="module")
def described(tmp_path_factory):
    """A generated 3-card cluster whose rank 0 has a kernel table (every third task dynamic, every second on 8
    blocks) and a device description (24 AI Cores, 48 vector cores, 1800 MHz)."""
    folder = tmp_path_factory.mktemp("advisor")
    generate_cluster(folder, cluster_specs(3, seed=9, steps=3, tasks_per_step=60), "msprof")
    session = AnalysisSession(load(folder, cache=False))
    store = next(s for s in session.stores if s.card == "rank 0")
    a = session.analyse(session.stores.index(store), ("classification",))
    compute = np.flatnonzero(a.classification.compute)
    sl = store.slices
    rows = []
    for k, i in enumerate(compute.tolist()):
        start = int(sl.start[i])
        rows.append({"Stream ID": store.lanes.tid[sl.lane[i]], "Start Time(us)": f"{start // 1000}.{start % 1000:03d}",
                     "Type": "MatMulV2" if k % 2 else "Conv2D", "OP State": "dynamic" if k % 3 == 0 else "static",
                     "Accelerator Core": "AI_CORE", "Block Dim": 8 if k % 2 else 24, "Input Shapes": f'"{k % 5},16"',
                     "dur": int(sl.dur[i])})
    out = folder / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    with open(out / "kernel_details.csv", "w", newline="") as f:
        w = csv.DictWriter(f, ["Stream ID", "Start Time(us)", "Type", "OP State", "Accelerator Core", "Block Dim",
                               "Input Shapes"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    device = folder / "rank0_ascend_pt" / "PROF_000001" / "device_0"
    device.mkdir(parents=True)
    (device / "info.json.0").write_bytes(orjson.dumps({"DeviceInfo": [
        {"id": 0, "ai_core_num": 24, "aiv_num": 48, "aic_frequency": "1800"}]}))
    return AnalysisSession(load(folder, cache=False)), rows


def test_dynamic_shapes_and_low_block_dims_from_the_kernel_table(described):
    session, rows = described
    facts = session.analyse(0, ("finding_facts",)).finding_facts["advisor"]
    compute_us = sum(r["dur"] for r in rows) / 1000
    dynamic_us = sum(r["dur"] for r in rows if r["OP State"] == "dynamic") / 1000
    low_us = sum(r["dur"] for r in rows if r["Block Dim"] == 8 and r["dur"] >= 20_000) / 1000
    assert facts["device"]["ai_cores"] == 24 and facts["device"]["nominal_mhz"] == 1800
    assert facts["dynamic"]["dynamic_tasks"] == sum(r["OP State"] == "dynamic" for r in rows)
    assert facts["dynamic"]["dynamic_us"] == pytest.approx(dynamic_us)
    assert facts["dynamic"]["share"] == pytest.approx(dynamic_us / compute_us)
    assert facts["block_dim"]["total_us"] == pytest.approx(low_us)
    assert facts["block_dim"]["top"][0][:4] == ["MatMulV2", "AI_CORE", 8, 24]
    found = {f.rule: f for f in session.findings}
    for rule in ("dynamic_shapes", "low_block_dim"):
        f = found[rule]
        assert f.cards == ["rank 0"] and f.evidence
        store = session.stores[0]
        assert all(e.card == "rank 0" and store.t_origin <= e.start_ns < e.end_ns <= store.t_end
                   for e in f.evidence)
    others = [s for s in session.stores if s.card != "rank 0"]
    assert others and all(session.analyse(session.stores.index(s), ("finding_facts",)).finding_facts["advisor"]
                          ["dynamic"] is None for s in others)
