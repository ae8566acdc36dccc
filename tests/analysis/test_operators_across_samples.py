"""Op types across the two real torch_npu cards against the producer's own op_statistic.csv of each card (its
Total Time per OP Type, summed over core types): the answer key of metrics.md §7.1, within 0.5 %."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
NPU = SAMPLES / "torch_npu"
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not NPU.is_dir(), reason="../shared/samples is absent")]
TOLERANCE = 0.005


def _op_statistic(rank: int) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    with open(NPU / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "op_statistic.csv", newline="") as f:
        for row in csv.DictReader(f):
            out[row["OP Type"]] += float(row["Total Time(us)"])
    return dict(out)


def test_op_types_across_the_cards_equal_each_cards_op_statistic():
    session = AnalysisSession(load(NPU, cache=False))
    rows = {o.op_type: o for o in session.op_types_across_cards}
    cards = [d["card"] for d in session.card_documents]
    assert cards == ["rank 0", "rank 1"]
    for k in range(2):
        expected = _op_statistic(k)
        assert {t for t, o in rows.items() if o.per_card_us[k] > 0} == set(expected)
        for op_type, total in expected.items():
            assert rows[op_type].per_card_us[k] == pytest.approx(total, rel=TOLERANCE), op_type
    assert rows["TransData"].cards == 2 and rows["TransData"].verdicts == ()  # two cards: the rule judges none
