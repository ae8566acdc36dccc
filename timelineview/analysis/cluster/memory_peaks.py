"""Each card's memory peaks for the cluster comparison (metrics.md §11): the allocated peak of the
component ``live_at_peak`` is judged on and the card's peak reserved memory, whole run and per step.

Read from a card's memory analysis or from its ``stats --json`` ``"memory"`` object (a summary folder keeps
only that): both give the same numbers. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.memory.card import CardMemory, mb, opt_mb
from timelineview.analysis.memory.imbalance import memory_imbalance

PEAK_ALLOCATED = "peak_allocated_mb"
PEAK_RESERVED = "peak_reserved_mb"


@dataclass(frozen=True)
class MemoryPeaks:
    """One card's peaks in MB (None when its records never give the figure); ``per_step``: step → values."""

    peak_allocated_mb: float | None
    peak_reserved_mb: float | None
    per_step: dict[int, dict[str, float | None]] = field(default_factory=dict)

    def values(self) -> dict[str, float | None]:
        return {PEAK_ALLOCATED: self.peak_allocated_mb, PEAK_RESERVED: self.peak_reserved_mb}


def peaks_of_card(memory: CardMemory | None) -> MemoryPeaks | None:
    """The peaks of a card's memory analysis (None: the card has no memory records)."""
    if memory is None:
        return None
    peak, reserved = memory.peak_component, memory.card_reserved
    per_step = {s.step: {PEAK_ALLOCATED: None if peak is None else opt_mb(s.allocated.get(peak.name)),
                         PEAK_RESERVED: None if reserved is None else opt_mb(s.reserved.get(reserved.name))}
                for s in memory.per_step}
    return MemoryPeaks(None if peak is None else mb(peak.peak_allocated),
                       None if reserved is None else mb(reserved.peak_reserved), per_step)


def peaks_of_document(memory: dict | None) -> MemoryPeaks | None:
    """The same from a card's ``"memory"`` object of ``stats --json`` (None: no memory)."""
    if not memory:
        return None
    peak, reserved = memory.get("live_at_peak_component"), memory.get("peak_reserved_component")
    components = memory.get("components") or {}
    allocated = (components.get(peak) or {}).get(PEAK_ALLOCATED) if peak else None
    per_step = {}
    for s in memory.get("per_step") or []:
        comps = s.get("components") or {}
        per_step[int(s["step"])] = {PEAK_ALLOCATED: (comps.get(peak) or {}).get(PEAK_ALLOCATED) if peak else None,
                                    PEAK_RESERVED: (comps.get(reserved) or {}).get(PEAK_RESERVED) if reserved
                                    else None}
    return MemoryPeaks(allocated, memory.get(PEAK_RESERVED), per_step)


def peaks_imbalance(cards: list[str], peaks: list[MemoryPeaks | None]) -> list[dict]:
    """``memory_imbalance`` (metrics.md §11) over the cards whose peaks give a peak reserved, in the order
    given: the peaks of a card's memory analysis and of its ``stats`` object give the same flags."""
    have = [(c, p.peak_reserved_mb) for c, p in zip(cards, peaks, strict=True)
            if p is not None and p.peak_reserved_mb is not None]
    return memory_imbalance([c for c, _ in have], np.array([v for _, v in have]))
