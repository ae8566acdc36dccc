"""The step graph of a session's loaded cards (cards by rank, clocks aligned)."""

from __future__ import annotations

from timelineview.analysis.critical_path.graph import StepGraph, build_graph
from timelineview.analysis.critical_path.inputs import card_timeline
from timelineview.analysis.critical_path.op_types import OpTypeTable


def session_graph(session) -> StepGraph | None:
    """The graph of an ``AnalysisSession``'s cards; None for summaries (no slices) or without steps and
    communication."""
    if not session.stores:
        return None
    types = OpTypeTable()
    offsets = session.clock_offsets_ns
    cards = [card_timeline(session.sources[i], int(offsets[i]), types) for i in session.order]
    return build_graph(cards, types.names)
