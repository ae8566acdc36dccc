"""DetailsPanel: the bottom panel, showing the selected slice or the selected area."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from timelineview.views.panels.area_stats import AreaStats
from timelineview.views.panels.slice_details import SliceDetails
from timelineview.views.timeline.tracks import registry
from timelineview.views.timeline.widget import TimelineWidget
from timelineview.viewstate.timeline.selection import current_selection

HINT = ("Click a slice to see its details. Drag across lanes to select an area and see its "
        "statistics. Press ? for all shortcuts.")


class DetailsPanel(QtWidgets.QStackedWidget):
    """Follows the timeline's selection: a hint, slice details, or area statistics."""

    def __init__(self, timeline: TimelineWidget, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline = timeline
        self.hint = QtWidgets.QLabel(HINT)
        self.hint.setWordWrap(True)
        self.hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.hint.setEnabled(False)
        self.slice = SliceDetails()
        self.area = AreaStats()
        for w in (self.hint, self.slice, self.area):
            self.addWidget(w)
        self.slice.jumpRequested.connect(self._jump_to_slice)
        self.area.nameActivated.connect(self._highlight_name)
        timeline.selectionChanged.connect(self.refresh)  # slice, instant and area alike: one refresh each

    def _jump_to_slice(self, card: int, index: int) -> None:
        """A flow's other end, selected and shown; the keys go to the timeline again (the button clicked
        goes with the details it was part of, and the keyboard focus with it)."""
        self.timeline.select_slice(card, index, reveal=True)
        self.timeline.setFocus()

    def _highlight_name(self, card: int, name: str, t0: int, t1: int, lanes) -> None:
        """From a per-name row back to the timeline: that name's slices highlighted, the area and its
        statistics kept (selecting the first would show its details instead); Enter steps through them."""
        self.timeline.highlight_name(card, name, t0, t1, lanes, select=False)
        self.timeline.setFocus()

    def sizeHint(self) -> QtCore.QSize:
        # the dock opens at this height: the timeline keeps most of the window
        return QtCore.QSize(900, 240)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(300, 120)

    def refresh(self) -> None:
        """Show what is selected through its lane kind's details view (the track registry's entry), or the
        whole cards' metrics when nothing is."""
        ctx = self.timeline.ctx
        sel = current_selection(ctx)
        if sel is not None:
            self.setCurrentWidget(registry.details_of(sel)(self, ctx, sel))
        elif ctx.cards:
            self.area.show_overview(ctx.cards)
            self.setCurrentWidget(self.area)
        else:
            self.setCurrentWidget(self.hint)
