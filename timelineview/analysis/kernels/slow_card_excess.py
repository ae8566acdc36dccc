"""Which op types carry a slow card's excess (metrics.md §7.1): µs per step against the other cards' median.

Read off the card documents (each card's ``kernels.by_op_type`` and its steps), so a session over traces
and one over summaries that keep the tables give the same rows. An op type's time per step on a card is its
total over the card's compute tasks divided by the card's steps; its excess is that minus the median of the
other cards' (0 where a card never runs it).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

TOP_CONTRIBUTORS = 10  # op types listed per slow card


def _per_step(card: dict) -> dict[str, float] | None:
    kernels = card.get("kernels")
    if not kernels:
        return None
    steps = max(len(card.get("steps") or []), 1)
    totals: dict[str, list[float]] = defaultdict(list)
    for row in kernels.get("by_op_type") or []:  # an op type on several core types: one sum, whatever their order
        totals[row["op_type"]].append(row["total_us"])
    return {op_type: math.fsum(v) / steps for op_type, v in totals.items()}


def op_type_excess(card_docs: list[dict], card: str, top: int = TOP_CONTRIBUTORS) -> list[dict] | None:
    """The op types with the largest excess of ``card`` (positive ones, largest first): ``op_type``,
    ``us_per_step``, ``median_us_per_step`` (the other cards'), ``excess_us_per_step`` and
    ``share_of_excess`` (of the card's total positive excess). None when the cards hold no op types."""
    mine = next((_per_step(c) for c in card_docs if c.get("card") == card), None)
    others = [p for c in card_docs if c.get("card") != card and (p := _per_step(c)) is not None]
    if mine is None or not others:
        return None
    rows = []
    for op_type in sorted(set(mine).union(*others)):  # one order: the sums below are the same every run
        median = float(np.median([o.get(op_type, 0.0) for o in others]))
        value = mine.get(op_type, 0.0)
        if value > median:
            rows.append({"op_type": op_type, "us_per_step": value, "median_us_per_step": median,
                         "excess_us_per_step": value - median})
    total = math.fsum(r["excess_us_per_step"] for r in rows)
    rows.sort(key=lambda r: (-r["excess_us_per_step"], r["op_type"]))
    for r in rows:
        r["share_of_excess"] = r["excess_us_per_step"] / total if total else 0.0
    return rows[:top]


def with_op_type_excess(slow_cards: list[dict], card_docs: list[dict]) -> list[dict]:
    """Each slow card's document with ``by_op_type`` (its op types' excess), when the cards hold op types."""
    return [dict(s, by_op_type=op_type_excess(card_docs, s["card"])) for s in slow_cards]
