"""Comparing two runs (metrics.md §9): a planted change is reported, and nothing else."""

from __future__ import annotations

import pytest

from timelineview.analysis.diff.run_diff import ADDED, COMM_KEYS, REMOVED, UNCHANGED, diff_runs
from timelineview.analysis.diff.run_matching import rank_renaming
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

from .factory import COMM, HW, HW2, Sl, build_store

PY = "Python/Thread 1"


def run(op_us: dict[str, int], steps: int = 3, interval_us: int = 50, cards: int = 2, extra: str | None = None,
        first_rank: int = 0, slower: dict[int, int] | None = None):
    """Cards whose steps run the operators ``op_us`` (name -> µs) back to back, then an all-reduce; ranks from
    ``first_rank``; ``slower``: {card position: µs} more of the first operator on that card."""
    stores = []
    for c in range(cards):
        slices, t = [], 10**9
        rank = first_rank + c
        for k in range(steps):
            s = t
            t += interval_us * 1000
            for j, (name, us) in enumerate(op_us.items()):
                us += (slower or {}).get(c, 0) if j == 0 else 0
                slices.append(Sl(HW if j % 2 == 0 else HW2, name, t, us * 1000, "AI_CORE"))
                t += us * 1000
            if extra:
                slices.append(Sl(HW, extra, t, 10_000, "AI_CORE"))
                t += 10_000
            slices.append(Sl(COMM, f"hcom_allReduce__{100 + k}_0_1", t, 200_000))
            t += 200_000
            slices.append(Sl(PY, f"ProfilerStep#{k + 1}", s, t - s))
        stores.append(build_store(slices, card=f"rank {rank}", rank=rank, paths=(f"r{rank}.json",)))
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
    assert status == {"Cast": REMOVED, "CastV2": ADDED, "MatMul": UNCHANGED}  # the same in both runs
    cast = next(o for o in d.operators if o.name == "Cast")
    assert (cast.base_total_us, cast.new_total_us, cast.new_count) == (2 * 3 * 10.0, 0.0, 0)


def test_mismatched_runs_are_reported_not_raised():
    d = diff_runs(run({"MatMul": 300}, cards=3), run({"MatMul": 300}, cards=2, steps=4))
    assert "only in the base run: rank 2" in d.notes
    assert any("3 step(s) in the base run, 4 in the new" in n for n in d.notes)
    assert [c.card for c in d.cards] == ["rank 0", "rank 1"]
    doc = d.document()
    assert set(doc) == {"schema", "cards", "operators", "communication", "links", "matched_by", "notes",
                        "op_types", "op_shapes"}  # the operators by op type, and by op type and shapes (§9)
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


def test_runs_that_share_no_rank_are_matched_in_rank_order():
    # ranks 0 and 1 of one job against ranks 5 and 6 of another, whose rank 6 runs MatMul 40 µs longer
    d = diff_runs(run({"MatMul": 300, "Add": 100}), run({"MatMul": 300, "Add": 100}, first_rank=5, slower={1: 40}))
    assert d.matched_by == "order"
    assert [(c.card, c.new_card) for c in d.cards] == [("rank 1", "rank 6"), ("rank 0", "rank 5")]
    assert d.cards[0].delta["step_time_us"] == pytest.approx(40.0)
    assert d.cards[0].delta["compute_us"] == pytest.approx(3 * 40.0)
    assert d.cards[1].delta["step_time_us"] == pytest.approx(0.0)
    assert d.notes == ["the runs share no rank: cards matched in rank order (rank 0 with rank 5, rank 1 with rank 6)"]
    matmul = next(o for o in d.operators if o.name == "MatMul")
    assert (matmul.delta_us, matmul.base_count, matmul.new_count) == (3 * 40.0, 6, 6)
    assert d.document()["cards"][0]["new_card"] == "rank 6"


def test_runs_that_share_no_rank_and_differ_in_size_are_not_paired():
    d = diff_runs(run({"MatMul": 300}, cards=3), run({"MatMul": 300}, cards=2, first_rank=5))
    assert d.cards == [] and d.matched_by == "rank"
    assert d.notes == ["only in the base run: rank 0, rank 1, rank 2", "only in the new run: rank 5, rank 6"]


def test_cards_are_listed_by_their_change_of_step_time():
    slower = {0: 5, 2: -20, 3: 60}  # µs more (less) per step on cards 0, 2, 3; card 1 unchanged
    d = diff_runs(run({"MatMul": 300, "Add": 100}, cards=4), run({"MatMul": 300, "Add": 100}, cards=4, slower=slower))
    assert [c.card for c in d.cards] == ["rank 3", "rank 2", "rank 0", "rank 1"]
    assert [c.delta["step_time_us"] for c in d.cards] == pytest.approx([60.0, -20.0, 5.0, 0.0])


@pytest.mark.parametrize(("pairs", "expected"), [
    ([(0, 1)], {0: 1, 1: 0}),
    ([(0, 4), (1, 5)], {0: 4, 1: 5, 4: 0, 5: 1}),
    ([(0, 1), (1, 2)], {0: 1, 1: 2, 2: 0}),
    ([(3, 3), (None, 2)], {}),
])
def test_rank_renaming_is_one_to_one(pairs, expected):
    got = rank_renaming(pairs)
    assert got == expected
    assert sorted(got) == sorted(got.values())  # a permutation of the ranks it names


# (seed, cards, planted slow link): links inside a node (SDMA) and across nodes (RDMA)
PLANTED_LINKS = [(1, 4, (1, 2)), (2, 4, (0, 3)), (3, 8, (2, 5)), (4, 16, (3, 11)), (5, 8, (6, 7)),
                 (6, 4, (3, 0)), (7, 8, (0, 1)), (8, 16, (9, 1)), (9, 8, (4, 2)), (10, 12, (3, 11))]
SLOW_LINK_FACTOR = 3.0


def generated_pair(root, seed: int, cards: int, link: tuple[int, int]):
    """A run and the same run with ``link`` 3x slower, their sessions and ground truths."""
    out = []
    for name, kw in (("base", {}), ("slow", {"slow_link": link, "slow_link_factor": SLOW_LINK_FACTOR})):
        folder = root / f"{name}_{seed}"
        truths = generate_cluster(folder, cluster_specs(cards, seed=seed, steps=3, tasks_per_step=60, **kw), "msprof")
        out.append((AnalysisSession(load(folder)), truths))
    return out


@pytest.mark.parametrize(("seed", "cards", "link"), PLANTED_LINKS)
def test_a_planted_slow_link_is_the_first_link_listed(tmp_path, seed, cards, link):
    (base, _), (slow, _) = generated_pair(tmp_path, seed, cards, link)
    d = diff_runs(base, slow)
    key = f"{link[0]}-{link[1]}"
    first = d.links[0]
    assert first.key == first.new_key == key
    # its bandwidth is a third of the base's (the generator's ±5 % jitter per transfer aside)
    assert first.new.bandwidth_gbps / first.base.bandwidth_gbps == pytest.approx(1 / SLOW_LINK_FACTOR, rel=0.03)
    assert d.document()["links"][0]["key"] == key


def test_links_and_communication_totals_match_the_ground_truth(tmp_path):
    (base, base_truth), (slow, slow_truth) = generated_pair(tmp_path, 3, 8, (2, 5))
    d = diff_runs(base, slow)
    for card in d.cards:
        rank = int(card.card.split()[1])
        # the communication totals are the producer's (each collective's main plane, metrics.md §6)
        for key in COMM_KEYS:
            ns_key = key.replace("_us", "_ns")
            assert all(op["producer"] is not None for op in base_truth[rank].comm_ops + slow_truth[rank].comm_ops)
            b = sum(op["producer"][ns_key] for op in base_truth[rank].comm_ops) / 1000
            n = sum(op["producer"][ns_key] for op in slow_truth[rank].comm_ops) / 1000
            assert (card.base[key], card.new[key]) == (pytest.approx(b, abs=1e-3), pytest.approx(n, abs=1e-3))
            assert card.delta[key] == pytest.approx(n - b, abs=1e-3)

    def truth_links(truths):
        out = {}
        for t in truths:
            for x in t.links:
                if x["src"] == t.rank:
                    row = out.setdefault(f"{x['src']}-{x['dst']}", [0, 0])
                    row[0] += x["bytes"]
                    row[1] += x["transit_ns"]
        return out

    tb, tn = truth_links(base_truth), truth_links(slow_truth)
    assert {x.key for x in d.links} == set(tb) | set(tn)
    for x in d.links:
        assert (x.base.bytes, x.new.bytes) == (tb[x.key][0], tn[x.key][0])
        assert x.base.transit_us == pytest.approx(tb[x.key][1] / 1000, abs=1e-3)
        assert x.delta["transit_us"] == pytest.approx((tn[x.key][1] - tb[x.key][1]) / 1000, abs=1e-3)
        assert x.delta["bandwidth_gbps"] == pytest.approx(tn[x.key][0] / tn[x.key][1] - tb[x.key][0] / tb[x.key][1])
        cost = tb[x.key][0] / (tn[x.key][0] / tn[x.key][1]) / 1000 - tb[x.key][1] / 1000
        assert x.bandwidth_cost_us == pytest.approx(cost, abs=1e-3)
    costs = [abs(x.bandwidth_cost_us) for x in d.links]
    assert costs == sorted(costs, reverse=True)


def test_a_phase_the_steps_gain_flows_into_the_comparison():
    from timelineview.analysis.diff.run_diff import PHASE_KEYS, step_phase_keys

    steps = [{"step": 1, "start_ns": 0, "dur_us": 9.0, "span_us": 9.0, "compute_us": 4.0, "idle_gap_count": 1,
              "step_interval_us": 1.0, "fp_bp_us": 6.0, "tail_us": 2.0, "stage_us": 8.0, "window_free_us": 3.0}]
    assert step_phase_keys(steps) == [*PHASE_KEYS, "stage_us", "window_free_us"]
    assert "compute_us" not in step_phase_keys(steps)  # a §2 metric of the step, not a phase
