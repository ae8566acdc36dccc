"""Slow operators (metrics.md §7.1 with §4): an op type slower on one card is named, with its excess against the
cards' median; a card slow all over names no op type; the floors and the correction hold."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.findings.marks import session_marks
from timelineview.analysis.findings.slow_operators import CardOpTimes, slow_operators
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.worst_of_many import MAD_SCALE, z_threshold
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

STEPS = 4
STEP_US = 10_000.0
# per op type: (tasks per step, mean µs) on a healthy card
WORK = {"MatMulV2": (20, 60.0), "Add": (50, 5.0), "Cast": (40, 4.0), "SoftmaxV2": (10, 14.0), "TransData": (30, 8.0)}
# small card-to-card jitter of each op type's mean (relative), different for every card and op type
JITTER = np.array([[0.004, -0.003, 0.002, -0.001, 0.003], [-0.002, 0.001, -0.004, 0.003, 0.0],
                   [0.001, 0.002, 0.003, -0.002, -0.003], [-0.003, -0.001, 0.001, 0.002, 0.001],
                   [0.002, 0.003, -0.002, -0.004, 0.002], [0.0, -0.002, 0.004, 0.001, -0.001]])


def cards(slowed: dict[tuple[int, str], float] | None = None, scale: dict[int, float] | None = None
          ) -> list[CardOpTimes]:
    out = []
    for c in range(len(JITTER)):
        rows = {}
        for j, (op, (n, mean)) in enumerate(WORK.items()):
            f = (1 + JITTER[c, j]) * (slowed or {}).get((c, op), 1.0) * (scale or {}).get(c, 1.0)
            rows[op] = (n * STEPS, n * STEPS * mean * f)
        out.append(CardOpTimes(f"rank {c}", STEPS, rows))
    return out


def test_healthy_cards_name_nothing():
    assert slow_operators(cards(), STEP_US) == []


def test_an_op_type_slowed_on_one_card_is_named_with_its_excess():
    [v] = slow_operators(cards({(3, "MatMulV2"): 1.5}), STEP_US)
    assert (v.key, v.card) == ("MatMulV2", "rank 3")
    # by hand: rank 3's MatMulV2 mean is 60 × 1.5 × (1 + JITTER); the cards' median mean is the median of the
    # six cards' means; rank 3's common factor is the median of its five op types' ratios to their medians
    means = np.array([[mean * (1 + JITTER[c, j]) * (1.5 if (c, op) == (3, "MatMulV2") else 1.0)
                       for j, (op, (_, mean)) in enumerate(WORK.items())] for c in range(len(JITTER))])
    medians = np.median(means, axis=0)
    factor = float(np.median(means[3] / medians))
    assert v.mean_us == pytest.approx(means[3, 0])
    assert v.median_mean_us == pytest.approx(medians[0])
    assert v.card_factor == pytest.approx(factor)
    assert v.us_per_step == pytest.approx(20 * means[3, 0])
    assert v.reference_us_per_step == pytest.approx(20 * medians[0] * factor)
    assert v.excess_us_per_step == pytest.approx(20 * (means[3, 0] - medians[0] * factor))
    # z over the pooled spread of every op type × card relative excess, against z_N for N = 6 cards × 5 op types
    relative = means / medians / np.median(means / medians, axis=1, keepdims=True) - 1
    sigma = MAD_SCALE * np.median(np.abs(relative - np.median(relative)))
    own = MAD_SCALE * np.median(np.abs(relative[:, 0] - np.median(relative[:, 0])))
    assert v.z_required == pytest.approx(z_threshold(30))
    assert v.z == pytest.approx((relative[3, 0] - np.median(relative[:, 0])) / max(sigma, own))


def test_a_card_slow_all_over_names_no_op_type():
    assert slow_operators(cards(scale={2: 1.3}), STEP_US) == []


def test_an_op_type_slowed_on_a_slow_card_is_named_against_that_cards_pace():
    [v] = slow_operators(cards({(2, "Add"): 2.0}, {2: 1.3}), STEP_US)
    assert (v.key, v.card) == ("Add", "rank 2")
    assert v.card_factor == pytest.approx(1.3, rel=0.01)
    assert v.relative_excess == pytest.approx(1.0, rel=0.02)


def test_the_practical_floor_of_one_percent_of_the_step():
    # Cast holds 40 × 4 = 160 µs per step: 1.5× is +80 µs, below 1 % of a 10 ms step? no: 0.8 %
    assert slow_operators(cards({(1, "Cast"): 1.5}), STEP_US) == []
    # on a 5 ms step the same excess is 1.6 %: named
    [v] = slow_operators(cards({(1, "Cast"): 1.5}), 5_000.0)
    assert (v.key, v.card) == ("Cast", "rank 1")


def test_an_op_type_only_some_cards_run_is_judged_among_them_only():
    base = cards()
    extra = [CardOpTimes(c.card, c.steps, {**c.rows, "Embedding": (STEPS, STEPS * 900.0)}) if k == 0 else c
             for k, c in enumerate(base)]
    assert slow_operators(extra, STEP_US) == []  # one card's stage-only op type is not slow
    more = [CardOpTimes(c.card, c.steps, {**c.rows, "Embedding": (2 * STEPS, 2 * STEPS * 100.0)}) if k == 0 else c
            for k, c in enumerate(base)]
    assert slow_operators(more, STEP_US) == []  # run twice as often at the same pace: not slower


@pytest.fixture(scope="module")
def planted_session(tmp_path_factory) -> AnalysisSession:
    folder = tmp_path_factory.mktemp("slow_operator")
    specs = [s.with_(slow_op_types=("MatMulV2",), slow_op_factor=1.5) if s.rank == 4 else s
             for s in cluster_specs(8, seed=5, steps=4, tasks_per_step=200)]
    generate_cluster(folder, specs, "msprof")
    return AnalysisSession(load(folder, cache=False))


def test_a_generated_op_type_slowed_on_one_card_is_a_finding_with_its_tasks(planted_session):
    found = [f for f in planted_session.findings if f.rule == "slow_operator"]
    assert [(f.advice.split(" runs slower")[0], f.cards) for f in found] == [("MatMulV2", ["rank 4"])]
    [f] = found
    assert f.kind == "anomaly" and f.value > f.reference
    store = planted_session.stores[[s.card for s in planted_session.stores].index("rank 4")]
    # evidence instants: ns on the card's clock (metrics.md §5)
    assert f.evidence and all(e.card == "rank 4" and store.t_origin <= e.start_ns < e.end_ns <= store.t_end
                              for e in f.evidence)
    assert all("MatMulV2" in e.name for e in f.evidence)
    marked = [m for m in session_marks(planted_session) if m.surface == "findings.slow_operator"]
    assert [m.item for m in marked] == ["MatMulV2 on rank 4"]
