"""The interface between one card and the cross-card analysis: what a card can give, each result
computed (or read) on demand and once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from timelineview.analysis.cluster.memory_peaks import MemoryPeaks
from timelineview.analysis.communication import CardCommunication
from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.signals import CardSignals
from timelineview.analysis.memory.card import CardMemory
from timelineview.analysis.operators import CardOperators
from timelineview.analysis.steps import StepWindow
from timelineview.model.store.report import LoadReport


class StepRows(NamedTuple):
    """A card's rows of the cluster comparison, or why it has none (``error``)."""

    steps: list[dict]
    error: str


class CollectiveEnds(NamedTuple):
    """Names and ends (ns) of a card's communication operators in start order: what clock offsets read."""

    names: list[str]
    ends: np.ndarray


class Span(NamedTuple):
    """A card's trace span (ns, its own clock)."""

    t_origin: int
    t_end: int


@runtime_checkable
class CardSource(Protocol):
    """One card as the cross-card analysis reads it. A result the source cannot give is None (a summary
    keeps no memory records: ``memory`` is None there, and the rules that need them do not fire)."""

    number: int  # the card's position in the session
    card: str
    rank: int | None

    @property
    def analysis(self) -> Any:
        """The per-card object the views read (``CardAnalysis`` of a trace, ``SummaryCard`` of a summary)."""

    def analyse(self, fields: Iterable[str]) -> Any:
        """``analysis`` with ``fields`` computed (a summary holds them already)."""

    @property
    def document(self) -> dict:
        """The §5 card object (``clock_offset_us`` 0: the session sets it)."""

    @property
    def step_stats(self) -> list[dict]:
        """The step metrics of each step (the §5 ``steps``)."""

    @property
    def step_rows(self) -> StepRows:
        """The card's comparison rows, or why it has none."""

    @property
    def communication(self) -> CardCommunication | None:
        """Collectives and links (§6); None without plane tasks."""

    @property
    def operators(self) -> CardOperators | None:
        """Operator tables (§7)."""

    @property
    def memory(self) -> CardMemory | None:
        """The memory analysis (§11); None without memory records."""

    @property
    def memory_peaks(self) -> MemoryPeaks | None:
        """The memory peaks of the comparison and of the imbalance rule (§11)."""

    @property
    def collectives(self) -> CollectiveEnds:
        """The collective ends the clock offsets align (§4)."""

    @property
    def span(self) -> Span:
        """The card's trace span."""

    @property
    def steps(self) -> list[StepWindow]:
        """The step windows (§3)."""

    @property
    def load_report(self) -> LoadReport | None:
        """The report of the card's load (None when not kept)."""

    @property
    def derived(self) -> DerivedIntervals | None:
        """The whole-card interval sets (§2)."""

    @property
    def error(self) -> str:
        """Why the card's analysis stopped ("" when it did not)."""

    def result(self, name: str) -> list[dict] | None:
        """The rows of the declared per-card result ``name`` (``analysis/card_results``); None when the card
        has none (its analysis failed, or a summary made before the result was declared)."""

    def signals(self, order: int) -> CardSignals | None:
        """What the finding rules read of the card (``order``: its position by rank); None when its
        analysis failed or it has no steps."""
