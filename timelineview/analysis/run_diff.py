"""Comparing two runs (metrics.md §9): what changed between a baseline and a new profile.

Cards are matched by rank (else by position). Per matched card the whole-card metrics and the step
phases (mean over steps) of both runs and their difference; per operator name and per
communication operator (the collective without its call numbers) the totals over the matched
cards, ordered by the size of the change. Differences in shape (a card or an operator in one run
only, other step counts, a card that could not be analysed) are reported, never raised. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.communication.names import operator_kind
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.window import METRIC_KEYS

NS_PER_US = 1000.0
PHASE_KEYS = ("step_time_us", "step_interval_us", "fp_bp_us", "tail_us")
CARD_KEYS = (*PHASE_KEYS, *(k for k in METRIC_KEYS if k.endswith("_us")))
ADDED, REMOVED, CHANGED = "added", "removed", "changed"


@dataclass(frozen=True)
class NameDelta:
    """One operator (or collective) name: its totals in both runs over the matched cards."""

    name: str
    base_total_us: float
    new_total_us: float
    base_count: int
    new_count: int

    @property
    def delta_us(self) -> float:
        return self.new_total_us - self.base_total_us

    @property
    def status(self) -> str:
        return ADDED if not self.base_count else REMOVED if not self.new_count else CHANGED

    def document(self) -> dict:
        return {"name": self.name, "base_total_us": self.base_total_us, "new_total_us": self.new_total_us,
                "delta_us": self.delta_us, "base_count": self.base_count, "new_count": self.new_count,
                "status": self.status}


@dataclass
class CardDelta:
    """One matched card: its metrics in both runs and new − base."""

    card: str
    base_number: int
    new_number: int
    base: dict
    new: dict

    @property
    def delta(self) -> dict:
        return {k: (self.new[k] - self.base[k]) if self.new.get(k) is not None and self.base.get(k) is not None
                else None for k in CARD_KEYS}

    def document(self) -> dict:
        return {"card": self.card, "base": self.base, "new": self.new, "delta": self.delta}


@dataclass
class RunDiff:
    """Everything that changed between two runs."""

    cards: list[CardDelta]
    operators: list[NameDelta]
    communication: list[NameDelta]
    notes: list[str] = field(default_factory=list)  # differences in shape, in words

    def document(self) -> dict:
        return {"cards": [c.document() for c in self.cards], "operators": [o.document() for o in self.operators],
                "communication": [c.document() for c in self.communication], "notes": list(self.notes)}


def _card_metrics(doc: dict) -> dict:
    """The whole-card metrics and the mean step phases of a §5 card object (µs)."""
    steps = doc.get("steps") or []

    def mean(key: str) -> float | None:
        values = [s[key] for s in steps if s.get(key) is not None]
        return float(np.mean(values)) if values else None

    out = {"step_time_us": mean("span_us"), "step_interval_us": mean("step_interval_us"),
           "fp_bp_us": mean("fp_bp_us"), "tail_us": mean("tail_us"), "steps": len(steps)}
    out.update({k: doc.get(k) for k in CARD_KEYS if k not in PHASE_KEYS})
    return out


def match_cards(base: AnalysisSession, new: AnalysisSession) -> tuple[list[tuple[int, int]], list[str]]:
    """Pairs (base number, new number) by rank, else by rank order; notes on cards left unmatched."""
    notes = []
    base_ranks = {base.stores[i].rank: i for i in base.order if base.stores[i].rank is not None}
    new_ranks = {new.stores[i].rank: i for i in new.order if new.stores[i].rank is not None}
    if len(base_ranks) == len(base.stores) and len(new_ranks) == len(new.stores):
        pairs = [(base_ranks[r], new_ranks[r]) for r in sorted(base_ranks.keys() & new_ranks.keys())]
        only_base, only_new = base_ranks.keys() - new_ranks.keys(), new_ranks.keys() - base_ranks.keys()
        for label, only in (("base", only_base), ("new", only_new)):
            if only:
                notes.append(f"only in the {label} run: " + ", ".join(f"rank {r}" for r in sorted(only)))
    else:
        n = min(len(base.order), len(new.order))
        pairs = list(zip(base.order[:n], new.order[:n]))
        notes.append("cards matched by order (some have no rank)")
        if len(base.order) != len(new.order):
            notes.append(f"the base run has {len(base.order)} card(s), the new run {len(new.order)}")
    return pairs, notes


def _name_totals(session: AnalysisSession, numbers: list[int], communication: bool) -> dict[str, list[int]]:
    """{name: [total ns, count]} over the cards ``numbers``: compute operators (§7) or, with
    ``communication``, communication operators grouped by the collective they call."""
    out: dict[str, list[int]] = {}
    for i in numbers:
        a = session.analyse(i, ("classification",) if communication else ("operators",))
        if a.error:
            continue
        if not communication:
            table = a.operators.by_name
            for label, total, count in zip(table.labels, table.total_ns.tolist(), table.count.tolist(), strict=True):
                acc = out.setdefault(label, [0, 0])
                acc[0] += total
                acc[1] += count
            continue
        store = session.stores[i]
        mask = a.classification.communication
        names, durations = store.slices.name[mask], store.slices.dur[mask]
        if not len(names):
            continue
        totals = np.bincount(names + 1, weights=durations)
        counts = np.bincount(names + 1)
        for slot in np.flatnonzero(counts):
            label = operator_kind(store.strings[slot - 1]) if slot else "(unnamed)"
            acc = out.setdefault(label, [0, 0])
            acc[0] += int(totals[slot])
            acc[1] += int(counts[slot])
    return out


def _name_deltas(base: dict[str, list[int]], new: dict[str, list[int]]) -> list[NameDelta]:
    rows = []
    for name in base.keys() | new.keys():
        b, n = base.get(name, [0, 0]), new.get(name, [0, 0])
        rows.append(NameDelta(name, b[0] / NS_PER_US, n[0] / NS_PER_US, b[1], n[1]))
    rows.sort(key=lambda r: (-abs(r.delta_us), r.name))
    return rows


def diff_runs(base: AnalysisSession, new: AnalysisSession) -> RunDiff:
    """What changed from ``base`` to ``new`` (metrics.md §9)."""
    pairs, notes = match_cards(base, new)
    base_docs = {i: d for i, d in zip(base.order, base.card_documents, strict=True)}
    new_docs = {i: d for i, d in zip(new.order, new.card_documents, strict=True)}
    cards = []
    for b, n in pairs:
        bm, nm = _card_metrics(base_docs[b]), _card_metrics(new_docs[n])
        if bm["steps"] != nm["steps"]:
            notes.append(f"{base_docs[b]['card']}: {bm['steps']} step(s) in the base run, {nm['steps']} in the new")
        cards.append(CardDelta(base_docs[b]["card"], b, n, bm, nm))
    matched_base, matched_new = [b for b, _ in pairs], [n for _, n in pairs]
    operators = _name_deltas(_name_totals(base, matched_base, False), _name_totals(new, matched_new, False))
    communication = _name_deltas(_name_totals(base, matched_base, True), _name_totals(new, matched_new, True))
    return RunDiff(cards, operators, communication, notes)
