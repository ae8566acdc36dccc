"""A card read from its summary (metrics.md §10): what ``timelineview summarize`` kept of it, no trace
read. A summary keeps no memory records, so ``memory`` is None: the memory rules that read them do not
fire on a summary (its peaks, kept in the card object, still feed the comparison and the imbalance)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from timelineview.analysis.cluster.memory_peaks import MemoryPeaks, peaks_of_document
from timelineview.analysis.communication import CardCommunication
from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.signals import CardSignals
from timelineview.analysis.memory.card import CardMemory
from timelineview.analysis.operators import CardOperators
from timelineview.analysis.sources.card_source import CollectiveEnds, Span, StepRows
from timelineview.analysis.sources.summary_signals import summary_signals
from timelineview.analysis.steps import StepWindow
from timelineview.analysis.summaries.card_summary import SummaryCard
from timelineview.model.store.report import LoadReport


class SummarySource:
    """A summarised card (``number``: its position in the summary's index, among the cards read)."""

    def __init__(self, summary: SummaryCard, number: int) -> None:
        self.summary = summary
        self.number = number
        self.card = summary.card
        self.rank = summary.rank

    @property
    def analysis(self) -> SummaryCard:
        return self.summary

    def analyse(self, fields: Iterable[str] = ()) -> SummaryCard:
        """The card as its summary holds it: what the views ask of a trace's analysis (``operators``,
        ``communication``, ``derived``, ``steps``) is there already, whatever ``fields``."""
        return self.summary

    @property
    def document(self) -> dict:
        """The §5 card object as summarised, with the ``worker`` that made it."""
        return {**self.summary.document, "worker": self.summary.worker}

    @property
    def step_stats(self) -> list[dict]:
        return self.summary.document["steps"] or []

    @property
    def step_rows(self) -> StepRows:
        m = self.summary.manifest
        error = m.get("comparison_error") or ""
        if error:
            return StepRows([], error)
        return StepRows(m.get("comparison_steps") or [], m.get("error") or "")

    @property
    def communication(self) -> CardCommunication | None:
        return self.summary.communication

    @property
    def operators(self) -> CardOperators | None:
        return self.summary.operators

    @property
    def memory(self) -> CardMemory | None:
        return None  # a summary keeps the card's memory figures, not its records

    @cached_property
    def memory_peaks(self) -> MemoryPeaks | None:
        return peaks_of_document(self.summary.document.get("memory"))

    @property
    def collectives(self) -> CollectiveEnds:
        return CollectiveEnds(*self.summary.collectives)

    @property
    def span(self) -> Span:
        m = self.summary.manifest
        return Span(int(m["t_origin"]), int(m["t_end"]))

    @property
    def steps(self) -> list[StepWindow]:
        return self.summary.steps

    @property
    def load_report(self) -> LoadReport | None:
        return self.summary.load_report

    @property
    def derived(self) -> DerivedIntervals | None:
        return self.summary.derived

    @property
    def error(self) -> str:
        return self.summary.manifest.get("error") or ""

    def result(self, name: str) -> list[dict] | None:
        return self.summary.result(name)

    def signals(self, order: int) -> CardSignals | None:
        return summary_signals(self.summary, order)
