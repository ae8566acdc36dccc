"""What the Diagnosis, Operators and Communication tabs read: a session and the cards it covers.

The session is an ``AnalysisSession`` over loaded traces or a ``SummarySession`` over a summary folder
(metrics.md §10); both answer :class:`TabSession`. A :class:`TabCard` names a card the way the tabs
need it — its number in the window, label, rank, the span of its own clock — and holds its store only
when its trace is loaded (jumps to a lane or to slices need it). No Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from timelineview.analysis.cluster.op_types_across import OpTypeAcrossCards
from timelineview.analysis.communication import CardCommunication, ClusterCommunication
from timelineview.analysis.findings import Finding
from timelineview.analysis.operators import CardOperators
from timelineview.model.store.trace_store import TraceStore


class CardTables(Protocol):
    """A card's operator and communication tables (``CardAnalysis`` or ``SummaryCard``)."""

    operators: CardOperators | None
    communication: CardCommunication | None


class TabSession(Protocol):
    """What the tabs read of a session; every number is computed by the session, once."""

    findings: list[Finding]
    communication: ClusterCommunication
    op_types_across_cards: list[OpTypeAcrossCards]  # the Operators tab across the cards, by op type
    shapes_across_cards: list[OpTypeAcrossCards]  # and by (op type, input shapes)

    def analyse(self, number: int, fields: Iterable[str] = ...) -> CardTables: ...


@dataclass(frozen=True)
class TabCard:
    """A card as the tabs name it. ``store`` is None for a summarised card (no trace loaded)."""

    number: int
    card: str
    rank: int | None
    t_origin: int  # ns, the card's own clock
    t_end: int
    store: TraceStore | None = None


def loaded_cards(cards: Sequence) -> list[TabCard]:
    """The tab cards of loaded cards (``CardView``s)."""
    return [TabCard(c.number, c.store.card, c.store.rank, c.store.t_origin, c.store.t_end, c.store) for c in cards]


def summary_cards(session) -> list[TabCard]:
    """The cards of a ``SummarySession`` by rank (as ``stats`` lists them); a card's number is its index
    position, as in the session's comparison."""
    out = []
    for i in session.order:
        m = session.cards[i].manifest
        t0 = int(m.get("t_origin") or 0)
        out.append(TabCard(i, m["card"], m["rank"], t0, max(int(m.get("t_end") or t0), t0 + 1)))
    return out


def scope_items(cards: Sequence[TabCard], across_label: str, across_value: int) -> list[tuple[str, int]]:
    """(label, value) of a tab's scope choice: across the cards (when there are several), then each card."""
    across = [(across_label, across_value)] if len(cards) > 1 else []
    return across + [(c.card, c.number) for c in cards]
