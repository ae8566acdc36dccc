"""The timeline's state as its graphics items see it: the Qt-free ``ViewState`` plus the theme."""

from __future__ import annotations

from PySide6 import QtCore

from timelineview.model.load.partial_load import UnloadedSpan
from timelineview.views.theme import Theme
from timelineview.viewstate.timeline.view_state import AXIS_H, Rect, ViewState

__all__ = ["AXIS_H", "ViewContext", "qrect", "qrectf"]


class ViewContext(ViewState):
    """What every item of the timeline reads while painting; the widget owns and mutates it."""

    def __init__(self) -> None:
        super().__init__()
        self.theme = Theme.build(False)
        self.unloaded: UnloadedSpan | None = None  # the span a load in progress has not reached yet


def qrect(r: Rect) -> QtCore.QRect:
    return QtCore.QRect(r.left, r.top, r.width, r.height)


def qrectf(r: Rect) -> QtCore.QRectF:
    return QtCore.QRectF(r.left, r.top, r.width, r.height)
