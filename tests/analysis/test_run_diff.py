"""Comparing two runs (metrics.md §9): a planted change is reported, and nothing else."""

from __future__ import annotations

import pytest

from timelineview.analysis.run_diff import ADDED, REMOVED, diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

from .factory import COMM, HW, HW2, Sl, build_store

PY = "Python/Thread 1"


def run(op_us: dict[str, int], steps: int = 3, interval_us: int = 50, cards: int = 2, extra: str | None = None):
    """Cards whose steps run the operators ``op_us`` (name -> µs) back to back, then an all-reduce."""
    stores = []
    for c in range(cards):
        slices, t = [], 10**9
        for k in range(steps):
            s = t
            t += interval_us * 1000
            for j, (name, us) in enumerate(op_us.items()):
                slices.append(Sl(HW if j % 2 == 0 else HW2, name, t, us * 1000, "AI_CORE"))
                t += us * 1000
            if extra:
                slices.append(Sl(HW, extra, t, 10_000, "AI_CORE"))
                t += 10_000
            slices.append(Sl(COMM, f"hcom_allReduce__{100 + k}_0_1", t, 200_000))
            t += 200_000
            slices.append(Sl(PY, f"ProfilerStep#{k + 1}", s, t - s))
        stores.append(build_store(slices, card=f"rank {c}", rank=c, paths=(f"r{c}.json",)))
    return AnalysisSession(stores)


def test_one_slower_operator_is_the_only_operator_change():
    base = run({"MatMul": 300, "Add": 100, "Softmax": 50})
    new = run({"MatMul": 300, "Add": 160, "Softmax": 50})
    d = diff_runs(base, new)
    top = d.operators[0]
    # 2 cards x 3 steps x 60 µs more
    assert (top.name, top.delta_us, top.base_count, top.new_count) == ("Add", 2 * 3 * 60.0, 6, 6)
    assert all(o.delta_us == 0 for o in d.operators[1:])
    assert [c.name for c in d.communication] == ["hcom_allReduce"]
    assert d.communication[0].base_count == 6 and d.communication[0].delta_us == 0
    for card in d.cards:
        assert card.delta["step_time_us"] == pytest.approx(60.0)
        assert card.delta["compute_us"] == pytest.approx(3 * 60.0)
        assert card.delta["step_interval_us"] == pytest.approx(0.0)
    assert d.notes == []


def test_added_and_removed_operators():
    d = diff_runs(run({"MatMul": 300}, extra="Cast"), run({"MatMul": 300}, extra="CastV2"))
    status = {o.name: o.status for o in d.operators}
    assert status == {"Cast": REMOVED, "CastV2": ADDED, "MatMul": "changed"}
    cast = next(o for o in d.operators if o.name == "Cast")
    assert (cast.base_total_us, cast.new_total_us, cast.new_count) == (2 * 3 * 10.0, 0.0, 0)


def test_mismatched_runs_are_reported_not_raised():
    d = diff_runs(run({"MatMul": 300}, cards=3), run({"MatMul": 300}, cards=2, steps=4))
    assert "only in the base run: rank 2" in d.notes
    assert any("3 step(s) in the base run, 4 in the new" in n for n in d.notes)
    assert [c.card for c in d.cards] == ["rank 0", "rank 1"]
    doc = d.document()
    assert set(doc) == {"cards", "operators", "communication", "links", "matched_by", "notes"}
    assert doc["matched_by"] == "rank"
    assert set(doc["cards"][0]) == {"card", "new_card", "base", "new", "delta"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    def make(name, **kw):
        root = tmp_path_factory.mktemp(name)
        generate_cluster(root, cluster_specs(4, seed=5, steps=3, tasks_per_step=120, **kw), "msprof")
        return AnalysisSession(load(root))
    return make


def test_generated_runs_one_slower_card_and_a_longer_interval(generated):
    base = generated("base")
    slower = generated("slower", slow_card=1, slow_factor=1.5)
    d = diff_runs(base, slower)
    compute = {c.card: c.delta["compute_us"] for c in d.cards}
    base_compute = {c.card: c.base["compute_us"] for c in d.cards}
    # rank 1's compute tasks are 1.5x as long; the others' do not change
    assert compute["rank 1"] > 0.4 * base_compute["rank 1"]
    assert all(abs(v) < 1e-6 for k, v in compute.items() if k != "rank 1")
    rank1 = next(i for i in base.order if base.stores[i].rank == 1)
    sl = base.stores[rank1].slices
    rank1_task_us = sl.dur[base.analyse(rank1, ("classification",)).classification.compute].sum() / 1000
    assert sum(o.delta_us for o in d.operators) == pytest.approx(0.5 * rank1_task_us, rel=0.01)

    waiting = generated("waiting", slow_data_card=2, slow_data_us=9000.0)
    d = diff_runs(base, waiting)
    interval = {c.card: c.delta["step_interval_us"] for c in d.cards}
    assert interval["rank 2"] > 5000
    assert all(abs(v) < 1e-6 for k, v in interval.items() if k != "rank 2")
    assert all(abs(o.delta_us) < 1e-6 for o in d.operators)
