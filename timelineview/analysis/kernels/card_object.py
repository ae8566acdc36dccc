"""A card's ``kernels`` object (metrics.md §7.1) for given step windows, as the card's analysis makes it: its
rows are the declared results, computed by their stages (one shared pass for both tables), put after the
header's keys where the card object puts them."""

from __future__ import annotations

from collections.abc import Sequence

from timelineview.analysis.card_analysis import CardAnalysis, ensure
from timelineview.analysis.card_results.registry import placed_results
from timelineview.analysis.card_results.section import place
from timelineview.analysis.kernels.declared_results import BY_OP_TYPE, STEP_FLOPS
from timelineview.analysis.kernels.document import kernels_header
from timelineview.analysis.kernels.table import KernelTable
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.trace_store import TraceStore

SECTION = "kernels"  # the key of the object in the card object


def kernels_document(store: TraceStore, table: KernelTable, steps: Sequence[StepWindow]) -> dict:
    """The ``kernels`` object of ``store``'s card whose compute tasks ``table`` describes, per step of ``steps``."""
    analysis = CardAnalysis(0, store.card, store.rank)  # nothing kept: every result computed here
    analysis.set("kernels", table)
    analysis.set("steps", list(steps))
    results = [r for r in placed_results() if r.section[0] == SECTION]
    ensure(store, analysis, [r.name for r in results])
    card = {SECTION: kernels_header(store, table, steps, analysis.results[BY_OP_TYPE.name],
                                    analysis.results[STEP_FLOPS.name])}
    for result in results:
        place(card, result, list(analysis.results[result.name]))
    return card[SECTION]
