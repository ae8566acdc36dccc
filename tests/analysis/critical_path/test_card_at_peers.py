"""The what-if "the card computes like the others" (metrics.md §12) per operator: each of the card's op types
at the other cards' median time per task. A pipeline's stages run different amounts of the same layers, so
a stage whose total is above the others' without a slow operator gains nothing, and an operator only one
card runs (an embedding on the first stage) keeps its measured time."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.critical_path.graph import build_graph
from timelineview.analysis.critical_path.inputs import CardTimeline, empty_transfers
from timelineview.analysis.critical_path.what_if import CARD_AT_MEDIAN, Change, changed_inputs, compute_ratio_at_peers

TYPES = ["MatMul", "Add", "Embedding"]
# per card (tasks, ns per task) of each type, one step
STAGES = {
    "first": [(4, 100.0), (4, 10.0), (1, 200.0)],  # the only card with an embedding
    "slow": [(4, 130.0), (4, 13.0), (0, 0.0)],  # every task 1.3x
    "fast": [(4, 90.0), (4, 9.0), (0, 0.0)],
    "deep": [(6, 100.0), (6, 10.0), (0, 0.0)],  # more layers at the healthy rate
}


def card(name: str, work: list[tuple[int, float]], counted: bool = True) -> CardTimeline:
    """One step [0, 10 µs): its compute as one interval of its task time, then an all-reduce."""
    type_ns = np.array([[n * per for n, per in work]])
    total = int(type_ns.sum())
    return CardTimeline(name, None, 0, np.array([1]), np.array([0]), np.array([10_000]), np.array([100], np.int64),
                        np.array([100 + total], np.int64), type_ns, np.array([5_000], np.int64),
                        np.array([6_000], np.int64), ["hcom_allReduce_1"], empty_transfers(),
                        step_type_count=np.array([[n for n, _ in work]], np.int64) if counted else None)


@pytest.fixture
def graph():
    return build_graph([card(name, work) for name, work in STAGES.items()], TYPES)


def ratio(graph, name: str) -> float:
    return float(compute_ratio_at_peers(graph, graph.cards.index(name))[0])


def test_a_slow_card_at_the_others_rate_per_operator(graph):
    # by hand: the others' median per task is 100 ns (MatMul: 100, 90, 100) and 10 ns (Add: 10, 9, 10), so
    # 4 x 100 + 4 x 10 = 440 ns of its 4 x 130 + 4 x 13 = 572
    assert ratio(graph, "slow") == pytest.approx(440 / 572)


def test_a_stage_with_more_layers_at_the_healthy_rate_gains_nothing(graph):
    # its total (660 ns) is above the cards' median total, yet each of its tasks runs at the others' rate
    assert ratio(graph, "deep") == pytest.approx(1.0)


def test_an_operator_no_other_card_runs_keeps_its_time(graph):
    # the embedding (200 ns) keeps its time, MatMul and Add are at the others' median: 400 + 40 + 200 of 640
    assert ratio(graph, "first") == pytest.approx(1.0)


def test_a_faster_card_is_not_slowed(graph):
    assert ratio(graph, "fast") == pytest.approx(1.0)  # 4 x 100 + 4 x 10 above its 396 ns: capped


def test_the_change_scales_only_the_cards_compute(graph):
    x = changed_inputs(graph, Change(CARD_AT_MEDIAN, "slow"))
    c = graph.cards.index("slow")
    np.testing.assert_allclose(x.busy[:, :, c], graph.busy[:, :, c] * 440 / 572)
    others = [i for i in range(len(graph.cards)) if i != c]
    np.testing.assert_array_equal(x.busy[:, :, others], graph.busy[:, :, others])


def test_without_task_counts_a_types_total_stands_for_one_task():
    """A summary written before task counts were kept: each type's total against the others' median total."""
    g = build_graph([card(name, work, counted=False) for name, work in STAGES.items()], TYPES)
    assert g.type_count is None
    # slow: MatMul totals of the others 400, 360, 600 (median 400), Add 40, 36, 60 (40): 440 of 572
    assert ratio(g, "slow") == pytest.approx(440 / 572)
    # deep: MatMul 400, 520, 360 (400), Add 40, 52, 36 (40): its extra layers read as slowness
    assert ratio(g, "deep") == pytest.approx(440 / 660)


@pytest.mark.parametrize("seed", range(4))
def test_the_ratio_matches_a_type_by_type_reference(seed):
    """Random tables, an even number of peers, types some cards do not run: against a plain loop."""
    rng = np.random.default_rng(seed)
    n_cards, n_types = 5, 6
    count = rng.integers(0, 4, (n_cards, n_types)) * (rng.random((n_cards, n_types)) < 0.7)
    per = rng.uniform(50.0, 150.0, (n_cards, n_types))
    names = [f"card{i}" for i in range(n_cards)]
    g = build_graph([card(names[i], list(zip(count[i].tolist(), per[i].tolist(), strict=True)))
                     for i in range(n_cards)], [f"T{t}" for t in range(n_types)])
    for c in range(n_cards):
        own = count[c] * per[c]
        priced = 0.0
        for t in range(n_types):
            peers = [per[o, t] for o in range(n_cards) if o != c and count[o, t] > 0]
            priced += count[c, t] * float(np.median(peers)) if peers and count[c, t] else own[t]
        expected = min(priced / own.sum(), 1.0) if own.sum() > 0 else 1.0
        assert ratio(g, names[c]) == pytest.approx(expected)
