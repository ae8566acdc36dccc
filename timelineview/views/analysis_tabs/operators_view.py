"""OperatorsView: the operator tables of one card or across the cards (docs/metrics.md §7, §7.1).

Sortable, filterable by name, exported as CSV; double-clicking an operator highlights its slices
on that card's timeline (the card with the largest total, across cards) and Enter steps through them.
Across the cards, operators compare by name, by op type or by shape (the session's tables).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets

from timelineview.analysis.cluster.op_types_across import OpTypeAcrossCards
from timelineview.analysis.cluster.slow_cards import MIN_CARDS_FOR_SLOW
from timelineview.analysis.findings.marks import (
    OperatorVerdict,
    median_span_ns,
    operator_reason,
    operator_verdicts,
)
from timelineview.analysis.kernels.peaks.chip_peaks import chip_peak
from timelineview.analysis.kernels.view_rows import SLICES, kernel_view_rows
from timelineview.analysis.operators import OperatorAcrossCards, operators_across_cards
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.views.analysis_tabs.op_types_across_rows import (
    MAX_CELLS,
    OP_TYPE_ACROSS_COLUMNS,
    SHAPE_ACROSS_COLUMNS,
    kind_row,
)
from timelineview.views.analysis_tabs.record_table import (
    COUNT,
    MARK_REASON,
    MARKED,
    NUMBER,
    RATIO,
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

ACROSS = -1  # the scope that compares the cards
NAME_WIDEST = 320  # px of the operator column; a longer name elides (its tooltip holds it whole)
SHAPES_WIDEST = 200  # px of each column by shape until the window has width to spare for the shapes
SHAPES = "input_shapes"
BY_NAME, BY_TYPE = "name", "task_type"
BY_OP_TYPE, BY_SHAPE = "op_type", "shape"  # metrics.md §7.1: the producer's op types, and their input shapes
CARD_COLUMNS = (
    RecordColumn("name", "Operator", TEXT, "compute tasks of this name"),
    RecordColumn("count", "Count", COUNT, "tasks"),
    RecordColumn("total_us", "Total", TIME_US, "sum of their durations"),
    RecordColumn("mean_us", "Mean", TIME_US, "total / count"),
    RecordColumn("min_us", "Min", TIME_US, "shortest"),
    RecordColumn("max_us", "Max", TIME_US, "longest"),
    RecordColumn("share", "Share", SHARE, "of the card's compute time (sum of durations)"),
)
TYPE_COLUMNS = (RecordColumn("task_type", "Task type", TEXT, "hardware task type"), *CARD_COLUMNS[1:])
FLOPS_COLUMNS = (
    RecordColumn("gflops", "GFLOPs", NUMBER, "floating-point operations of its tasks, 10⁹ (matrix products, "
                 "convolutions, FlashAttention; empty: a type no formula counts)"),
    RecordColumn("tflops", "TFLOPS", NUMBER, "achieved: FLOPs / total time, 10¹² per second"),
    RecordColumn("mfu", "MFU", SHARE, "achieved TFLOPS / the chip's peak (empty: no known peak)"),
)
OP_TYPE_COLUMNS = (
    RecordColumn("op_type", "Op type", TEXT, "the producer's operator type (op_statistic.csv's OP Type)"),
    RecordColumn("core_type", "Core", TEXT, "the unit its tasks run on"),
    *CARD_COLUMNS[1:], *FLOPS_COLUMNS,
)
SHAPE_COLUMNS = (
    RecordColumn("op_type", "Op type", TEXT, "the producer's operator type"),
    RecordColumn("input_shapes", "Input shapes", TEXT, "the shapes of its inputs, ';' between inputs"),
    RecordColumn("input_data_types", "Data types", TEXT, "of its inputs"),
    *CARD_COLUMNS[1:4],
    RecordColumn("p50_us", "Median", TIME_US, "median duration"),
    RecordColumn("p90_us", "p90", TIME_US, "90th percentile of the durations"),
    *CARD_COLUMNS[4:], *FLOPS_COLUMNS,
)
ACROSS_COLUMNS = (
    RecordColumn("name", "Operator", TEXT, "compute tasks of this name"),
    RecordColumn("mean_total_us", "Mean total", TIME_US, "its total per card, mean over all cards (0 where absent)"),
    RecordColumn("min_total_us", "Min total", TIME_US, "the smallest per-card total"),
    RecordColumn("max_total_us", "Max total", TIME_US, "the largest per-card total"),
    RecordColumn("max_card", "Max on", TEXT, "the card with the largest total"),
    RecordColumn("spread", "Max / mean", RATIO, "how far the slowest card is from the mean"),
    RecordColumn("cards", "Cards", COUNT, "cards that run it"),
    RecordColumn("verdict", "Why marked", TEXT, "a red max: the operator's total on that card stands out from the "
                 "other cards' (robust z corrected for operators × cards, at least 5 % of its median and 1 % of "
                 "the median card span)"),
)


def across_row(o: OperatorAcrossCards, verdict: OperatorVerdict | None) -> dict:
    """An operator's row across the cards: its document, max / mean, and its max cells marked when its
    total on the card with the max is a verdict (``findings.marks.operator_verdicts``)."""
    spread = o.max_total_ns / o.mean_total_ns if o.mean_total_ns else None
    reason = operator_reason(verdict) if verdict is not None else ""
    row = dict(o.document(), spread=spread, verdict=reason, max_card_name=o.max_card,
               **{MARKED: MAX_CELLS if verdict is not None else frozenset(), MARK_REASON: reason})
    tied = int(np.count_nonzero(o.per_card_ns == o.max_total_ns)) if o.per_card_ns is not None else 1
    if tied > 1:  # the max is shared: the first card is where a double-click goes, not the one credited
        row["max_card"] = f"{o.max_card} (+{tied - 1} tied)"
    return row


class OperatorsView(QtWidgets.QWidget):
    """Scope (a card, or across cards), grouping (by name, task type, op type or shape; across the cards every one
    but task type), a name filter and the table."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: TabSession | None = None
        self.cards: list[TabCard] = []
        self.across: list[OperatorAcrossCards] | None = None  # every operator across the cards, once a session
        self.data = None  # the ShownData: whether there are slices to highlight
        self._kind_rows_of: dict[tuple[int, bool], list[dict]] = {}  # per (card, by shape): its rows with tasks
        self.scope = QtWidgets.QComboBox()
        self.grouping = QtWidgets.QComboBox()
        self.grouping.addItem("by name", BY_NAME)
        self.grouping.addItem("by task type", BY_TYPE)
        self.grouping.addItem("by op type", BY_OP_TYPE)
        self.grouping.addItem("by shape", BY_SHAPE)
        self.filter = QtWidgets.QLineEdit()
        self.filter.setPlaceholderText("Filter by name…")
        self.filter.setClearButtonEnabled(True)
        export = QtWidgets.QPushButton("Export CSV…")
        export.clicked.connect(self._export_dialog)
        self.note = QtWidgets.QLabel("No trace open.")
        self.note.setWordWrap(True)  # a long note wraps rather than widening the window
        self.model = RecordTableModel(CARD_COLUMNS, self)
        self.proxy, self.table = sortable_table(self.model, self)
        self.table.horizontalHeader().setStretchLastSection(True)
        RefitOnResize(self.table, self._fit_columns)
        self.table.doubleClicked.connect(lambda index: self.open_row(self.proxy.mapToSource(index).row()))
        self.scope.currentIndexChanged.connect(self.refresh)
        self.grouping.currentIndexChanged.connect(self.refresh)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        bar = QtWidgets.QHBoxLayout()
        for w in (QtWidgets.QLabel("Operators of"), self.scope, self.grouping, self.filter):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(export)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.note)
        lay.addWidget(self.table, 1)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """The operators of the data shown: across the cards as its session computed them (else here, once),
        and each card's tables."""
        self.data = data
        self.session, self.cards = data.session, data.cards
        self._kind_rows_of = {}
        self.across = data.operators_across() if data.operators_across is not None else None
        refill(self.scope, scope_items(self.cards, "all cards (compared)", ACROSS))
        self.refresh()

    def show_note(self, text: str) -> None:
        self.note.setText(text)

    def clear(self) -> None:
        self.session, self.cards, self.across = None, [], None
        self._kind_rows_of = {}
        self.scope.clear()
        self.model.set_rows([])
        self.note.setText("No trace open.")

    # ------------------------------------------------------------------ content
    def refresh(self) -> None:
        if self.session is None or self.scope.count() == 0:
            return
        number = self.scope.currentData()
        self._offer_task_types(number != ACROSS)
        if number == ACROSS and self.grouping.currentData() in (BY_OP_TYPE, BY_SHAPE):
            self._show_across_kinds(self.grouping.currentData() == BY_SHAPE)
        elif number == ACROSS:
            across = self._across()
            verdicts = operator_verdicts(across, self._median_span_ns())
            rows = [across_row(o, verdicts.get(o.name)) for o in across]
            self.model.set_rows(rows, ACROSS_COLUMNS)
            marked = sum(bool(r[MARKED]) for r in rows)
            self.note.setText(f"{len(rows)} operators over {len(self.cards)} cards: an operator much slower on one "
                              f"card has a large max / mean; {marked} stand out on one card beyond what chance "
                              "gives so many operators and cards, marked in red. "
                              + self._open_hint("on the card with the max"))
        elif self.grouping.currentData() in (BY_OP_TYPE, BY_SHAPE):
            self._show_kernels(number, self.grouping.currentData() == BY_SHAPE)
        else:
            ops = self._operators(number)
            by_type = self.grouping.currentData() == BY_TYPE
            table = None if ops is None else (ops.by_type if by_type else ops.by_name)
            rows = [] if table is None else table.rows(BY_TYPE if by_type else BY_NAME, limit=None)
            self.model.set_rows(rows, TYPE_COLUMNS if by_type else CARD_COLUMNS)
            total = table.compute_total_ns / 1e6 if table is not None else 0.0
            self.note.setText(f"{len(rows)} {'task types' if by_type else 'operators'}, {total:.3f} ms of compute"
                              + ("" if by_type else ". " + self._open_hint("")))
        keys = [c.key for c in self.model.columns]
        by_total = next((keys.index(k) for k in ("total_us", "mean_total_us") if k in keys), 2)
        self.table.sortByColumn(by_total, QtCore.Qt.SortOrder.DescendingOrder)
        self._fit_columns()

    def _fit_columns(self) -> None:
        # a narrow window still shows why a cell is marked; a wide one gives the names their room (by shape: the
        # shapes, which run longer than the op types beside them)
        keys = [c.key for c in self.model.columns]
        if SHAPES in keys:
            fit_columns(self.table, widest=SHAPES_WIDEST, name_column=keys.index(SHAPES))
        else:
            fit_columns(self.table, widest=NAME_WIDEST, name_column=0)

    def _offer_task_types(self, offered: bool) -> None:
        """Task types are a card's hardware queues, not compared across cards: their choice is offered for one
        card only (picked when the scope changes to all cards, it becomes "by name")."""
        item = self.grouping.model().item(self.grouping.findData(BY_TYPE))
        item.setEnabled(offered)
        if not offered and self.grouping.currentData() == BY_TYPE:
            self.grouping.blockSignals(True)
            self.grouping.setCurrentIndex(self.grouping.findData(BY_NAME))
            self.grouping.blockSignals(False)

    def _show_across_kinds(self, by_shape: bool) -> None:
        """Op types (or shapes) across the cards, as the session compares them, its slow_operator verdicts marked."""
        across: list[OpTypeAcrossCards] = (self.session.shapes_across_cards if by_shape
                                           else self.session.op_types_across_cards)
        rows = [kind_row(o) for o in across]
        self.model.set_rows(rows, SHAPE_ACROSS_COLUMNS if by_shape else OP_TYPE_ACROSS_COLUMNS)
        marked = sum(bool(o.verdicts) for o in across)
        compared = max((len(o.per_card_us) for o in across), default=0)
        what = "shapes (op type, input shapes)" if by_shape else "op types"
        cut = (" A shape beyond a card's top rows is not known there and is left out of its mean and min."
               if by_shape else "")
        if compared < MIN_CARDS_FOR_SLOW:
            verdicts = (f"with {compared} cards none can be named slow on one: the slow_operator rule needs "
                        f"{MIN_CARDS_FOR_SLOW}")
        else:
            verdicts = (f"{marked or 'none'} {'runs' if marked == 1 else 'run'} slower on one card by the "
                        "slow_operator rule (mean task time against the other cards', the card's common factor "
                        "divided out), marked in red")
        self.note.setText(
            f"{format_number(len(rows))} {what} over {compared} cards, compared by their total on each card (every "
            f"node name of a type summed); {verdicts}.{cut} " + self._open_hint("on the card with the max"))

    def _show_kernels(self, number: int, by_shape: bool) -> None:
        """The card's compute tasks by op type or by shape (metrics.md §7.1), with FLOPs, TFLOPS and MFU."""
        card = next((c for c in self.cards if c.number == number), None)
        table = getattr(self.session.analyse(number, ("kernels",)), "kernels", None)
        if card is None or card.store is None or table is None:
            self.model.set_rows([], SHAPE_COLUMNS if by_shape else OP_TYPE_COLUMNS)
            self.note.setText("Op types need the card's trace: this card is shown from its summary.")
            return
        rows = self._kind_rows(card, table, by_shape)
        self.model.set_rows(rows, SHAPE_COLUMNS if by_shape else OP_TYPE_COLUMNS)
        peak = chip_peak(table.device)
        what = "shapes" if by_shape else "op types"
        self.note.setText(f"{format_number(len(rows))} {what} over {format_number(len(table))} compute tasks, "
                          f"described by {table.source} ({format_number(table.described)} of them; the others by "
                          "name); "
                          + (f"MFU against {table.device}'s {peak.tflops:g} TFLOPS" if peak
                             else "no known peak for this chip: no MFU") + ". " + self._open_hint(""))

    def _operators(self, number: int):
        a = self.session.analyse(number, ("operators",))
        return a.operators

    def _across(self) -> list[OperatorAcrossCards]:
        """Every operator across the cards (computed once per session, in the tab's card order)."""
        if self.across is None:
            labelled = [(c.card, self._operators(c.number)) for c in self.cards]
            self.across = operators_across_cards([x for x in labelled if x[1] is not None], limit=None)
        return self.across

    def _median_span_ns(self) -> float:
        """The cards' median span (ns): an operator's excess must be 1 % of it to be marked."""
        return median_span_ns([c.t_end - c.t_origin for c in self.cards])

    def _open_hint(self, where: str) -> str:
        if self.data is not None and not self.data.has_slices:
            return f"Double-click one to {self.data.click_opens}{self.data.without_slices}."
        if where:
            return f"Double-click one to see it {where}."
        return "Double-click one to highlight its slices; Enter steps."

    def open_row(self, row: int) -> JumpTarget | None:
        """Highlight the operator of model row ``row`` on its card; returns the target sent."""
        if not 0 <= row < len(self.model.rows):
            return None
        record = self.model.rows[row]
        name = record.get("name")
        number = self.scope.currentData()
        if record.get(SLICES) is not None:  # an op type or a shape: its tasks
            return self._open_tasks(number, record)
        if number == ACROSS and "op_type" in record:  # an op type or a shape across the cards
            return self._open_across_kind(record)
        if name is None:  # task types are no operator to find
            return None
        if number == ACROSS:
            number = next((c.number for c in self.cards if c.card == record["max_card_name"]), None)
        card = next((c for c in self.cards if c.number == number), None)
        return None if card is None else self._jump(card, name)

    def _open_across_kind(self, record: dict) -> JumpTarget | None:
        """The tasks of an op type (or shape) on the card with its max: that card's by-op-type (by-shape) rows of
        the key gathered (an op type runs on several core types)."""
        card = next((c for c in self.cards if c.card == record["max_card_name"]), None)
        if card is None:
            return None
        by_shape = record.get("input_shapes") is not None
        kernels = None if card.store is None else self.session.analyse(card.number, ("kernels",))
        table = getattr(kernels, "kernels", None)
        if table is None:  # a summarised card: open it, no slices to show
            return self._jump(card, record["op_type"])
        rows = [r for r in self._kind_rows(card, table, by_shape) if r["op_type"] == record["op_type"]
                and (not by_shape or r["input_shapes"] == record["input_shapes"])]
        slices = np.sort(np.concatenate([r[SLICES] for r in rows])) if rows else np.zeros(0, np.int64)
        return self._open_tasks(card.number, {**record, SLICES: slices})

    def _kind_rows(self, card: TabCard, table, by_shape: bool) -> list[dict]:
        """The card's rows by op type (by shape) with their tasks, once per card and grouping."""
        key = (card.number, by_shape)
        if key not in self._kind_rows_of:
            self._kind_rows_of[key] = kernel_view_rows(card.store, table, by_shape)
        return self._kind_rows_of[key]

    def _open_tasks(self, number: int, record: dict) -> JumpTarget | None:
        card = next((c for c in self.cards if c.number == number), None)
        if card is None:
            return None
        label = " ".join(x for x in (record.get("op_type"), record.get("input_shapes")) if x)
        return self._jump(card, label, record[SLICES])

    def _jump(self, card: TabCard, name: str, slices=None) -> JumpTarget:
        """Show ``name`` (its ``slices`` highlighted, when given) on ``card``'s whole span; the target sent."""
        target = JumpTarget(card.number, card.t_origin, max(card.t_end, card.t_origin + 1), name=name, slices=slices)
        self.jumpRequested.emit(target)
        return target

    def export_csv(self, path: Path) -> None:
        Path(path).write_text(self.model.to_csv(), encoding="utf-8")

    def _export_dialog(self) -> None:
        ask_and_export_csv(self, "Export the operator table", "operators.csv", self.export_csv)
