"""The Operators tab's rows across the cards by op type and by shape (metrics.md §7.1): the columns, and each
row from the session's ``OpTypeAcrossCards`` with the ``slow_operator`` verdicts marked."""

from __future__ import annotations

from timelineview.analysis.cluster.op_types_across import OpTypeAcrossCards, slow_operator_reason
from timelineview.analysis.vocabulary import quantity
from timelineview.views.analysis_tabs.record_table import COUNT, MARK_REASON, MARKED, RATIO, TEXT, TIME_US, RecordColumn

MAX_CELLS = frozenset({"max_total_us", "max_card", "spread"})  # the cells that mark the card with the max
VERDICT = "verdict"


def _quantity_column(key: str, kind: str) -> RecordColumn:
    q = quantity(key)
    return RecordColumn(key, q.label, kind, q.tooltip)


OP_TYPE_ACROSS_COLUMNS = (
    RecordColumn("op_type", "Op type", TEXT, "the producer's operator type, every node name of that type summed "
                 "on each card"),
    RecordColumn("core_type", "Core", TEXT, "the units its tasks run on, over the cards"),
    _quantity_column("mean_total_us", TIME_US),
    _quantity_column("min_total_us", TIME_US),
    _quantity_column("max_total_us", TIME_US),
    RecordColumn("max_card", "Max on", TEXT, "the card with the largest total"),
    RecordColumn("spread", "Max / mean", RATIO, "how far the card with the max is from the mean"),
    _quantity_column("cards", COUNT),
    RecordColumn(VERDICT, "Why marked", TEXT, "the slow_operator rule's verdict: its mean task time on that card "
                 "stands out from the other cards' (that card's common factor over all its op types divided out; "
                 "robust z corrected for op types × cards, at least 5 % and 1 % of the median step time per "
                 "step, in at least half of its steps)"),
)
SHAPE_ACROSS_COLUMNS = (
    OP_TYPE_ACROSS_COLUMNS[0],
    RecordColumn("input_shapes", "Input shapes", TEXT, "the shapes of its inputs, ';' between inputs (a shape "
                 "beyond a card's top rows is not known there: left out of its mean and min)"),
    *OP_TYPE_ACROSS_COLUMNS[1:],
)


def kind_row(o: OpTypeAcrossCards) -> dict:
    """An op type's (or shape's) row across the cards: its figures, max / mean, and its verdict marked — the
    "Why marked" cell always, the max cells too when the verdict's card is the one with the max."""
    reason = "; ".join(slow_operator_reason(v) for v in o.verdicts)
    marked = frozenset({VERDICT}) if o.verdicts else frozenset()
    if any(v.card == o.max_card for v in o.verdicts):
        marked |= MAX_CELLS
    row = {"op_type": o.op_type, "input_shapes": o.input_shapes, "core_type": o.core_type,
           "mean_total_us": o.mean_total_us, "min_total_us": o.min_total_us, "max_total_us": o.max_total_us,
           "max_card": o.max_card, "spread": o.spread, "cards": o.cards, VERDICT: reason,
           "max_card_name": o.max_card, MARKED: marked, MARK_REASON: reason}
    if o.tied > 1:  # the max is shared: the first card is where a double-click goes, not the one credited
        row["max_card"] = f"{o.max_card} (+{o.tied - 1} tied)"
    return row
