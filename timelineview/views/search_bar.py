"""SearchBar: Ctrl+F name search with a match count and next/previous."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.timeline.widget import TimelineWidget

TYPING_DELAY_MS = 120


class SearchField(QtWidgets.QLineEdit):
    """Enter = next match, Shift+Enter = previous, Escape = close."""

    stepped = QtCore.Signal(int)
    closed = QtCore.Signal()

    def keyPressEvent(self, ev: QtGui.QKeyEvent) -> None:
        if ev.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
            back = bool(ev.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier)
            self.stepped.emit(-1 if back else 1)
            return
        if ev.key() == QtCore.Qt.Key.Key_Escape:
            self.closed.emit()
            return
        super().keyPressEvent(ev)


class SearchBar(QtWidgets.QWidget):
    """Finds slices by name as you type (substring, case-insensitive) and steps through them."""

    def __init__(self, timeline: TimelineWidget, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline = timeline
        self.field = SearchField()
        self.field.setPlaceholderText("Search slice names  (Enter: next, Shift+Enter: previous, Esc: close)")
        self.field.setClearButtonEnabled(True)
        self.count = QtWidgets.QLabel()
        self.count.setMinimumWidth(110)
        self.count.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        prev_b = QtWidgets.QToolButton()
        prev_b.setArrowType(QtCore.Qt.ArrowType.UpArrow)
        prev_b.setToolTip("Previous match (Shift+Enter)")
        next_b = QtWidgets.QToolButton()
        next_b.setArrowType(QtCore.Qt.ArrowType.DownArrow)
        next_b.setToolTip("Next match (Enter)")
        close_b = QtWidgets.QToolButton()
        close_b.setText("✕")
        close_b.setToolTip("Close search (Esc)")
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(6, 3, 6, 3)
        lay.addWidget(QtWidgets.QLabel("Find:"))
        lay.addWidget(self.field, 1)
        lay.addWidget(self.count)
        lay.addWidget(prev_b)
        lay.addWidget(next_b)
        lay.addWidget(close_b)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TYPING_DELAY_MS)
        self._timer.timeout.connect(self.search_now)
        self.field.textChanged.connect(lambda _: self._timer.start())
        self.field.stepped.connect(self.step)
        self.field.closed.connect(self.close_search)
        prev_b.clicked.connect(lambda: self.step(-1))
        next_b.clicked.connect(lambda: self.step(1))
        close_b.clicked.connect(self.close_search)
        timeline.searchChanged.connect(self._update_count)
        self.hide()

    def open_search(self) -> None:
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_search(self) -> None:
        self._timer.stop()
        self.field.clear()
        self.timeline.run_search("")
        self.hide()
        self.timeline.setFocus()

    def search_now(self) -> int:
        self._timer.stop()
        return self.timeline.run_search(self.field.text())

    def step(self, direction: int) -> None:
        if self._timer.isActive() or self.field.text() != self.timeline._search_query:
            self.search_now()
        self.timeline.step_search(direction)

    def _update_count(self) -> None:
        n = self.timeline.match_count
        if not self.field.text().strip():
            self.count.setText("")
        elif n == 0:
            self.count.setText("no matches")
        else:
            pos = self.timeline.match_position()
            total = f"{n:,}".replace(",", " ")
            self.count.setText(f"{pos} / {total}" if pos else f"{total} matches")
