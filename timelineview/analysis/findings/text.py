"""Findings in words, for the terminal: what ``timelineview stats`` prints first."""

from __future__ import annotations

import textwrap

from timelineview.analysis.findings.records import FindingCost, cards_words
from timelineview.analysis.findings.rules import ANOMALY, WHERE_TIME_GOES
from timelineview.analysis.vocabulary.number_text import format_number

WIDTH = 100
NS_PER_US = 1000.0
KIND_HEADINGS = {
    ANOMALY: "Anomalies: a card, a link or a step that stands out from its peers (about 1 % of healthy runs "
             "name one by chance)",
    WHERE_TIME_GOES: "Where the time goes: shares of the step worth a look (true of many healthy jobs)",
}


def _where(finding: dict) -> str:
    where = cards_words(finding["cards"], 6, " and {n} more")
    if finding.get("step") is not None:
        where += f", step {finding['step']}"
    return where


def _since_start(at_ns: int, card_start_ns: int | None) -> str:
    """An evidence instant (ns on the card's clock) as a reader finds it: µs after the card's start."""
    return format_number((at_ns - (card_start_ns or 0)) / NS_PER_US)


def findings_text(findings: list[dict], card_starts: dict[str, int] | None = None) -> str:
    """One paragraph per finding (severity, rule, where, advice, first evidence span, in µs after its card's
    start: ``card_starts``, each card's ``start_ns``; without it, the instants on the card's clock)."""
    if not findings:
        return "Findings: none — no rule of the tuning method fired."
    lines = [f"Findings ({len(findings)})"]
    kind = None
    for k, f in enumerate(findings, 1):
        if f.get("kind") != kind:  # the findings come anomalies first, then where the time goes
            kind = f.get("kind")
            lines.append(KIND_HEADINGS.get(kind, ""))
        lines.append(f"{k}. [{f['severity']}] {f['rule']} — {_where(f)}")
        lines.extend(textwrap.wrap(f["advice"], WIDTH, initial_indent="   ", subsequent_indent="   "))
        cost = FindingCost(f.get("gain_us"), f.get("what_if") or "", f.get("steps_on_critical_path"),
                           f.get("steps_priced") or 0).words()
        if cost:  # what the critical path says it costs (metrics.md §12)
            lines.extend(textwrap.wrap(cost, WIDTH, initial_indent="   cost: ", subsequent_indent="   "))
        if f["evidence"]:
            e = f["evidence"][0]
            what = e.get("name") or e.get("lane") or ""
            start = (card_starts or {}).get(e["card"])
            when = (f"{_since_start(e['start_ns'], start)}–{_since_start(e['end_ns'], start)} µs from its start"
                    if start is not None else f"{format_number(e['start_ns'])}–{format_number(e['end_ns'])} ns")
            lines.append(f"   evidence: {e['card']} {when}" + (f" ({what})" if what else ""))
    return "\n".join(lines)
