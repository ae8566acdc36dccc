"""Every producer generation of docs/trace-format.md §4 round-trips from a generated file.

The generator's ground truth says what was written; the loaded store must hold exactly
those slices on exactly those lanes, in that order, with the counts of the other tables.
"""

from __future__ import annotations

from collections import Counter

import pytest

from timelineview.model import load
from timelineview.synthetic import CardSpec, WriteOptions, generate_card

LAYOUTS = ["msprof", "msprof_per_iteration", "mindspore_gen_c", "mindspore_gen_b", "object"]


def truth_slices(gt) -> Counter:
    return Counter((gt.lane_process[int(ln)], gt.lane_thread[int(ln)], int(s), int(d), gt.names[int(n)])
                   for ln, s, d, n in zip(gt.lane, gt.start_ns, gt.dur_ns, gt.name))


def store_slices(store) -> Counter:
    sl = store.slices
    out = Counter()
    for ln, s, d, n, flags in zip(sl.lane.tolist(), sl.start.tolist(), sl.dur.tolist(), sl.name.tolist(),
                                  sl.flags.tolist()):
        if flags & 1:  # the open B: not in the ground truth's slice list
            continue
        p = int(store.lanes.process[ln])
        out[(store.processes.name[p], store.lanes.name[ln], s, d, store.strings[n])] += 1
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variant", ["plain", "pretty+extras"])
def test_generated_card_round_trips(tmp_path, layout, variant):
    spec = CardSpec(seed=3, rank=2, steps=3, streams=2, tasks_per_step=40, with_duplicates=True,
                    with_overlaps=variant != "plain", clock_offset_ns=123_456)
    opts = WriteOptions(pretty=variant != "plain", be_events=variant != "plain", instants=variant != "plain",
                        step_trace=True)
    name = {"msprof_per_iteration": "card", "mindspore_gen_c": "ascend_timeline_display_2.json",
            "mindspore_gen_b": "ascend_timeline_display_2.json"}.get(layout, "trace_view.json")
    target = tmp_path / name
    gt = generate_card(target, spec, layout, options=opts)
    [store] = load(target)
    assert store.report.dropped_events == 0 and not store.report.truncated and not store.report.error
    assert store_slices(store) == truth_slices(gt)
    assert len(store.slices) - store.report.open_slices == gt.expected_slices
    assert store.report.duplicates_dropped == gt.duplicate_x
    assert store.report.open_slices == gt.open_b_events
    lanes = [(store.processes.name[int(store.lanes.process[i])], store.lanes.name[i])
             for i in range(len(store.lanes)) if (store.slices.lane == i).any()]
    assert lanes == list(zip(gt.lane_process, gt.lane_thread))
    assert len(store.counters) == gt.counter_series
    assert len(store.flows) == gt.flow_edges
    assert len(store.instants) == gt.instant_events
    assert store.rank == (None if name == "trace_view.json" else 2)
