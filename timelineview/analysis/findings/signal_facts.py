"""What the finding rules read of a card's slices, computed once while its store is at hand.

The rules read a card's means over steps, interval sets and operator tables (fields of its analysis) and a
few lookups over its slices: the longest slices of an operator, synchronisation calls, AI CPU share,
transfers, compute tasks followed by gaps, the longest free gaps in forward/backward. Those lookups are
passes over the whole card, so they are computed here once per card (:func:`signal_facts`), kept with the
card's other results (a field of its analysis, read back on a re-open) and answered from there by
:class:`FactSignals`. A summary keeps the same facts (``card_summary``). Evidence is at most
``EVIDENCE_SPANS`` spans of each kind, the most the rules show (so the interval sets these methods give
are their longest spans only); anything else asked of a card with its store
(another operator's slices, another gap threshold) is computed from the store as before.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.facts import advisor_facts
from timelineview.analysis.findings.records import Evidence
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.findings.signals import EVIDENCE_SPANS, CardSignals, SyncCalls, TransferSignals
from timelineview.analysis.intervals import Intervals
from timelineview.model.store.trace_store import TraceStore

NS_PER_US = 1000.0


def longest(iv: Intervals, n: int = EVIDENCE_SPANS) -> list[list[int]]:
    """The ``n`` longest intervals of a set, in the set's order: all the evidence rules take of it
    (``longest_spans`` orders them by length, ties by position, as it would in the whole set)."""
    keep = np.sort(np.argsort(-(iv.ends - iv.starts), kind="stable")[:n])
    return [[int(iv.starts[k]), int(iv.ends[k])] for k in keep]


def intervals(pairs: list[list[int]]) -> Intervals:
    """``longest``'s pairs back as an interval set."""
    a = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return Intervals(a[:, 0].copy(), a[:, 1].copy())


def signal_facts(store: TraceStore, a) -> dict | None:
    """What the findings read of the slices and interval sets of a card with analysis ``a`` (a
    ``CardAnalysis`` with derived, steps, operators, communication and kernels computed); None when there is
    none."""
    if a.error or a.derived is None or not a.steps or a.operators is None:
        return None
    sig = CardSignals(card=a.card, order=0, store=store, derived=a.derived, steps=list(a.steps),
                      operators=a.operators, step_time_us=0.0, step_interval_us=0.0, fp_bp_us=0.0, tail_us=0.0,
                      compute_us=0.0, pure_communication_us=0.0, idle_gap_free_us=0.0, total_step_time_us=0.0,
                      stage_us=None, communication=a.communication, rank=a.rank)
    share, total_us, top = sig.aicpu_share()
    sync = sig.sync_calls()
    gap_rule = RULE_BY_NAME["small_operators"].thresholds["gap_over_duration"]
    followed, gaps = sig.operators_followed_by_gaps(gap_rule)
    return {
        "t_origin": store.t_origin,
        "transfers": transfers.document() if (transfers := sig.transfers()) is not None else None,
        "top_operator_slices": [e.document() for e in sig.top_operator_slices(EVIDENCE_SPANS)],
        "aicpu": {"share": share, "total_us": total_us, "top": top,
                  "slices": [e.document() for e in sig.operator_slices(top, EVIDENCE_SPANS)]},
        "sync_calls": {"count": sync.count, "total_us": sync.total_us, "names": sync.names,
                       "evidence": [e.document() for e in sync.evidence]},
        "small_operators": {"gap_over_duration": gap_rule, "share": followed, "longest_gaps": longest(gaps)},
        "pure_communication_longest": longest(a.derived.pure_communication),
        "free_gaps_in_fp_bp_longest": longest(sig.free_gaps_in_fp_bp()),
        "advisor": advisor_facts(store, a, EVIDENCE_SPANS),
    }


class FactSignals(CardSignals):
    """A card's signals with its slice lookups answered from its ``facts`` (:func:`signal_facts`). What the
    facts do not hold is computed from the store; a summarised card has none (``store`` None): it answers
    with what its facts hold."""

    facts: dict

    def evidence(self, start_ns: int, end_ns: int, lane: str | None = None, name: str | None = None) -> Evidence:
        return Evidence(self.card, int(start_ns), int(end_ns), lane, name)

    def top_operator_slices(self, n: int) -> list:
        if n > EVIDENCE_SPANS and self.store is not None:
            return super().top_operator_slices(n)
        return [Evidence.from_document(e, self.facts["t_origin"]) for e in self.facts["top_operator_slices"][:n]]

    def operator_slices(self, name: str | None, n: int) -> list:
        aicpu = self.facts["aicpu"]
        if name is not None and name == aicpu["top"] and (n <= EVIDENCE_SPANS or self.store is None):
            return [Evidence.from_document(e, self.facts["t_origin"]) for e in aicpu["slices"][:n]]
        return super().operator_slices(name, n) if self.store is not None else []

    def aicpu_share(self) -> tuple[float, float, str | None]:
        a = self.facts["aicpu"]
        return a["share"], a["total_us"], a["top"]

    def sync_calls(self) -> SyncCalls:
        s = self.facts["sync_calls"]
        return SyncCalls(s["count"], s["total_us"], list(s["names"]),
                         [Evidence.from_document(e, self.facts["t_origin"]) for e in s["evidence"]])

    def transfers(self) -> TransferSignals | None:
        kept = self.facts.get("transfers")
        return TransferSignals.from_document(kept, self.facts["t_origin"]) if kept else None

    def operators_followed_by_gaps(self, gap_over_duration: float) -> tuple[float, Intervals]:
        s = self.facts["small_operators"]
        if gap_over_duration == s["gap_over_duration"]:
            return s["share"], intervals(s["longest_gaps"])
        if self.store is None:
            raise ValueError("the summary kept this for another gap threshold: summarise the cards again")
        return super().operators_followed_by_gaps(gap_over_duration)

    def pure_communication_spans(self) -> Intervals:
        """The longest ``EVIDENCE_SPANS`` of it: all the rules take."""
        return intervals(self.facts["pure_communication_longest"])

    def free_gaps_in_fp_bp(self) -> Intervals:
        """The longest ``EVIDENCE_SPANS`` of it: all the rules take."""
        return intervals(self.facts["free_gaps_in_fp_bp_longest"])

    def advisor(self) -> dict | None:
        return self.facts.get("advisor")  # absent from facts kept before the advisor's checks


def fact_signals(sig: CardSignals | None, facts: dict | None) -> CardSignals | None:
    """``sig`` answering its slice lookups from ``facts`` (``sig`` itself without facts)."""
    if sig is None or facts is None:
        return sig
    out = FactSignals(**{name: getattr(sig, name) for name in CardSignals.__dataclass_fields__})
    out.facts = facts
    return out
