"""QueryView: SQL (DuckDB) over the run on screen, as in Perfetto's query page.

The tables are those of ``timelineview query`` (docs/sql.md), built from the window's own stores and
analysis. A query runs as a job, off the GUI thread (Run, Ctrl+Enter; Cancel interrupts DuckDB); the rows show
in a sortable table, the first ``DISPLAY_CAP`` of them; double-clicking a row with a slice ``id`` and its
``card`` shows that slice on the timeline.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.api.tables import TABLES
from timelineview.views.jobs.job import Job, JobContext
from timelineview.views.jobs.runner import JobHandle, JobRunner
from timelineview.views.sort_arrows import conventional_sort_arrows
from timelineview.viewstate.jump_target import JumpTarget

QUERY = "query"  # the lane of the tab's query
DISPLAY_CAP = 10_000  # rows shown; the count says how many the query has
SUMMARY_TABLES = ("A summary keeps no trace: its slices, counters, flows and instants are empty; cards, steps, "
                  "operators, task_types, comm_ops, links and findings hold its numbers.")
DEFAULT_QUERY = ("select name, count(*) as count, sum(dur_ns) / 1e3 as total_us\nfrom slices\n"
                 "group by name\norder by total_us desc\nlimit 100")
ID_COLUMN, CARD_COLUMN = "id", "card"
MIN_SPAN_NS = 1
ERROR_COLOUR = "#c0392b"
SHUTDOWN_WAIT_S = 10.0  # at most, for DuckDB to stop an interrupted query when the application quits


def _sort_key(value: Any) -> tuple:
    """Rows sort by value (nulls are set apart, last): numbers as numbers, the rest as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    try:
        return (0, float(value), "")  # decimals of DuckDB's sums
    except (TypeError, ValueError):
        return (1, 0, str(value))


def cell_text(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):  # the window's one number format, as the text tables print it
        return format_number(value)
    return str(value)


class QueryRowsModel(QtCore.QAbstractTableModel):
    """The rows of a query result; sorting reorders them here (by value, nulls last)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.columns: list[str] = []
        self.rows: list[tuple] = []

    def set_result(self, columns: list[str], rows: list[tuple]) -> None:
        self.beginResetModel()
        self.columns, self.rows = list(columns), list(rows)
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:  # noqa: B008, N802 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index, role=QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        value = self.rows[index.row()][index.column()]
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return cell_text(value)
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and isinstance(value, (int, float)):
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=QtCore.Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return self.columns[section] if section < len(self.columns) else None
        return None

    def sort(self, column: int, order=QtCore.Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns):
            return
        self.layoutAboutToBeChanged.emit()
        descending = order == QtCore.Qt.SortOrder.DescendingOrder
        nulls = [r for r in self.rows if r[column] is None]  # last either way
        values = sorted((r for r in self.rows if r[column] is not None), key=lambda r: _sort_key(r[column]),
                        reverse=descending)
        self.rows = values + nulls
        self.layoutChanged.emit()


class QueryView(QtWidgets.QWidget):
    """A SQL box, Run / Cancel, a note (the row count, or why the query failed) and the rows."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget
    queryFinished = QtCore.Signal()  # a query's rows or error are shown (tests wait on it)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.api_session = None  # timelineview.api.Session of the run on screen
        self.summarised = False  # the data shown is a summary folder (its trace tables are empty)
        self.engine = None  # its SqlEngine, made on the first query
        self.running = False
        self.jobs = JobRunner(self)  # the query runs as a job; a new data set drops the running one's rows
        self.jobs.finished.connect(self._finished)
        self.query_job: JobHandle | None = None
        self.error = ""  # why the last query did not run ("" when it did)
        self.editor = QtWidgets.QPlainTextEdit(DEFAULT_QUERY)
        self.editor.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.editor.setToolTip(f"SQL (DuckDB) over {', '.join(TABLES)}; Ctrl+Enter runs it")
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.setToolTip("Run the query (Ctrl+Enter)")
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.note = QtWidgets.QLabel("No trace open.")
        self.note.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # DuckDB's messages quote SQL: no markup
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = QueryRowsModel(self)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        conventional_sort_arrows(self.table)  # the arrows point the way the rows run, as the other tables
        self.table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.AscendingOrder)  # as DuckDB gave
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.doubleClicked.connect(lambda index: self.open_row(index.row()))
        app = QtCore.QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self.run_button.clicked.connect(self.run_query)
        self.cancel_button.clicked.connect(self.cancel)
        self.editor.installEventFilter(self)  # Ctrl+Enter runs the query rather than breaking the line
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.note, 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.editor)
        split.addWidget(self.table)
        split.setStretchFactor(1, 3)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(split, 1)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if (watched is self.editor and event.type() == QtCore.QEvent.Type.KeyPress
                and event.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)
                and event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier):
            self.run_query()
            return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        self.summarised = not data.has_slices  # a summary folder: the tables read from traces are empty
        self._use(data.query_session())

    def clear(self) -> None:
        self._use(None)
        self._say("No trace open.")

    def _use(self, api_session) -> None:
        self.cancel()
        self.jobs.supersede(QUERY)  # a query still running answers for the run it was asked of: dropped
        self._idle()
        self.api_session, self.engine = api_session, None
        self.model.set_result([], [])
        if api_session is not None:
            self._say("Write a query (docs/sql.md lists the tables) and press Run or Ctrl+Enter."
                      + (f" {SUMMARY_TABLES}" if self.summarised else ""))

    # ------------------------------------------------------------------ running
    def run_query(self) -> None:
        """Run the editor's query on a thread of its own; the rows (or the error) show when it ends."""
        if self.api_session is None:
            self._say("No trace open.")
            return
        if self.running:
            return
        from timelineview.api import MissingExtra, SqlEngine

        try:
            if self.engine is None:
                self.engine = SqlEngine(self.api_session)
        except MissingExtra as exc:
            self._say(str(exc), error=True)
            return
        engine, sql = self.engine, self.editor.toPlainText()
        self.running = True
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._say("Running…")

        def work(ctx: JobContext):
            try:
                return engine.rows(sql, limit=DISPLAY_CAP)
            except Exception as exc:  # noqa: BLE001 - shown in the tab, whatever it is (a user's SQL may fail)
                return exc

        self.query_job = self.jobs.start(Job("A query", work), QUERY)

    def cancel(self) -> None:
        """Interrupt the query running (its rows are not shown)."""
        if self.running and self.engine is not None:
            self.engine.interrupt()

    def shutdown(self) -> None:
        """The application quits: the query running is interrupted and waited for, since a process that ends
        while DuckDB still unwinds it aborts."""
        self.cancel()
        if self.query_job is not None:
            self.query_job.done.wait(SHUTDOWN_WAIT_S)

    def _finished(self, job: JobHandle, outcome) -> None:
        from timelineview.api import QueryCancelled, QueryError

        self._idle()
        if isinstance(outcome, QueryCancelled):
            self._say("Cancelled.")
        elif isinstance(outcome, QueryError):
            self._say(str(outcome), error=True)
        elif isinstance(outcome, Exception):
            self._say(f"{type(outcome).__name__}: {outcome}", error=True)
        else:
            self.model.set_result(outcome.columns, outcome.rows)
            self.table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.AscendingOrder)
            shown = len(outcome.rows)
            count = f"{format_number(outcome.total)} row{'s' if outcome.total != 1 else ''}"
            text = count if shown == outcome.total else f"{count}, the first {format_number(shown)} shown"
            if not outcome.total and self.summarised:
                text += f". {SUMMARY_TABLES}"
            elif ID_COLUMN in outcome.columns and CARD_COLUMN in outcome.columns:
                text += ". Double-click a row to see its slice on the timeline."
            self._say(text)
            self.table.resizeColumnsToContents()
        self.queryFinished.emit()

    def _idle(self) -> None:
        self.running = False
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _say(self, text: str, error: bool = False) -> None:
        """The note: a count, or (in red, the rows cleared) why the query did not run."""
        if error:
            self.model.set_result([], [])
        self.note.setStyleSheet(f"color: {ERROR_COLOUR}" if error else "")
        self.note.setText(text)
        self.error = text if error else ""

    # ------------------------------------------------------------------ jumping
    def open_row(self, row: int) -> JumpTarget | None:
        """Show the slice of row ``row`` (its ``card`` and ``id``) on the timeline; returns the target sent."""
        if self.api_session is None or not 0 <= row < len(self.model.rows):
            return None
        columns = self.model.columns
        if ID_COLUMN not in columns or CARD_COLUMN not in columns:
            return None
        record = self.model.rows[row]
        card, index = record[columns.index(CARD_COLUMN)], record[columns.index(ID_COLUMN)]
        number = next((c.number for c in self.api_session.cards if c.card == card), None)
        if number is None or index is None or not self.api_session.stores:
            return None
        store = self.api_session.stores[number]
        index = int(index)
        if not 0 <= index < len(store.slices):
            return None
        s = store.slices
        start, lane = int(s.start[index]), int(s.lane[index])
        process = store.processes.name[int(store.lanes.process[lane])]
        target = JumpTarget(number, start, start + max(int(s.dur[index]), MIN_SPAN_NS),
                            lane=f"{process}/{store.lanes.name[lane]}", name=store.strings[int(s.name[index])])
        self.jumpRequested.emit(target)
        return target
