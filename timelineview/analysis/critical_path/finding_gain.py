"""Findings priced by the critical path (metrics.md §12): each finding that a what-if answers carries the
step time that change would save, each finding naming a card or a link says in how many steps it is on the
critical path, and within each kind the findings come in the order of their gain."""

from __future__ import annotations

from dataclasses import replace

from timelineview.analysis.critical_path.document import CriticalPathResult
from timelineview.analysis.critical_path.path import DATA_WAIT
from timelineview.analysis.critical_path.what_if import LINK_AT_MEDIAN, WhatIf
from timelineview.analysis.findings.records import Finding, FindingCost
from timelineview.analysis.findings.rules import KIND_ORDER

DATA_RULES = ("slow_data", "data_bound")  # on the path when a data wait of theirs is


def link_sender(link: str) -> int | None:
    """The sending rank of a link "src-dst"."""
    src = link.partition("-")[0]
    return int(src) if src.isdigit() else None


def answering_what_if(finding: Finding, what_ifs: list[WhatIf], rank_of: dict[str, int | None],
                      taken: set[int]) -> int | None:
    """The what-if (its index) that answers ``finding``: of its rule, on its card (a link: sent by its card,
    the first not ``taken`` by an earlier finding of the same card); the largest gain when several do."""
    fits = []
    for n, w in enumerate(what_ifs):
        c = w.change
        if c.finding != finding.rule or n in taken:
            continue
        if c.kind == LINK_AT_MEDIAN:
            sender = link_sender(c.target)
            if sender is not None and any(rank_of.get(card) == sender for card in finding.cards):
                return n  # a card's slow links are found, and priced, in the same order
        elif not c.target or c.target in finding.cards:
            fits.append(n)
    return max(fits, key=lambda n: what_ifs[n].gain_us) if fits else None


def steps_on_path(finding: Finding, link: str | None, steps: list[dict]) -> int | None:
    """In how many steps the finding's link, data wait or card is on the critical path (None: it names none)."""
    if link is not None:
        return sum(link in s.get("links", ()) for s in steps)
    if finding.rule in DATA_RULES:
        cards = set(finding.cards)
        return sum(any(seg["kind"] == DATA_WAIT and (not cards or seg["card"] in cards) for seg in s["segments"])
                   for s in steps)
    if not finding.cards:
        return None
    return sum(any(card in s["cards"] for card in finding.cards) for s in steps)


def priced_findings(findings: list[Finding], result: CriticalPathResult,
                    rank_of: dict[str, int | None]) -> list[Finding]:
    """``findings`` with their cost, ordered: by kind (anomalies first), then those a what-if says would save
    step time by that gain (largest first), then the others in their order. Unchanged without a path."""
    if not result.steps:
        return list(findings)
    taken: set[int] = set()
    priced = []
    for f in findings:
        n = answering_what_if(f, result.what_if, rank_of, taken)
        w = result.what_if[n] if n is not None else None
        if n is not None:
            taken.add(n)
        link = w.change.target if w is not None and w.change.kind == LINK_AT_MEDIAN else None
        cost = FindingCost(w.gain_us if w is not None else None, w.change.label if w is not None else "",
                           steps_on_path(f, link, result.steps), len(result.steps))
        priced.append(replace(f, cost=cost))

    def order(k: int) -> tuple:
        f = priced[k]
        gain = f.cost.gain_us if f.cost is not None and f.cost.gain_us is not None else 0.0
        return (KIND_ORDER[f.kind], 0, -gain, k) if gain > 0 else (KIND_ORDER[f.kind], 1, 0.0, k)

    return [priced[k] for k in sorted(range(len(priced)), key=order)]
