"""ClusterBar: the strip above a cluster's timeline — which cards are shown, the lane filter, the way back."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from timelineview.producers.wording import ASCEND_WORDING, DeviceWording
from timelineview.viewstate.timeline.lane_filter import ALL, lane_filters


class ClusterBar(QtWidgets.QFrame):
    """Shown when more than one card is loaded."""

    backRequested = QtCore.Signal()
    showAllRequested = QtCore.Signal()
    filterChanged = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(6, 3, 6, 3)
        self.back = QtWidgets.QPushButton("◀ Comparison")
        self.back.setToolTip("Back to the cluster comparison table")
        self.back.clicked.connect(self.backRequested)
        self.label = QtWidgets.QLabel()
        self.label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.label.setWordWrap(True)  # a narrow window: on two lines rather than cut
        self.all = QtWidgets.QPushButton("Show all cards")
        self.all.setToolTip("Every card of the cluster, time-aligned, keeping the visible window")
        self.all.clicked.connect(self.showAllRequested)
        self.filter = QtWidgets.QComboBox()
        self.filter.setToolTip("Keep one kind of lane across all cards: with one lane per card, "
                               "rows shrink so every card fits on the screen (Ctrl+L)")
        for key, title in lane_filters(ASCEND_WORDING):
            self.filter.addItem(title, key)
        self.filter.currentIndexChanged.connect(lambda i: self.filterChanged.emit(self.filter.itemData(i)))
        lay.addWidget(self.back)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.all)
        lay.addWidget(QtWidgets.QLabel("Lanes:"))
        lay.addWidget(self.filter)
        self.runs_text: str | None = None  # both runs of a comparison on the timeline: what they are

    def set_state(self, shown: list[str], total: int, step: int | None, source: str = "") -> None:
        """Say which of the ``total`` cards the timeline shows (``shown``: the titles of those among them;
        ``source``: where they are drawn from, when not their traces) and the one step on screen (None:
        several or none). Both runs on the timeline keep the words ``show_runs`` gave."""
        if self.runs_text is not None:
            text = self.runs_text
        elif len(shown) == total:
            text = f"All {total} cards, time-aligned"
        elif len(shown) <= 4:
            text = f"{', '.join(shown)} of {total} cards"
        else:
            text = f"{len(shown)} of {total} cards"
        if source:
            text += f", {source}"
        if step is not None:
            text += f" · step {step}"
        self.label.setText(text)
        self.all.setEnabled(self.runs_text is not None or len(shown) < total)

    def show_runs(self, text: str | None) -> None:
        """Both runs of a comparison are on the timeline (``text`` says which); None: one run again."""
        self.runs_text = text

    def set_wording(self, wording: DeviceWording) -> None:
        """Title the filters in the shown cards' words (``shared_wording``: a GPU run's gaps are idle GPU gaps)."""
        for i, (_, title) in enumerate(lane_filters(wording)):
            self.filter.setItemText(i, title)

    def lane_filter(self) -> str:
        return self.filter.currentData() or ALL

    def set_lane_filter(self, kind: str) -> None:
        i = self.filter.findData(kind)
        if i >= 0:
            self.filter.setCurrentIndex(i)
