"""Two per-card results drawing on one shared input: the input is made once per card analysis (by whichever of
them is computed first), each result's rows are the ones computed here by hand from the slices, and a re-open
that reads both results back from the kept pack makes the input no more. The tables by op type and by shape
are two such results: a card's analysis groups its tasks once for both."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.card_results.declaration import INTEGER, TEXT, CardResult, ResultColumn, SharedInput
from timelineview.analysis.card_results.registry import declare, withdraw
from timelineview.analysis.kernels import declared_results
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

made: Counter = Counter()  # how often the shared input was made, per card


def _per_lane(store, a) -> dict[int, list[int]]:
    """The shared input: each lane's slice durations."""
    made[store.card] += 1
    out: dict[int, list[int]] = {}
    for lane, dur in zip(store.slices.lane.tolist(), store.slices.dur.tolist(), strict=True):
        out.setdefault(lane, []).append(dur)
    return out


PER_LANE = SharedInput("toy_per_lane", _per_lane)
COLUMNS = (ResultColumn("lane", TEXT, doc="the lane's full name"), ResultColumn("count", INTEGER))
LONGEST = CardResult(
    "toy_longest", lambda store, a: [{"lane": store.lane_full_name(k), "count": max(d)}
                                     for k, d in sorted(a.inputs[PER_LANE.name].items())],
    (), COLUMNS, inputs=(PER_LANE,))
SLICES = CardResult(
    "toy_slices", lambda store, a: [{"lane": store.lane_full_name(k), "count": len(d)}
                                    for k, d in sorted(a.inputs[PER_LANE.name].items())],
    (), COLUMNS, inputs=(PER_LANE,))


@pytest.fixture
def toys():
    declare(LONGEST)
    declare(SLICES)
    made.clear()
    yield
    withdraw(LONGEST.name)
    withdraw(SLICES.name)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("shared") / "job"
    generate_cluster(out, cluster_specs(2, seed=11, steps=2, tasks_per_step=40), "msprof")
    return out


def _by_hand(store) -> tuple[list[dict], list[dict]]:
    """Each lane holding slices: its longest slice and its number of slices, one slice at a time."""
    longest, count = {}, {}
    for i in range(len(store.slices)):
        lane, dur = int(store.slices.lane[i]), int(store.slices.dur[i])
        longest[lane] = max(longest.get(lane, dur), dur)
        count[lane] = count.get(lane, 0) + 1
    return ([{"lane": store.lane_full_name(k), "count": longest[k]} for k in sorted(longest)],
            [{"lane": store.lane_full_name(k), "count": count[k]} for k in sorted(count)])


def test_the_input_is_made_once_for_both_results(toys, cluster):
    store = load(cluster, cache=False)[0]
    a = analyse_card(store, (LONGEST.name, SLICES.name))
    assert made[store.card] == 1
    longest, count = _by_hand(store)
    assert longest and a.results[LONGEST.name] == longest and a.results[SLICES.name] == count


def test_results_read_back_make_no_input(toys, cluster, tmp_path):
    cache = tmp_path / "cache"
    load(cluster, cache=cache)  # fills the card cache
    first = analyse_card(load(cluster, cache=cache)[0], (LONGEST.name, SLICES.name))  # computes and keeps both
    assert sum(made.values()) == 1
    again = analyse_card(load(cluster, cache=cache)[0], (LONGEST.name, SLICES.name))
    assert sum(made.values()) == 1  # both read back: the input not made again
    assert again.results == first.results and not again.inputs


def test_both_kernel_tables_come_from_one_grouping(cluster, monkeypatch):
    """The card object's tables by op type and by shape: the tasks grouped once, each table's counts and totals
    those of a plain grouping of the compute tasks' durations."""
    calls = Counter()
    grouped = declared_results.card_kernel_tables

    def counting(store, table):
        calls["tables"] += 1
        return grouped(store, table)

    monkeypatch.setattr(declared_results, "card_kernel_tables", counting)
    store = load(cluster, cache=False)[0]
    a = analyse_card(store, ("document",))
    assert calls["tables"] == 1
    table, g = a.kernels, a.kernels.groups
    durations = store.slices.dur[table.slices].tolist()
    op_types, cores = g.text(g.op_type[table.group]), g.text(g.core_type[table.group])
    plain: dict[tuple[str, str], list[int]] = {}
    for op, core, dur in zip(op_types, cores, durations, strict=True):
        plain.setdefault((op, core), []).append(dur)
    rows = {(r["op_type"], r["core_type"]): r for r in a.document["kernels"]["by_op_type"]}
    assert rows.keys() == plain.keys()
    for key, durs in plain.items():
        assert rows[key]["count"] == len(durs) and rows[key]["total_us"] == pytest.approx(sum(durs) / 1000)
    by_shape = a.document["kernels"]["by_shape"]
    assert sum(r["count"] for r in by_shape) == len(durations)  # fewer rows than the document's top: all there
    assert np.isclose(sum(r["total_us"] for r in by_shape), sum(durations) / 1000)
