"""CommunicationView: the links of the loaded cards as a rank × rank matrix and their communication
operators as tables (docs/metrics.md §6); a click on a cell or a row shows that operator's span on
the timeline with the card's HCCL plane lanes open.

The matrix shows the cluster's links (for one card: its own); the table shows one card's operators,
or each collective across the cards with every card's wait: the card that waits least is the one
the others wait for.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets

from timelineview.analysis.vocabulary import label
from timelineview.views.analysis_tabs.column_choice import ColumnChoice
from timelineview.views.analysis_tabs.communication.matrix_widget import MatrixWidget
from timelineview.views.analysis_tabs.record_table import (
    COUNT,
    SHARE,
    TEXT,
    TIME_US,
    RecordColumn,
    RecordTableModel,
    RefitOnResize,
    ask_and_export_csv,
    fit_columns,
    refill,
    sortable_table,
)
from timelineview.views.analysis_tabs.tab_inputs import TabCard, TabSession, scope_items
from timelineview.viewstate.jump_target import JumpTarget
from timelineview.viewstate.tabs.comm_matrix import ALL_TRANSPORTS, METRIC_TITLES, METRICS, transports_of
from timelineview.viewstate.tabs.comm_rows import (
    PRODUCER_KEYS,
    across_rows,
    all_planes_key,
    card_key,
    card_rows,
    has_main_plane,
    names_repeat,
    waited_for_note,
)
from timelineview.viewstate.tabs.comm_targets import collective_row, link_operator, operator_target

ACROSS = -1  # the table scope that lines the cards up per collective
CALL_KEY = "call_number"  # across cards: the call number, hidden where every name is called once
MAX_CARD_COLUMNS = 64  # per-card wait columns shown across cards (the CSV has them all)
# shown from the Columns menu: the table then reads without scrolling sideways
HIDDEN_BY_DEFAULT = ("tasks", *(f"all_planes_{k}" for k in ("transit_us", "synchronization_us", "idle_us",
                                                            "wait_ratio")))
NAME_WIDEST = 260  # px of the operator column; a longer name elides (its tooltip holds it whole)
SPREAD = 12  # px at most added to each column where the table has width to spare
MATRIX_SHARE, TABLE_SHARE = 2, 3  # how the tab's width is split: the table has more columns than the matrix
SHARE_PX = 400  # px per share of the first split (the splitter scales it to its width)
SHRUNK_CHARS = 8  # characters the metric box keeps in a narrow window
PANE_GAP = 6  # px between the matrix's pane and the table's, beside the splitter's handle
CARD_COLUMNS = (
    RecordColumn("name", "Operator", TEXT, "communication operator"),
    RecordColumn("step", "Step", COUNT, "step holding its start"),
    RecordColumn("elapse_us", label("elapse_us"), TIME_US, "its duration"),
    RecordColumn("plane", label("plane"), COUNT,
                 "N of its main Plane N: the lowest-numbered plane holding one of its waits (the master stream's). "
                 "Transit, Wait, Sync and Idle are measured there alone, as the producer's own communication table "
                 "(CommAnalyzerTime, communication.json) does; — where it has no wait task"),
    RecordColumn("transit_us", label("transit_us"), TIME_US,
                 "the producer's transit, on its main plane: summed durations of its SDMA copies (not on-chip), plus "
                 "each RDMA payload run up to the end of the notifies and waits that close it"),
    RecordColumn("wait_us", label("wait_us"), TIME_US,
                 "the producer's wait, on its main plane: summed durations of its Notify_Wait tasks (not those "
                 "closing an RDMA run)"),
    RecordColumn("synchronization_us", label("synchronization_us"), TIME_US,
                 "the producer's synchronization: the part of Wait before its first transit task", "Sync"),
    RecordColumn("idle_us", label("idle_us"), TIME_US,
                 "the producer's idle: elapse − Transit − Wait (tasks are not clipped to the operator: may be "
                 "negative)"),
    RecordColumn("wait_ratio", label("wait_ratio"), SHARE, "the producer's: Wait / (Wait + Transit)", "Wait\nratio"),
    RecordColumn(all_planes_key("transit_us"), label("all_planes_transit_us"), TIME_US,
                 "time moving data: the union of its transfer tasks over every plane", "All-planes\ntransit"),
    RecordColumn(all_planes_key("wait_us"), label("all_planes_wait_us"), TIME_US,
                 "Notify_Wait tasks not under a transfer, over every plane (the producer counts most of this "
                 "time as Idle)", "All-planes\nwait"),
    RecordColumn(all_planes_key("synchronization_us"), label("all_planes_synchronization_us"), TIME_US,
                 "the part of All-planes wait before its first transfer", "All-planes\nsync"),
    RecordColumn(all_planes_key("idle_us"), label("all_planes_idle_us"), TIME_US,
                 "neither transfer nor wait on any plane", "All-planes\nidle"),
    RecordColumn(all_planes_key("wait_ratio"), label("all_planes_wait_ratio"), SHARE,
                 "All-planes wait / (All-planes wait + All-planes transit)", "All-planes\nwait ratio"),
    RecordColumn("tasks", "Tasks", COUNT, "tasks on its plane lanes", "Plane\ntasks"),
)
# The producer's columns of CARD_COLUMNS, empty when no operator has a main plane.
MAIN_KEYS = frozenset(PRODUCER_KEYS)
PRODUCER_COLUMNS = tuple(k for k, c in enumerate(CARD_COLUMNS) if c.key in MAIN_KEYS)
ACROSS_HEAD = (
    RecordColumn("name", "Collective", TEXT, "matched across cards by name and call"),
    RecordColumn("call_number", "Call", COUNT, "the k-th call of that name on each card (1: its first); "
                 "shown when names repeat, e.g. a graph's operators every iteration"),
    RecordColumn("waited_for_card", "Waited for", TEXT, "the card the others wait for (a verdict: its lateness "
                 "stands out over the steps) where it waited least; — where nobody is"),
    RecordColumn("least_wait_us", "Least all-planes wait", TIME_US, "its all-planes wait (Notify_Wait tasks not "
                 "under a transfer, over every plane)", "Least\nall-planes wait"),
    RecordColumn("most_wait_us", "Most all-planes wait", TIME_US, "the longest all-planes wait of a card",
                 "Most\nall-planes wait"),
    RecordColumn("cards", "Cards", COUNT, "cards that ran it"),
)


def _shrinkable(box: QtWidgets.QComboBox) -> None:
    """``box`` as wide as its longest item where there is room, down to ``SHRUNK_CHARS`` (the text elided)
    in a narrow window: its bar then does not set the whole window's minimum width."""
    policy = box.sizeAdjustPolicy()
    box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(SHRUNK_CHARS)
    narrow = box.minimumSizeHint().width()
    box.setSizeAdjustPolicy(policy)
    box.setMinimumWidth(narrow)  # below its size hint: the layout shrinks it only where it must


class CommunicationView(QtWidgets.QWidget):
    """Matrix (metric, transport) on the left, the operator table (scope) on the right."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: TabSession | None = None
        self.cards: list[TabCard] = []
        self.cluster = None
        self.has_slices = True  # the data shown has plane lanes to open (a summary folder has none)
        self.cards_are = "loaded"
        self.note = QtWidgets.QLabel("No trace open.")
        self.note.setWordWrap(True)
        self.metric_box = QtWidgets.QComboBox()
        for m in METRICS:
            self.metric_box.addItem(f"colour by {METRIC_TITLES[m]}", m)
        _shrinkable(self.metric_box)
        self.transport = QtWidgets.QComboBox()
        self.matrix = MatrixWidget()
        self.matrix.cellClicked.connect(self.open_cell)
        self.metric_box.currentIndexChanged.connect(lambda _i: self.matrix.set_metric(self.metric_box.currentData()))
        self.transport.currentIndexChanged.connect(lambda _i: self.matrix.set_transport(self.transport.currentData()
                                                                                        or ALL_TRANSPORTS))
        self.scope = QtWidgets.QComboBox()
        self.scope.currentIndexChanged.connect(self.refresh_table)
        self.model = RecordTableModel(CARD_COLUMNS, self)
        self.proxy, self.table = sortable_table(self.model, self)
        self.table.clicked.connect(lambda index: self.open_row(self.proxy.mapToSource(index).row()))
        self.column_choice = ColumnChoice(self.table, self.model, HIDDEN_BY_DEFAULT, refit=self._fit_columns)
        RefitOnResize(self.table, self._fit_columns)
        csv_button = QtWidgets.QPushButton("Export CSV…")
        csv_button.clicked.connect(self._export_csv_dialog)
        png_button = QtWidgets.QPushButton("Export matrix PNG…")
        png_button.clicked.connect(self._export_png_dialog)
        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, PANE_GAP, 0)  # the splitter's panes: the tab's own margin is around them
        bar = QtWidgets.QHBoxLayout()
        for w in (self.metric_box, self.transport):
            bar.addWidget(w)
        bar.addStretch(1)
        ll.addLayout(bar)
        ll.addWidget(self.matrix, 1)
        foot = QtWidgets.QHBoxLayout()  # below the matrix: the boxes above keep the pane's width for their words
        foot.addStretch(1)
        foot.addWidget(png_button)
        ll.addLayout(foot)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(PANE_GAP, 0, 0, 0)
        rbar = QtWidgets.QHBoxLayout()
        rbar.addWidget(QtWidgets.QLabel("Operators of"))
        rbar.addWidget(self.scope)
        rbar.addStretch(1)
        rbar.addWidget(self.column_choice.button())
        rbar.addWidget(csv_button)
        rl.addLayout(rbar)
        rl.addWidget(self.table, 1)
        split = QtWidgets.QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, MATRIX_SHARE)
        split.setStretchFactor(1, TABLE_SHARE)
        split.setSizes([MATRIX_SHARE * SHARE_PX, TABLE_SHARE * SHARE_PX])  # scaled to the width it gets
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.note)
        lay.addWidget(split, 1)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """The communication of the data shown (links, slow links and collective waits over its cards, as
        its session computed them; each card's operators from its trace or its summary)."""
        self.has_slices, self.cards_are = data.has_slices, data.cards_are
        self._show(data.session, data.cards)

    def show_note(self, text: str) -> None:
        self.note.setText(text)

    def _show(self, session: TabSession, cards: list[TabCard]) -> None:
        self.session, self.cards = session, cards
        try:
            self.cluster = session.communication
        except Exception as exc:  # a failed analysis must not take the viewer down
            self.cluster = None
            self._reset(f"The communication analysis could not be computed: {exc}")
            return
        links = self.cluster.links
        ranks = np.array([c.rank for c in self.cards if c.rank is not None], dtype=np.int64)
        self.matrix.set_links(links, self.cluster.slow, ranks if len(links) else None)
        refill(self.transport, [("all transports", ALL_TRANSPORTS), *((t, t) for t in transports_of(links))])
        self.matrix.set_transport(ALL_TRANSPORTS)
        refill(self.scope, scope_items(self.cards, "all cards: all-planes wait per collective", ACROSS))
        self.note.setText(self._overview_text())
        self.refresh_table()

    def clear(self) -> None:
        self.session, self.cards, self.cluster = None, [], None
        self._reset("No trace open.")

    def status_text(self) -> str:
        n = len(self.cluster.slow_keys) if self.cluster is not None else 0
        return f"{n} slow link{'s' if n != 1 else ''}" if n else ""

    def wants_focus(self) -> bool:
        return False  # the findings name slow links; this tab is where their details are

    def _reset(self, note: str) -> None:
        from timelineview.analysis.communication import Links

        self.matrix.set_links(Links.empty(), np.zeros(0, bool))
        self.scope.clear()
        self.transport.clear()
        self.model.set_rows([], CARD_COLUMNS)
        self.note.setText(note)

    def _overview_text(self) -> str:
        c = self.cluster
        if c is None or not len(c.links):
            return "No transfers on the HCCL plane lanes of these cards (no plane tasks with ranks and sizes)."
        slow = c.slow_keys
        text = f"{len(c.links)} links between {len(self.matrix.ranks)} ranks. "
        text += f"Slow links: {', '.join(slow)} (red frames)." if slow else "No slow link."
        loaded = {c.rank for c in self.cards}
        missing = [int(r) for r in self.matrix.ranks if int(r) not in loaded]
        if missing:
            what = self.cards_are
            text += (f" {len(missing)} rank(s) not {what} (e.g. {missing[0]}): their rows show only what "
                     f"the {what} cards report.")
        if not self.has_slices:
            return text + (" Click a cell or a row to open the sending card from the summary (its plane lanes "
                           "need the trace).")
        return text + " Click a cell for the operator with that link's longest transfer; click a row for its span."

    # ------------------------------------------------------------------ table
    def _card_comm(self, number: int):
        return self.session.analyse(number, ("communication",)).communication

    def refresh_table(self) -> None:
        if self.session is None or self.scope.count() == 0:
            return
        number = self.scope.currentData()
        if number == ACROSS:
            waits = self.cluster.waits
            rows = across_rows(waits)
            cols = ACROSS_HEAD + tuple(RecordColumn(card_key(k), name, TIME_US, f"{name}'s all-planes wait")
                                       for k, name in enumerate(waits.cards[:MAX_CARD_COLUMNS]))
            self.model.set_rows(rows, cols)
            self.column_choice.apply(() if names_repeat(rows) else (CALL_KEY,))  # else 1 on every row
            self.note.setText(self._overview_text() + "\n" + waited_for_note(waits, len(rows)))
            self.table.sortByColumn(4, QtCore.Qt.SortOrder.DescendingOrder)  # the longest waits first
        else:
            rows = card_rows(self._card_comm(number))
            self.model.set_rows(rows, CARD_COLUMNS)
            producer = has_main_plane(rows)
            # without the producer's figures the all-planes ones are all there is: none starts hidden
            self.column_choice.hidden_by_default = frozenset(HIDDEN_BY_DEFAULT if producer else ("tasks",))
            self.column_choice.apply(() if producer else MAIN_KEYS)
            self.note.setText(self._overview_text())
            # longest wait first: the producer's, else (no main plane known) the all-planes one
            wait = [c.key for c in CARD_COLUMNS].index("wait_us" if producer else all_planes_key("wait_us"))
            self.table.sortByColumn(wait, QtCore.Qt.SortOrder.DescendingOrder)
        self._fit_columns()

    def _fit_columns(self) -> None:
        across = self.scope.currentData() == ACROSS
        fit_columns(self.table, alike_from=len(ACROSS_HEAD) if across else None,  # the cards' wait columns alike
                    widest=NAME_WIDEST, spread=SPREAD)

    # ------------------------------------------------------------------ jumps
    def _card(self, number: int | None):
        return next((c for c in self.cards if c.number == number), None)

    def _jump(self, number: int | None, op: int | None) -> JumpTarget | None:
        card = self._card(number)
        if card is None or op is None:
            return None
        cc = self._card_comm(card.number)
        if card.store is not None:
            target = operator_target(card.number, card.store, cc, op)
        else:  # a summarised card: the operator's span and name, no lane (the summary has no slices)
            ops = cc.ops
            start = int(ops.start[op])
            target = JumpTarget(card.number, start, start + max(int(ops.elapse[op]), 1), name=ops.name[op] or None)
        self.jumpRequested.emit(target)
        return target

    def open_row(self, row: int) -> JumpTarget | None:
        """Show the operator of model row ``row`` on the timeline; across cards, on the card waited for."""
        if not 0 <= row < len(self.model.rows):
            return None
        record = self.model.rows[row]
        number = self.scope.currentData()
        if number != ACROSS:
            return self._jump(number, record["op"])
        card = next((c for c in self.cards if c.card == record["waited_for_card"]), None)
        if card is None:
            return None
        cc = self._card_comm(card.number)
        return self._jump(card.number, collective_row(cc, record["name"], record["call"]) if cc else None)

    def open_cell(self, i: int, j: int) -> JumpTarget | None:
        """Show the operator holding the longest transfer of cell (i, j), on a sending card loaded."""
        m = self.matrix.current()
        srcs, dsts = m.ranks_of(i), m.ranks_of(j)
        by_rank = {c.rank: c for c in self.cards}
        senders = [by_rank[int(r)] for r in srcs if int(r) in by_rank] or list(self.cards)
        if not self.has_slices:  # a summary keeps no transfer tasks: the sending card, over its span
            if not senders:
                return None
            card = senders[0]
            target = JumpTarget(card.number, card.t_origin, card.t_end)
            self.jumpRequested.emit(target)
            return target
        for card in senders:
            cc = self._card_comm(card.number)
            op = link_operator(cc, srcs, dsts, self.matrix.transport) if cc is not None else None
            if op is not None:
                return self._jump(card.number, op)
        return None

    # ------------------------------------------------------------------ export
    def export_csv(self, path: Path) -> None:
        """The table as shown (every card's wait across cards)."""
        if self.scope.currentData() == ACROSS and self.cluster is not None:
            waits = self.cluster.waits
            full = RecordTableModel(ACROSS_HEAD + tuple(RecordColumn(card_key(k), name, TIME_US)
                                                        for k, name in enumerate(waits.cards)))
            full.set_rows(self.model.rows)
            Path(path).write_text(full.to_csv(), encoding="utf-8")
            return
        Path(path).write_text(self.model.to_csv(), encoding="utf-8")

    def export_png(self, path: Path) -> bool:
        return self.matrix.render_image().save(str(path))

    def _export_csv_dialog(self) -> None:
        ask_and_export_csv(self, "Export the operator table", "communication.csv", self.export_csv)

    def _export_png_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export the matrix", "communication.png",
                                                        "PNG (*.png)")
        if path:
            self.export_png(Path(path))
