"""PhaseBars: the per-step phase means of each card as paired bars, base above new."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.viewstate.tabs.paired_bars import LABEL_W, VALUE_W, PairedBar, PhaseValues, paired_bars, phase_title
from timelineview.viewstate.time_format import format_duration

BASE_COLOUR = "#8c96a0"
NEW_COLOUR = "#3d7ec9"
SLOWER_COLOUR = "#c0392b"
FASTER_COLOUR = "#1e8449"
NS_PER_US = 1000.0
CHANGE_SHARE = 0.01  # a phase within 1 % of the base reads as unchanged (no colour)
TEXT_PAD = 6


def delta_text(base_us: float | None, new_us: float | None) -> str:
    """"+1.2 ms (+12 %)" for new − base; "—" when a run lacks the value."""
    if base_us is None or new_us is None:
        return "—"
    delta = new_us - base_us
    sign = "+" if delta > 0 else "−" if delta < 0 else "±"
    text = f"{sign}{format_duration(abs(delta) * NS_PER_US)}"
    if base_us:
        text += f" ({sign}{abs(delta) / base_us:.0%})"
    return text


def _us_text(value_us: float | None) -> str:
    return "—" if value_us is None else format_duration(value_us * NS_PER_US)


def change_colour(base_us: float | None, new_us: float | None) -> str | None:
    """Red when the new run takes longer, green when shorter, None within :data:`CHANGE_SHARE`."""
    if base_us is None or new_us is None or abs(new_us - base_us) <= CHANGE_SHARE * max(abs(base_us), 1e-9):
        return None
    return SLOWER_COLOUR if new_us > base_us else FASTER_COLOUR


class PhaseBars(QtWidgets.QWidget):
    """Paints :func:`paired_bars` rows; its height follows the rows (put it in a scroll area)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[PhaseValues] = []
        self.bars: list[PairedBar] = []
        self.setMinimumWidth(LABEL_W + VALUE_W + 100)

    def set_rows(self, rows: list[PhaseValues]) -> None:
        self.rows = list(rows)
        self._layout()

    def _layout(self) -> None:
        self.bars, height = paired_bars(self.rows, self.width())
        self.setMinimumHeight(int(height) + 4)
        self.update()

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        self._layout()

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        text_colour = self.palette().color(QtGui.QPalette.ColorRole.WindowText)
        if not self.bars:
            p.setPen(text_colour)
            p.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter, "No step phases to compare.")
            return
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for bar in self.bars:
            for rect, colour in ((bar.base, BASE_COLOUR), (bar.new, NEW_COLOUR)):
                p.setBrush(QtGui.QColor(colour))
                p.drawRect(QtCore.QRectF(*rect))
        for bar in self.bars:
            p.setPen(text_colour)
            label = QtCore.QRectF(0, bar.label_y - 10, LABEL_W - TEXT_PAD, 20)
            p.drawText(label, QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter,
                       f"{bar.card} · {phase_title(bar.phase)}")
            x = max(bar.base.x + bar.base.w, bar.new.x + bar.new.w) + TEXT_PAD
            colour = change_colour(bar.base_us, bar.new_us)
            p.setPen(QtGui.QColor(colour) if colour else text_colour)
            p.drawText(QtCore.QRectF(x, bar.label_y - 10, VALUE_W, 20),
                       QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                       delta_text(bar.base_us, bar.new_us))

    def toolTipAt(self, y: float) -> str:
        """The values of the row at ``y`` (base, new, change)."""
        for bar in self.bars:
            if bar.base.y - 2 <= y <= bar.new.y + bar.new.h + 2:
                return (f"{bar.card} · {phase_title(bar.phase)}\nbase {_us_text(bar.base_us)}\n"
                        f"new {_us_text(bar.new_us)}\nchange {delta_text(bar.base_us, bar.new_us)}")
        return ""

    def event(self, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.ToolTip:
            text = self.toolTipAt(ev.pos().y())
            if text:
                QtWidgets.QToolTip.showText(ev.globalPos(), text, self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(ev)
