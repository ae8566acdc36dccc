"""Esc out of a menu gives the keys back to the widget that had them (the timeline, usually).

Qt leaves the menu bar in its keyboard mode when Esc closes a menu: the bar keeps the focus with a title
highlighted, so the arrow keys walk the menus (and Down opens one) instead of moving on the timeline. Once
a menu closes with no other one open, the bar is sent the key that ends that mode, and the focus goes back
to where it was before the menu opened."""

from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets


class MenuFocus(QtCore.QObject):
    """Watches the menus of ``bar``; ``fallback`` takes the keys when the widget that had them is gone."""

    def __init__(self, bar: QtWidgets.QMenuBar, fallback: QtWidgets.QWidget) -> None:
        super().__init__(bar)
        self.bar = bar
        self.fallback = fallback
        self._before: QtWidgets.QWidget | None = None
        for action in bar.actions():
            menu = action.menu()
            if menu is not None:
                menu.aboutToShow.connect(self._remember)
                menu.aboutToHide.connect(lambda: QtCore.QTimer.singleShot(0, self.release))

    def _remember(self) -> None:
        focus = QtWidgets.QApplication.focusWidget()
        if focus is not None and focus is not self.bar and not isinstance(focus, QtWidgets.QMenu):
            self._before = focus  # the first menu of a walk along the bar: later ones find the bar focused

    def release(self) -> None:
        """After a menu closed: out of the bar's keyboard mode unless another menu is open (the user walked
        to it) or the bar holds no title (an item was chosen)."""
        if QtWidgets.QApplication.activePopupWidget() is not None or self.bar.activeAction() is None:
            return
        escape = QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_Escape,
                                 QtCore.Qt.KeyboardModifier.NoModifier)
        QtWidgets.QApplication.sendEvent(self.bar, escape)
        before, self._before = self._before, None
        usable = before is not None and shiboken6.isValid(before) and before.isVisible()
        target = before if usable else self.fallback
        if target.isVisible():
            target.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
