"""A card read from its trace (JSON files or a profiler database, loaded into a ``TraceStore``): every
result computed from the store by its :class:`~timelineview.analysis.card_analysis.CardAnalysis`, once."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from timelineview.analysis.card_analysis import CardAnalysis, ensure
from timelineview.analysis.cluster.comparison import comparison_error
from timelineview.analysis.cluster.memory_peaks import MemoryPeaks, peaks_of_card
from timelineview.analysis.communication import CardCommunication
from timelineview.analysis.derived import DEFAULT_MIN_GAP_NS, DerivedIntervals
from timelineview.analysis.findings.signal_facts import fact_signals
from timelineview.analysis.findings.signals import SIGNAL_FIELDS, CardSignals, card_signals
from timelineview.analysis.memory.card import CardMemory
from timelineview.analysis.operators import CardOperators
from timelineview.analysis.sources.card_source import CollectiveEnds, Span, StepRows
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.report import LoadReport
from timelineview.model.store.trace_store import TraceStore


class TraceSource:
    """A loaded card (``number``: its position in the session).

    ``tolerant``: a stage that fails keeps its error (``error``) and what was computed before; the
    results it would have given are None (the viewer). Otherwise the failure raises (``stats``)."""

    def __init__(self, store: TraceStore, number: int = 0, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
                 tolerant: bool = False) -> None:
        self.store = store
        self.number = number
        self.card = store.card
        self.rank = store.rank
        self.tolerant = tolerant
        self._analysis = CardAnalysis.of(store, number, min_gap_ns)

    @property
    def analysis(self) -> CardAnalysis:
        return self._analysis

    def analyse(self, fields: Iterable[str]) -> CardAnalysis:
        """The card's analysis with ``fields`` computed (each only once)."""
        return ensure(self.store, self._analysis, fields, self.tolerant)

    @property
    def document(self) -> dict:
        return self.analyse(("document",)).document

    @property
    def step_stats(self) -> list[dict]:
        return self.analyse(("step_stats",)).step_stats or []

    @property
    def step_rows(self) -> StepRows:
        error = comparison_error(self.store, self.analyse(("derived",)).derived)
        if error:
            return StepRows([], error)
        a = self.analyse(("comparison_steps",))
        return StepRows(a.comparison_steps or [], a.error if a.comparison_steps is None else "")

    @property
    def communication(self) -> CardCommunication | None:
        return self.analyse(("communication",)).communication

    @property
    def operators(self) -> CardOperators | None:
        return self.analyse(("operators",)).operators

    @property
    def memory(self) -> CardMemory | None:
        return self.analyse(("memory",)).memory

    @cached_property
    def memory_peaks(self) -> MemoryPeaks | None:
        return peaks_of_card(self.memory)

    @property
    def collectives(self) -> CollectiveEnds:
        return CollectiveEnds(*self.analyse(("collectives",)).collectives)

    @property
    def span(self) -> Span:
        return Span(self.store.t_origin, self.store.t_end)

    @property
    def steps(self) -> list[StepWindow]:
        return self.analyse(("steps",)).steps or []

    @property
    def load_report(self) -> LoadReport:
        return self.store.report

    @property
    def derived(self) -> DerivedIntervals | None:
        return self.analyse(("derived",)).derived

    @property
    def error(self) -> str:
        return self._analysis.error

    def result(self, name: str) -> list[dict] | None:
        return self.analyse((name,)).results.get(name)

    def signals(self, order: int) -> CardSignals | None:
        """What the rules read of the card; its slice lookups from its ``finding_facts`` (kept with the
        card's other results, so a re-open does not pass over its slices again)."""
        a = self.analyse((*SIGNAL_FIELDS, "finding_facts"))
        return fact_signals(card_signals(self.store, a, order), a.finding_facts)
