"""What one source of operator descriptions found for a card's compute tasks."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.kernels.table import NO_VALUE, Descriptions, Interner


@dataclass
class SourceResult:
    """Per compute task (the card's compute slices in slice order) what a source says; ids into ``interner``.

    ``described`` marks the tasks the source described; the others keep ``NO_VALUE`` everywhere. A column
    of ``found`` that is ``NO_VALUE`` throughout may be a read-only ``no_values`` view: it is replaced, never
    written into.
    """

    source: str
    interner: Interner
    found: Descriptions
    described: np.ndarray  # bool
    block_dim: np.ndarray  # int32
    pmu: dict[str, np.ndarray] = field(default_factory=dict)
    device: str = ""
    dynamic: np.ndarray | None = None  # bool per task: its OP State is dynamic (None: the source does not say)

    @classmethod
    def empty(cls, source: str, interner: Interner, n: int) -> SourceResult:
        def none() -> np.ndarray:
            return np.full(n, NO_VALUE, np.int32)

        found = Descriptions(none(), none(), none(), none(), none(), none())
        return cls(source, interner, found, np.zeros(n, bool), none())

    @classmethod
    def nothing_found(cls, source: str, interner: Interner, n: int) -> SourceResult:
        """``empty``, its descriptions read-only ``no_values`` views (for a result that is never written into)."""
        found = Descriptions(*(no_values(n) for _ in range(6)))
        return cls(source, interner, found, np.zeros(n, bool), np.full(n, NO_VALUE, np.int32))


def no_values(n: int) -> np.ndarray:
    """``n`` ids that are all ``NO_VALUE``, as a read-only view of one value (no bytes per task)."""
    return np.broadcast_to(np.int32(NO_VALUE), (n,))


def shape_text(text: str | None) -> str:
    """Shapes as the producer writes them, without the quotes around them (``"32,3,224,224"``)."""
    return (text or "").strip().strip('"').strip()
