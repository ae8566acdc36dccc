"""Findings about links and collective sizes, from the session's communication analysis (§6).

``slow_link``: each slow link, judged against the median bandwidth of its transport, with the
link's longest transfers on the sending card as evidence. ``collective_size``: collectives whose
transfers move sizes that are not multiples of 512 bytes (the copy engines move 512-byte blocks,
so an odd size costs an extra partial block per transfer).
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.findings.evaluate import EVIDENCE_SPANS, Finding, fmt_us, make_finding
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.findings.signals import CardSignals

NS_PER_US = 1000.0


def _gbps(value: float) -> str:
    return f"{value:.3g} GB/s"


def slow_link_findings(session, signals: dict[str, CardSignals]) -> list[Finding]:
    """One finding per slow link, on the card that sends over it."""
    cluster = session.communication
    links = cluster.links
    if not len(links) or not cluster.slow.any():
        return []
    bw = links.bandwidth_gbps
    transports = np.array(links.transport, dtype=object)
    by_rank = {sig.store.rank: sig for sig in signals.values()}
    rule = RULE_BY_NAME["slow_link"]
    out = []
    for i in np.flatnonzero(cluster.slow).tolist():
        peers = np.flatnonzero((transports == links.transport[i]) & np.isfinite(bw))
        median = float(np.median(bw[peers]))
        sender = by_rank.get(int(links.src[i]))
        cards = [sender.card] if sender else [f"rank {int(links.src[i])}"]
        evidence = _transfers(session, sender, int(links.src[i]), int(links.dst[i])) if sender else []
        out.append(make_finding(rule, cards, "bandwidth_gbps", float(bw[i]), median, evidence,
                         link=links.key(i), transport=links.transport[i] or "?",
                         link_type=links.link_type[i] or "?", value=_gbps(float(bw[i])), reference=_gbps(median)))
    return out


def _transfers(session, sig: CardSignals, src: int, dst: int) -> list:
    """The sending card's longest transfers from ``src`` to ``dst``."""
    number = next(i for i in session.order if session.stores[i] is sig.store)
    cc = session.analyse(number, ("communication",)).communication
    if cc is None:
        return []
    t = cc.tasks
    rows = np.flatnonzero(t.transfer & (t.src == src) & (t.dst == dst))
    rows = rows[np.argsort(-(t.end[rows] - t.start[rows]), kind="stable")[:EVIDENCE_SPANS]]
    store = sig.store
    return [sig.evidence(t.start[r], t.end[r], sig.lane_title(int(t.lane[r])),
                         store.strings[store.slices.name[t.slice[r]]]) for r in rows.tolist()]


COLLECTIVE_BLOCK_BYTES = 512


def collective_size_findings(session, signals: dict[str, CardSignals]) -> list[Finding]:
    """Per card, the share of transfer tasks whose size is not a multiple of 512 bytes, when it passes
    the rule's threshold."""
    rule = RULE_BY_NAME["collective_size"]
    out = []
    for number in session.order:
        a = session.analyse(number, ("communication",))
        sig = signals.get(a.card)
        cc = a.communication
        if cc is None or sig is None:
            continue
        t = cc.tasks
        sizes = t.size[t.transfer]
        if not len(sizes):
            continue
        odd = sizes % COLLECTIVE_BLOCK_BYTES != 0
        share = float(odd.mean())
        if share < rule.thresholds["share_of_transfers"]:
            continue
        rows = np.flatnonzero(t.transfer)[odd]
        rows = rows[np.argsort(-(t.end[rows] - t.start[rows]), kind="stable")[:EVIDENCE_SPANS]]
        store = sig.store
        evidence = [sig.evidence(t.start[r], t.end[r], sig.lane_title(int(t.lane[r])),
                                 store.strings[store.slices.name[t.slice[r]]]) for r in rows.tolist()]
        odd_us = float((t.end - t.start)[np.flatnonzero(t.transfer)[odd]].sum()) / NS_PER_US
        threshold = rule.thresholds["share_of_transfers"]
        out.append(make_finding(rule, [a.card], "odd_size_share", share, threshold, evidence,
                                share=f"{100 * share:.0f} %", count=str(int(odd.sum())), value=fmt_us(odd_us),
                                reference=f"{100 * threshold:.0f} %"))
    return out
