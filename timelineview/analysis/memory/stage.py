"""The memory stage of a card's analysis: its records read beside its files, analysed over its steps."""

from __future__ import annotations

from timelineview.analysis.memory.card import CardMemory, analyse_memory
from timelineview.analysis.steps import StepWindow
from timelineview.model.memory import load_memory
from timelineview.model.store.trace_store import TraceStore


def card_memory(store: TraceStore, steps: list[StepWindow] | None) -> CardMemory | None:
    """The memory analysis of ``store``'s card (None when its capture has no memory records)."""
    records = load_memory(store.paths)
    windows = [(s.step, s.start, s.end) for s in steps or []]
    return analyse_memory(store.card, records, store.t_origin, windows)
