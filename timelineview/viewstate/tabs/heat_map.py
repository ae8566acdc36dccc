"""The rank × step matrix of one comparison metric, optionally aggregated by node (Qt-free).

Rows are the comparison's cards in rank order, columns its step numbers; a card without a step
(or whose analysis failed) has NaN there. Grouped by ``node_size`` consecutive rows (8 cards of a
node), a cell is the mean of the cards that have a value. A cell is framed (``marked``) where the
verdicts of ``findings.marks`` single it out: a step of a card flagged slow on that metric; a node's
cell where one of its cards' is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.cluster.comparison import ClusterComparison
from timelineview.analysis.findings.marks import comparison_heat_cells

CARDS_PER_NODE = 8  # Ascend servers hold 8 NPUs: ranks 8k..8k+7 share a node


@dataclass
class HeatMatrix:
    """Values (rows, steps) with each row's label and the comparison card numbers it holds."""

    values: np.ndarray  # float64, NaN where no value
    row_labels: list[str]
    row_cards: list[list[int]]
    steps: list[int]
    metric: str
    marked: np.ndarray | None = None  # bool (rows, steps): the framed cells (None: none)

    def is_marked(self, row: int, col: int) -> bool:
        return self.marked is not None and bool(self.marked[row, col])

    def value_range(self) -> tuple[float, float]:
        """(min, max) over the finite values; (0, 1) when there are none."""
        finite = self.values[np.isfinite(self.values)]
        return (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 1.0)


def heat_matrix(comparison: ClusterComparison, metric: str, node_size: int = 1) -> HeatMatrix:
    """The ``metric`` of every card (rows, by rank) at every step (columns)."""
    steps = comparison.step_numbers()
    column = {s: k for k, s in enumerate(steps)}
    cards = comparison.cards
    values = np.full((len(cards), len(steps)), np.nan)
    for r, c in enumerate(cards):
        for s in c.steps if c.usable else []:
            v = s.get(metric)
            if v is not None:
                values[r, column[int(s["step"])]] = float(v)
    marked = np.zeros(values.shape, bool)
    for cell in comparison_heat_cells(comparison, metric):
        marked[cell.row, column[cell.step]] = True
    labels = [c.card for c in cards]
    members = [[c.number] for c in cards]
    if node_size > 1 and len(cards) > node_size:
        groups = range(0, len(cards), node_size)
        with np.errstate(invalid="ignore"):
            counts = np.add.reduceat(np.isfinite(values).astype(np.int64), list(groups), axis=0)
            sums = np.add.reduceat(np.nan_to_num(values), list(groups), axis=0)
            values = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        marked = np.add.reduceat(marked.astype(np.int64), list(groups), axis=0) > 0
        labels = [f"{cards[g].card} … {cards[min(g + node_size, len(cards)) - 1].card}" for g in groups]
        members = [[c.number for c in cards[g:g + node_size]] for g in groups]
    return HeatMatrix(values, labels, members, steps, metric, marked if marked.any() else None)
