"""Op types and shapes compared across the cards (metrics.md §7.1): the session's tables against totals computed
by hand and by a plain loop over the slices, and their marks against the slow_operator rule: a planted slow op
type is marked on its card, a healthy run marks nothing."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from timelineview.analysis.cluster.op_types_across import op_types_across_cards, slow_operator_reason
from timelineview.analysis.findings.slow_operators import OperatorVerdict
from timelineview.analysis.kernels.document import TOP_SHAPES
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.names import POOL

from .factory import HW, HW2, Sl, build_store

SLOW, SLOWED = 1, "MatMulV2"

# three hand-built cards; MatMulV2 under three node names, TransData under two
HAND = {
    "rank 0": [("aclnnMm_MatMulCommon_MatMulV2", 10_000), ("aclnnMm_MatMulCommon_MatMulV2", 20_000),
               ("MatMulV21", 30_000), ("trans_TransData_3", 5_000), ("trans_TransData_7", 6_000)],
    "rank 1": [("aclnnAddmm_MatMulCommon_MatMulV2", 40_000), ("MatMulV23", 50_000), ("trans_TransData_3", 4_000)],
    "rank 2": [("aclnnMm_MatMulCommon_MatMulV2", 25_000), ("aclnnAdd_AddAiCore_Add", 2_000)],
}
# per card, summed by hand (µs): MatMulV2 60 / 90 / 25, TransData 11 / 4 / 0, Add 0 / 0 / 2
HAND_TOTALS_US = {"MatMulV2": [60.0, 90.0, 25.0], "TransData": [11.0, 4.0, 0.0], "Add": [0.0, 0.0, 2.0]}


def _hand_session() -> AnalysisSession:
    stores = []
    for rank, (card, tasks) in enumerate(HAND.items()):
        t, slices = 0, []
        for k, (name, dur) in enumerate(tasks):
            slices.append(Sl(HW if k % 2 else HW2, name, t, dur, "AI_CORE"))
            t += dur + 1_000
        stores.append(build_store(slices, card=card, rank=rank))
    return AnalysisSession(stores)


def test_op_types_sum_every_node_name_per_card_and_compare_the_cards():
    rows = {o.op_type: o for o in _hand_session().op_types_across_cards}
    assert set(rows) == set(HAND_TOTALS_US)
    for op_type, totals in HAND_TOTALS_US.items():
        o = rows[op_type]
        assert o.per_card_us.tolist() == pytest.approx(totals)
        assert o.mean_total_us == pytest.approx(sum(totals) / 3)
        assert (o.min_total_us, o.max_total_us) == pytest.approx((min(totals), max(totals)))
        assert o.max_card == f"rank {totals.index(max(totals))}"
        assert o.cards == sum(t > 0 for t in totals) and o.known == 3
        assert o.core_type == "AI_CORE" and o.verdicts == ()  # three cards: too few tasks for a verdict here
    assert [o.op_type for o in _hand_session().op_types_across_cards] == ["MatMulV2", "TransData", "Add"]  # by mean
    assert rows["MatMulV2"].spread == pytest.approx(90.0 / (175.0 / 3))


def _row(op_type: str, core: str, total_us: float, shapes: str | None = None) -> dict:
    row = {"op_type": op_type, "core_type": core, "total_us": total_us}
    return row if shapes is None else {**row, "input_shapes": shapes}


def test_core_types_of_an_op_type_are_summed_and_named():
    cards = [("a", [_row("Cast", "AI_CORE", 3.0), _row("Cast", "AI_VECTOR_CORE", 4.0)]),
             ("b", [_row("Cast", "AI_VECTOR_CORE", 5.0)])]
    (cast,) = op_types_across_cards(cards, by_shape=False)
    assert cast.per_card_us.tolist() == [7.0, 5.0] and cast.core_type == "AI_CORE/AI_VECTOR_CORE"
    assert (cast.mean_total_us, cast.max_card, cast.cards) == (6.0, "a", 2)


def test_a_shape_beyond_a_cut_table_is_not_known_there():
    """A card's by-shape table holds its top rows only: a shape it does not list is 0 on a card whose table is
    whole, and not known (left out of the mean and min) on one whose table was cut."""
    filler = [_row("Add", "AI_CORE", 100.0 + k, f"[{k}]") for k in range(TOP_SHAPES - 1)]
    cut = ("cut", [*filler, _row("MatMulV2", "AI_CORE", 50.0, "[8,8;8,8]")])  # TOP_SHAPES rows: cut
    whole = ("whole", [_row("MatMulV2", "AI_CORE", 10.0, "[8,8;8,8]")])
    rare = ("rare", [_row("MatMulV2", "AI_CORE", 30.0, "[8,8;8,8]"), _row("Mul", "AI_CORE", 6.0, "[2]")])
    rows = {o.key: o for o in op_types_across_cards([cut, whole, rare], by_shape=True)}
    mul = rows[("Mul", "[2]")]
    assert np.isnan(mul.per_card_us[0]) and mul.per_card_us[1:].tolist() == [0.0, 6.0]
    assert (mul.mean_total_us, mul.min_total_us, mul.max_total_us, mul.known, mul.cards) == (3.0, 0.0, 6.0, 2, 1)
    mm = rows[("MatMulV2", "[8,8;8,8]")]
    assert (mm.mean_total_us, mm.max_card, mm.known, mm.cards) == (30.0, "cut", 3, 3)


def test_verdicts_are_attached_to_their_key_only():
    verdict = OperatorVerdict(("MatMulV2", "[8,8]"), "b", 20.0, 10.0, 2.0, 1.0, 1.0, 1.0, 9.0, 3.5, 4)
    cards = [("a", [_row("MatMulV2", "AI_CORE", 10.0, "[8,8]"), _row("MatMulV2", "AI_CORE", 9.0, "[4,4]")]),
             ("b", [_row("MatMulV2", "AI_CORE", 20.0, "[8,8]"), _row("MatMulV2", "AI_CORE", 9.0, "[4,4]")])]
    rows = {o.key: o for o in op_types_across_cards(cards, by_shape=True, verdicts=[verdict])}
    assert rows[("MatMulV2", "[8,8]")].verdicts == (verdict,) and rows[("MatMulV2", "[4,4]")].verdicts == ()
    assert slow_operator_reason(verdict) == ("slow on b: 2.000 µs per task against 1.000 µs at the other cards' "
                                             "pace, z 9.0 (needs 3.5)")


def _cluster(root: Path, slowed: bool) -> AnalysisSession:
    specs = [s.with_(slow_op_types=(SLOWED,), slow_op_factor=2.0) if slowed and s.rank == SLOW else s
             for s in cluster_specs(4, seed=8, steps=3, tasks_per_step=200)]
    generate_cluster(root, specs)
    return AnalysisSession(load(root, cache=False))


@pytest.fixture(scope="module")
def slowed(tmp_path_factory) -> AnalysisSession:
    return _cluster(tmp_path_factory.mktemp("across_slow") / "ranks", slowed=True)


def _base_op(name: str) -> str:
    """The generator's base op a task name renders: the longest base its last word starts with (a count glued
    on, ``MatMulV21``, or apart, ``trans_TransData_3``)."""
    last = [w for w in name.split("_") if not w.isdigit()][-1]
    return max((b for b in set(POOL.base) if last.startswith(b)), key=len)


def _plain_totals(session: AnalysisSession) -> dict[str, list[float]]:
    """{op type: [its total µs on each card by rank]} by a plain loop over each card's compute slices."""
    out: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(session.stores))
    names: dict[str, set[str]] = defaultdict(set)
    for k, number in enumerate(session.order):
        store = session.stores[number]
        compute = session.analyse(number, ("classification",)).classification.compute
        for i in np.flatnonzero(compute).tolist():
            name = store.strings[store.slices.name[i]]
            out[_base_op(name)][k] += int(store.slices.dur[i]) / 1000.0
            names[_base_op(name)].add(name)
    assert len(names[SLOWED]) >= 3  # the check is worth something: one op type under several node names
    return dict(out)


def test_a_generated_clusters_op_types_match_a_plain_loop(slowed):
    expected = _plain_totals(slowed)
    rows = {o.op_type: o for o in slowed.op_types_across_cards}
    assert set(rows) == set(expected)
    for op_type, totals in expected.items():
        o = rows[op_type]
        assert o.per_card_us.tolist() == pytest.approx(totals, abs=1e-6)
        assert o.mean_total_us == pytest.approx(np.mean(totals))
        assert o.max_card == slowed.card_documents[int(np.argmax(totals))]["card"]
    assert rows[SLOWED].max_card == f"rank {SLOW}"


def test_a_planted_slow_op_type_is_marked_on_its_card_and_only_there(slowed):
    marked = {(o.op_type, v.card) for o in slowed.op_types_across_cards for v in o.verdicts}
    assert marked == {(SLOWED, f"rank {SLOW}")}
    # the marks are the rule's verdicts, no more and no fewer
    assert {(v.key, v.card) for v in slowed.slow_operator_verdicts[0]} == marked
    assert {(o.key, v.card) for o in slowed.shapes_across_cards for v in o.verdicts} == \
        {(v.key, v.card) for v in slowed.slow_operator_verdicts[1]}


def test_a_healthy_run_marks_nothing(tmp_path):
    healthy = _cluster(tmp_path / "ranks", slowed=False)
    assert healthy.op_types_across_cards and healthy.shapes_across_cards
    assert [o for o in (*healthy.op_types_across_cards, *healthy.shapes_across_cards) if o.verdicts] == []
