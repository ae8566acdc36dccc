"""Fixtures of the cluster views' tests."""

from __future__ import annotations

import pytest

from timelineview.views.cluster.heat_map import HeatMapView


@pytest.fixture
def heat(qtbot):
    """A heat map shown at 900×500 px."""
    view = HeatMapView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    return view
