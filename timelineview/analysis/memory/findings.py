"""The memory findings (metrics.md §11): ``memory_imbalance``, ``large_allocation``, ``fragmentation``.

Each finding's evidence is a span of the card's own clock (µs from its trace start, inside its trace)
that the viewer can go to: the allocation's life for a large block, the step holding the peak (or, in
a trace without steps, the time until the component's next record) for the others.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from timelineview.analysis.findings.records import Evidence, Finding, fmt_mb, make_finding
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.memory.card import CardMemory, ComponentPeaks, mb
from timelineview.analysis.memory.imbalance import memory_imbalance
from timelineview.model.memory.records import GE, NEVER, PTA

ALLOCATOR_COMPONENTS = (PTA, GE)  # the allocators whose blocks and pools the rules judge (PTA+GE is their sum)
EVIDENCE_PER_FINDING = 8
NS_PER_US = 1000.0


@dataclass(frozen=True)
class MemoryCard:
    """What the memory rules read of one card: its memory analysis, trace span and step windows (ns)."""

    card: str
    memory: CardMemory | None
    t_origin_ns: int
    t_end_ns: int
    steps: tuple[tuple[int, int], ...] = ()

    def evidence(self, start_ns: int, end_ns: int, name: str | None = None) -> Evidence:
        """A span clipped to the card's trace (ns on its clock)."""
        lo = min(max(start_ns, self.t_origin_ns), self.t_end_ns)
        hi = min(max(end_ns, lo), self.t_end_ns)
        return Evidence(self.card, int(lo), int(hi), None, name)

    def around(self, t_ns: int, until_ns: int | None) -> Evidence:
        """The step holding instant ``t_ns``, else [t, the next record)."""
        for start, end in self.steps:
            if start <= t_ns < end:
                return self.evidence(start, end)
        return self.evidence(t_ns, until_ns if until_ns is not None else t_ns)


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def cards_imbalance(cards: list[MemoryCard]) -> list[dict]:
    """``memory_imbalance`` over the cards that have a peak reserved (each card's, metrics.md §11)."""
    have = [c for c in cards if c.memory is not None and c.memory.card_reserved is not None]
    return memory_imbalance([c.card for c in have],
                            np.array([mb(c.memory.card_reserved.peak_reserved) for c in have]))


def _imbalance(cards: list[MemoryCard], flags: list[dict]) -> list[Finding]:
    rule = RULE_BY_NAME["memory_imbalance"]
    by_card = {c.card: c for c in cards}
    out = []
    for flag in flags:
        c = by_card[flag["card"]]
        if c.memory is None:  # its peaks without its records (a summary): when the peak was is not known
            continue
        peak = c.memory.card_reserved
        z = "∞ (the other cards agree exactly)" if flag["z"] is None else f"{flag['z']:.1f}"
        out.append(make_finding(rule, [c.card], "peak_reserved_mb", flag["value"], flag["median"],
                                [c.around(peak.peak_reserved_ns, None)], value=fmt_mb(flag["value"]),
                                reference=fmt_mb(flag["median"]), z=z))
    return out


def _large_allocations(c: MemoryCard) -> list[Finding]:
    rule = RULE_BY_NAME["large_allocation"]
    share = rule.thresholds["share_of_peak"]
    m = c.memory
    a = m.records.allocations
    out = []
    for name in ALLOCATOR_COMPONENTS:
        peaks = m.component(name)
        cid = m.records.names.find(name)
        if peaks is None or peaks.peak_allocated is None or not peaks.peak_allocated or cid < 0:
            continue
        rows = np.flatnonzero(a.component == cid)
        if not len(rows):
            continue
        k = int(m.by_size(rows)[0])
        size = int(a.size[k])
        if size < share * peaks.peak_allocated:
            continue
        released = int(a.released_ns[k])
        end = c.t_end_ns if released == NEVER else released
        op = m.records.name(int(a.name[k]))
        out.append(make_finding(rule, [c.card], "allocation_mb", mb(size), share * mb(peaks.peak_allocated),
                                [c.evidence(int(a.allocated_ns[k]), end, op)], name=op, size=fmt_mb(mb(size)),
                                value=_pct(size / peaks.peak_allocated), component=name,
                                peak=fmt_mb(mb(peaks.peak_allocated)), reference=_pct(share)))
    return out


def _fragmentation(c: MemoryCard) -> list[Finding]:
    rule = RULE_BY_NAME["fragmentation"]
    share = rule.thresholds["share_of_reserved"]
    out = []
    for name in ALLOCATOR_COMPONENTS:
        p: ComponentPeaks | None = c.memory.component(name)
        if p is None or p.unallocated_at_peak is None or not p.reserved_at_peak:
            continue
        if p.unallocated_at_peak < share * p.reserved_at_peak:
            continue
        out.append(make_finding(rule, [c.card], "unallocated_at_peak_mb", mb(p.unallocated_at_peak),
                                share * mb(p.reserved_at_peak), [c.around(p.peak_allocated_ns, p.next_record_ns)],
                                component=name, unallocated=fmt_mb(mb(p.unallocated_at_peak)),
                                value=_pct(p.unallocated_at_peak / p.reserved_at_peak),
                                reserved=fmt_mb(mb(p.reserved_at_peak)), reference=_pct(share)))
    return out


def _grouped(found: list[Finding], order: dict[str, int]) -> list[Finding]:
    """One finding per rule: the cards that meet it (by rank), the worst one's figures and advice, and
    the evidence of each (worst first, at most ``EVIDENCE_PER_FINDING``)."""
    by_rule: dict[str, list[Finding]] = {}
    for f in found:
        by_rule.setdefault(f.rule, []).append(f)
    out = []
    for same in by_rule.values():
        same.sort(key=lambda f: -f.excess)
        cards = sorted({x for f in same for x in f.cards}, key=lambda x: order[x])
        evidence = [e for f in same for e in f.evidence][:EVIDENCE_PER_FINDING]
        out.append(replace(same[0], cards=cards, evidence=evidence))
    return out


def memory_findings(cards: list[MemoryCard], imbalance: list[dict] | None = None) -> list[Finding]:
    """The memory findings of the cards (given by rank), unordered; ``imbalance``: the cards'
    ``cards_imbalance`` when computed already."""
    order = {c.card: i for i, c in enumerate(cards)}
    with_memory = [c for c in cards if c.memory is not None]
    per_card = [f for c in with_memory for f in _large_allocations(c) + _fragmentation(c)]
    flags = cards_imbalance(cards) if imbalance is None else imbalance
    return _imbalance(cards, flags) + _grouped(per_card, order)
