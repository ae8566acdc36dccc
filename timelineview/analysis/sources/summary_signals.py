"""What the finding rules (metrics.md §8) read of a summarised card: the same rule checks as on a trace,
fed from what the summary kept.

The rules read a card's means over steps, its interval sets and operator tables (all in the summary)
and a few lookups over its slices (the longest slices of an operator, synchronisation calls, compute
tasks followed by gaps) and the longest spans of two interval sets, which the worker computed while it had
the store (``card_summary._signals``): the client reads kilobytes per card, never the interval sets.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.evaluate import Evidence
from timelineview.analysis.findings.signals import CardSignals, SyncCalls, TransferSignals, step_means
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.card_summary import SummaryCard

NS_PER_US = 1000.0


def _intervals(pairs: list[list[int]]) -> Intervals:
    a = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return Intervals(a[:, 0].copy(), a[:, 1].copy())


def _rule_sets(kept: dict) -> DerivedIntervals:
    """The interval sets as the rules read them: only the longest pure-communication spans (the rest is
    empty: no rule reads it from a summary)."""
    empty = Intervals.empty()
    return DerivedIntervals(compute=empty, communication=empty, overlapped=empty,
                            pure_communication=_intervals(kept["pure_communication_longest"]), free=empty,
                            idle_gaps=empty, idle_gap_communication=empty, idle_gap_free=empty, span=(0, 0))


class SummarySignals(CardSignals):
    """A card's signals without its store: slice lookups answered from the summary."""

    kept: dict
    t_origin: int
    rank: int | None

    def evidence(self, start_ns: int, end_ns: int, lane: str | None = None, name: str | None = None) -> Evidence:
        return Evidence(self.card, (int(start_ns) - self.t_origin) / NS_PER_US,
                        (int(end_ns) - self.t_origin) / NS_PER_US, lane, name)

    def top_operator_slices(self, n: int) -> list:
        return [Evidence(**e) for e in self.kept["top_operator_slices"][:n]]

    def operator_slices(self, name: str | None, n: int) -> list:
        aicpu = self.kept["aicpu"]
        if name is not None and name == aicpu["top"]:
            return [Evidence(**e) for e in aicpu["slices"][:n]]
        return []

    def aicpu_share(self) -> tuple[float, float, str | None]:
        a = self.kept["aicpu"]
        return a["share"], a["total_us"], a["top"]

    def sync_calls(self) -> SyncCalls:
        s = self.kept["sync_calls"]
        return SyncCalls(s["count"], s["total_us"], s["names"], [Evidence(**e) for e in s["evidence"]])

    def transfers(self) -> TransferSignals | None:
        kept = self.kept.get("transfers")
        return TransferSignals.from_document(kept) if kept else None

    def operators_followed_by_gaps(self, gap_over_duration: float) -> tuple[float, Intervals]:
        s = self.kept["small_operators"]
        if gap_over_duration != s["gap_over_duration"]:
            raise ValueError("the summary kept this for another gap threshold: summarise the cards again")
        return s["share"], _intervals(s["longest_gaps"])

    def free_gaps_in_fp_bp(self) -> Intervals:
        return _intervals(self.kept["free_gaps_in_fp_bp_longest"])


def summary_signals(card: SummaryCard, order: int) -> SummarySignals | None:
    """The signals of one summarised card (None when its analysis failed or it has no steps)."""
    m = card.manifest
    kept = card.details.get("signals")
    if kept is None or m.get("error") or "derived" not in m or not card.steps:
        return None
    sig = SummarySignals(card=card.card, order=order, store=None, derived=_rule_sets(kept), steps=list(card.steps),
                         operators=card.operators,
                         **step_means(card.document["steps"], m.get("comparison_steps") or []))
    sig.kept, sig.t_origin, sig.rank = kept, int(kept["t_origin"]), card.rank
    return sig
