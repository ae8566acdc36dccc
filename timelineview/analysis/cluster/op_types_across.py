"""Op types, and (op type, input shapes), compared across the cards (metrics.md §7.1): per key its total on each
card, their mean, min and max, the card with the max, and the ``slow_operator`` verdicts on it.

Node names change between graph builds and split one op type over many names, so a comparison by name cannot
say that a card runs *an op type* slower. The totals are read off each card's declared results
``kernels_by_op_type`` and ``kernels_by_shape`` (``analysis/kernels/declared_results``), so a session over traces
and one over summaries compare the same figures. Which key is slow on a card is the ``slow_operator`` rule's
decision alone (mean task time against the other cards', a card's common factor divided out, §4's machinery):
this table only shows it. No Qt.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.findings.slow_operators import OperatorVerdict
from timelineview.analysis.kernels.document import TOP_SHAPES

OP_TYPE_RESULT = "kernels_by_op_type"  # the declared per-card results compared
SHAPE_RESULT = "kernels_by_shape"
CORE_JOIN = "/"  # the core types of a key, as the by-shape table joins them


@dataclass(frozen=True)
class OpTypeAcrossCards:
    """One op type (``input_shapes`` None) or one (op type, input shapes) over the cards compared.

    A card that lists every key it runs and not this one counts 0 (it never runs it); a card whose by-shape
    table is cut at its top rows and does not list the shape is not known, and is left out of the mean and min.
    """

    op_type: str
    input_shapes: str | None
    core_type: str  # the units its tasks run on over the cards, joined by "/"
    mean_total_us: float  # over the cards where its total is known
    min_total_us: float
    max_total_us: float
    max_card: str
    cards: int  # how many cards run it
    known: int  # on how many cards its total is known (0 counted where absent from a complete table)
    per_card_us: np.ndarray = field(compare=False, repr=False)  # its total on each card compared, NaN: not known
    verdicts: tuple[OperatorVerdict, ...] = ()  # the slow_operator verdicts on this key, largest excess first

    @property
    def key(self) -> Hashable:
        """The key the ``slow_operator`` rule judges: the op type, or (op type, input shapes)."""
        return self.op_type if self.input_shapes is None else (self.op_type, self.input_shapes)

    @property
    def spread(self) -> float | None:
        """Max / mean: how far the card with the max is from the mean (None for a mean of 0)."""
        return self.max_total_us / self.mean_total_us if self.mean_total_us else None

    @property
    def tied(self) -> int:
        """How many cards share the max total."""
        return int(np.count_nonzero(self.per_card_us == self.max_total_us))

    def document(self) -> dict:
        shapes = {} if self.input_shapes is None else {"input_shapes": self.input_shapes}
        return {"op_type": self.op_type, **shapes, "core_type": self.core_type,
                "mean_total_us": self.mean_total_us, "min_total_us": self.min_total_us,
                "max_total_us": self.max_total_us, "max_card": self.max_card, "cards": self.cards,
                "slow_on": [v.card for v in self.verdicts]}


def _key(row: dict, by_shape: bool) -> Hashable:
    return (row["op_type"], row["input_shapes"]) if by_shape else row["op_type"]


def op_types_across_cards(cards: Sequence[tuple[str, list[dict]]], by_shape: bool,
                          verdicts: Sequence[OperatorVerdict] = ()) -> list[OpTypeAcrossCards]:
    """Per op type (or per (op type, input shapes) when ``by_shape``) over ``(card label, its result rows)``: the
    totals of each card summed per key (the by-op-type rows are per (op type, core type)), ordered by mean total,
    descending. ``verdicts``: the ``slow_operator`` verdicts of the same kind, attached to their key's row."""
    totals: dict[Hashable, np.ndarray] = {}
    cores: dict[Hashable, set[str]] = {}
    complete = np.array([not by_shape or len(rows) < TOP_SHAPES for _, rows in cards], dtype=bool)
    for c, (_, rows) in enumerate(cards):
        for row in rows:
            key = _key(row, by_shape)
            per_card = totals.setdefault(key, np.where(complete, 0.0, np.nan))
            per_card[c] = (0.0 if np.isnan(per_card[c]) else per_card[c]) + float(row["total_us"])
            cores.setdefault(key, set()).update(x for x in row["core_type"].split(CORE_JOIN) if x)
    judged: dict[Hashable, list[OperatorVerdict]] = {}
    for v in verdicts:
        judged.setdefault(v.key, []).append(v)
    out = []
    for key, per_card in totals.items():
        known = np.isfinite(per_card)
        top = int(np.nanargmax(per_card))
        op_type, shapes = key if by_shape else (key, None)
        out.append(OpTypeAcrossCards(
            op_type=op_type, input_shapes=shapes, core_type=CORE_JOIN.join(sorted(cores[key])),
            mean_total_us=float(per_card[known].mean()), min_total_us=float(per_card[known].min()),
            max_total_us=float(per_card[top]), max_card=cards[top][0], cards=int(np.count_nonzero(per_card[known])),
            known=int(known.sum()), per_card_us=per_card,
            verdicts=tuple(sorted(judged.get(key, ()), key=lambda v: -v.excess_us_per_step))))
    out.sort(key=lambda o: (-o.mean_total_us, o.op_type, o.input_shapes or ""))
    return out


def slow_operator_reason(v: OperatorVerdict) -> str:
    """'slow on rank 1: 24.000 µs per task against 12.000 µs at the other cards' pace, z 9.1 (needs 3.5)': the
    ``slow_operator`` verdict in words."""
    how = f"z {v.z:.1f} (needs {v.z_required:.1f})" if v.z is not None else "the other cards all equal"
    return (f"slow on {v.card}: {v.mean_us:.3f} µs per task against {v.median_mean_us * v.card_factor:.3f} µs at "
            f"the other cards' pace, {how}")
