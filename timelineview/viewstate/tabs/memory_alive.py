"""What the Memory tab says of the allocations alive at an instant, and of the memory they do not account
for (no Qt).

The allocation records list the blocks the allocators handed out while the capture ran; the components'
totals (``memory_record``) count every block held, also those allocated before the records begin
(weights, optimizer states, a cache warmed up earlier). At an instant the listed blocks are a part of
their components' allocated memory; the rest is said, so that 486.6 MB alive at a 1 188 MB peak reads
as the part it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.memory.card import CardMemory, mb
from timelineview.analysis.vocabulary.number_text import format_in_unit, format_number
from timelineview.analysis.vocabulary.quantity import MEGABYTES

NS_PER_MS = 1_000_000.0
UNRECORDED_WORDS = ("have no allocation record: blocks allocated before the records begin, such as weights "
                    "and optimizer states")
MIN_REST_MB = 0.0005  # a rest below what three decimals show is none


@dataclass(frozen=True)
class AliveAt:
    """The allocations alive at ``t_ns`` and their components' allocated memory then (MB)."""

    t_ns: int
    count: int
    listed_mb: float
    components: tuple[str, ...]  # the components whose blocks the records list
    allocated_mb: float | None  # those components' allocated memory at t_ns (None: a curve does not say)

    @property
    def unrecorded_mb(self) -> float | None:
        """The components' allocated memory the listed blocks do not account for."""
        return None if self.allocated_mb is None else self.allocated_mb - self.listed_mb


def allocated_at(memory: CardMemory, name: str, t_ns: int) -> float | None:
    """Component ``name``'s allocated MB at ``t_ns`` (its last record at or before it), None if unknown."""
    curve = next((c for c in memory.curves if c.name == name), None)
    if curve is None:
        return None
    k = int(np.searchsorted(curve.time_ns, t_ns, side="right")) - 1
    if k < 0 or not np.isfinite(curve.allocated_mb[k]):
        return None
    return float(curve.allocated_mb[k])


def alive_at(memory: CardMemory, t_ns: int, rows: np.ndarray) -> AliveAt:
    """``rows``: the allocations alive at ``t_ns`` (``memory.alive_at``)."""
    a = memory.records.allocations
    listed = mb(int(a.size[rows].sum())) if len(rows) else 0.0
    names = {memory.records.name(int(k)) for k in np.unique(a.component)} if len(a) else set()
    order = [c.name for c in memory.components]  # the analysis' order: PTA before GE
    components = tuple(sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n)))
    totals = [allocated_at(memory, name, t_ns) for name in components]
    allocated = None if not totals or any(v is None for v in totals) else float(sum(totals))
    return AliveAt(int(t_ns), len(rows), listed, components, allocated)


def _mb_text(v: float) -> str:
    return f"{format_in_unit(v, MEGABYTES)} MB"


def alive_text(alive: AliveAt, t_origin_ns: int, listed_note: str = "") -> str:
    """``41 allocations alive at 67.342 ms hold 486.600 MB of the 1 188.000 MB PTA had allocated then; the
    other 701.400 MB have no allocation record: ...`` (times in ms from the card's trace start; numbers through
    the window's one formatter)."""
    at_ms = (alive.t_ns - t_origin_ns) / NS_PER_MS
    text = (f"{format_number(alive.count)} allocations alive at {format_number(at_ms)} ms hold "
            f"{_mb_text(alive.listed_mb)}{listed_note}")
    rest = alive.unrecorded_mb
    if rest is None:
        return text
    whose = " and ".join(alive.components)
    text += f" of the {_mb_text(alive.allocated_mb)} {whose} had allocated then"
    if rest >= MIN_REST_MB:
        text += f"; the other {_mb_text(rest)} {UNRECORDED_WORDS}"
    return text
