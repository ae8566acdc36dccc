"""What the analysis-tab tests share: a cluster opened in the window, then one of its analysis tabs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.views.main_window_fixture import open_and_wait

TAB_READY_TIMEOUT_MS = 10_000


@pytest.fixture
def open_tab(qtbot, window, tmp_path, monkeypatch) -> Callable:
    """``open_tab(folder, name, ready)``: opens ``folder`` in the window (with a card cache of this test
    alone) and returns its analysis tab ``name`` once ``ready(tab)`` holds."""
    monkeypatch.setenv("TIMELINEVIEW_CACHE", str(tmp_path / "cache"))

    def open_(folder: Path, name: str, ready: Callable[[object], bool]):
        open_and_wait(qtbot, window, folder)
        tab = window.cluster.analysis.widgets[name]
        qtbot.waitUntil(lambda: ready(tab), timeout=TAB_READY_TIMEOUT_MS)
        return tab

    return open_
