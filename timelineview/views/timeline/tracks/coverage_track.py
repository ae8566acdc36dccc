"""CoverageTrackItem: a summarised card's rows, each pixel shaded by the share of its time the row covers.

Per frame it asks the card's window source (``viewstate.timeline.window_source``) for the visible window at
one sample per pixel and paints the answer as one image row per lane, scaled to the lane's height. On the
card's header row it says what the rows are drawn from and what one sample stands for, so the shades are
never mistaken for slices.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.analysis.summaries.pyramid import FULL
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lane_layout import CARD, COVERAGE
from timelineview.viewstate.timeline.track_rows import COVERAGE_COLOURS

MIN_ALPHA = 70  # a sample with any covered time shows at least this faintly (as the derived lanes do)
ROW_PAD = 2
HEADER_X = 8  # the header text's left margin in the track area


def coverage_alpha(share: np.ndarray) -> np.ndarray:
    """Opacity per pixel: 0 where nothing ran, else :data:`MIN_ALPHA` .. 255 with the covered share."""
    share = share.astype(np.int32)
    return np.where(share > 0, MIN_ALPHA + share * (FULL - MIN_ALPHA) // FULL, 0).astype(np.uint8)


def header_text(card: CardView, resolution: str) -> str:
    """The card header's words: what the rows are, what one sample stands for, and the card's note."""
    text = f"{card.coverage_source.kind} · {resolution}"
    return f"{text} · {card.coverage_note}" if card.coverage_note else text


class CoverageTrackItem(CardTrackItem):
    """The coverage rows of one summarised card (none for a card with a trace)."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card, font_delta=0.0)
        self._rows: list[tuple[int, int, int]] = []  # (y, height, image row)
        self._argb = np.zeros((0, 0, 4), np.uint8)  # the pixels the image below shares
        self._image: QtGui.QImage | None = None
        self._header_at: tuple[int, int] | None = None  # (y, height) of the card's header row on screen
        self.header = ""  # what the last frame wrote on the card's header row
        self.resolution = ""  # what one sample of the last frame stands for
        self.sample_ns = 0.0  # the time one sample of the last frame stands for (0: exact)

    def frame_key(self) -> tuple:
        return (*self.ctx.view_key(), self.card.coverage_note)

    def _prepare(self) -> None:
        ctx, card = self.ctx, self.card
        self._rows, self._image, self._header_at = [], None, None
        source = card.coverage_source
        width = ctx.area.width
        if source is None or width <= 0:
            return
        t0, t1 = ctx.abs_window(card)
        visible = ctx.visible_rows(card.number)
        rows = [r for r in visible if r.kind == COVERAGE]
        first = min((r.source_row for r in rows), default=0)
        stop = max((r.source_row + 1 for r in rows), default=0)
        answer = source.coverage(t0, t1, width, slice(first, stop))
        self.resolution, self.sample_ns = answer.resolution, answer.sample_ns
        self.header = header_text(card, answer.resolution)
        row = next((r for r in visible if r.kind == CARD), None)
        if row is not None:
            self._header_at = (int(ctx.scene_y(row.y)), row.height)
        if not rows:
            return
        argb = np.zeros((len(rows), width, 4), np.uint8)
        theme = ctx.theme
        for i, r in enumerate(rows):
            key = COVERAGE_COLOURS.get(r.title)
            c = theme.derived[key] if key is not None else theme.summary
            argb[i, :, 0], argb[i, :, 1], argb[i, :, 2] = c.blue(), c.green(), c.red()  # ARGB32 is BGRA in memory
            argb[i, :, 3] = coverage_alpha(answer.share[r.source_row - first])
            self._rows.append((int(ctx.scene_y(r.y)), r.height, i))
        self._argb = argb  # kept alive while the image shares it
        self._image = QtGui.QImage(argb.data, width, len(rows), 4 * width, QtGui.QImage.Format.Format_ARGB32)

    def _draw(self, p: QtGui.QPainter) -> None:
        left, width = self.ctx.area.left, self.ctx.area.width
        if self._image is not None:
            for y, h, i in self._rows:
                p.drawImage(QtCore.QRect(left, y + ROW_PAD, width, h - 2 * ROW_PAD), self._image,
                            QtCore.QRect(0, i, width, 1))
        if self._header_at is not None:
            y, h = self._header_at
            p.setFont(self.labels.font)
            p.setPen(self.ctx.theme.text)
            room = width - 2 * HEADER_X
            elided = self.labels.metrics.elidedText(self.header, QtCore.Qt.TextElideMode.ElideRight, room)
            p.drawText(QtCore.QRect(left + HEADER_X, y, room, h), QtCore.Qt.AlignmentFlag.AlignVCenter, elided)
