"""What the finding rules (metrics.md §8) read of a summarised card: the same rule checks as on a trace,
fed from what the summary kept.

The rules read a card's means over steps, its interval sets and operator tables (all in the summary)
and a few lookups over its slices (the longest slices of an operator, synchronisation calls, compute
tasks followed by gaps) and the longest spans of two interval sets, which the worker computed while it had
the store (``signal_facts``, as a trace's kept results hold them): the client reads kilobytes per card, never
the interval sets, and answers through the same :class:`FactSignals`.
"""

from __future__ import annotations

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.signal_facts import FactSignals, intervals
from timelineview.analysis.findings.signals import step_means
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.card_summary import SummaryCard


def _rule_sets(kept: dict, producer: str) -> DerivedIntervals:
    """The interval sets as the rules read them: only the longest pure-communication spans (the rest is
    empty: no rule reads it from a summary), and the card's producer (the findings' words)."""
    empty = Intervals.empty()
    return DerivedIntervals(compute=empty, communication=empty, overlapped=empty,
                            pure_communication=intervals(kept["pure_communication_longest"]), free=empty,
                            idle_gaps=empty, idle_gap_communication=empty, idle_gap_free=empty, span=(0, 0),
                            producer=producer)


def summary_signals(card: SummaryCard, order: int) -> FactSignals | None:
    """The signals of one summarised card (None when its analysis failed or it has no steps): the facts the
    worker kept, with no store."""
    m = card.manifest
    kept = card.details.get("signals")
    if kept is None or m.get("error") or "derived" not in m or not card.steps:
        return None
    sig = FactSignals(card=card.card, order=order, store=None, derived=_rule_sets(kept, card.producer),
                      steps=list(card.steps), operators=card.operators, rank=card.rank,
                      **step_means(card.document["steps"], m.get("comparison_steps") or []))
    sig.facts = kept
    return sig
