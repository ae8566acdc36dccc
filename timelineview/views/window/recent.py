"""The recently opened paths: kept in the settings, listed in File ▸ Open recent, the dialogs' start folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtWidgets

MAX_RECENT = 10
SETTINGS_KEY = "recent"


class RecentPaths:
    """The recent paths of ``settings`` in ``menu``; choosing one calls ``open_path``."""

    def __init__(self, settings: QtCore.QSettings, menu: QtWidgets.QMenu,
                 open_path: Callable[[Path], None]) -> None:
        self.settings, self.menu, self.open_path = settings, menu, open_path
        self.fill()

    def paths(self) -> list[str]:
        value = self.settings.value(SETTINGS_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def remember(self, paths: list[Path]) -> None:
        """``paths`` first in the list (once each), at most :data:`MAX_RECENT` kept."""
        recent = self.paths()
        for p in reversed(paths):
            s = str(Path(p).resolve())
            if s in recent:
                recent.remove(s)
            recent.insert(0, s)
        self.settings.setValue(SETTINGS_KEY, recent[:MAX_RECENT])
        self.fill()

    def fill(self) -> None:
        self.menu.clear()
        recent = self.paths()
        for p in recent:
            a = self.menu.addAction(p)
            a.triggered.connect(lambda *_, p=p: self.open_path(Path(p)))
        self.menu.setEnabled(bool(recent))

    def last_dir(self) -> str:
        """Where the open dialogs start: the folder of the last path opened, else home."""
        recent = self.paths()
        return str(Path(recent[0]).parent) if recent else str(Path.home())
