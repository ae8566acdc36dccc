"""The memory lanes of a card: one row per memory component (metrics.md §11), under its overview (no Qt).

Each row draws the component's allocated memory over time (its reserved memory when the records give
no allocated figure, as torch_npu's APP), from the card's memory analysis; a card without memory
records has none.
"""

from __future__ import annotations

import numpy as np

from timelineview.analysis.memory.card import CardMemory, ComponentCurve
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.model.memory.records import BYTES_PER_MB
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lane_layout import COUNTER_H, Row

MEMORY = "memory"  # the row kind
MEMORY_TIP = ("{component}: {figure} memory over time (MB){reserved}; its peak allocated is {peak}. The Memory "
              "tab lists the allocations alive at any instant.")


def card_memory(card: CardView) -> CardMemory | None:
    """The card's memory analysis, when the session computed one."""
    return card.analysis.memory if card.analysis is not None else None


def shown_values(curve: ComponentCurve) -> tuple[str, np.ndarray]:
    """What a memory row draws as its main line: allocated, or reserved when no record gives allocated."""
    if np.isfinite(curve.allocated_mb).any():
        return "allocated", curve.allocated_mb
    return "reserved", curve.reserved_mb


def memory_rows(card: CardView, process: int) -> list[Row]:
    """One row per memory component of the card."""
    memory = card_memory(card)
    if memory is None:
        return []
    rows = []
    for k, curve in enumerate(memory.curves):
        figure, _ = shown_values(curve)
        peak = memory.components[k].peak_allocated
        rows.append(Row(MEMORY, card.number, 0, COUNTER_H, 0, f"Memory {curve.name} {figure} (MB)",
                        (MEMORY, card.number, k), series=k,
                        tooltip=MEMORY_TIP.format(
                            component=curve.name, figure=figure,
                            reserved=", reserved as a line above" if figure == "allocated" else "",
                            peak="-" if peak is None else f"{format_number(peak / BYTES_PER_MB)} MB")))
    return rows
