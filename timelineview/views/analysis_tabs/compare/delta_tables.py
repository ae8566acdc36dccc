"""The Compare tab's tables: per-card deltas, operators, collectives and links base → new, coloured by
faster (green) or slower (red) and sortable as numbers. Every row comes from the
``RunDiff`` (``analysis.diff.run_diff``): nothing is computed here."""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from timelineview.analysis.diff.link_diff import LinkDelta
from timelineview.analysis.diff.run_diff import COMM_KEYS, MEMORY_KEYS, PHASE_KEYS, CardDelta, NameDelta
from timelineview.analysis.vocabulary import label, quantity
from timelineview.analysis.vocabulary.number_text import DEFAULT_DECIMALS, format_number
from timelineview.views.analysis_tabs.compare.phase_bars import CHANGE_SHARE, FASTER_COLOUR, SLOWER_COLOUR
from timelineview.views.analysis_tabs.record_table import COUNT, TEXT, TIME_US, RecordColumn, RecordTableModel
from timelineview.viewstate.tabs.paired_bars import phase_title

DELTA_PREFIX = "delta"
BASE_PREFIX = "base_"
GBPS = "gbps"  # a bandwidth, 10⁹ bytes per second
MEGABYTES = "mb"  # memory, 2^20 bytes
PER_STEP, WHOLE_RUN = "mean per step", "whole run"  # what a card column's number is


def base_and_new(key: str, title: str, kind: str) -> tuple[RecordColumn, RecordColumn]:
    """The columns ``base_<key>`` and ``new_<key>``: ``title`` of the base run, then of the new one."""
    return RecordColumn(f"{BASE_PREFIX}{key}", f"Base {title}", kind), RecordColumn(f"new_{key}", f"New {title}", kind)


NAME_COLUMNS = (
    RecordColumn("name", "Name", TEXT),
    RecordColumn("delta_us", "Change", TIME_US, "new − base total over the matched cards (red: slower, green: faster)"),
    *base_and_new("total_us", "total", TIME_US),
    *base_and_new("count", "count", COUNT),
    RecordColumn("status", label("status"), TEXT, quantity("status").tooltip),
)

# by op type (§7.1): the op type in ``name``; by (op type, input shapes): the shapes beside it
OP_TYPE_COLUMNS = (RecordColumn("name", "Op type", TEXT, "the compute tasks' op type"), *NAME_COLUMNS[1:])
OP_SHAPE_COLUMNS = (OP_TYPE_COLUMNS[0],
                    RecordColumn("input_shapes", "Input shapes", TEXT, "the tasks' input shapes (empty: the "
                                 "capture gives none)"),
                    *NAME_COLUMNS[1:])

# (key of CardDelta.base/new/delta, column title) of the whole-run columns; the step phases come first
WHOLE_RUN_METRICS = tuple((k, label(k)) for k in ("compute_us", "communication_us", "pure_communication_us",
                                                   "free_us", "idle_gap_total_us"))
COMM_METRICS = tuple((k, label(k)) for k in COMM_KEYS)
MEMORY_TITLES = {k: label(k) for k in ("memory_peak_allocated_mb", "memory_peak_reserved_mb")}
TOOLTIPS = {
    "idle_gap_total_us": "new − base of the total length of the idle device compute gaps (AI Core gaps on Ascend, GPU "
                         "gaps on a GPU) over the whole run (a time, not a count)",
    "transit_us": "new − base of the producer's transit (each collective's main plane), whole run (§6)",
    "wait_us": "new − base of the producer's wait (each collective's main plane), whole run (§6)",
    "synchronization_us": "new − base of the producer's synchronisation: the waits before each collective's first "
                          "transfer on its main plane, whole run (§6)",
    "idle_us": "new − base of the producer's idle: elapse − transit − wait of each collective, whole run (§6)",
    "memory_peak_allocated_mb": "new − base of the card's allocated device memory at its peak (PTA's when the "
                                "capture has it), MB (§11)",
    "memory_peak_reserved_mb": "new − base of the card's peak reserved device memory, MB (§11)",
}


def _phase_title(key: str) -> str:
    return phase_title(key)


def card_columns(phase_keys: tuple[str, ...] = PHASE_KEYS) -> tuple[RecordColumn, ...]:
    """Card, the mean step time of both runs, then new − base of each step phase (mean per step), of the
    whole-card metrics and of the communication totals (whole run); each header says which."""
    return (
        RecordColumn("card", "Card", TEXT, "base card (vs the new run's card when matched in rank order)"),
        RecordColumn("base_step_time_us", f"Base step ({PER_STEP})", TIME_US, "mean step time of the base run"),
        RecordColumn("new_step_time_us", f"New step ({PER_STEP})", TIME_US, "mean step time of the new run"),
        *(RecordColumn(f"{DELTA_PREFIX}_{key}", f"Δ {_phase_title(key)} ({PER_STEP})", TIME_US,
                       "new − base of the mean over steps") for key in phase_keys),
        *(RecordColumn(f"{DELTA_PREFIX}_{key}", f"Δ {title} ({WHOLE_RUN})", TIME_US,
                       TOOLTIPS.get(key, "new − base over the whole run")) for key, title in WHOLE_RUN_METRICS),
        *(RecordColumn(f"{DELTA_PREFIX}_{key}", f"Δ {title} ({WHOLE_RUN})", TIME_US, TOOLTIPS[key])
          for key, title in COMM_METRICS),
        *(RecordColumn(f"{DELTA_PREFIX}_{key}", f"Δ {MEMORY_TITLES[key]}, MB ({WHOLE_RUN})", MEGABYTES,
                       TOOLTIPS[key])
          for key in MEMORY_KEYS),
    )


CARD_COLUMNS = card_columns()

LINK_COLUMNS = (
    RecordColumn("key", "Link", TEXT, "src-dst ranks (base vs new when the cards were matched in rank order)"),
    RecordColumn("delta_cost_us", "Cost of the bandwidth change", TIME_US,
                 "transit time the change of bandwidth adds at the base run's bytes: base bytes ÷ new bandwidth − "
                 "base transit (the links are ordered by its size; red: slower)"),
    RecordColumn("delta_bandwidth_gbps", "Δ bandwidth", GBPS, "new − base (red: lower)"),
    *base_and_new("bandwidth_gbps", "bandwidth", GBPS),
    RecordColumn("delta_transit_us", "Δ transit", TIME_US, "new − base of the time its transfers take, whole run"),
    *base_and_new("transit_us", "transit", TIME_US),
    *base_and_new("bytes", "bytes", COUNT),
)
UNITS = {GBPS: "GB/s", MEGABYTES: "MB"}  # kind: the unit its numbers are shown in
HIGHER_IS_FASTER = frozenset({"delta_bandwidth_gbps"})  # change columns where more is better
# the base value a change column is measured against (else ``base_<key>`` when the record has it)
REFERENCE = {"delta_cost_us": "base_transit_us"}


def card_label(card: CardDelta) -> str:
    return card.card if card.new_card == card.card else f"{card.card} vs {card.new_card}"


def card_records(cards: list[CardDelta], phase_keys: tuple[str, ...] = PHASE_KEYS) -> list[dict]:
    """One record per matched card, in the order given (the diff's: own compute / step interval change first):
    its mean step time in both runs and every delta of :func:`card_columns`."""
    out = []
    keys = (*phase_keys, *(k for k, _ in WHOLE_RUN_METRICS), *COMM_KEYS, *MEMORY_KEYS)
    for c in cards:
        delta = c.delta
        record = {"card": card_label(c), "base_step_time_us": c.base.get("step_time_us"),
                  "new_step_time_us": c.new.get("step_time_us")}
        record.update({f"{DELTA_PREFIX}_{key}": delta.get(key) for key in keys})
        # what each change is of: a change within CHANGE_SHARE of it stays plain, as in the bars
        record.update({f"{BASE_PREFIX}{key}": c.base.get(key) for key in keys})
        out.append(record)
    return out


def name_records(rows: list[NameDelta]) -> list[dict]:
    return [r.document() for r in rows]


def link_records(links: list[LinkDelta]) -> list[dict]:
    """One record per link of the diff, in its order (largest cost of the change first)."""
    out = []
    for x in links:
        record = {"key": x.key if x.new_key == x.key else f"{x.key} vs {x.new_key}",
                  "delta_cost_us": x.bandwidth_cost_us}
        delta = x.delta
        for field in ("bandwidth_gbps", "transit_us", "bytes"):
            record[f"{BASE_PREFIX}{field}"] = None if x.base is None else getattr(x.base, field)
            record[f"new_{field}"] = None if x.new is None else getattr(x.new, field)
            if field != "bytes":
                record[f"delta_{field}"] = delta[field]
        out.append(record)
    return out


class DeltaTableModel(RecordTableModel):
    """Records whose change columns (keys starting with ``delta``) are red when the new run is slower (takes
    longer; for a bandwidth, moves less) and green when it is faster."""

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if not index.isValid():
            return None
        col = self.columns[index.column()]
        value = self.rows[index.row()].get(col.key)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole:
            if col.key.startswith(DELTA_PREFIX) and self._changed(index.row(), col.key, value):
                slower = value < 0 if col.key in HIGHER_IS_FASTER else value > 0
                return QtGui.QBrush(QtGui.QColor(SLOWER_COLOUR if slower else FASTER_COLOUR))
            return None
        if role == QtCore.Qt.ItemDataRole.DisplayRole and col.kind in UNITS:
            if value is None:
                return "—"
            # the window's one number format; a change is signed when it is not 0 as shown
            grew = col.key.startswith(DELTA_PREFIX) and round(float(value), DEFAULT_DECIMALS) > 0
            return f"{format_number(float(value), sign=grew)} {UNITS[col.kind]}"
        text = super().data(index, role)
        if role == QtCore.Qt.ItemDataRole.DisplayRole and col.kind == TIME_US and col.key.startswith(DELTA_PREFIX) \
                and value is not None and value > 0:
            return f"+{text}"  # signed like a decrease ("-2.9 ms") and like the bars' "+1.2 ms"
        return text

    def _changed(self, row: int, key: str, value) -> bool:
        """A change worth a colour: beyond :data:`CHANGE_SHARE` of its base value when the record has one
        (float noise of an unchanged value stays plain), else any non-zero change."""
        if not value:
            return False
        base = self.rows[row].get(REFERENCE.get(key, BASE_PREFIX + key.removeprefix(DELTA_PREFIX + "_")))
        return base is None or abs(value) > CHANGE_SHARE * abs(base)

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        if column >= 0:  # -1: no column chosen (the comparison's own order stays)
            super().sort(column, order)
