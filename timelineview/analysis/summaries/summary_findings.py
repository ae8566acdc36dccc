"""Findings (metrics.md §8) over card summaries: the same rule checks, fed from what each summary kept.

The rules read a card's means over steps, its interval sets and operator tables (all in the summary)
and a few lookups over its slices (the longest slices of an operator, synchronisation calls, compute
tasks followed by gaps) and the longest spans of two interval sets, which the worker computed while it had
the store (``card_summary._signals``): the client reads kilobytes per card, never the interval sets.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.evaluate import (
    GROUPED_CHECKS,
    PER_CARD_CHECKS,
    Evidence,
    Finding,
    fmt_us,
    grouped,
    make_finding,
    order_findings,
)
from timelineview.analysis.findings.links import _gbps
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.findings.signals import CardSignals, SyncCalls
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.card_summary import SummaryCard

NS_PER_US = 1000.0


def _mean(rows: list[dict], key: str) -> float:
    values = [r[key] for r in rows if r.get(key) is not None]
    return float(np.mean(values)) if values else 0.0


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
    steps_doc = card.document["steps"]
    rows = m.get("comparison_steps") or []
    pipeline = any(r.get("pipeline") for r in rows)
    sig = SummarySignals(
        card=card.card, order=order, store=None, derived=_rule_sets(kept), steps=list(card.steps),
        operators=card.operators, step_time_us=_mean(steps_doc, "span_us"),
        step_interval_us=_mean(steps_doc, "step_interval_us"), fp_bp_us=_mean(steps_doc, "fp_bp_us"),
        tail_us=_mean(steps_doc, "tail_us"), compute_us=_mean(steps_doc, "compute_us"),
        pure_communication_us=_mean(steps_doc, "pure_communication_us"),
        idle_gap_free_us=_mean(steps_doc, "idle_gap_free_us"),
        total_step_time_us=float(sum(s["span_us"] for s in steps_doc)),
        stage_us=_mean(rows, "stage_us") if pipeline else None)
    sig.kept, sig.t_origin, sig.rank = kept, int(kept["t_origin"]), card.rank
    return sig


def slow_link_findings(session, signals: dict[str, SummarySignals]) -> list[Finding]:
    """``findings.links.slow_link_findings`` over summaries: the evidence is what the sender kept."""
    cluster = session.communication
    links = cluster.links
    if not len(links) or not cluster.slow.any():
        return []
    bw = links.bandwidth_gbps
    transports = np.array(links.transport, dtype=object)
    by_rank = {sig.rank: sig for sig in signals.values()}
    rule = RULE_BY_NAME["slow_link"]
    out = []
    for i in np.flatnonzero(cluster.slow).tolist():
        peers = np.flatnonzero((transports == links.transport[i]) & np.isfinite(bw))
        median = float(np.median(bw[peers]))
        sender = by_rank.get(int(links.src[i]))
        cards = [sender.card] if sender else [f"rank {int(links.src[i])}"]
        kept = (sender.kept.get("transfers") or {}).get("by_link", {}) if sender else {}
        evidence = [Evidence(**e) for e in kept.get(links.key(i), [])]
        out.append(make_finding(rule, cards, "bandwidth_gbps", float(bw[i]), median, evidence,
                                link=links.key(i), transport=links.transport[i] or "?",
                                link_type=links.link_type[i] or "?", value=_gbps(float(bw[i])),
                                reference=_gbps(median)))
    return out


def collective_size_findings(session, signals: dict[str, SummarySignals]) -> list[Finding]:
    """``findings.links.collective_size_findings`` over summaries."""
    rule = RULE_BY_NAME["collective_size"]
    threshold = rule.thresholds["share_of_transfers"]
    out = []
    for i in session.order:
        sig = signals.get(session.cards[i].card)
        kept = sig.kept.get("transfers") if sig is not None else None
        if not kept or not kept["count"] or kept["odd_share"] < threshold:
            continue
        share = kept["odd_share"]
        out.append(make_finding(rule, [sig.card], "odd_size_share", share, threshold,
                                [Evidence(**e) for e in kept["odd_longest"]], share=f"{100 * share:.0f} %",
                                count=str(kept["odd_count"]), value=fmt_us(kept["odd_us"]),
                                reference=f"{100 * threshold:.0f} %"))
    return out


def evaluate_summary_findings(session) -> list[Finding]:
    """Every finding over a :class:`~timelineview.analysis.summaries.summary_session.SummarySession`, ordered as
    ``evaluate_findings`` orders them."""
    signals = {}
    for k, i in enumerate(session.order):
        sig = summary_signals(session.cards[i], k)
        if sig is not None:
            signals[sig.card] = sig
    slow = list(session.slow_cards)
    found = [f for check in PER_CARD_CHECKS for f in check(signals, slow)]
    found += slow_link_findings(session, signals)
    grouped_found = [f for check in GROUPED_CHECKS for f in check(signals, slow)]
    grouped_found += collective_size_findings(session, signals)
    found += grouped(grouped_found, signals)
    return order_findings(found)
