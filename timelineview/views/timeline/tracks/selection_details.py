"""How the details panel shows a selection made on a lane kind; the registry names one per kind.

Each function takes the panel (a :class:`DetailsHost`: its slice and area views), the timeline's state and
the selection, fills the view that shows it and returns that view. The panel keeps no branch per kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6 import QtWidgets

from timelineview.viewstate.timeline.view_state import AreaSelection, InstantRef, SliceRef, ViewState


class DetailsHost(Protocol):
    """The details panel's views that a selection is shown in."""

    slice: Any  # SliceDetails: show_slice, show_instant
    area: Any  # AreaStats: show_area


DetailsView = Callable[[DetailsHost, ViewState, Any], QtWidgets.QWidget]


def slice_details(host: DetailsHost, state: ViewState, sel: SliceRef) -> QtWidgets.QWidget:
    card = state.card_by_number(sel.card)
    host.slice.show_slice(card, sel.index, state.card_shift(card))
    return host.slice


def instant_details(host: DetailsHost, state: ViewState, sel: InstantRef) -> QtWidgets.QWidget:
    card = state.card_by_number(sel.card)
    host.slice.show_instant(card, sel.index, state.card_shift(card))
    return host.slice


def area_details(host: DetailsHost, state: ViewState, sel: AreaSelection) -> QtWidgets.QWidget:
    host.area.show_area(sel, state.cards, state.card_shift)
    return host.area
