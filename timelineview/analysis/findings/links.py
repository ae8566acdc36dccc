"""Findings about links and collective sizes (metrics.md §6), from the cards' transfer signals.

``slow_link``: each slow link of the session's communication analysis, judged against the median
bandwidth of its transport, with the link's longest transfers on the sending card as evidence.
``collective_size``: cards whose transfers move sizes that are not multiples of 512 bytes (the copy
engines move 512-byte blocks, so an odd size costs an extra partial block per transfer).
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.findings.records import Finding, fmt_gbps, fmt_us, make_finding
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.findings.signals import EVIDENCE_SPANS, CardSignals


def slow_link_findings(session, signals: dict[str, CardSignals]) -> list[Finding]:
    """One finding per slow link, on the card that sends over it."""
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
        transfers = sender.transfers() if sender else None
        evidence = transfers.by_link.get(links.key(i), [])[:EVIDENCE_SPANS] if transfers else []
        out.append(make_finding(rule, cards, "bandwidth_gbps", float(bw[i]), median, evidence,
                                link=links.key(i), transport=links.transport[i] or "?",
                                link_type=links.link_type[i] or "?", value=fmt_gbps(float(bw[i])),
                                reference=fmt_gbps(median)))
    return out


def collective_size_findings(signals: dict[str, CardSignals]) -> list[Finding]:
    """Per card, when the share of transfer tasks whose size is not a multiple of 512 bytes passes the
    rule's threshold."""
    rule = RULE_BY_NAME["collective_size"]
    threshold = rule.thresholds["share_of_transfers"]
    out = []
    for sig in sorted(signals.values(), key=lambda s: s.order):
        t = sig.transfers()
        if t is None or not t.count or t.odd_share < threshold:
            continue
        out.append(make_finding(rule, [sig.card], "odd_size_share", t.odd_share, threshold, t.odd_longest,
                                share=f"{100 * t.odd_share:.0f} %", count=str(t.odd_count), value=fmt_us(t.odd_us),
                                reference=f"{100 * threshold:.0f} %"))
    return out
