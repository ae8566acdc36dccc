"""The trace's NPU MEM counters as memory curves: which series, which unit, which component, what is dropped,
and that records win over counters for a component both give."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.model.memory import MemoryCurves, MemoryRecords
from timelineview.model.memory.counters import COUNTER_SOURCE, add_counter_curves, counter_curves
from timelineview.model.memory.records import MISSING, MemoryReport, Names
from timelineview.model.store.trace_store import CounterTable, ProcessTable

T0 = 1_736_408_883_573_957_920


def tables(series: list[tuple[str, str, str, list[int], list[float]]]) -> tuple[CounterTable, ProcessTable]:
    """A counter table of (process, counter, args key, ns, values) series and its process table."""
    processes = sorted({s[0] for s in series})
    offsets = np.cumsum([0] + [len(s[3]) for s in series]).astype(np.int64)
    counters = CounterTable(np.array([processes.index(s[0]) for s in series], dtype=np.int32),
                            [s[1] for s in series], [s[1] for s in series], [s[2] for s in series],
                            np.array([t for s in series for t in s[3]], dtype=np.int64),
                            np.array([v for s in series for v in s[4]], dtype=np.float64), offsets)
    return counters, ProcessTable(processes, processes, [""] * len(processes), np.arange(len(processes)))


def curve(curves: MemoryCurves, names: Names, component: str) -> tuple[list[int], list[int]]:
    rows = curves.component == names.find(component)
    assert (curves.allocated[rows] == MISSING).all() and (curves.active[rows] == MISSING).all()
    return curves.time_ns[rows].tolist(), curves.reserved[rows].tolist()


def test_owners_become_components_with_their_total_in_bytes():
    t = [T0, T0 + 20_000_000, T0 + 40_000_000]
    counters, processes = tables([
        ("NPU MEM", "APP/HBM", "KB", t, [100.0, 200.0, 300.0]),
        ("NPU MEM", "APP/DDR", "KB", t, [1.0, 2.0, 3.0]),
        ("NPU MEM", "APP/Memory", "KB", t, [101.0, 202.0, 303.0]),  # the total wins over HBM + DDR
        ("NPU MEM", "Device/HBM", "KB", t, [1000.0, 1500.0, 1200.0]),
        ("NPU MEM", "Device/DDR", "KB", t, [10.0, 0.0, 5.5]),  # no total: HBM + DDR
        ("HBM", "HBM 0/Read", "Read(MB/s)", t, [5.0, 6.0, 7.0]),  # another process: no memory
        ("NPU MEM", "APP/Bandwidth", "KB", t, [9.0, 9.0, 9.0]),  # no memory kind
    ])
    names, report = Names(), MemoryReport()
    curves = counter_curves(counters, processes, names, report)
    assert sorted(names.strings) == ["APP", "DEVICE"]
    assert curve(curves, names, "APP") == (t, [101 * 1024, 202 * 1024, 303 * 1024])
    assert curve(curves, names, "DEVICE") == (t, [1010 * 1024, 1500 * 1024, 1205 * 1024 + 512])
    assert report.dropped_rows == 0 and report.warnings == []


def test_hbm_alone_when_ddr_is_sampled_elsewhere_and_units_by_key():
    counters, processes = tables([
        ("NPU MEM", "APP/HBM", "MB", [T0, T0 + 5], [1.5, 2.0]),
        ("NPU MEM", "APP/DDR", "MB", [T0 + 1, T0 + 6], [7.0, 7.0]),  # other instants: not added
        ("NPU MEM", "Device/Memory", "Size(GB)", [T0], [2.0]),
    ])
    names = Names()
    curves = counter_curves(counters, processes, names, MemoryReport())
    assert curve(curves, names, "APP") == ([T0, T0 + 5], [int(1.5 * 2**20), 2 * 2**20])
    assert curve(curves, names, "DEVICE") == ([T0], [2 * 2**30])


def test_bad_samples_are_dropped_and_counted_and_a_unit_that_is_no_size_warns():
    counters, processes = tables([
        ("NPU MEM", "APP/Memory", "KB", [T0, T0 + 1, T0 + 2, T0 + 3], [4.0, float("nan"), -1.0, 8.0]),
        ("NPU MEM", "Device/Memory", "percent", [T0], [50.0]),
    ])
    names, report = Names(), MemoryReport()
    curves = counter_curves(counters, processes, names, report)
    assert curve(curves, names, "APP") == ([T0, T0 + 3], [4096, 8192])
    assert report.dropped == {"bad number": 2}
    assert report.examples == ["trace counter APP/Memory sample 2: bad number",
                               "trace counter APP/Memory sample 3: bad number"]
    assert report.warnings == ["trace counter Device/Memory: unit 'percent' is no size, not read"]
    assert names.find("DEVICE") == -1


def test_records_win_and_counters_add_the_components_they_lack():
    records = MemoryRecords()
    app = records.names.id("APP")
    records.curves = MemoryCurves(np.array([app], np.int32), np.array([T0], np.int64), np.array([MISSING]),
                                  np.array([7 << 20]), np.array([MISSING]))
    records.sources.append("memory_record.csv")
    counters, processes = tables([("NPU MEM", "APP/Memory", "KB", [T0, T0 + 9], [1.0, 99999.0]),
                                  ("NPU MEM", "Device/Memory", "KB", [T0 + 3], [64.0])])
    out = add_counter_curves(records, counters, processes)
    assert curve(out.curves, out.names, "APP") == ([T0], [7 << 20])  # the record's, not the counter's
    assert curve(out.curves, out.names, "DEVICE") == ([T0 + 3], [64 * 1024])
    assert out.sources == ["memory_record.csv", COUNTER_SOURCE]


@pytest.mark.parametrize("series", [[], [("HBM", "HBM 0/Read", "Read(MB/s)", [T0], [1.0])]])
def test_without_memory_counters_the_records_stay_as_they_are(series):
    records = MemoryRecords()
    out = add_counter_curves(records, *tables(series)) if series else add_counter_curves(
        records, CounterTable(np.zeros(0, np.int32), [], [], [], np.zeros(0, np.int64), np.zeros(0),
                              np.zeros(1, np.int64)), ProcessTable([], [], [], np.zeros(0, np.int64)))
    assert out.empty and out.sources == []
