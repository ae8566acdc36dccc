"""Fixtures of the view tests: small cards, a shown timeline, a main window with scratch settings."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6 import QtCore  # noqa: E402

from tests.views.factory import ascend_card  # noqa: E402
from tests.views.main_window_fixture import SIZE, shown_main_window  # noqa: E402
from timelineview.viewstate.card_view import prepare_card  # noqa: E402


@pytest.fixture(scope="module")
def cards():
    """Two msprof-like cards (analysis done once per module; views must not mutate them)."""
    return [prepare_card(ascend_card("rank 0", 0, seed=1), 0),
            prepare_card(ascend_card("rank 1", 1, seed=2), 1)]


@pytest.fixture
def timeline(qtbot, cards):
    for c in cards:
        c.offset_ns = 0
    return show_timeline(qtbot, cards)


def show_timeline(qtbot, cards):
    """A shown timeline widget holding ``cards``, every lane visible."""
    from timelineview.views.timeline.widget import TimelineWidget

    w = TimelineWidget()
    qtbot.addWidget(w)
    w.resize(*SIZE)
    w.show()
    qtbot.waitExposed(w)
    w.set_cards(cards)
    w.collapsed.clear()  # every lane visible: tests address slices by lane
    w.rebuild_layout()
    return w


@pytest.fixture
def settings(tmp_path):
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings):
    return shown_main_window(qtbot, settings)
