"""MemoryBars: each card's peak reserved memory (MB) with its allocated peak inside, one bar per card.

The comparison's second chart, shown when some card has memory records (metrics.md §11): the light bar
is the card's peak reserved, the dark part the allocated peak of the component the peak is judged on; a
card flagged by ``memory_imbalance`` has its name in red and its bar outlined.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import memory_flag_text
from timelineview.analysis.cluster.memory_peaks import PEAK_ALLOCATED, PEAK_RESERVED
from timelineview.views.cluster.comparison_table import slow_text_colour

PAD = 6
BAR_H = 18
LEGEND_H = 20
RESERVED_COLOUR = QtGui.QColor(120, 160, 210, 110)  # translucent: readable on light and dark bases
ALLOCATED_COLOUR = QtGui.QColor(40, 100, 180)


class MemoryBars(QtWidgets.QWidget):
    """``set_rows`` takes comparison rows (table order); rows without memory show "no memory records"."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.setMouseTracking(True)

    def set_rows(self, rows: list[dict]) -> None:
        self.rows = list(rows)
        self.setMinimumHeight(2 * PAD + LEGEND_H + BAR_H * len(self.rows))
        self.updateGeometry()
        self.update()

    def _label_width(self, fm: QtGui.QFontMetrics) -> int:
        return max((fm.horizontalAdvance(r["card"] + "  ▲") for r in self.rows), default=40) + 12

    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        pal = self.palette()
        text = pal.color(QtGui.QPalette.ColorRole.Text)
        muted = pal.color(QtGui.QPalette.ColorRole.PlaceholderText)
        red = slow_text_colour(pal)
        p.fillRect(self.rect(), pal.color(QtGui.QPalette.ColorRole.Base))
        fm = self.fontMetrics()
        self._legend(p, fm, text, red)
        label_w = self._label_width(fm)
        left = PAD + label_w
        right = self.width() - PAD - fm.horizontalAdvance("00000.0 MB reserved, 00000.0 MB allocated") - 6
        largest = max((r.get(PEAK_RESERVED) or r.get(PEAK_ALLOCATED) or 0.0 for r in self.rows), default=0.0)
        scale = (right - left) / largest if largest > 0 else 0.0
        for i, r in enumerate(self.rows):
            y = PAD + LEGEND_H + i * BAR_H
            flagged = bool(r.get("memory_flags"))
            p.setPen(red if flagged else text)
            font = QtGui.QFont(self.font())
            font.setBold(flagged)
            p.setFont(font)
            p.drawText(QtCore.QRect(PAD, y, label_w - 8, BAR_H),
                       QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter,
                       r["card"] + ("  ▲" if flagged else ""))
            p.setFont(self.font())
            reserved, allocated = r.get(PEAK_RESERVED), r.get(PEAK_ALLOCATED)
            if reserved is None and allocated is None:
                p.setPen(muted)
                p.drawText(QtCore.QRect(left, y, right - left, BAR_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                           "no memory records")
                continue
            inner = QtCore.QRectF(left, y + 2, 0, BAR_H - 4)
            if reserved is not None:
                p.fillRect(QtCore.QRectF(inner.x(), inner.y(), reserved * scale, inner.height()), RESERVED_COLOUR)
            if allocated is not None:
                p.fillRect(QtCore.QRectF(inner.x(), inner.y(), allocated * scale, inner.height()), ALLOCATED_COLOUR)
            if flagged and reserved is not None:
                p.setPen(QtGui.QPen(red, 2))
                p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                p.drawRect(QtCore.QRectF(inner.x(), inner.y(), reserved * scale, inner.height()))
            p.setPen(text)
            end = max(reserved or 0.0, allocated or 0.0) * scale
            p.drawText(QtCore.QRectF(left + end + 4, y, self.width() - left - end, BAR_H),
                       QtCore.Qt.AlignmentFlag.AlignVCenter, value_text(r))
        p.end()

    def _legend(self, p: QtGui.QPainter, fm: QtGui.QFontMetrics, text: QtGui.QColor, red: QtGui.QColor) -> None:
        x, cy = PAD, PAD + LEGEND_H // 2
        p.setPen(text)
        for colour, title in ((RESERVED_COLOUR, "Peak reserved"), (ALLOCATED_COLOUR, "Peak allocated")):
            p.fillRect(x, cy - 5, 12, 10, colour)
            p.drawText(x + 16, cy + fm.ascent() // 2 - 1, title)
            x += 16 + fm.horizontalAdvance(title) + 14
        p.setPen(red)
        p.drawText(x, cy + fm.ascent() // 2 - 1, "▲ memory_imbalance (outlined), MB")

    def row_at(self, y: float) -> int:
        i = int((y - PAD - LEGEND_H) // BAR_H)
        return i if 0 <= i < len(self.rows) and y >= PAD + LEGEND_H else -1

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        i = self.row_at(ev.position().y())
        if i < 0:
            QtWidgets.QToolTip.hideText()
            return
        r = self.rows[i]
        flags = [f"memory — {memory_flag_text(f)}" for f in r.get("memory_flags", [])]
        lines = [f"{r['card']}: {value_text(r)}", *flags]
        QtWidgets.QToolTip.showText(ev.globalPosition().toPoint(), "\n".join(lines), self)


def value_text(r: dict) -> str:
    """'1994.0 MB reserved, 1828.2 MB allocated' (what the row has)."""
    parts = []
    if r.get(PEAK_RESERVED) is not None:
        parts.append(f"{r[PEAK_RESERVED]:.1f} MB reserved")
    if r.get(PEAK_ALLOCATED) is not None:
        parts.append(f"{r[PEAK_ALLOCATED]:.1f} MB allocated")
    return ", ".join(parts)
