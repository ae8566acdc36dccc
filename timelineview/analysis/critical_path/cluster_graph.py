"""The step graph of a session's cards (cards by rank, clocks aligned), loaded or summarised."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.critical_path.card_inputs import KEY, CardPathInputs, card_path_inputs
from timelineview.analysis.critical_path.graph import StepGraph, build_graph
from timelineview.analysis.critical_path.inputs import card_timeline
from timelineview.analysis.critical_path.op_types import OpTypeTable

NEEDED_FIELDS = ("classification", "derived", "steps", "communication", "kernels")


def source_path_inputs(source) -> CardPathInputs | None:
    """A card source's inputs: computed from a loaded card's store, read from a summary's details (None
    when the summary predates them or they are damaged)."""
    store = getattr(source, "store", None)
    if store is not None:
        a = source.analyse(NEEDED_FIELDS)
        return card_path_inputs(store, a.classification, a.steps or [], a.communication, a.kernels)
    kept = source.analysis.details.get(KEY) if hasattr(source.analysis, "details") else None
    if not isinstance(kept, dict):
        return None
    try:
        return CardPathInputs.from_document(kept)
    except ValueError:
        return None


def session_graph(session) -> StepGraph | None:
    """The graph of an ``AnalysisSession``'s cards; None when a card lacks what it needs, or without steps
    and communication."""
    types = OpTypeTable()
    offsets = session.clock_offsets_ns
    cards = []
    for i in session.order:
        source = session.sources[i]
        inputs = source_path_inputs(source)
        derived = source.derived
        if inputs is None or derived is None:
            return None
        cards.append(card_timeline(source.card, source.rank, int(offsets[i]), inputs, derived.compute,
                                   source.steps, types))
    n_types = len(types.names)
    for c in cards:  # the table grew while the cards were read
        if c.step_type_ns.shape[1] < n_types:
            c.step_type_ns = _widen(c.step_type_ns, n_types)
            if c.step_type_count is not None:
                c.step_type_count = _widen(c.step_type_count, n_types)
    return build_graph(cards, types.names)


def _widen(table: np.ndarray, n_types: int) -> np.ndarray:
    out = np.zeros((table.shape[0], n_types), table.dtype)
    out[:, :table.shape[1]] = table
    return out
