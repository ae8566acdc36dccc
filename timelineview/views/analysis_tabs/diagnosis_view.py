"""DiagnosisView: the findings of the loaded cards, walked in the order of the tuning method.

Anomalies (a card, a link or a step that stands out from its peers) come first, then where the
job's time goes (shares of the step, true of many healthy jobs). Each finding shows its kind, its
severity, where it is, the step of the method it belongs to, its value
against its reference and its advice; clicking one (or its evidence) shows that evidence in the
timeline: the card, the span, the lane or the operator.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.findings import Finding
from timelineview.analysis.findings.records import cards_words, fmt_us
from timelineview.analysis.findings.rules import ANOMALY, HIGH, LOW, MEDIUM
from timelineview.views.analysis_tabs.tab_inputs import TabCard, TabSession
from timelineview.viewstate.jump_target import JumpTarget
from timelineview.viewstate.tabs.finding_value import finding_value_text

NS_PER_MS = 1e6

SEVERITY_COLOURS = {HIGH: "#c0392b", MEDIUM: "#d68910", LOW: "#7f8c8d"}
EVIDENCE_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
EVIDENCE = "Evidence, in time order (click to {click}{note}):"  # what a click does, as the data shown says
# The value beside the finding's name: it is what a reader compares, so no width cuts it off; the method's
# long step names come after it.
COLUMNS = ("Severity", "Finding", "Value", "Saves a step", "Where", "Method step", "Kind")
VALUE_COLUMN = COLUMNS.index("Value")
LIST_SHARE = 0.6  # of the tab's width, for the findings (the advice wraps in what is left)
CARDS_SHOWN = 4  # cards named in a finding's row; the rest are counted


class DiagnosisView(QtWidgets.QWidget):
    """Findings, anomalies first, then by the step time fixing them saves (metrics.md §12), then by severity:
    a list on the left, the chosen one's advice, cost and evidence on the right."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget
    countChanged = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.findings: list[Finding] = []
        self._cards: dict[str, tuple[int, int]] = {}  # card label -> (number, t_origin ns)
        self.click_opens = "see it in the timeline"  # what clicking evidence does (the data shown says)
        self.summary = QtWidgets.QLabel("No trace open.")
        self.summary.setWordWrap(True)
        self.list = QtWidgets.QTreeWidget()
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAlternatingRowColors(True)
        self.list.currentItemChanged.connect(self._show_current)
        self.list.itemActivated.connect(lambda item, _col: self.open_evidence(self._index(item), 0))
        self.advice = QtWidgets.QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.advice.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop)
        self.evidence = QtWidgets.QListWidget()
        self.evidence.itemActivated.connect(self._evidence_activated)
        self.evidence.itemClicked.connect(self._evidence_activated)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.addWidget(self.advice)
        self.evidence_label = QtWidgets.QLabel(EVIDENCE.format(click="see it in the timeline", note=""))
        self.evidence_label.setWordWrap(True)
        rl.addWidget(self.evidence_label)
        rl.addWidget(self.evidence, 1)
        self.split = split = QtWidgets.QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self._split_set = False  # the list's share is set once, at the first width; then the user's
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)

    def showEvent(self, ev: QtGui.QShowEvent) -> None:
        super().showEvent(ev)
        self._share_width()

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        self._share_width()

    def _share_width(self) -> None:
        """The list's share of the width, once the tab is first on screen (a hidden tab's width is not its own)."""
        width = self.split.width()
        if not self._split_set and width > 0 and self.isVisible():
            self._split_set = True
            self.split.setSizes([int(width * LIST_SHARE), width - int(width * LIST_SHARE)])

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """The session's findings (computed by the session), for the cards shown; the same rules over the
        traces or over a summary folder's summaries."""
        self.evidence_label.setText(EVIDENCE.format(click=data.click_opens, note=data.without_slices))
        self.click_opens = data.click_opens
        self._show(data.session, data.cards)

    def show_note(self, text: str) -> None:
        self.summary.setText(text)

    def _show(self, session: TabSession, cards: list[TabCard]) -> None:
        self._cards = {c.card: (c.number, c.t_origin) for c in cards}
        try:
            findings = list(session.findings)
        except Exception as exc:  # a diagnosis that failed must not take the viewer down
            self.set_findings([], f"The diagnosis could not be computed: {exc}")
            return
        self.set_findings(findings)

    def clear(self) -> None:
        self._cards = {}
        self.set_findings([], "No trace open.")

    def status_text(self) -> str:
        n = len(self.findings)
        return f"{n} finding{'s' if n != 1 else ''}" if n else ""

    def wants_focus(self) -> bool:
        return bool(self.findings)

    # ------------------------------------------------------------------ content
    def set_findings(self, findings: list[Finding], note: str = "") -> None:
        self.findings = list(findings)
        self.list.clear()
        for f in self.findings:
            where = cards_words(f.cards, CARDS_SHOWN) + (f", step {f.step}" if f.step is not None else "")
            value = finding_value_text(f.metric, f.value, f.reference)
            gain = f.cost.gain_us if f.cost is not None else None  # what the what-if answering it saves
            saves = fmt_us(gain) if gain is not None else ""  # as the advice words it: "saves 16.8 ms"
            item = QtWidgets.QTreeWidgetItem([f.severity, f.rule.replace("_", " "), value, saves, where, f.method,
                                              f.kind])
            if f.cost is not None and f.cost.words():
                item.setToolTip(COLUMNS.index("Saves a step"), f.cost.words())
            item.setToolTip(VALUE_COLUMN, value)
            item.setForeground(0, QtGui.QBrush(QtGui.QColor(SEVERITY_COLOURS.get(f.severity, "#000"))))
            if f.kind == ANOMALY:  # the rule's name in bold: a card, a link or a step that stands out
                font = item.font(1)
                font.setBold(True)
                item.setFont(1, font)
            self.list.addTopLevelItem(item)
        for col in range(self.list.columnCount()):
            self.list.resizeColumnToContents(col)
        if note:
            self.summary.setText(note)
        elif not self.findings:
            self.summary.setText("No findings: no rule of the tuning method fired on these cards.")
        else:
            anomalies = sum(f.kind == ANOMALY for f in self.findings)
            named = f"{anomalies} anomal{'y' if anomalies == 1 else 'ies'}"
            self.summary.setText(f"{len(self.findings)} finding(s): {named} "
                                 "(a card, link or step that stands out; about 1 % of healthy runs name one by "
                                 "chance) first, then where the time goes; in each, those a what-if prices by "
                                 "the step time fixing them saves (largest first), then by severity. "
                                 f"Click one for its advice; click its evidence to {self.click_opens}.")
        self.advice.clear()
        self.evidence.clear()
        if self.findings:
            self.list.setCurrentItem(self.list.topLevelItem(0))
        self.countChanged.emit(len(self.findings))

    def _index(self, item: QtWidgets.QTreeWidgetItem | None) -> int:
        return self.list.indexOfTopLevelItem(item) if item is not None else -1

    def _show_current(self, item: QtWidgets.QTreeWidgetItem | None, _previous=None) -> None:
        k = self._index(item)
        self.evidence.clear()
        if k < 0:
            self.advice.clear()
            return
        f = self.findings[k]
        cost = f.cost.words() if f.cost is not None else ""
        self.advice.setText(f"{f.rule.replace('_', ' ')} — {f.method}\n\n{f.advice}"
                            + (f"\n\nWhat it costs: {cost}." if cost else ""))
        order = {card: i for i, card in enumerate(f.cards)}
        shown = sorted(range(len(f.evidence)),  # by card, then in time order (the finding lists the worst first)
                       key=lambda j: (order.get(f.evidence[j].card, len(order)), f.evidence[j].card,
                                      f.evidence[j].start_ns))
        for j in shown:
            e = f.evidence[j]
            what = e.name or e.lane or ""
            origin = self._cards[e.card][1] if e.card in self._cards else 0  # shown from the card's start
            text = (f"{e.card}: {(e.start_ns - origin) / NS_PER_MS:.3f} – {(e.end_ns - origin) / NS_PER_MS:.3f} ms"
                    + (f"  ({what})" if what else ""))
            row = QtWidgets.QListWidgetItem(text)
            row.setData(EVIDENCE_ROLE, (k, j))
            self.evidence.addItem(row)

    def _evidence_activated(self, item: QtWidgets.QListWidgetItem) -> None:
        k, j = item.data(EVIDENCE_ROLE)
        self.open_evidence(k, j)

    def open_evidence(self, k: int, j: int = 0) -> JumpTarget | None:
        """Ask the window to show evidence ``j`` of finding ``k``; returns the target sent."""
        if not 0 <= k < len(self.findings) or not 0 <= j < len(self.findings[k].evidence):
            return None
        e = self.findings[k].evidence[j]
        if e.card not in self._cards:
            return None
        number, origin = self._cards[e.card]
        target = JumpTarget.from_evidence(number, origin, e.document())
        self.jumpRequested.emit(target)
        return target
