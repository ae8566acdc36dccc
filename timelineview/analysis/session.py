"""AnalysisSession: card sources in; everything ``timelineview stats`` and the views show out, computed once.

A card is a :class:`~timelineview.analysis.sources.CardSource`: a loaded trace (JSON files or a profiler
database, per card a :class:`~timelineview.analysis.card_analysis.CardAnalysis` filled on demand and card
by card) or a card's summary (what ``timelineview summarize`` kept). Across the cards the session
computes the clock offsets, the §5 documents, slow cards, communication, operators across cards, memory
imbalance, the cluster comparison and the findings, each once, by the same code for both kinds. No Qt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from timelineview.analysis.cluster.clock_offsets import (
    SEPARATE_RUN_GAP_HOURS,
    ClockAlignment,
    offsets_from_ends,
    separate_runs,
)
from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison
from timelineview.analysis.cluster.memory_peaks import peaks_imbalance
from timelineview.analysis.cluster.op_types_across import (
    OP_TYPE_RESULT,
    SHAPE_RESULT,
    OpTypeAcrossCards,
    op_types_across_cards,
)
from timelineview.analysis.cluster.slow_cards import SlowCard, median_step_time, slow_cards
from timelineview.analysis.communication import ClusterCommunication, analyse_cluster
from timelineview.analysis.critical_path.document import CriticalPathResult, session_critical_path
from timelineview.analysis.critical_path.finding_gain import priced_findings
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS
from timelineview.analysis.findings import Finding, evaluate_findings
from timelineview.analysis.findings.advisor_rules import operator_verdicts
from timelineview.analysis.findings.evaluate import order_findings, session_signals
from timelineview.analysis.findings.slow_operators import OperatorVerdict
from timelineview.analysis.memory import MemoryCard, memory_findings
from timelineview.analysis.operators import TOP_OPERATORS, OperatorAcrossCards, operators_across_cards
from timelineview.analysis.sources import CardSource, TraceSource
from timelineview.analysis.stats_document import stats_document
from timelineview.model.store.trace_store import TraceStore

log = logging.getLogger(__name__)

# What the views need of every card; the rest (the §5 document) is computed when asked for.
VIEW_FIELDS = ("derived", "steps", "comparison_steps")
STATS_FIELDS = ("document",)


def rank_order(cards: Sequence[Any]) -> list[int]:
    """Positions of ``cards`` (anything with ``card`` and ``rank``) by rank; cards without a rank after the
    others, by name."""
    return sorted(range(len(cards)), key=lambda i: (cards[i].rank is None, cards[i].rank or 0, cards[i].card))


class AnalysisSession:
    """The analysis of a run's cards: ``stores`` (loaded traces, in load order; a card's number is its
    position), or ``sources`` given instead (summarised cards: ``SummarySession``).

    ``tolerant``: a card whose analysis fails keeps its error and what was computed before; the others
    go on (the viewer), and clock offsets that cannot be estimated are zeros. Otherwise the failure
    raises (``stats``).
    """

    def __init__(self, stores: Sequence[TraceStore] = (), min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                 tolerant: bool = False, sources: Sequence[CardSource] | None = None) -> None:
        self.min_gap_ns = min_gap_ns
        self.tolerant = tolerant
        if sources is None:
            sources = [TraceSource(s, i, min_gap_ns, tolerant) for i, s in enumerate(stores)]
        self.sources: list[CardSource] = list(sources)
        self.order = rank_order(self.sources)  # the first by rank is the clock reference
        # The loaded cards by number, for the views that draw slices: a session over summaries has none.
        traced = all(isinstance(s, TraceSource) for s in self.sources)
        self.stores: list[TraceStore] = [s.store for s in self.sources] if traced else []

    @property
    def cards(self) -> list[Any]:
        """Per card (its number) the object ``analyse`` fills: a trace's ``CardAnalysis``, a ``SummaryCard``."""
        return [s.analysis for s in self.sources]

    def analyse(self, number: int, fields: Iterable[str] = VIEW_FIELDS) -> Any:
        """Card ``number`` with ``fields`` computed (each only once per session)."""
        return self.sources[number].analyse(fields)

    def _by_rank(self) -> list[CardSource]:
        return [self.sources[i] for i in self.order]

    @cached_property
    def clock_alignment(self) -> ClockAlignment:
        """Per card by rank, ns to subtract from its times to align it with the first card by rank (metrics.md
        §4), from each card's collective ends; cards far from the first's run on its clock (another job)
        aligned at their own start. Tolerant sessions leave every clock as recorded (zeros) when that fails."""
        by_rank = self._by_rank()
        try:
            offsets = offsets_from_ends([s.collectives for s in by_rank])
            return separate_runs(offsets, [tuple(s.span) for s in by_rank])
        except Exception:  # no classification, no collectives kept: a viewer still opens the cards
            if not self.tolerant:
                raise
            return ClockAlignment(np.zeros(len(by_rank), dtype=np.int64), [])

    @cached_property
    def clock_offsets_ns(self) -> np.ndarray:
        """Per card (its number), ns to subtract from its times to align it with the first card by rank
        (:attr:`clock_alignment`)."""
        out = np.zeros(len(self.sources), dtype=np.int64)
        if self.sources:
            out[self.order] = self.clock_alignment.offsets_ns
        return out

    @property
    def separate_run_cards(self) -> list[str]:
        """The cards (names, by rank) taken as runs apart from the first card's, each aligned at its own start."""
        by_rank = self._by_rank()
        return [by_rank[i].card for i in self.clock_alignment.own_start]

    @property
    def clock_note(self) -> str:
        """What a reader of the times should know of their alignment: cards taken as separate runs ("" when
        every card is on one clock with the first)."""
        apart = self.separate_run_cards
        if not apart:
            return ""
        return (f"{', '.join(apart)}: captured more than {SEPARATE_RUN_GAP_HOURS} h away from "
                f"{self._by_rank()[0].card}'s run, no collective tying them: separate runs, each aligned at "
                "its own start")

    @cached_property
    def comparison(self) -> ClusterComparison:
        """The cluster comparison: per card its step rows and memory peaks."""
        cards = []
        for s in self.sources:
            cc = CardComparison(s.number, s.card, s.rank, self.clock_offsets_ns[s.number] / 1000.0)
            cc.steps, cc.error = s.step_rows
            cc.memory = s.memory_peaks
            cards.append(cc)
        return ClusterComparison(cards, self.memory_imbalance)

    @cached_property
    def card_documents(self) -> list[dict]:
        """The §5 card objects by rank, with their clock offsets."""
        docs = []
        for s in self._by_rank():
            doc = dict(s.document)
            doc["clock_offset_us"] = float(self.clock_offsets_ns[s.number]) / 1000.0
            docs.append(doc)
        return docs

    @cached_property
    def slow_cards(self) -> list[SlowCard]:
        """Slow cards of metrics.md §4 (medians over each card's steps, cards by rank). Reads the step
        metrics only, so the findings of a viewer do not compute every card's §5 document."""
        return slow_cards(self._step_documents)

    @cached_property
    def _step_documents(self) -> list[dict]:
        """Per card by rank, its step metrics as the rules of §4 read them."""
        return [{"card": s.card, "steps": s.step_stats} for s in self._by_rank()]

    @cached_property
    def communication(self) -> ClusterCommunication:
        """The cards' links joined (each from its sender), slow links and each card's wait per
        collective (metrics.md §6), over the cards by rank that have plane tasks; who the others wait for
        is a verdict (§4), with the cluster's median step time as its practical floor."""
        return analyse_cluster([s.communication for s in self._by_rank()], median_step_time(self._step_documents))

    @cached_property
    def operators_across_all_cards(self) -> list[OperatorAcrossCards]:
        """Every operator name across the cards by rank (the Operators tab lists them all)."""
        cards = [(s.card, ops) for s in self._by_rank() if (ops := s.operators) is not None]
        return operators_across_cards(cards, limit=None)

    @cached_property
    def operators_across_cards(self) -> list[OperatorAcrossCards]:
        """The top operators across the cards: mean, min and max total, the card with the max (§7)."""
        return self.operators_across_all_cards[:TOP_OPERATORS]

    @cached_property
    def slow_operator_verdicts(self) -> tuple[list[OperatorVerdict], list[OperatorVerdict]]:
        """(the op types, the (op type, input shapes)) the ``slow_operator`` rule names slow on one card (§7.1)."""
        return operator_verdicts(session_signals(self))

    def _across_results(self, name: str) -> list[tuple[str, list[dict]]]:
        return [(s.card, rows) for s in self._by_rank() if (rows := s.result(name)) is not None]

    @cached_property
    def op_types_across_cards(self) -> list[OpTypeAcrossCards]:
        """Every op type across the cards by rank: its total per card compared, with its slow_operator verdicts."""
        return op_types_across_cards(self._across_results(OP_TYPE_RESULT), False, self.slow_operator_verdicts[0])

    @cached_property
    def shapes_across_cards(self) -> list[OpTypeAcrossCards]:
        """Every (op type, input shapes) of the cards' by-shape tables across the cards by rank, likewise."""
        return op_types_across_cards(self._across_results(SHAPE_RESULT), True, self.slow_operator_verdicts[1])

    @cached_property
    def rule_findings(self) -> list[Finding]:
        """The findings of metrics.md §8 and §11, ordered by kind (anomalies first), severity, then excess."""
        return order_findings(evaluate_findings(self) + memory_findings(self.memory_cards, self.memory_imbalance))

    @cached_property
    def findings(self) -> list[Finding]:
        """The findings priced by the critical path (§12): each with the step time the what-if answering it
        would save and how often it is on the path, by kind, then by that gain, then as ``rule_findings``."""
        try:
            result = self.critical_path
        except Exception:  # noqa: BLE001 - the findings stand without their price
            if not self.tolerant:
                raise
            log.exception("the critical path could not price the findings")
            return self.rule_findings
        return priced_findings(self.rule_findings, result, {s.card: s.rank for s in self.sources})

    @cached_property
    def memory_cards(self) -> list[MemoryCard]:
        """What the memory rules read of each card (by rank): its memory analysis (§11), span and steps."""
        out = []
        for s in self._by_rank():
            memory = s.memory
            out.append(MemoryCard(s.card, memory, *s.span, tuple((w.start, w.end) for w in s.steps)))
        return out

    @cached_property
    def memory_imbalance(self) -> list[dict]:
        """Cards whose peak reserved memory stands above the others' (§11 with §4's rule), by rank."""
        return peaks_imbalance([s.card for s in self._by_rank()], [s.memory_peaks for s in self._by_rank()])

    @cached_property
    def critical_path(self) -> CriticalPathResult:
        """Each step's critical path across the cards and the what-ifs (metrics.md §12)."""
        return session_critical_path(self)

    def stats_document(self) -> dict:
        """The ``stats --json`` document (``analysis.stats_document``), with the clocks' note."""
        doc = stats_document(self)
        if self.clock_note:
            doc["notes"] = [self.clock_note]
        return doc
