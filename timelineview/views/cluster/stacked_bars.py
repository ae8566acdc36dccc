"""StackedBars: one horizontal bar per card, step interval | compute | pure communication | free after
the step interval (not the table's Free, which includes the step interval) | not captured (time between
the files of a per-iteration export), so a bar adds up to the step time.

Bars follow the table's row order and share one time axis, so the long card stands out. A bar
is one card or a group of cards (``comparison.group_rows``: the group's mean, a whisker from
its shortest to its longest step). Bars shrink to fit the height down to :data:`MIN_BAR_H`;
more bars than that make the widget taller than its scroll area. Slow cards get a red label and
an outline around the part that flagged them. ``render_image`` draws any bar list in full, for
the PNG export.
"""

from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import (
    BAR_PARTS,
    FREE_AFTER_INTERVAL,
    UNCAPTURED_AFTER_INTERVAL,
    slow_text,
)
from timelineview.views.cluster.comparison_table import SLOW_TEXT, slow_text_colour
from timelineview.viewstate.palette import DERIVED_COLOURS

MIN_BAR_H = 12
MAX_BAR_H = 26
LEGEND_H = 24
TITLE_H = 28  # the exported PNG's title line
AXIS_H = 22
PAD = 8
UNCAPTURED_COLOUR = (215, 215, 220)  # paler than free: nothing was recorded there, not even idleness
PART_COLOURS = {"step_interval_us": DERIVED_COLOURS["step_interval"], "compute_us": DERIVED_COLOURS["compute"],
                "pure_communication_us": DERIVED_COLOURS["pure_communication"],
                FREE_AFTER_INTERVAL: DERIVED_COLOURS["free"], UNCAPTURED_AFTER_INTERVAL: UNCAPTURED_COLOUR}
# the bar part each slow-card metric is about ("step time": the whole bar)
FLAGGED_PART = {"step_interval_us": "step_interval_us", "compute_us": "compute_us",
                "pure_communication_us": "pure_communication_us", "step_time_us": "all"}


def nice_step(span: float, target_ticks: int) -> float:
    """1/2/5 × 10^k close to span / target_ticks."""
    if span <= 0:
        return 1.0
    raw = span / max(target_ticks, 1)
    k = 10 ** math.floor(math.log10(raw))
    return next(m * k for m in (1, 2, 5, 10) if m * k >= raw)


class StackedBars(QtWidgets.QWidget):
    """The chart; ``set_rows`` takes comparison rows (with ``bar``) in display order."""

    barActivated = QtCore.Signal(object)  # double-click: the bar's card numbers
    barClicked = QtCore.Signal(object)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.div, self.unit = 1000.0, "ms"
        self.selected: set[int] = set()
        self.setMouseTracking(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)

    def set_rows(self, rows: list[dict], div: float, unit: str) -> None:
        self.rows, self.div, self.unit = list(rows), div, unit
        self.setMinimumHeight(self.height_for(len(self.rows), MIN_BAR_H))
        self.updateGeometry()
        self.update()

    def set_selected(self, numbers: list[int]) -> None:
        self.selected = set(numbers)
        self.update()

    @staticmethod
    def height_for(n: int, bar_h: int) -> int:
        return LEGEND_H + AXIS_H + n * bar_h + 2 * PAD

    def bar_height(self, height: int | None = None) -> int:
        n = max(len(self.rows), 1)
        avail = (height or self.height()) - self.height_for(0, 0)
        return int(max(MIN_BAR_H, min(MAX_BAR_H, avail // n)))

    @classmethod
    def bars_fitting(cls, viewport_h: int, bar_h: int = MIN_BAR_H) -> int:
        """How many bars of ``bar_h`` a viewport of ``viewport_h`` pixels shows at once."""
        return max(0, (viewport_h - cls.height_for(0, 0)) // bar_h)

    # ------------------------------------------------------------------ geometry
    def _geometry(self, width: int, height: int) -> tuple[int, int, int, float]:
        """(label width, bar area left, bar height, pixels per µs)."""
        fm = self.fontMetrics()
        label_w = max((fm.horizontalAdvance(self._label(r)) for r in self.rows), default=40) + 12
        left = PAD + label_w
        right = width - PAD - fm.horizontalAdvance("000.000 ms") - 6  # room for the total
        longest = max((sum(r["bar"].values()) for r in self.rows if r["bar"]), default=0.0)
        scale = (right - left) / longest if longest > 0 else 0.0
        return label_w, left, self.bar_height(height), scale

    def _label(self, r: dict) -> str:
        return r["card"] + ("  ▲" if r["slow"] else "")

    def row_at(self, y: float) -> int:
        _, _, bar_h, _ = self._geometry(self.width(), self.height())
        i = int((y - PAD - LEGEND_H) // bar_h)
        return i if 0 <= i < len(self.rows) and y >= PAD + LEGEND_H else -1

    # ------------------------------------------------------------------ painting
    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        self.paint_chart(p, self.width(), self.height(), self.palette())
        p.end()

    def paint_chart(self, p: QtGui.QPainter, width: int, height: int, pal: QtGui.QPalette) -> None:
        text, muted = pal.color(QtGui.QPalette.ColorRole.Text), pal.color(QtGui.QPalette.ColorRole.PlaceholderText)
        p.fillRect(0, 0, width, height, pal.color(QtGui.QPalette.ColorRole.Base))
        p.setFont(self.font())
        fm = QtGui.QFontMetrics(self.font())
        self._legend(p, fm, text, slow_text_colour(pal))
        if not self.rows:
            return
        label_w, left, bar_h, scale = self._geometry(width, height)
        top = PAD + LEGEND_H
        bottom = top + bar_h * len(self.rows)
        self._grid(p, fm, left, width, top, bottom, scale, muted)
        highlight = pal.color(QtGui.QPalette.ColorRole.Highlight)
        for i, r in enumerate(self.rows):
            y = top + i * bar_h
            if self.selected.intersection(self.members_of(r)):
                sel = QtGui.QColor(highlight)
                sel.setAlpha(50)
                p.fillRect(0, y, width, bar_h, sel)
            p.setPen(slow_text_colour(pal) if r["slow"] else (muted if r["error"] else text))
            font = QtGui.QFont(self.font())
            font.setBold(bool(r["slow"]))
            font.setPixelSize(max(min(fm.height(), bar_h) - 2, 8))
            p.setFont(font)
            p.drawText(QtCore.QRect(PAD, y, label_w - 8, bar_h),
                       QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter, self._label(r))
            if r["bar"] is None:
                note = QtGui.QFontMetrics(p.font()).elidedText(r["error"] or "no data",
                                                               QtCore.Qt.TextElideMode.ElideMiddle, width - left - PAD)
                p.drawText(QtCore.QRect(left, y, width - left, bar_h), QtCore.Qt.AlignmentFlag.AlignVCenter, note)
                continue
            self._bar(p, r, left, y, bar_h, scale, text)
        p.setFont(self.font())

    def _bar(self, p: QtGui.QPainter, r: dict, left: int, y: int, bar_h: int, scale: float,
             text: QtGui.QColor) -> None:
        gap = 1 if bar_h < 16 else 3
        x = float(left)
        flagged = {FLAGGED_PART.get(f["metric"]) for f in r["slow"]}
        outlines = []
        for key, _ in BAR_PARTS:
            w = r["bar"][key] * scale
            rect = QtCore.QRectF(x, y + gap, w, bar_h - 2 * gap)
            p.fillRect(rect, QtGui.QColor(*PART_COLOURS[key]))
            if key in flagged:
                outlines.append(rect)
            x += w
        if "all" in flagged:
            outlines.append(QtCore.QRectF(left, y + gap, x - left, bar_h - 2 * gap))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.setPen(QtGui.QPen(SLOW_TEXT, 2))
        for rect in outlines:
            p.drawRect(rect.adjusted(1, 1, -1, -1))
        spread = r.get("range_us")
        if spread is not None:  # a group: its shortest to its longest step
            cy = y + bar_h / 2
            x0, x1 = left + spread[0] * scale, left + spread[1] * scale
            p.setPen(QtGui.QPen(text, 1))
            p.drawLine(QtCore.QPointF(x0, cy), QtCore.QPointF(x1, cy))
            for xe in (x0, x1):
                p.drawLine(QtCore.QPointF(xe, cy - bar_h / 4), QtCore.QPointF(xe, cy + bar_h / 4))
            x = max(x, x1)
        p.setPen(text)
        total = sum(r["bar"].values()) / self.div
        p.drawText(QtCore.QRectF(x + 5, y, 200, bar_h), QtCore.Qt.AlignmentFlag.AlignVCenter,
                   f"{total:.3f} {self.unit}" if self.div > 1 else f"{total:.1f} {self.unit}")

    def _legend(self, p: QtGui.QPainter, fm: QtGui.QFontMetrics, text: QtGui.QColor, slow: QtGui.QColor) -> None:
        x = PAD
        cy = PAD + (LEGEND_H - 6) // 2
        p.setPen(text)
        for key, title in BAR_PARTS:
            p.fillRect(x, cy - 5, 12, 10, QtGui.QColor(*PART_COLOURS[key]))
            p.drawText(x + 16, cy - fm.height() // 2, fm.horizontalAdvance(title) + 4, fm.height(),
                       QtCore.Qt.AlignmentFlag.AlignVCenter, title)
            x += 16 + fm.horizontalAdvance(title) + 18
        p.setPen(slow)
        note = "▲ slow card (outlined: the part that flagged it)"
        p.drawText(x, cy - fm.height() // 2, fm.horizontalAdvance(note) + 4, fm.height(),
                   QtCore.Qt.AlignmentFlag.AlignVCenter, note)

    def _grid(self, p: QtGui.QPainter, fm: QtGui.QFontMetrics, left: int, width: int, top: int, bottom: int,
              scale: float, muted: QtGui.QColor) -> None:
        if scale <= 0:
            return
        span_us = (width - left - PAD) / scale
        step = nice_step(span_us / self.div, max((width - left) // 110, 2)) * self.div
        grid = QtGui.QColor(muted)
        grid.setAlpha(60)
        k = 0
        while k * step * scale <= width - left - PAD:
            x = left + k * step * scale
            p.fillRect(QtCore.QRectF(x, top, 1, bottom - top), grid)
            p.setPen(muted)
            p.drawText(QtCore.QRectF(x - 50, bottom + 2, 100, AXIS_H - 4), QtCore.Qt.AlignmentFlag.AlignHCenter
                       | QtCore.Qt.AlignmentFlag.AlignTop, f"{k * step / self.div:g} {self.unit}")
            k += 1

    # ------------------------------------------------------------------ export
    def render_image(self, bars: list[dict] | None = None, width: int = 1100, title: str = "") -> QtGui.QImage:
        """``bars`` (default: those shown) in full as an image, light palette, for the PNG export;
        ``title`` on a line above the chart (what it shows: a PNG is read away from the app)."""
        shown, selected = self.rows, self.selected
        self.rows, self.selected = (shown if bars is None else bars), set()
        try:
            title_h = TITLE_H if title else 0
            height = self.height_for(len(self.rows), 18)
            img = QtGui.QImage(width, height + title_h, QtGui.QImage.Format.Format_ARGB32)
            palette = QtWidgets.QApplication.style().standardPalette()
            p = QtGui.QPainter(img)
            p.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
            if title:
                p.fillRect(0, 0, width, title_h, palette.color(QtGui.QPalette.ColorRole.Base))
                font = QtGui.QFont(self.font())
                font.setBold(True)
                p.setFont(font)
                p.setPen(palette.color(QtGui.QPalette.ColorRole.Text))
                p.drawText(QtCore.QRect(PAD, 0, width - 2 * PAD, title_h), QtCore.Qt.AlignmentFlag.AlignVCenter, title)
                p.translate(0, title_h)
            self.paint_chart(p, width, height, palette)
            p.end()
        finally:
            self.rows, self.selected = shown, selected
        return img

    # ------------------------------------------------------------------ mouse
    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        i = self.row_at(ev.position().y())
        tip = self._tooltip(self.rows[i]) if i >= 0 else ""
        if tip != self.toolTip():
            self.setToolTip(tip)

    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:
        i = self.row_at(ev.position().y())
        if i >= 0 and ev.button() == QtCore.Qt.MouseButton.LeftButton:
            self.barClicked.emit(self.members(i))

    def mouseDoubleClickEvent(self, ev: QtGui.QMouseEvent) -> None:
        i = self.row_at(ev.position().y())
        if i >= 0:
            self.barActivated.emit(self.members(i))

    @staticmethod
    def members_of(r: dict) -> list[int]:
        return list(r.get("members") or [r["number"]])

    def members(self, i: int) -> list[int]:
        return self.members_of(self.rows[i])

    def _tooltip(self, r: dict) -> str:
        if r["bar"] is None:
            return f"{r['card']}: {r['error'] or 'no data'}"
        total = sum(r["bar"].values()) or 1.0
        lines = [f"{r['card']} — {r['window']} (no step markers)" if r.get("window") else
                 f"{r['card']} — step {r['step']}" if r["step"] is not None else f"{r['card']} — mean over steps"]
        if r.get("range_us") is not None:
            names = r["member_cards"]
            lines[0] += f", mean of {len(names)} cards"
            lines.append(", ".join(names[:24]) + (", …" if len(names) > 24 else ""))
            lines.append(f"step time from {r['range_us'][0] / self.div:.3f} to {r['range_us'][1] / self.div:.3f} "
                         f"{self.unit} (whisker)")
        for key, title in BAR_PARTS:
            v = r["bar"][key]
            lines.append(f"{title}: {v / self.div:.3f} {self.unit} ({v / total * 100:.1f} %)")
        lines.append("(compute, pure communication, free and not captured: after the step interval)")
        lines += [f"slow — {slow_text(f)}" for f in r["slow"]]
        lines.append("double-click: open " + ("their timelines" if len(self.members_of(r)) > 1 else "its timeline")
                     + " at that step")
        return "\n".join(lines)
