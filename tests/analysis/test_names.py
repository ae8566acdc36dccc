"""Per-name statistics of a window."""

import csv
import io

import pytest

from timelineview.analysis.names import COLUMNS, name_table

from .factory import Sl, build_store

L1 = "Python/Thread 1"
L2 = "Python/Thread 2"


def rows_by_name(table):
    return {r[0]: r[1:] for r in table.rows()}


def nested_store():
    # L1: outer [0,100) holds a [10,30) (which holds b [12,20)) and a [50,60); zero-length z at 70
    # L2: outer [0,40), overlapping c [30,50) (overlap without nesting: not a child)
    return build_store([
        Sl(L1, "a", 50, 10), Sl(L1, "outer", 0, 100), Sl(L1, "b", 12, 8), Sl(L1, "a", 10, 20),
        Sl(L1, "z", 70, 0), Sl(L2, "outer", 0, 40), Sl(L2, "c", 30, 20),
    ])


def test_counts_totals_self_min_max():
    t = rows_by_name(name_table(nested_store(), 0, 1000))
    # (count, total, self, avg, min, max) in µs
    assert t["outer"] == pytest.approx((2, 0.14, 0.07 + 0.04, 0.07, 0.04, 0.1))
    assert t["a"] == pytest.approx((2, 0.03, 0.022, 0.015, 0.01, 0.02))
    assert t["b"] == pytest.approx((1, 0.008, 0.008, 0.008, 0.008, 0.008))
    assert t["c"] == pytest.approx((1, 0.02, 0.02, 0.02, 0.02, 0.02))
    assert t["z"] == pytest.approx((1, 0, 0, 0, 0, 0))


def test_window_clips_durations():
    t = rows_by_name(name_table(nested_store(), 15, 55))
    assert t["outer"][:2] == (2, pytest.approx(0.04 + 0.025))
    assert t["a"][:3] == (2, pytest.approx(0.015 + 0.005), pytest.approx(0.01 + 0.005))
    assert t["outer"][2] == pytest.approx(0.04 - 0.015 - 0.005 + 0.025 - 0.0)  # c overlaps, not a child
    assert "z" not in t


def test_lane_filter_and_sorting_and_csv():
    store = nested_store()
    t = name_table(store, 0, 1000, lanes=[1])
    assert sorted(t.name) == ["c", "outer"]
    full = name_table(store, 0, 1000)
    assert full.name[0] == "outer"  # default: total, descending
    by_count = full.sorted_by("count", descending=True)
    assert list(by_count.count[:2]) == [2, 2]
    assert by_count.sorted_by("name", descending=False).name == sorted(full.name)
    assert list(full.sorted_by("max_us", descending=False).max_us) == sorted(full.max_us)
    with pytest.raises(KeyError):
        full.sorted_by("nope")
    rows = list(csv.reader(io.StringIO(full.to_csv())))
    assert tuple(rows[0]) == COLUMNS and len(rows) == len(full) + 1
    assert rows[1][:3] == ["outer", "2", "0.140"]


def test_empty_window():
    t = name_table(nested_store(), 500, 600)
    assert len(t) == 0 and t.to_csv().strip() == ",".join(COLUMNS)
