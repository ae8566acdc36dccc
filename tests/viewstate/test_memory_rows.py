"""The memory lanes of a card: one row per component of its memory records and of its trace's memory counters,
none without either."""

from __future__ import annotations

import numpy as np

from timelineview.model import load
from timelineview.synthetic import WriteOptions, cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory
from timelineview.viewstate.card_view import prepare_card
from timelineview.viewstate.timeline.memory_rows import MEMORY, memory_rows, shown_values


def test_rows_per_component_and_curves(tmp_path):
    truths = generate_cluster(tmp_path / "with", cluster_specs(1, seed=2, steps=2, tasks_per_step=40))
    [written] = write_cluster_memory(truths, MemorySpec(blocks_per_step=30, weight_blocks=10))
    [store] = load(tmp_path / "with")
    card = prepare_card(store, 0)
    rows = memory_rows(card, -1)
    # APP and DEVICE: the trace's NPU MEM counters (reserved only), for the components the files lack
    assert [r.title for r in rows] == ["Memory APP reserved (MB)", "Memory PTA allocated (MB)",
                                       "Memory GE allocated (MB)", "Memory PTA+GE allocated (MB)",
                                       "Memory DEVICE reserved (MB)"]
    assert all(r.kind == MEMORY and r.card == 0 for r in rows) and [r.series for r in rows] == [0, 1, 2, 3, 4]
    pta = card.analysis.memory.curves[1]
    figure, values = shown_values(pta)
    assert figure == "allocated" and np.nanmax(values) * (1 << 20) == written.peak_allocated
    assert np.all(np.diff(pta.time_ns) >= 0)


def test_counter_only_rows(tmp_path):
    generate_cluster(tmp_path / "counters", cluster_specs(1, seed=2, steps=2, tasks_per_step=40))
    [store] = load(tmp_path / "counters")
    card = prepare_card(store, 0)
    assert [r.title for r in memory_rows(card, -1)] == ["Memory APP reserved (MB)", "Memory DEVICE reserved (MB)"]
    app = card.analysis.memory.curves[0]
    figure, values = shown_values(app)
    ts, kb = store.counters.series(store.counters.series_counter.index("APP/HBM"))
    assert figure == "reserved" and np.array_equal(app.time_ns, ts) and np.array_equal(values * 1024, kb)


def test_no_records_no_rows(tmp_path):
    generate_cluster(tmp_path / "without", cluster_specs(1, seed=2, steps=2, tasks_per_step=40),
                     options=WriteOptions(memory_counters=False))
    [store] = load(tmp_path / "without")
    assert memory_rows(prepare_card(store, 0), -1) == []
