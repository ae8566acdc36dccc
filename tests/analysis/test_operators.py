"""Operator tables (metrics.md §7) against a plain Python count over the same slices."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from timelineview.analysis.classify import classify
from timelineview.analysis.operators import UNTYPED, card_operators, operators_across_cards

from .factory import COMM, HW, HW2, Sl, build_store

NAMES = ["MatMul", "Add", "Conv2D", "GetNext", "Softmax"]
TYPES = ["AI_CORE", "AI_VECTOR_CORE", "AI_CPU", "MIX_AIC"]


def _random_card(seed: int, card: str = "rank 0") -> tuple[list[Sl], object]:
    rng = random.Random(seed)
    slices = []
    t = 0
    for _ in range(400):
        lane = rng.choice([HW, HW2])
        kind = rng.random()
        dur = rng.randint(1, 5000)
        if kind < 0.75:
            slices.append(Sl(lane, rng.choice(NAMES), t, dur, rng.choice(TYPES)))
        elif kind < 0.85:
            slices.append(Sl(lane, "Notify_Wait", t, dur, "NOTIFY_WAIT"))  # not compute
        elif kind < 0.92:
            slices.append(Sl(lane, rng.choice(NAMES), t, dur, "Other"))  # older CANN: compute
        else:
            slices.append(Sl(COMM, "hcom_allReduce__1", t, dur))  # communication, not compute
        t += rng.randint(0, 3000)
    return slices, build_store(slices, card=card)


def _reference(slices: list[Sl], key) -> dict:
    groups = defaultdict(list)
    for s in slices:
        if s.lane in (HW, HW2) and s.task_type != "NOTIFY_WAIT":
            groups[key(s)].append(s.dur)
    total_all = sum(sum(v) for v in groups.values())
    return {k: (len(v), sum(v), min(v), max(v), sum(v) / total_all) for k, v in groups.items()}


@pytest.mark.parametrize("seed", range(5))
def test_by_name_and_by_type_match_a_plain_count(seed):
    slices, store = _random_card(seed)
    ops = card_operators(store, classify(store))
    for table, key, field in ((ops.by_name, lambda s: s.name, "name"),
                              (ops.by_type, lambda s: UNTYPED if s.task_type == "Other" else s.task_type,
                               "task_type")):
        ref = _reference(slices, key)
        rows = table.rows(field, limit=None)
        assert {r[field] for r in rows} == set(ref)
        for r in rows:
            count, total, low, high, share = ref[r[field]]
            assert (r["count"], r["total_us"], r["min_us"], r["max_us"]) == (count, total / 1000, low / 1000,
                                                                             high / 1000)
            assert r["mean_us"] == pytest.approx(total / count / 1000)
            assert r["share"] == pytest.approx(share)
        totals = [r["total_us"] for r in rows]
        assert totals == sorted(totals, reverse=True)


def test_ids_select_the_rows_slices():
    slices, store = _random_card(7)
    cls = classify(store)
    table = card_operators(store, cls).by_name
    for k, label in enumerate(table.labels):
        picked = (store.slices.name == table.ids[k]) & cls.compute
        assert int(picked.sum()) == int(table.count[k])
        assert {store.strings[i] for i in store.slices.name[picked]} == {label}


def test_top_rows_are_limited():
    slices = [Sl(HW, f"op{i}", i * 10, 1 + i, "AI_CORE") for i in range(80)]
    store = build_store(slices)
    doc = card_operators(store, classify(store)).document()
    assert len(doc["by_name"]) == 50
    assert doc["by_name"][0]["name"] == "op79" and doc["by_name"][-1]["name"] == "op30"


def test_across_cards_names_the_card_where_an_operator_is_slow():
    def card(matmul_us: int, extra: bool, label: str):
        sl = [Sl(HW, "MatMul", 0, matmul_us * 1000, "AI_CORE"), Sl(HW, "Add", 10**7, 500_000, "AI_VECTOR_CORE")]
        if extra:
            sl.append(Sl(HW, "Cast", 2 * 10**7, 500_000, "AI_CORE"))
        store = build_store(sl, card=label)
        return label, card_operators(store, classify(store))

    cards = [card(1000, False, "rank 0"), card(1010, False, "rank 1"), card(3000, True, "rank 2")]
    rows = {o.name: o for o in operators_across_cards(cards)}
    mm = rows["MatMul"]
    assert (mm.max_card, mm.max_total_ns, mm.min_total_ns, mm.cards) == ("rank 2", 3_000_000, 1_000_000, 3)
    assert mm.mean_total_ns == pytest.approx((1000 + 1010 + 3000) / 3 * 1e3)
    cast = rows["Cast"]
    assert (cast.cards, cast.min_total_ns, cast.max_card) == (1, 0, "rank 2")
    assert [o.name for o in operators_across_cards(cards)] == ["MatMul", "Add", "Cast"]
    assert operators_across_cards(cards)[0].document()["max_total_us"] == 3000.0
