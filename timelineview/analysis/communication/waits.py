"""The wait-based view of slow cards: per collective across cards, each card's wait (§6).

A collective ends at the same instant on every member, so the member that arrives last waits
least, and the others wait for it: a card whose compute is slow shows little wait while every
other card waits. Collectives are matched across cards by name and occurrence (the k-th call of
a name), like the clock offsets of ``analysis.cluster``; point-to-point operators (send /
receive) are not collectives and are left out. A collective present on fewer than two cards is
left out too.

Who the others wait for is a verdict (metrics.md §4), decided with every other mark in
``findings.marks``: each card's lateness per step (the cards' median wait minus its own, summed over the
step's collectives) is judged like a slow card, and a collective credits the flagged card that waited
least, never a tie.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.cluster.slow_cards import SlowCard
from timelineview.analysis.communication.names import POINT_TO_POINT
from timelineview.analysis.communication.operators import CommOps
from timelineview.analysis.findings.marks import MIN_WAIT_SPREAD_NS, wait_verdict

NOBODY = -1
__all__ = ["MIN_WAIT_SPREAD_NS", "NOBODY", "CollectiveWaits", "collective_waits"]


@dataclass
class CollectiveWaits:
    """Rows: collectives (in the first reporting card's order); columns: cards."""

    cards: list[str]
    name: list[str]
    occurrence: np.ndarray  # int64: the k-th call of that name on each card (0-based)
    wait: np.ndarray  # float64 ns, (collectives, cards); NaN where a card lacks the collective
    waited_for: np.ndarray  # int64 per collective: the card the others waited for (NOBODY: no verdict)
    step: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per collective (-1: no steps)
    flags: list[SlowCard] = field(default_factory=list)  # the cards the others wait for (verdicts)

    def __len__(self) -> int:
        return len(self.name)

    def least_wait_counts(self) -> np.ndarray:
        """Per card: in how many collectives the others waited for it (credited: a verdict)."""
        valid = self.waited_for[self.waited_for >= 0]
        return np.bincount(valid, minlength=len(self.cards)).astype(np.int64)

    def mean_wait(self) -> np.ndarray:
        """Per card: its mean wait over the collectives it took part in (ns, NaN for none)."""
        present = np.isfinite(self.wait)
        counts = present.sum(axis=0)
        sums = np.where(present, self.wait, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def collective_waits(cards: list[str], ops: list[CommOps], median_step_us: float = 0.0) -> CollectiveWaits:
    """Each card's ``wait`` per collective matched by (name, occurrence), its step (the first reporting
    card's) and who the others waited for, judged with ``median_step_us`` (the cluster's median step time,
    for the practical floor; 0: unknown)."""
    keyed: list[dict[tuple[str, int], int]] = []
    step_of: dict[tuple[str, int], int] = {}
    order: list[tuple[str, int]] = []
    seen_keys: set[tuple[str, int]] = set()
    for card_ops in ops:
        count: dict[str, int] = defaultdict(int)
        rows: dict[tuple[str, int], int] = {}
        for i, name in enumerate(card_ops.name):
            if POINT_TO_POINT.search(name):
                continue
            key = (name, count[name])
            count[name] += 1
            rows[key] = i
            if key not in seen_keys:
                seen_keys.add(key)
                order.append(key)
                step_of[key] = int(card_ops.step[i]) if card_ops.step is not None else -1
        keyed.append(rows)
    wait = np.full((len(order), len(cards)), np.nan)
    for c, (rows, card_ops) in enumerate(zip(keyed, ops, strict=True)):
        for r, key in enumerate(order):
            i = rows.get(key)
            if i is not None:
                wait[r, c] = float(card_ops.wait[i])
    shared = np.isfinite(wait).sum(axis=1) >= 2
    wait = wait[shared]
    keys = [k for k, s in zip(order, shared.tolist(), strict=True) if s]
    step = np.array([step_of[k] for k in keys], dtype=np.int64)
    verdict = wait_verdict(list(cards), wait, step, median_step_us)
    return CollectiveWaits(cards=list(cards), name=[k[0] for k in keys],
                           occurrence=np.array([k[1] for k in keys], dtype=np.int64), wait=wait,
                           waited_for=verdict.waited_for, step=step, flags=verdict.flags)
