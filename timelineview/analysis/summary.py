"""The ``stats`` documents of metrics.md §5 and their readable text form."""

from __future__ import annotations

import os

import numpy as np

from timelineview.analysis.cluster import clock_offsets, slow_cards
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS, DerivedIntervals, derive
from timelineview.analysis.file_overlap import file_overlap
from timelineview.analysis.steps import find_steps, step_metrics
from timelineview.analysis.text_table import format_table
from timelineview.analysis.window import METRIC_KEYS, card_metrics
from timelineview.model.store.trace_store import TraceStore


def _card_path(store: TraceStore) -> str:
    """The card's file, or the folder holding all of its files (per-iteration exports)."""
    paths = [str(p) for p in store.paths]
    if not paths:
        return ""
    if len(paths) == 1:
        return paths[0]
    return os.path.commonpath([os.path.dirname(p) for p in paths])


def card_document(store: TraceStore, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                  derived: DerivedIntervals | None = None) -> dict:
    """The card object of metrics.md §5 (``clock_offset_us`` is 0 until a cluster sets it)."""
    if derived is None:
        derived = derive(store, min_gap_ns)
    sl = store.slices
    lanes_used = int(np.count_nonzero(np.bincount(sl.lane, minlength=len(store.lanes)))) if len(sl) else 0
    doc = {"card": store.card, "rank": store.rank, "path": _card_path(store),
           "events": len(sl), "lanes": lanes_used}
    doc.update(card_metrics(derived, min_gap_ns))
    doc["clock_offset_us"] = 0.0
    doc["steps"] = [step_metrics(store, derived, s) for s in find_steps(store, derived)]
    doc["file_overlap"] = file_overlap(store, derived.classification)
    doc["load"] = store.report.to_json()
    return doc


def _rank_order(stores: list[TraceStore]) -> list[TraceStore]:
    """By rank; cards without a rank after the others, by name."""
    return sorted(stores, key=lambda s: (s.rank is None, s.rank if s.rank is not None else 0, s.card))


def stats_document(stores: list[TraceStore], min_gap_ns: int = DEFAULT_MIN_GAP_NS) -> dict:
    """{"cards": [card objects by rank], "slow_cards": [...]} with clock offsets filled in."""
    ordered = _rank_order(stores)
    derived = [derive(s, min_gap_ns) for s in ordered]
    cards = [card_document(s, min_gap_ns, d) for s, d in zip(ordered, derived, strict=True)]
    offsets = clock_offsets(ordered, [d.classification for d in derived])
    for card, off in zip(cards, offsets, strict=True):
        card["clock_offset_us"] = float(off) / 1000.0
    return {"cards": cards, "slow_cards": slow_cards(cards)}


_CARD_ROWS = (*METRIC_KEYS, "clock_offset_us")
_STEP_COLUMNS = (
    ("step", "step"), ("dur_us", "dur µs"), ("compute_us", "compute"), ("communication_us", "comm"),
    ("overlapped_us", "overlap"), ("pure_communication_us", "pure comm"), ("free_us", "free"),
    ("idle_gap_count", "gaps"), ("idle_gap_total_us", "gap µs"), ("step_interval_us", "interval"),
    ("fp_bp_us", "fp-bp"), ("tail_us", "tail"),
)


def format_text(doc: dict) -> str:
    """Readable tables: per card (metrics as rows), per step of each card, then slow cards."""
    cards = doc.get("cards", [])
    parts = []
    if cards:
        header = ["metric", *(c["card"] for c in cards)]
        rows = [["events", *(c["events"] for c in cards)], ["lanes", *(c["lanes"] for c in cards)]]
        rows += [[key, *(c.get(key) for c in cards)] for key in _CARD_ROWS]
        if any(c.get("file_overlap") for c in cards):
            for key in ("compute_us", "communication_us", "pure_communication_us", "free_us"):
                rows.append([f"file: {key}", *((c.get("file_overlap") or {}).get(key) for c in cards)])
        parts.append("Cards\n" + format_table(header, rows))
        lines = ["Files"]
        for c in cards:
            lines.append(f"  {c['card']}: {c['path']}")
            load = c.get("load") or {}
            if load.get("dropped_events"):
                lines.append(f"    {load['dropped_events']} event(s) dropped")
            lines.extend(f"    warning: {w}" for w in load.get("warnings", []))
        parts.append("\n".join(lines))
    for c in cards:
        steps = c.get("steps") or []
        rows = [[s.get(key) for key, _ in _STEP_COLUMNS] for s in steps]
        parts.append(f"Steps of {c['card']} (µs)\n" + format_table([t for _, t in _STEP_COLUMNS], rows))
    slow = doc.get("slow_cards", [])
    if len(cards) < 3:
        parts.append("Slow cards: needs at least 3 cards.")
    elif not slow:
        parts.append("Slow cards: none.")
    else:
        rows = [[f["card"], f["metric"], f["value"], f["median"]] for f in slow]
        parts.append("Slow cards\n" + format_table(["card", "metric", "value µs", "median µs"], rows))
    return "\n\n".join(parts) + "\n"
