"""CriticalPathView: what each step waits for across the cards, and what a change would buy (metrics.md §12).

Top: the what-ifs the session computed (one per anomaly, the top op types), with the mean step time now,
predicted, and the gain. Under them, the chosen step as measured and as the chosen what-if predicts it,
two lanes per card. Below: the step's critical path, its segments in time order (card, kind, operator,
start, length, share of the step, and of a compute block how much the card computed and how much were
dispatch gaps); choosing a step outlines its path's slices on the timeline, clicking a
segment shows it there. Every number comes from the session; the tab only displays.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.critical_path.document import block_split, steps_on_path
from timelineview.analysis.critical_path.slots import KIND_WORDS, kind_of_name
from timelineview.views.analysis_tabs.path_on_timeline import show_path
from timelineview.views.analysis_tabs.what_if_strip import WhatIfStrip
from timelineview.viewstate.jump_target import JumpTarget

SEGMENT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
NS_PER_US = 1000
CHANGE_ROWS_SHOWN = 10  # what-ifs in view before the list scrolls (the list is as tall as its rows up to this)
STRIP_VIEW_H = 240  # px of the what-if strip in view before it scrolls
DISPATCH_GAPS_WORD = "dispatch gaps"
PATH_COLUMNS = ["Card", "Kind", "Operator", "From step start (ms)", "Length (ms)", "Share", "Computing (ms)",
                "Dispatch gaps (ms)"]


def kind_label(segment: dict) -> str:
    """How the path table names a segment's kind: a pipeline's send or receive is not a collective (the path
    counts it with them: an operator that ends when its members, here its pair, have arrived); a compute
    block that is mostly dispatch gaps is named for them (the card mostly waited for launches there)."""
    if segment["kind"] == "collective":
        return KIND_WORDS[kind_of_name(segment.get("name") or "")]
    if segment["kind"] == "compute" and segment.get("dispatch_gap_us", 0.0) > segment.get("compute_us", 0.0):
        return DISPATCH_GAPS_WORD
    return segment["kind"].replace("_", " ")


def block_cells(segment: dict) -> tuple[str, str]:
    """The table's "Computing" and "Dispatch gaps" cells (ms) of a compute block; blank for other kinds."""
    if segment["kind"] != "compute" or "compute_us" not in segment:
        return "", ""
    return f"{segment['compute_us'] / 1000:.3f}", f"{segment['dispatch_gap_us'] / 1000:.3f}"


def path_split_text(segments: list[dict]) -> str:
    """How much of a path's compute blocks the cards computed and how much were dispatch gaps (ms)."""
    split = block_split(segments)
    return (f"Compute blocks on the path: computing {split.compute_us / 1000:.3f} ms, "
            f"dispatch gaps {split.dispatch_gap_us / 1000:.3f} ms")


class CriticalPathView(QtWidgets.QWidget):
    """What-ifs above, the chosen step's critical path below."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget
    pathChosen = QtCore.Signal(object, bool)  # a critical_path item (None: none), and whether to zoom to it

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[dict] = []
        self.what_if: list[dict] = []
        self.predicted: list[list[float]] = []  # per what-if, the predicted time of each step (µs)
        self._cards: dict[str, int] = {}
        self.result = None  # the session's CriticalPathResult (its replays draw the strip)
        self.summary = QtWidgets.QLabel("No trace open.")
        self.summary.setWordWrap(True)
        self.changes = QtWidgets.QTreeWidget()
        self.changes.setHeaderLabels(["Change", "Step now (ms)", "Predicted (ms)", "Gain (ms)"])
        self.changes.setRootIsDecorated(False)
        self.changes.currentItemChanged.connect(lambda *_: self._what_if_chosen())
        self.strip = WhatIfStrip()
        self.step_choice = QtWidgets.QComboBox()
        self.step_choice.currentIndexChanged.connect(self._show_step)
        self.step_choice.activated.connect(lambda k: self.show_path(k))
        self.on_timeline = QtWidgets.QPushButton("Show the path on the timeline")
        self.on_timeline.setToolTip("Outline the slices of this step's critical path and show the step in the "
                                    "Timeline tab")
        self.on_timeline.clicked.connect(lambda: self.show_path(self.step_choice.currentIndex(), zoom=True))
        self.shares = QtWidgets.QLabel()
        self.shares.setWordWrap(True)
        self.path = QtWidgets.QTreeWidget()
        self.path.setHeaderLabels(PATH_COLUMNS)
        self.path.setRootIsDecorated(False)
        self.path.itemActivated.connect(lambda item, _col: self.open_segment(self.path.indexOfTopLevelItem(item)))
        self.path.itemClicked.connect(lambda item, _col: self.open_segment(self.path.indexOfTopLevelItem(item)))
        lower = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(lower)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Critical path of"))
        row.addWidget(self.step_choice)
        row.addWidget(self.on_timeline)
        row.addStretch(1)
        ll.addLayout(row)
        ll.addWidget(self.shares)
        ll.addWidget(self.path, 1)
        self.strip_scroll = QtWidgets.QScrollArea()
        self.strip_scroll.setWidget(self.strip)
        self.strip_scroll.setWidgetResizable(True)
        self.split = split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.changes)
        split.addWidget(self.strip_scroll)
        split.addWidget(lower)
        # a resized window grows or shrinks the path table: the strip keeps the height its lanes were given
        # (it was squeezed under its second card's predicted lane when the window got smaller)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 0)
        split.setStretchFactor(2, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """The session's critical path and what-ifs for the cards shown."""
        self._cards = {c.card: c.number for c in data.cards}
        try:
            result = data.session.critical_path
            doc = result.document()
        except Exception as exc:  # an analysis that failed must not take the viewer down
            self.set_document({"critical_path": [], "what_if": []}, f"The critical path could not be computed: {exc}")
            return
        self.result = result
        self.set_document(doc, predicted=[(w.predicted_step_ns / NS_PER_US).tolist() for w in result.what_if])
        if self.what_if:  # the what-if that gains most is drawn beside the measured step at once
            best = max(range(len(self.what_if)), key=lambda n: self.what_if[n]["gain_us"])
            self.changes.setCurrentItem(self.changes.topLevelItem(best))

    def attach(self, cluster_tab) -> None:
        """Draw the chosen step's path on the timeline of the window ``cluster_tab`` belongs to."""
        self.pathChosen.connect(lambda step, zoom: show_path(cluster_tab, step, zoom))

    def show_note(self, text: str) -> None:
        self.summary.setText(text)

    def clear(self) -> None:
        self._cards = {}
        self.result = None
        self.set_document({"critical_path": [], "what_if": []}, "No trace open.")

    def status_text(self) -> str:
        return ""

    def wants_focus(self) -> bool:
        return False

    # ------------------------------------------------------------------ content
    def set_document(self, doc: dict, note: str = "", predicted: list[list[float]] | None = None) -> None:
        """Show the ``critical_path`` and ``what_if`` parts of a stats document; ``predicted``: per what-if,
        each step's predicted time (µs), shown beside the measured one for the chosen what-if."""
        self.steps, self.what_if = list(doc["critical_path"]), list(doc["what_if"])
        self.predicted = list(predicted or [])
        self.pathChosen.emit(None, False)  # the path of an earlier load is no longer on the timeline
        self.changes.clear()
        for w in self.what_if:
            self.changes.addTopLevelItem(QtWidgets.QTreeWidgetItem([
                w["change"], f"{w['step_us_now'] / 1000:.3f}", f"{w['step_us_predicted'] / 1000:.3f}",
                f"{w['gain_us'] / 1000:.3f}"]))
        for col in range(self.changes.columnCount()):
            self.changes.resizeColumnToContents(col)
        self._share_height()
        self.step_choice.blockSignals(True)
        self.step_choice.clear()
        self.step_choice.addItems(["" for _ in self.steps])
        self.step_choice.blockSignals(False)
        self._label_steps()
        if note:
            self.summary.setText(note)
        elif not self.steps:
            self.summary.setText("No critical path: it needs steps every card holds with the same collectives.")
        else:
            on_path = ", ".join(f"{card} in {n} of {len(self.steps)} steps"
                                for card, n in list(steps_on_path(self.steps).items())[:4])
            self.summary.setText(f"On the critical path: {on_path}. What-ifs replay each step's dependency graph with "
                                 "one change (mean step time over the steps); below, the chain of work that bounds "
                                 "a step. Click a segment to see it in the timeline.")
        self._show_step(0 if self.steps else -1)

    def step_label(self, k: int) -> str:
        """Step ``k`` as measured, and as the chosen what-if predicts it."""
        s = self.steps[k]
        text = f"step {s['step']} ({s['step_us'] / 1000:.3f} ms"
        w = self.chosen_what_if()
        if 0 <= w < len(self.predicted) and k < len(self.predicted[w]):
            text += f"; {self.predicted[w][k] / 1000:.3f} ms if {self.what_if[w]['change']}"
        return text + ")"

    def chosen_what_if(self) -> int:
        """Row of the chosen what-if, -1 when none."""
        item = self.changes.currentItem()
        return self.changes.indexOfTopLevelItem(item) if item is not None else -1

    def _what_if_chosen(self) -> None:
        self._label_steps()
        self._draw_strip()

    def _draw_strip(self) -> None:
        """The chosen step as measured and as the chosen what-if predicts it."""
        k, w = self.step_choice.currentIndex(), self.chosen_what_if()
        result = self.result
        if result is None or result.graph is None or not 0 <= k < len(self.steps) or w < 0:
            self.strip.set_lanes([], None, None, "", [])
            return
        g = result.graph
        target = self.what_if[w].get("target") or ""
        first = [g.cards.index(target)] if target in g.cards else []
        first += [g.cards.index(c) for c in self.steps[k]["cards"] if c in g.cards]
        self.strip.set_lanes(g.cards, result.step_lanes(k), result.step_lanes(k, w), self.what_if[w]["change"], first)
        self._share_height()

    def _changes_height(self) -> int:
        """The what-if list's height for its rows, up to ``CHANGE_ROWS_SHOWN`` of them."""
        rows = min(max(len(self.what_if), 1), CHANGE_ROWS_SHOWN)
        row_h = self.changes.sizeHintForRow(0) if self.what_if else self.fontMetrics().height() + 4
        return self.changes.header().sizeHint().height() + rows * row_h + 2 * self.changes.frameWidth() + 4

    def _share_height(self) -> None:
        """The what-ifs as tall as their rows, the strip as tall as its lanes (up to ``STRIP_VIEW_H``), the
        path the rest."""
        total = self.split.height()
        if total <= 0:
            return
        list_h = self._changes_height()
        strip_h = min(self.strip.sizeHint().height() + 4, STRIP_VIEW_H)
        self.split.setSizes([list_h, strip_h, max(total - list_h - strip_h, 0)])

    def showEvent(self, ev: QtGui.QShowEvent) -> None:
        super().showEvent(ev)
        self._share_height()  # (a hidden tab's height is not its own)

    def show_path(self, k: int, zoom: bool = False) -> None:
        """Outline step ``k``'s path on the timeline (``zoom``: and show the step there)."""
        if 0 <= k < len(self.steps):
            self.pathChosen.emit(self.steps[k], zoom)

    def _label_steps(self) -> None:
        for k in range(min(self.step_choice.count(), len(self.steps))):
            self.step_choice.setItemText(k, self.step_label(k))

    def _show_step(self, k: int) -> None:
        self.path.clear()
        self.shares.clear()
        self._draw_strip()
        self.on_timeline.setEnabled(0 <= k < len(self.steps) and bool(self._cards))
        if not 0 <= k < len(self.steps):
            return
        s = self.steps[k]
        top = ", ".join(f"{name} {100 * v:.0f} %" for name, v in list(s["share_by_op_type"].items())[:5])
        cards = ", ".join(f"{name} {100 * v:.0f} %" for name, v in s["share_by_card"].items())
        self.shares.setText(f"Cards on the path: {cards}\nOp types on the path: {top}\n"
                            f"{path_split_text(s['segments'])}")
        since_start_us = 0.0  # the segments tile the step, each on its own card's clock: count from the start
        for seg in s["segments"]:
            self.path.addTopLevelItem(QtWidgets.QTreeWidgetItem([
                seg["card"] or "", kind_label(seg), seg["name"],
                f"{since_start_us / 1000:.3f}", f"{seg['dur_us'] / 1000:.3f}", f"{100 * seg['share']:.1f} %",
                *block_cells(seg)]))
            since_start_us += seg["dur_us"]
        for col in range(self.path.columnCount()):
            self.path.resizeColumnToContents(col)

    def open_segment(self, j: int) -> JumpTarget | None:
        """Ask the window to show segment ``j`` of the chosen step; returns the target sent."""
        k = self.step_choice.currentIndex()
        if not 0 <= k < len(self.steps) or not 0 <= j < len(self.steps[k]["segments"]):
            return None
        seg = self.steps[k]["segments"][j]
        number = self._cards.get(seg["card"] or "")
        if number is None:
            return None
        start = int(seg["start_ns"])
        end = start + max(int(round(seg["dur_us"] * NS_PER_US)), 1)
        target = JumpTarget(number, start, end, None, seg["name"] or None)
        self.jumpRequested.emit(target)
        return target
