"""CardProgressList: one progress bar per card while a cluster loads (cards load in parallel).

Cards are laid out in as many columns as the width allows, so 128 cards stay on a screen or two.
A card that comes from the cache reports no bytes: it shows as "cached" once the load is done.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.viewstate.load_progress import BYTES, ROWS, CardRead, progress_words
from timelineview.viewstate.palette import DERIVED_COLOURS

CELL_W = 330
CELL_H = 24
LABEL_W = 96
WAITING, READING, DONE, CACHED, FAILED = "waiting", "reading", "done", "cached", "failed"


@dataclass
class CardState(CardRead):
    label: str = ""
    status: str = WAITING
    note: str = ""


class CardProgressList(QtWidgets.QWidget):
    """Painted grid of (card, bar, state) cells."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[CardState] = []

    def set_cards(self, labels: list[str]) -> None:
        self.cards = [CardState(label=label) for label in labels]
        self._resize_for_width(self.width())
        self.update()

    def set_progress(self, i: int, done: int, total: int, unit: str = BYTES) -> None:
        """Card ``i`` has read ``done`` of ``total`` ``unit`` (bytes of a trace, rows of a database)."""
        if 0 <= i < len(self.cards):
            c = self.cards[i]
            c.done, c.total, c.unit = done, total, unit
            c.status = DONE if c.sized and done >= total else READING if done > 0 or unit == ROWS else WAITING
            self.update()

    def finish(self, failed: dict[int, str]) -> None:
        """The load ended: cards that reported nothing came from the cache; ``failed``: index → error."""
        for i, c in enumerate(self.cards):
            if i in failed:
                c.status, c.note = FAILED, failed[i]
            elif c.status == WAITING:
                c.status = CACHED
            elif c.status == READING:
                c.status = DONE
        self.update()

    def summary(self) -> str:
        busy = sum(c.status == READING for c in self.cards)
        words = progress_words(self.cards, busy)
        return f"{len(self.cards)} cards" + (f" · {words}" if words else "")

    # ------------------------------------------------------------------ layout
    def _columns(self, width: int) -> int:
        return max(1, width // CELL_W)

    def _resize_for_width(self, width: int) -> None:
        rows = math.ceil(len(self.cards) / self._columns(width)) if self.cards else 0
        self.setMinimumHeight(rows * CELL_H + 8)

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        self._resize_for_width(ev.size().width())
        super().resizeEvent(ev)

    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        pal = self.palette()
        text = pal.color(QtGui.QPalette.ColorRole.WindowText)
        muted = pal.color(QtGui.QPalette.ColorRole.PlaceholderText)
        trough = pal.color(QtGui.QPalette.ColorRole.Mid)
        cols = self._columns(self.width())
        fm = self.fontMetrics()
        for i, c in enumerate(self.cards):
            x = (i % cols) * CELL_W + 8
            y = (i // cols) * CELL_H + 4
            p.setPen(text)
            p.drawText(QtCore.QRect(x, y, LABEL_W - 6, CELL_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                       fm.elidedText(c.label, QtCore.Qt.TextElideMode.ElideMiddle, LABEL_W - 6))
            bar = QtCore.QRect(x + LABEL_W, y + 7, 130, CELL_H - 14)
            p.fillRect(bar, trough)
            frac = 1.0 if c.status in (DONE, CACHED) else (c.done / c.total if c.total else 0.0)
            colour = QtGui.QColor(*DERIVED_COLOURS["pure_communication" if c.status == FAILED else "compute"])
            if c.status != FAILED:
                p.fillRect(QtCore.QRect(bar.x(), bar.y(), int(bar.width() * frac), bar.height()), colour)
            reading = f"{frac * 100:.0f} %" if c.sized else "counting rows"
            state = {WAITING: "waiting", READING: reading, DONE: "read", CACHED: "from cache",
                     FAILED: "failed"}[c.status]
            p.setPen(colour if c.status == FAILED else muted)
            rest = CELL_W - LABEL_W - 130 - 16
            p.drawText(QtCore.QRect(bar.right() + 8, y, rest, CELL_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                       fm.elidedText(state, QtCore.Qt.TextElideMode.ElideRight, rest))
            if c.status == FAILED and c.note:
                self.setToolTip("\n".join(f"{s.label}: {s.note}" for s in self.cards if s.status == FAILED))
        p.end()
