"""AnalysisSession: loaded cards in; everything ``timelineview stats`` and the views show out, computed once.

Per card it keeps a :class:`~timelineview.analysis.card_analysis.CardAnalysis` (classification,
derived interval sets, steps, pipeline, comparison rows, the §5 card object), filled on demand and
card by card. Across cards it computes the clock offsets, the slow cards and the cluster
comparison, each once, from those. No Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

import numpy as np

from timelineview.analysis.card_analysis import CardAnalysis, ensure
from timelineview.analysis.cluster.clock_offsets import clock_offsets
from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison, comparison_error
from timelineview.analysis.cluster.memory_peaks import peaks_of_card
from timelineview.analysis.cluster.slow_cards import SlowCard, slow_cards
from timelineview.analysis.communication import ClusterCommunication, analyse_cluster
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.findings import Finding, evaluate_findings
from timelineview.analysis.findings.evaluate import order_findings
from timelineview.analysis.memory import MemoryCard, memory_findings
from timelineview.analysis.memory.findings import cards_imbalance
from timelineview.analysis.operators import OperatorAcrossCards, operators_across_cards
from timelineview.analysis.stats_document import stats_document
from timelineview.model.store.trace_store import TraceStore

# What the views need of every card; the rest (the §5 document) is computed when asked for.
VIEW_FIELDS = ("derived", "steps", "comparison_steps")
STATS_FIELDS = ("document",)


def rank_order(stores: Sequence[TraceStore]) -> list[int]:
    """Positions of ``stores`` by rank; cards without a rank after the others, by name."""
    return sorted(range(len(stores)), key=lambda i: (stores[i].rank is None, stores[i].rank or 0, stores[i].card))


class AnalysisSession:
    """The analysis of loaded cards (``stores`` in load order; a card's number is its position).

    ``tolerant``: a card whose analysis fails keeps its error (``cards[i].error``) and what was
    computed before; the others go on (the viewer). Otherwise the failure raises (``stats``).
    """

    def __init__(self, stores: Sequence[TraceStore], min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                 tolerant: bool = False) -> None:
        self.stores = list(stores)
        self.min_gap_ns = min_gap_ns
        self.tolerant = tolerant
        self.cards = [CardAnalysis.of(s, i, min_gap_ns) for i, s in enumerate(self.stores)]
        self.order = rank_order(self.stores)  # the first by rank is the clock reference

    def analyse(self, number: int, fields: Iterable[str] = VIEW_FIELDS) -> CardAnalysis:
        """Card ``number`` with ``fields`` computed (each only once per session)."""
        return ensure(self.stores[number], self.cards[number], fields, self.tolerant)

    @cached_property
    def clock_offsets_ns(self) -> np.ndarray:
        """Per card (load order), ns to subtract from its times to align it with the first card by rank
        (metrics.md §4). Tolerant sessions leave every clock as recorded (zeros) when that fails."""
        ordered = [self.analyse(i, ("classification",)) for i in self.order]
        out = np.zeros(len(self.stores), dtype=np.int64)
        try:
            offsets = clock_offsets([self.stores[a.number] for a in ordered], [a.classification for a in ordered])
        except Exception:  # no classification, no common collectives: a viewer still opens the cards
            if not self.tolerant:
                raise
            return out
        out[self.order] = offsets
        return out

    @cached_property
    def comparison(self) -> ClusterComparison:
        """The cluster comparison: per card its step rows, from each card's analysis."""
        cards = []
        for store, a in zip(self.stores, self.cards, strict=True):
            offset_us = self.clock_offsets_ns[a.number] / 1000.0
            cc = CardComparison(a.number, a.card, a.rank, offset_us)
            cc.error = comparison_error(store, self.analyse(a.number, ("derived",)).derived)
            if not cc.error:
                cc.steps = self.analyse(a.number, ("comparison_steps",)).comparison_steps or []
                cc.error = a.error if a.comparison_steps is None else ""
            cc.memory = peaks_of_card(self.analyse(a.number, ("memory",)).memory)
            cards.append(cc)
        return ClusterComparison(cards, self.memory_imbalance)

    @cached_property
    def card_documents(self) -> list[dict]:
        """The §5 card objects by rank, with their clock offsets."""
        docs = []
        for i in self.order:
            doc = dict(self.analyse(i, STATS_FIELDS).document)
            doc["clock_offset_us"] = float(self.clock_offsets_ns[i]) / 1000.0
            docs.append(doc)
        return docs

    @cached_property
    def slow_cards(self) -> list[SlowCard]:
        """Slow cards of metrics.md §4 (medians over each card's steps, cards by rank). Reads the step
        metrics only, so the findings of a viewer do not compute every card's §5 document."""
        steps = [self.analyse(i, ("step_stats",)) for i in self.order]
        return slow_cards([{"card": a.card, "steps": a.step_stats or []} for a in steps])

    @cached_property
    def communication(self) -> ClusterCommunication:
        """The cards' links joined (each from its sender), slow links and each card's wait per
        collective (metrics.md §6), over the cards by rank that have plane tasks."""
        return analyse_cluster([self.analyse(i, ("communication",)).communication for i in self.order])

    @cached_property
    def operators_across_cards(self) -> list[OperatorAcrossCards]:
        """Per operator name across the cards by rank: mean, min and max total, the card with the max (§7)."""
        cards = [(a.card, a.operators) for a in (self.analyse(i, ("operators",)) for i in self.order)
                 if a.operators is not None]
        return operators_across_cards(cards)

    @cached_property
    def findings(self) -> list[Finding]:
        """The findings of metrics.md §8 and §11, ordered by kind (anomalies first), severity, then excess."""
        return order_findings(evaluate_findings(self) + memory_findings(self.memory_cards, self.memory_imbalance))

    @cached_property
    def memory_cards(self) -> list[MemoryCard]:
        """What the memory rules read of each card (by rank): its memory analysis (§11), span and steps."""
        out = []
        for i in self.order:
            a = self.analyse(i, ("memory",))
            store = self.stores[i]
            steps = tuple((s.start, s.end) for s in a.steps or ())
            out.append(MemoryCard(a.card, a.memory, store.t_origin, store.t_end, steps))
        return out

    @cached_property
    def memory_imbalance(self) -> list[dict]:
        """Cards whose peak reserved memory stands above the others' (§11 with §4's rule), by rank."""
        return cards_imbalance(self.memory_cards)

    def stats_document(self) -> dict:
        """The ``stats --json`` document (``analysis.stats_document``)."""
        return stats_document(self)
