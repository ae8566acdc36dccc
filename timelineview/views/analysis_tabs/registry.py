"""The analysis tabs of the main window, registered in one place.

Each tab is a widget with a ``jumpRequested(JumpTarget)`` signal and two methods:
``show_data(data)`` when a data set is on screen (a ``views.shown_data.ShownData``: loaded traces or a
summary folder, its session and cards, and what it can show; every number was computed by the session,
the tab only displays) and ``clear()``. Optional:
``show_note(text)`` (what an empty tab says, e.g. while a summary is analysed),
``status_text() -> str`` (a summary for the status bar, clicking it opens the tab) and
``wants_focus() -> bool`` (a cluster opens on the first tab that wants it). The window adds the tabs
after Timeline, Cluster comparison and Heat map, in this order; each tab's key follows its place on the
tab bar (``views.tab_keys``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from PySide6 import QtWidgets


@dataclass(frozen=True)
class TabKind:
    """One analysis tab: its key, title, tooltip, and the widget class (``module:Class``, imported when
    the window is built, so a tab's module is only loaded with the GUI)."""

    key: str
    title: str
    tooltip: str
    widget: str

    def build(self) -> QtWidgets.QWidget:
        module, _, name = self.widget.partition(":")
        return getattr(importlib.import_module(module), name)()


ANALYSIS_TABS: tuple[TabKind, ...] = (
    TabKind("diagnosis", "Diagnosis", "What holds these cards back, step by step of the tuning method, with "
            "the evidence", "timelineview.views.analysis_tabs.diagnosis_view:DiagnosisView"),
    TabKind("operators", "Operators", "The compute operators of a card, or compared across the cards",
            "timelineview.views.analysis_tabs.operators_view:OperatorsView"),
    TabKind("communication", "Communication", "Links between ranks (bandwidth matrix, slow links) and the wait, "
            "transit and idle time of every collective", "timelineview.views.analysis_tabs.communication."
            "communication_view:CommunicationView"),
    TabKind("compare", "Compare", "What changed from the run on screen to another (File ▸ Compare with…)",
            "timelineview.views.analysis_tabs.compare.compare_view:CompareView"),
    TabKind("memory", "Memory", "A card's memory over time per component, its peak, and the allocations alive at "
            "an instant you click", "timelineview.views.analysis_tabs.memory_view:MemoryView"),
    TabKind("query", "Query", "SQL (DuckDB) over the slices, steps, operators, communication and findings "
            "(docs/sql.md); double-click a row with a slice id to see it", "timelineview.views.analysis_tabs."
            "query_view:QueryView"),
    TabKind("critical_path", "Critical path", "What bounds each step across the cards, and the step time a change "
            "would give (what-if)", "timelineview.views.analysis_tabs.critical_path_view:CriticalPathView"),
)
