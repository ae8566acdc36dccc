"""A planted slow card's excess is attributed to the op types the generator slowed."""

import pytest

from timelineview.analysis.kernels.slow_card_excess import op_type_excess
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

SLOW = 2
SLOWED = ("MatMulV2", "FlashAttentionScore")


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> AnalysisSession:
    folder = tmp_path_factory.mktemp("slow_ops")
    specs = [s.with_(slow_op_types=SLOWED, slow_op_factor=2.5) if s.rank == SLOW else s
             for s in cluster_specs(5, seed=21, steps=4, tasks_per_step=300)]
    generate_cluster(folder, specs, "msprof")
    return AnalysisSession(load(folder, cache=False))


def test_the_slowed_op_types_carry_the_slow_cards_excess(session):
    doc = session.stats_document()
    [slow] = [s for s in doc["slow_cards"] if s["card"] == f"rank {SLOW}"]
    rows = slow["by_op_type"]
    assert {r["op_type"] for r in rows[:2]} == set(SLOWED)
    assert sum(r["share_of_excess"] for r in rows[:2]) > 0.8
    for r in rows:
        assert r["excess_us_per_step"] == pytest.approx(r["us_per_step"] - r["median_us_per_step"])


def test_excess_against_a_hand_median():
    def card(name, totals, steps=2):
        return {"card": name, "steps": [{}] * steps,
                "kernels": {"by_op_type": [{"op_type": t, "total_us": v} for t, v in totals.items()]}}

    docs = [card("a", {"MatMul": 100.0, "Add": 10.0}), card("b", {"MatMul": 120.0, "Add": 12.0}),
            card("c", {"MatMul": 110.0}), card("slow", {"MatMul": 300.0, "Add": 11.0, "Cast": 4.0})]
    rows = op_type_excess(docs, "slow")
    # per step: MatMul 150 against median(50, 60, 55) = 55; Add 5.5 against median(5, 6, 0) = 5; Cast 2 against 0
    assert [(r["op_type"], r["excess_us_per_step"]) for r in rows] == [("MatMul", 95.0), ("Cast", 2.0),
                                                                        ("Add", 0.5)]
    assert sum(r["share_of_excess"] for r in rows) == pytest.approx(1.0)
    assert op_type_excess([card("x", {})], "x") is None


def test_the_readable_output_names_the_slowed_op_types(session):
    from timelineview.analysis.summary import format_text

    text = format_text(session.stats_document())
    section = text.split(f"What rank {SLOW} spends more on")[1]
    first_rows = "\n".join(section.splitlines()[3:5])
    assert all(op in first_rows for op in SLOWED)
    assert "Top op types of rank 0 (from name;" in text


def test_the_slow_cards_advice_names_the_slowed_op_types_first(session):
    """The finding a user reads says where to look: the op types with the largest excess, with their time
    per step against the other cards' median."""
    doc = session.stats_document()
    [finding] = [f for f in doc["findings"] if f["rule"] == "slow_compute"]
    [slow] = [s for s in doc["slow_cards"] if s["card"] == f"rank {SLOW}"]
    named = finding["advice"].split("Its excess per step is most in ")[1]
    op_types = [part.split(" (")[0] for part in named.split("), ")]
    assert op_types[:2] == [r["op_type"] for r in slow["by_op_type"][:2]] and set(op_types[:2]) == set(SLOWED)
