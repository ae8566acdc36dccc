"""SliceDetails: everything about the selected slice, its args (read lazily) and its flows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_exact, format_raw_us
from timelineview.viewstate.timeline.plane_colours import transfer_details

MAX_ARG_ITEMS = 2000
MAX_FLOW_BUTTONS = 200


def self_time(card: CardView, i: int) -> int:
    """Duration minus the time of its direct children (one level deeper, same lane, inside it)."""
    s, index = card.store.slices, card.store.index
    lane, depth = int(s.lane[i]), int(s.depth[i])
    start, end = int(s.start[i]), int(s.start[i] + s.dur[i])
    if index is None or depth + 1 >= int(index.lane_row_count[lane]):
        return int(s.dur[i])
    a, b = index.visible_span(index.row_of(lane, depth + 1), start, end)
    cs, ce = index.starts[a:b], index.ends[a:b]
    inside = (cs >= start) & (ce <= end)
    return int(s.dur[i]) - int((ce[inside] - cs[inside]).sum())


class SliceDetails(QtWidgets.QWidget):
    """Fields of one slice, args as a tree, flows with jump buttons."""

    jumpRequested = QtCore.Signal(int, int)  # card, slice

    FIELDS = ("Name", "Lane", "Start", "Start (raw µs)", "Duration", "End", "Self time", "Task type",
              "Category", "Depth")

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.values: dict[str, QtWidgets.QLabel] = {}
        form = QtWidgets.QFormLayout()
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        form.setVerticalSpacing(3)
        for f in self.FIELDS:
            lab = QtWidgets.QLabel()
            lab.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            lab.setWordWrap(True)
            lab.setMinimumWidth(80)
            lab.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
            self.values[f] = lab
            form.addRow(f + ":", lab)
        left = QtWidgets.QWidget()
        left.setLayout(form)
        self.args = QtWidgets.QTreeWidget()
        self.args.setHeaderLabels(["Arg", "Value"])
        self.args.setColumnWidth(0, 180)
        self.args.setUniformRowHeights(True)
        self.flow_box = QtWidgets.QWidget()
        self.flow_layout = QtWidgets.QVBoxLayout(self.flow_box)
        self.flow_layout.setContentsMargins(4, 4, 4, 4)
        self.flow_layout.setSpacing(2)
        self.flow_layout.addStretch(1)
        flows = QtWidgets.QScrollArea()
        flows.setWidget(self.flow_box)
        flows.setWidgetResizable(True)
        right = QtWidgets.QTabWidget()
        right.addTab(self.args, "Args")
        right.addTab(flows, "Flows")
        self.tabs = right
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setSizes([420, 520])
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(split)
        self.flow_buttons: list[QtWidgets.QPushButton] = []

    def show_slice(self, card: CardView, i: int, shift: int) -> None:
        """Fill in slice ``i`` of ``card``; ``shift`` = absolute ns of relative 0 for that card."""
        st = card.store
        s = st.slices
        name_id, tt, cat = int(s.name[i]), int(s.task_type[i]), int(s.cat[i])
        start, dur = int(s.start[i]), int(s.dur[i])
        v = self.values
        v["Name"].setText(st.strings[name_id] if name_id >= 0 else "(unnamed)")
        v["Lane"].setText(f"{card.title} / {st.lane_full_name(int(s.lane[i]))}")
        v["Start"].setText(format_exact(start - shift))
        v["Start (raw µs)"].setText(format_raw_us(start))
        v["Duration"].setText(format_exact(dur))
        v["End"].setText(format_exact(start + dur - shift))
        v["Self time"].setText(format_exact(self_time(card, i)))
        v["Task type"].setText(st.strings[tt] if tt >= 0 else "—")
        v["Category"].setText(st.strings[cat] if cat >= 0 else "—")
        v["Depth"].setText(str(int(s.depth[i])))
        self._fill_args(lambda: card.store.args(i))
        for k, (field, text) in enumerate(transfer_details(card, i)):  # a plane task's link and measured GB/s
            self.args.insertTopLevelItem(k, QtWidgets.QTreeWidgetItem([field, text]))
        self._fill_flows(card, i)

    def show_instant(self, card: CardView, k: int, shift: int) -> None:
        """Fill in the instant at position ``k`` of ``card.instants_by_lane``."""
        _, ts, _, src = card.instants_by_lane
        t = int(ts[k])
        lane = card.instant_lane(k)
        v = self.values
        v["Name"].setText(card.instant_name(k))
        v["Lane"].setText(f"{card.title} / {card.store.lane_full_name(lane)}")
        v["Start"].setText(format_exact(t - shift))
        v["Start (raw µs)"].setText(format_raw_us(t))
        v["Duration"].setText("instant")
        v["End"].setText(format_exact(t - shift))
        for f in ("Self time", "Task type", "Category", "Depth"):
            v[f].setText("—")
        self._fill_args(lambda: card.store.event_args(int(src[k])))
        self._fill_flows(card, -1)

    def _fill_args(self, read: Callable[[], dict | None]) -> None:
        """The args ``read()`` gets from the file, as a tree."""
        self.args.clear()
        try:
            args = read()
        except Exception as exc:  # a vanished or changed file must not break the panel
            args = {"(args unavailable)": str(exc)}
        if not args:
            QtWidgets.QTreeWidgetItem(self.args, ["(no args)", ""])
            return
        budget = [MAX_ARG_ITEMS]
        self._add_items(self.args.invisibleRootItem(), args, budget)
        self.args.expandToDepth(0)

    def _add_items(self, parent: QtWidgets.QTreeWidgetItem, value: Any, budget: list[int]) -> None:
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for k, x in pairs:
            if budget[0] <= 0:
                QtWidgets.QTreeWidgetItem(parent, ["…", "(truncated)"])
                return
            budget[0] -= 1
            if isinstance(x, (dict, list)) and x:
                item = QtWidgets.QTreeWidgetItem(parent, [str(k), f"({len(x)})"])
                self._add_items(item, x, budget)
            else:
                item = QtWidgets.QTreeWidgetItem(parent, [str(k), str(x)])
                item.setToolTip(1, str(x))

    def _fill_flows(self, card: CardView, i: int) -> None:
        for b in self.flow_buttons:
            b.deleteLater()
        self.flow_buttons = []
        fl, st = card.store.flows, card.store
        edges = fl.of_slice(i) if len(fl) and i >= 0 else np.zeros(0, np.int64)
        for e in edges[:MAX_FLOW_BUTTONS].tolist():
            outgoing = int(fl.src_slice[e]) == i
            other = int(fl.dst_slice[e] if outgoing else fl.src_slice[e])
            kind = st.flow_name(e)
            arrow = "→" if outgoing else "←"
            if other >= 0:
                oname = st.strings[int(st.slices.name[other])]
                text = f"{arrow} {oname}   ·   {st.lane_full_name(int(st.slices.lane[other]))}   ·   {kind}"
            else:
                text = f"{arrow} (no slice at the other end)   ·   {kind}"
            b = QtWidgets.QPushButton(text)
            b.setStyleSheet("text-align: left; padding: 3px 8px;")
            b.setEnabled(other >= 0)
            b.setToolTip("Jump to the other end of this flow")
            b.clicked.connect(lambda _=False, c=card.number, o=other: self.jumpRequested.emit(c, o))
            self.flow_layout.insertWidget(self.flow_layout.count() - 1, b)
            self.flow_buttons.append(b)
        self.tabs.setTabText(1, f"Flows ({len(edges)})")
