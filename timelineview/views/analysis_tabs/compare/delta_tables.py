"""The Compare tab's tables: per-card deltas, operators and collectives base → new, coloured by
faster (green) or slower (red) and sortable as numbers (issue 14)."""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from timelineview.analysis.run_diff import CardDelta, NameDelta
from timelineview.views.analysis_tabs.compare.phase_bars import FASTER_COLOUR, SLOWER_COLOUR
from timelineview.views.analysis_tabs.record_table import COUNT, TEXT, TIME_US, RecordColumn, RecordTableModel

DELTA_PREFIX = "delta"

NAME_COLUMNS = (
    RecordColumn("name", "Name", TEXT),
    RecordColumn("delta_us", "Change", TIME_US, "new − base total over the matched cards (red: slower, green: faster)"),
    RecordColumn("base_total_us", "Base total", TIME_US),
    RecordColumn("new_total_us", "New total", TIME_US),
    RecordColumn("base_count", "Base count", COUNT),
    RecordColumn("new_count", "New count", COUNT),
    RecordColumn("status", "", TEXT, "added: only in the new run; removed: only in the base run"),
)

# (key of CardDelta.base/new/delta, column title)
CARD_METRICS = (("step_time_us", "step time"), ("step_interval_us", "step interval"), ("fp_bp_us", "FP+BP"),
                ("tail_us", "tail"), ("compute_us", "compute"), ("communication_us", "communication"),
                ("pure_communication_us", "pure comm."), ("free_us", "free"), ("idle_gap_total_us", "idle gaps"))
CARD_COLUMNS = (
    RecordColumn("card", "Card", TEXT),
    RecordColumn("base_step_time_us", "Base step", TIME_US, "mean step time of the base run"),
    RecordColumn("new_step_time_us", "New step", TIME_US, "mean step time of the new run"),
    *(RecordColumn(f"{DELTA_PREFIX}_{key}", f"Δ {title}", TIME_US,
                   "new − base" + (" (mean over steps)" if i < 4 else " (whole card)"))
      for i, (key, title) in enumerate(CARD_METRICS)),
)


def card_records(cards: list[CardDelta]) -> list[dict]:
    """One record per matched card: its mean step time in both runs and every delta of :data:`CARD_METRICS`."""
    out = []
    for c in cards:
        delta = c.delta
        record = {"card": c.card, "base_step_time_us": c.base.get("step_time_us"),
                  "new_step_time_us": c.new.get("step_time_us")}
        record.update({f"{DELTA_PREFIX}_{key}": delta.get(key) for key, _ in CARD_METRICS})
        out.append(record)
    return out


def name_records(rows: list[NameDelta]) -> list[dict]:
    return [r.document() for r in rows]


class DeltaTableModel(RecordTableModel):
    """Records whose change columns (keys starting with ``delta``) are red when the new run takes
    longer and green when it takes less."""

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and index.isValid():
            col = self.columns[index.column()]
            value = self.rows[index.row()].get(col.key)
            if col.key.startswith(DELTA_PREFIX) and value:
                return QtGui.QBrush(QtGui.QColor(SLOWER_COLOUR if value > 0 else FASTER_COLOUR))
            return None
        return super().data(index, role)

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        if column >= 0:  # -1: no column chosen (the comparison's own order stays)
            super().sort(column, order)
