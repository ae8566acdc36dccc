"""AnalysisTabsHost: builds the registered analysis tabs, feeds them each load's session, and
sends their jumps to the timeline."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from timelineview.views.analysis_tabs.registry import ANALYSIS_TABS
from timelineview.views.tab_keys import tab_key
from timelineview.viewstate.jump_target import JumpTarget

log = logging.getLogger(__name__)


class AnalysisTabsHost(QtCore.QObject):
    """The analysis tabs of one window (``widgets`` in registry order). A tab that cannot show a load says
    why in its place, and ``failed`` says it in one line (the window's status bar and load report)."""

    failed = QtCore.Signal(str)

    def __init__(self, window: QtWidgets.QWidget, tabs: QtWidgets.QTabWidget,
                 jump: Callable[[JumpTarget], None]) -> None:
        super().__init__(window)
        self.tabs = tabs
        self.widgets: dict[str, QtWidgets.QWidget] = {}
        self.status: dict[str, QtWidgets.QPushButton] = {}
        for kind in ANALYSIS_TABS:
            widget = kind.build()
            index = tabs.addTab(widget, kind.title)
            key = tab_key(index)  # the window binds the tabs' keys once every tab is in
            tabs.setTabToolTip(index, kind.tooltip)
            widget.jumpRequested.connect(jump)
            self.widgets[kind.key] = widget
            if hasattr(widget, "status_text") and hasattr(window, "statusBar"):
                button = QtWidgets.QPushButton()
                button.setFlat(True)
                button.setToolTip(f"Open the {kind.title} tab ({key})" if key else f"Open the {kind.title} tab")
                button.clicked.connect(lambda _=False, w=widget: tabs.setCurrentWidget(w))
                button.hide()
                window.statusBar().addPermanentWidget(button)
                self.status[kind.key] = button

    def show_data(self, data) -> None:
        """Every tab shows the data set now on screen (a ``ShownData``: each tab asks it what it can show)."""
        for key, widget in self.widgets.items():
            try:
                widget.show_data(data)
            except Exception as exc:  # one tab's defect leaves neither it nor the tabs after it blank
                log.exception("the %s tab could not show the load", key)
                self._show_failure(key, widget, f"{type(exc).__name__}: {exc}")
        self.show_status()

    def _show_failure(self, key: str, widget: QtWidgets.QWidget, why: str) -> None:
        """The tab emptied, saying why where it shows notes (else in its tooltip), and ``failed`` emitted."""
        text = f"The {self.tabs.tabText(self.tabs.indexOf(widget)) or key} tab could not be shown: {why}"
        try:
            widget.clear()
        except Exception:  # noqa: BLE001 - the note below is what matters now
            log.exception("the %s tab could not be cleared", key)
        if hasattr(widget, "show_note"):
            widget.show_note(text)
        self.tabs.setTabToolTip(self.tabs.indexOf(widget), text)
        self.failed.emit(text)

    def clear(self, note: str = "") -> None:
        """Every tab empty; ``note``: what the tabs that show one say meanwhile (e.g. that an analysis runs)."""
        for widget in self.widgets.values():
            widget.clear()
            if note and hasattr(widget, "show_note"):
                widget.show_note(note)
        self.show_status()

    def hide_status(self) -> None:
        """A new load began: the status line's counts (e.g. findings) described the data it replaces."""
        for button in self.status.values():
            button.hide()

    def show_status(self) -> None:
        """The tabs' counts on the status line, as they hold now (also after a load that replaced nothing)."""
        for key, button in self.status.items():
            text = self.widgets[key].status_text()
            button.setText(text)
            button.setVisible(bool(text))

    def open_wanted(self) -> bool:
        """Show the first tab that wants the user's attention (e.g. findings); False when none does."""
        for widget in self.widgets.values():
            if getattr(widget, "wants_focus", lambda: False)():
                self.tabs.setCurrentWidget(widget)
                return True
        return False

    def show_tab(self, key: str) -> None:
        if key in self.widgets:
            self.tabs.setCurrentWidget(self.widgets[key])
