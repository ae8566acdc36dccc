"""The memory stage of a card's analysis: its records read beside its files, with the trace's own memory
counters for the components they lack, analysed over its steps."""

from __future__ import annotations

from timelineview.analysis.memory.card import CardMemory, analyse_memory
from timelineview.analysis.steps import StepWindow
from timelineview.model.memory import MemoryRecords, load_memory
from timelineview.model.memory.counters import add_counter_curves
from timelineview.model.store.trace_store import TraceStore


def card_memory(store: TraceStore, steps: list[StepWindow] | None) -> CardMemory | None:
    """The memory analysis of ``store``'s card (None when its capture has neither memory records nor memory
    counters). Memory records that cannot be analysed at all leave a warning in the card's memory report,
    never an error of the card: its timeline and every other figure do not depend on them."""
    windows = [(s.step, s.start, s.end) for s in steps or []]
    try:
        records = add_counter_curves(load_memory(store.paths), store.counters, store.processes)
        return analyse_memory(store.card, records, store.t_origin, windows)
    except Exception as exc:  # noqa: BLE001 (the card's other analyses go on; the reason is reported)
        records = MemoryRecords()
        records.report.warn(f"memory records not analysed: {type(exc).__name__}: {exc}")
        return analyse_memory(store.card, records, store.t_origin, [])
