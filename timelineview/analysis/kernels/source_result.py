"""What one source of operator descriptions found for a card's compute tasks."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from timelineview.analysis.kernels.table import NO_VALUE, Descriptions, Interner


@dataclass
class SourceResult:
    """Per compute task (the card's compute slices in slice order) what a source says; ids into ``interner``.

    ``described`` marks the tasks the source described; the others keep ``NO_VALUE`` everywhere.
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


def shape_text(text: str | None) -> str:
    """Shapes as the producer writes them, without the quotes around them (``"32,3,224,224"``)."""
    return (text or "").strip().strip('"').strip()
