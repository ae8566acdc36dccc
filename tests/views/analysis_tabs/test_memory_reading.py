"""The Memory tab in one unit and in whole: the curves over ms from the trace start (the table's unit),
and the allocations alive at an instant said as the part they are of their component's allocated memory,
with what the rest is (blocks the records do not list: here the weights, left out of the records)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory

WEIGHT_BLOCKS = 20


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> tuple[Path, float]:
    """One card whose operator records lack the weights (allocated before the capture's records began, as on
    real captures); returns its folder and the weights' total, MB, from the rows taken out."""
    out = tmp_path_factory.mktemp("memread") / "ranks"
    truths = generate_cluster(out, cluster_specs(1, seed=4, steps=2, tasks_per_step=60))
    [mem] = write_cluster_memory(truths, MemorySpec(blocks_per_step=40, weight_blocks=WEIGHT_BLOCKS))
    path = mem.folder / "operator_memory.csv"
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, weights, rest = rows[0], rows[1:1 + WEIGHT_BLOCKS], rows[1 + WEIGHT_BLOCKS:]
    assert all(r[header.index("Release Time(us)")] == "" for r in weights)  # held to the end: the weights
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\r\n").writerows([header, *rest])
    weights_mb = sum(float(r[header.index("Size(KB)")]) for r in weights) / 1024
    return out, weights_mb


@pytest.fixture
def view(open_tab, cluster):
    return open_tab(cluster[0], "memory", lambda v: v.model.rowCount() > 0)


def test_the_curves_are_drawn_over_ms_from_the_trace_start(view):
    m = view.memory
    assert view.plot.getPlotItem().getAxis("bottom").labelText == "time from the trace start (ms)"
    pta = next(c for c in m.curves if c.name == "PTA")
    item = next(i for i in view.plot.getPlotItem().listDataItems() if i.name() == "PTA allocated")
    xs, _ys = item.getData()
    assert xs[0] == pytest.approx((int(pta.time_ns[0]) - m.t_origin_ns) / 1e6)
    assert xs[-1] == pytest.approx((int(pta.time_ns[-1]) - m.t_origin_ns) / 1e6)
    assert view.cursor.value() == pytest.approx((view.instant_ns - m.t_origin_ns) / 1e6)


def test_the_alive_allocations_say_what_part_of_the_peak_they_are(view, cluster):
    m, weights_mb = view.memory, cluster[1]
    peak = m.peak_component
    assert peak.name == "PTA" and view.instant_ns == peak.peak_allocated_ns
    a = m.records.allocations
    t = peak.peak_allocated_ns
    alive = np.flatnonzero((a.allocated_ns <= t) & (a.released_ns > t))
    listed = a.size[alive].sum() / (1 << 20)
    allocated = peak.peak_allocated / (1 << 20)
    assert allocated - listed == pytest.approx(weights_mb, abs=0.01)  # the rest is the weights left out
    text = view.alive_label.text()
    at_ms = (t - m.t_origin_ns) / 1e6
    # the window's one number format: digits grouped by a space, three decimals for ms and MB
    assert text.startswith(f"{len(alive)} allocations alive at {at_ms:,.3f} ms hold {listed:,.3f} MB".replace(",", " "))
    assert f"of the {allocated:,.3f} MB PTA had allocated then".replace(",", " ") in text
    assert f"the other {allocated - listed:,.3f} MB have no allocation record".replace(",", " ") in text
    assert "µs" not in text
